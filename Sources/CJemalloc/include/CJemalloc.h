#ifndef CJEMALLOC_H
#define CJEMALLOC_H

#include <stddef.h>

/// 1 if jemalloc's `mallctl` is present in this process (jemalloc is the process's malloc), else 0.
int rs_jemalloc_available(void);

/// jemalloc's `mallctl`, resolved at run time; returns ENOENT-like -1 when jemalloc is absent.
int rs_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

#endif
