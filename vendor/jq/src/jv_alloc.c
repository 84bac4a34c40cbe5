#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jv.h"
#include "jv_alloc.h" /* swflow: step budget */

struct nomem_handler {
    jv_nomem_handler_f handler;
    void *data;
};

#if !defined(HAVE_PTHREAD_KEY_CREATE) || \
    !defined(HAVE_PTHREAD_ONCE) || \
    !defined(HAVE_ATEXIT)

/* Try thread-local storage? */

#ifdef _MSC_VER
/* Visual C++: yes */
static __declspec(thread) struct nomem_handler nomem_handler;
#define USE_TLS
#else
#ifdef HAVE___THREAD
/* GCC and friends: yes */
static __thread struct nomem_handler nomem_handler;
#define USE_TLS
#endif /* HAVE___THREAD */
#endif /* _MSC_VER */

#endif /* !HAVE_PTHREAD_KEY_CREATE */

#ifdef USE_TLS
void jv_nomem_handler(jv_nomem_handler_f handler, void *data) {
  nomem_handler.handler = handler;
}

static void memory_exhausted(void) {
  if (nomem_handler.handler)
    nomem_handler.handler(nomem_handler.data); // Maybe handler() will longjmp() to safety
  // Or not
  fprintf(stderr, "jq: error: cannot allocate memory\n");
  abort();
}
#else /* USE_TLS */

#ifdef HAVE_PTHREAD_KEY_CREATE
#include <pthread.h>

static pthread_key_t nomem_handler_key;
static pthread_once_t mem_once = PTHREAD_ONCE_INIT;

/* tsd_fini is called on application exit */
/* it clears the nomem_handler allocated in the main thread */
static void tsd_fini(void) {
  struct nomem_handler *nomem_handler;
  nomem_handler = pthread_getspecific(nomem_handler_key);
  if (nomem_handler) {
    (void) pthread_setspecific(nomem_handler_key, NULL);
    free(nomem_handler);
  }
}

/* The tsd_fini_thread is a destructor set by calling */
/* pthread_key_create(&nomem_handler_key, tsd_fini_thread) */
/* It is called when thread ends */
static void tsd_fini_thread(void *nomem_handler) {
  free(nomem_handler);
}

static void tsd_init(void) {
  if (pthread_key_create(&nomem_handler_key, tsd_fini_thread) != 0) {
    fprintf(stderr, "jq: error: cannot create thread specific key");
    abort();
  }
  if (atexit(tsd_fini) != 0) {
    fprintf(stderr, "jq: error: cannot set an exit handler");
    abort();
  }
}

static void tsd_init_nomem_handler(void)
{
  if (pthread_getspecific(nomem_handler_key) == NULL) {
    struct nomem_handler *nomem_handler = calloc(1, sizeof(struct nomem_handler));
    if (pthread_setspecific(nomem_handler_key, nomem_handler) != 0) {
      fprintf(stderr, "jq: error: cannot set thread specific data");
      abort();
    }
  }
}

void jv_nomem_handler(jv_nomem_handler_f handler, void *data) {
  pthread_once(&mem_once, tsd_init); // cannot fail
  tsd_init_nomem_handler();

  struct nomem_handler *nomem_handler;

  nomem_handler = pthread_getspecific(nomem_handler_key);
  if (nomem_handler == NULL) {
    handler(data);
    fprintf(stderr, "jq: error: cannot allocate memory\n");
    abort();
  }
  nomem_handler->handler = handler;
  nomem_handler->data = data;
}

static void memory_exhausted(void) {
  struct nomem_handler *nomem_handler;

  pthread_once(&mem_once, tsd_init);
  tsd_init_nomem_handler();

  nomem_handler = pthread_getspecific(nomem_handler_key);
  if (nomem_handler && nomem_handler->handler)
    nomem_handler->handler(nomem_handler->data); // Maybe handler() will longjmp() to safety
  // Or not
  fprintf(stderr, "jq: error: cannot allocate memory\n");
  abort();
}

#else

/* No thread-local storage of any kind that we know how to handle */

static struct nomem_handler nomem_handler;
void jv_nomem_handler(jv_nomem_handler_f handler, void *data) {
  nomem_handler.handler = handler;
  nomem_handler.data = data;
}

static void memory_exhausted(void) {
  fprintf(stderr, "jq: error: cannot allocate memory\n");
  abort();
}

#endif /* HAVE_PTHREAD_KEY_CREATE */
#endif /* USE_TLS */


/* swflow: step budget. While a run with a step budget is metered (jv_mem_meter: from
 * execute.c's jq_start to jq_stop_metering, jq_start or jq_teardown), allocations add to the
 * run's step count, for time and for memory:
 * - every allocation made here (jv_mem_alloc, jv_mem_calloc, jv_mem_strdup, their _unguarded
 *   variants, jv_mem_realloc: the size requested, a realloc's new size) costs
 *   ceil(bytes / JV_MEM_BYTES_PER_STEP): about the time to obtain and fill the block;
 * - the blocks of jq values (strings, arrays, objects, error values: jv.c allocates them with
 *   jv_mem_alloc_value and frees them with jv_mem_free_value, their sizes known) are counted
 *   live while the run holds them, and each time the run's peak of live value bytes rises,
 *   the rise costs 1 step per JV_MEM_PEAK_BYTES_PER_STEP bytes: the memory the run holds.
 *   Memory freed and allocated again (a string copied at each append) costs time, not peak;
 * - any other block of JV_MEM_BIG_BLOCK bytes or more (sort's entries, @uri's buffer, the
 *   interpreter's stack: their frees are not all seen here) costs 1 step per
 *   JV_MEM_PEAK_BYTES_PER_STEP bytes too, as if it stayed live (but for jv_free's work
 *   list: jv_mem_realloc_transient).
 * An allocation that would take the count past the budget is not made, and nothing of jq
 * runs after it: the count is set to budget + 1, jv_mem_over_budget to 1, and the module
 * traps (wasm `unreachable`). Returning instead (NULL, or a smaller block) would not be safe:
 * jq's callers write the bytes they asked for (jv_string_repeat memsets its whole result), or
 * abort on NULL. The host reads the flag and reports a budget stop; the trapped instance is
 * discarded. jv_mem_alloc_uncharged is for the few allocations whose occurrence depends on
 * earlier runs (caches), which would make the count depend on them. */
