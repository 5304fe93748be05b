// The hints are inline functions in include/SegmentsCPUHints.h. `segments_current_cpu` is not: it
// needs `_GNU_SOURCE` for `sched_getcpu`, which must not leak into the Swift modules that import
// the header.
#define _GNU_SOURCE
#include <sched.h>

#include "SegmentsCPUHints.h"

int segments_current_cpu(void) {
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}
