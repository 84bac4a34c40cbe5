/*
 * What jq needs and wasi-libc (wasm32-wasi, no threads, no filesystem, no time zone data)
 * lacks: the single-threaded pthread subset declared in include/pthread.h, realpath, and the
 * local time zone for jq's own strptime (declared in config.h): always UTC.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include "pthread.h"

char *tzname[2] = {"UTC", "UTC"};
long timezone = 0;
int daylight = 0;

void tzset(void) {}

/* Only used for module paths (jq_realpath keeps the path as given on failure). */
char *realpath(const char *path, char *resolved) {
  (void)path;
  (void)resolved;
  errno = ENOSYS;
  return NULL;
}

#define KEYS 16

static void *values[KEYS];
static unsigned next_key;

int pthread_once(pthread_once_t *once, void (*init)(void)) {
  if (!*once) {
    *once = 1;
    init();
  }
  return 0;
}

/* Destructors would run at thread exit, which never happens in a reactor module. */
int pthread_key_create(pthread_key_t *key, void (*destructor)(void *)) {
  (void)destructor;
  if (next_key >= KEYS) return EAGAIN;
  *key = next_key++;
  return 0;
}

void *pthread_getspecific(pthread_key_t key) {
  return key < KEYS ? values[key] : NULL;
}

int pthread_setspecific(pthread_key_t key, const void *value) {
  if (key >= KEYS) return EINVAL;
  values[key] = (void *)value;
  return 0;
}

int pthread_mutex_lock(pthread_mutex_t *mutex) {
  (void)mutex;
  return 0;
}

int pthread_mutex_unlock(pthread_mutex_t *mutex) {
  (void)mutex;
  return 0;
}
