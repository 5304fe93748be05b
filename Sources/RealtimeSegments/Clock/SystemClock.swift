import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real clock: monotonic uptime for intervals and the system wall clock for event timestamps.
public struct SystemClock: SegmentsClock {
    /// Creates the system clock.
    public init() {}

    public func now() -> SegmentsInstant {
        SegmentsInstant(nanoseconds: DispatchTime.now().uptimeNanoseconds)
    }

    public func wallClockSeconds() -> Double { Self.eventWallClockSeconds() }

    /// The wall clock as events are stamped with it. A coarse clock is plenty for event timestamps
    /// (milliseconds) and costs a fifth of the precise one on the tracking hot path.
    @inline(__always)
    static func eventWallClockSeconds() -> Double {
        var spec = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_REALTIME_COARSE, &spec)
        #else
        clock_gettime(CLOCK_REALTIME, &spec)
        #endif
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    public func sleep(until deadline: SegmentsInstant?, wakeup: EngineWakeup) {
        if let deadline {
            wakeup.wait(untilUptimeNanoseconds: deadline.nanoseconds)
        } else {
            wakeup.wait()
        }
    }
}
