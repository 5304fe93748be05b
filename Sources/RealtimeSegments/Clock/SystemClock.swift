import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real clock: monotonic uptime for intervals, monotonic time counting sleep for cache ages,
/// and the system wall clock for event timestamps.
public struct SystemClock: SegmentsClock {
    /// Creates the system clock.
    public init() {}

    /// Monotonic uptime: never jumps when the wall clock is set.
    public func now() -> SegmentsInstant {
        SegmentsInstant(nanoseconds: DispatchTime.now().uptimeNanoseconds)
    }

    /// Monotonic time that counts the device's sleep: `CLOCK_BOOTTIME` on Linux,
    /// `CLOCK_MONOTONIC` on Apple platforms (where ``now()``'s uptime stops while asleep).
    public func continuousNow() -> SegmentsInstant {
        var spec = timespec()
        #if canImport(Darwin)
        clock_gettime(CLOCK_MONOTONIC, &spec)
        #else
        clock_gettime(CLOCK_BOOTTIME, &spec)
        #endif
        return SegmentsInstant(nanoseconds: UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec))
    }

    /// The precise wall clock. The engine reads it as it takes events from the ring, once per
    /// batch of events already claimed (see ``SegmentsClient/trackEvent(eventType:properties:timestamp:)``),
    /// off the app's threads, so reading the clock is not on the tracking path.
    public func wallClockSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }
}