#define JV_MEM_BYTES_PER_STEP 1024
#define JV_MEM_PEAK_BYTES_PER_STEP 16
#define JV_MEM_BIG_BLOCK (1 << 20)
static uint64_t *meter_steps; /* the metered run's step count; NULL: none */
static uint64_t meter_budget;
static uint64_t live_bytes, peak_bytes; /* of the values the metered run allocated */
int jv_mem_over_budget;

void jv_mem_meter(uint64_t *steps, uint64_t budget) {
  meter_steps = budget ? steps : NULL;
  meter_budget = budget;
  live_bytes = peak_bytes = 0;
}

void jv_mem_unmeter(uint64_t *steps) {
  if (meter_steps == steps) meter_steps = NULL;
}

static void jv_mem_charge_steps(uint64_t cost) {
  if (*meter_steps > meter_budget || cost > meter_budget - *meter_steps) {
    *meter_steps = meter_budget + 1;
    jv_mem_over_budget = 1;
    __builtin_trap();
  }
  *meter_steps += cost;
}

static uint64_t jv_mem_time_cost(uint64_t bytes) {
  return bytes / JV_MEM_BYTES_PER_STEP + (bytes % JV_MEM_BYTES_PER_STEP != 0);
}

/* A block that is not a value's. */
static void jv_mem_charge(uint64_t bytes) {
  if (meter_steps)
    jv_mem_charge_steps(jv_mem_time_cost(bytes) + (bytes >= JV_MEM_BIG_BLOCK ? bytes / JV_MEM_PEAK_BYTES_PER_STEP : 0));
}

void* jv_mem_alloc_value(size_t sz) {
  if (meter_steps) {
    uint64_t cost = jv_mem_time_cost(sz);
    live_bytes += sz;
    if (live_bytes > peak_bytes) {
      cost += live_bytes / JV_MEM_PEAK_BYTES_PER_STEP - peak_bytes / JV_MEM_PEAK_BYTES_PER_STEP;
      peak_bytes = live_bytes;
    }
    jv_mem_charge_steps(cost);
  }
  void* p = malloc(sz);
  if (!p) {
    memory_exhausted();
  }
  return p;
}

/* A transient buffer bounded by values already charged (jv_free's work list: 2 jv per item
 * of what it frees): time only, or freeing a big array would cost as much as making it. */
void* jv_mem_realloc_transient(void* p, size_t sz) {
  if (meter_steps)
    jv_mem_charge_steps(jv_mem_time_cost(sz));
  p = realloc(p, sz);
  if (!p) {
    memory_exhausted();
  }
  return p;
}

void jv_mem_free_value(void* p, size_t sz) {
  /* A value the run did not allocate (none it can free is, but for tiny texts of api.c). */
  if (meter_steps) live_bytes = live_bytes > sz ? live_bytes - sz : 0;
  free(p);
}

void* jv_mem_alloc_uncharged(size_t sz) {
  void* p = malloc(sz);
  if (!p) {
    memory_exhausted();
  }
  return p;
}

void* jv_mem_alloc(size_t sz) {
  jv_mem_charge(sz); /* swflow: step budget */
  void* p = malloc(sz);
  if (!p) {
    memory_exhausted();
  }
  return p;
}

void* jv_mem_alloc_unguarded(size_t sz) {
  jv_mem_charge(sz); /* swflow: step budget */
  return malloc(sz);
}

void* jv_mem_calloc(size_t nemb, size_t sz) {
  assert(nemb > 0 && sz > 0);
  jv_mem_charge((uint64_t)nemb * sz); /* swflow: step budget */
  void* p = calloc(nemb, sz);
  if (!p) {
    memory_exhausted();
  }
  return p;
}

void* jv_mem_calloc_unguarded(size_t nemb, size_t sz) {
  assert(nemb > 0 && sz > 0);
  jv_mem_charge((uint64_t)nemb * sz); /* swflow: step budget */
  return calloc(nemb, sz);
}

char* jv_mem_strdup(const char *s) {
  jv_mem_charge((uint64_t)strlen(s) + 1); /* swflow: step budget */
  char *p = strdup(s);
  if (!p) {
    memory_exhausted();
  }
  return p;
}

char* jv_mem_strdup_unguarded(const char *s) {
  jv_mem_charge((uint64_t)strlen(s) + 1); /* swflow: step budget */
  return strdup(s);
}

void jv_mem_free(void* p) {
  free(p);
}

void* jv_mem_realloc(void* p, size_t sz) {
  jv_mem_charge(sz); /* swflow: step budget */
  p = realloc(p, sz);
  if (!p) {
    memory_exhausted();
  }
  return p;
}
