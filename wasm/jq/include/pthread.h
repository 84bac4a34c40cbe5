/*
 * Single-threaded stand-in for <pthread.h> (implemented in pthread.c). wasi-libc for
 * wasm32-wasi without threads has no pthread.h, and jq only needs once-initialisation,
 * thread-specific keys and a mutex. A module instance runs one jq call at a time, so "per
 * thread" means "per instance".
 */
#ifndef SWFLOW_PTHREAD_SHIM_H
#define SWFLOW_PTHREAD_SHIM_H

typedef int pthread_once_t;
typedef unsigned pthread_key_t;
typedef int pthread_mutex_t;

#define PTHREAD_ONCE_INIT 0
#define PTHREAD_MUTEX_INITIALIZER 0

int pthread_once(pthread_once_t *once, void (*init)(void));
int pthread_key_create(pthread_key_t *key, void (*destructor)(void *));
void *pthread_getspecific(pthread_key_t key);
int pthread_setspecific(pthread_key_t key, const void *value);
int pthread_mutex_lock(pthread_mutex_t *mutex);
int pthread_mutex_unlock(pthread_mutex_t *mutex);

#endif
