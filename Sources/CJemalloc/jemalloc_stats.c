// jemalloc is looked up with dlsym instead of being linked, so that the harness builds and runs on
// a machine without jemalloc (the report then says allocation counts are unavailable). When the
// library is installed, segments-bench restarts itself with it preloaded (see JemallocRuntime).
#define _GNU_SOURCE
#include "CJemalloc.h"

#include <dlfcn.h>
#include <pthread.h>

typedef int (*mallctl_function)(const char *, void *, size_t *, void *, size_t);

static mallctl_function resolved_mallctl = NULL;
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

static void resolve(void) {
    resolved_mallctl = (mallctl_function)dlsym(RTLD_DEFAULT, "mallctl");
}

int rs_jemalloc_available(void) {
    pthread_once(&resolve_once, resolve);
    return resolved_mallctl != NULL;
}

int rs_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) {
    pthread_once(&resolve_once, resolve);
    if (resolved_mallctl == NULL) {
        return -1;
    }
    return resolved_mallctl(name, oldp, oldlenp, newp, newlen);
}
