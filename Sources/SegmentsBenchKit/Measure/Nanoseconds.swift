#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The harness's time source in nanoseconds: the clock `DispatchTime` and the mock server's change
/// stamps read (`CLOCK_MONOTONIC` on Linux, the uptime clock on Apple platforms), so their values
/// compare directly.
@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    #if canImport(Darwin)
    // Darwin's CLOCK_MONOTONIC counts time asleep, and `DispatchTime` does not: the uptime clock
    // is the one `DispatchTime` reads.
    return clock_gettime_nsec_np(CLOCK_UPTIME_RAW)
    #else
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    #endif
}

/// Sleeps, in steps of at most a millisecond, until `monotonicNanoseconds()` reaches `deadline`;
/// returns the time then. For paced load that should leave the core to others while it waits
/// (sub-millisecond precision is not the point).
@discardableResult
func sleep(untilMonotonic deadline: UInt64) -> UInt64 {
    var now = monotonicNanoseconds()
    while now < deadline {
        usleep(UInt32(min(1_000, (deadline - now) / 1_000 + 1)))
        now = monotonicNanoseconds()
    }
    return now
}

/// Keeps `value` alive and opaque to the optimizer, so measured work is not removed.
@inline(never)
public func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
