#ifndef JV_ALLOC_H
#define JV_ALLOC_H

#include <stddef.h>

void* jv_mem_alloc(size_t);
void* jv_mem_alloc_unguarded(size_t);
void* jv_mem_calloc(size_t, size_t);
void* jv_mem_calloc_unguarded(size_t, size_t);
char* jv_mem_strdup(const char *);
char* jv_mem_strdup_unguarded(const char *);
void jv_mem_free(void*);
__attribute__((warn_unused_result)) void* jv_mem_realloc(void*, size_t);

/* swflow: step budget (jv_alloc.c) */
#include <stdint.h>
void jv_mem_meter(uint64_t *steps, uint64_t budget);
void jv_mem_unmeter(uint64_t *steps);
void* jv_mem_alloc_uncharged(size_t);
void* jv_mem_alloc_value(size_t);
void jv_mem_free_value(void*, size_t);
__attribute__((warn_unused_result)) void* jv_mem_realloc_transient(void*, size_t);
extern int jv_mem_over_budget;

#endif
