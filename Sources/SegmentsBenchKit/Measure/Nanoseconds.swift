#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The harness's time source: `CLOCK_MONOTONIC` in nanoseconds (the same clock `DispatchTime`
/// and the mock server's change stamps use, so their values compare directly).
@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
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
