#ifndef SEGMENTS_CPU_HINTS_H
#define SEGMENTS_CPU_HINTS_H

/// Asks the CPU to start bringing the cache line at `address` close, ready to be written.
///
/// A hint only: it never faults, changes no memory and may be ignored. Swift has no spelling for
/// it, and inlined from this header it is one instruction (`prefetcht0` on x86-64, `prfm pstl1keep`
/// on arm64).
static inline __attribute__((always_inline)) void segments_prefetch_for_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

#endif
