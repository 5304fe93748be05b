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

/// Tells the CPU this thread is spinning on a value another thread will write: it yields the
/// core's shared resources to its sibling and avoids the memory-order flush when the loop ends.
///
/// A hint only (`pause` on x86-64, `yield` on arm64, nothing elsewhere).
static inline __attribute__((always_inline)) void segments_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

/// The number of the CPU the calling thread is running on, or -1 where the system does not say
/// (anywhere but Linux, or when the call fails).
///
/// A hint as well: the thread may have moved by the time the caller looks at the answer.
int segments_current_cpu(void);

#endif
