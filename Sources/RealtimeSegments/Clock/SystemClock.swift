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

    /// The wall clock as events are stamped with it. A coarse clock (it advances with the kernel's
    /// tick, 4 ms on the benchmark machine) is plenty for event timestamps and costs a fifth of the
    /// precise one on the tracking hot path.
    ///
    /// The nanoseconds are scaled by a multiplication, not a division: the stamp is stored into
    /// the event's ring slot, and the next `trackEvent`'s fetch-add waits for that store, so a
    /// division's latency lands on every call. The two can differ in the last bit, far below the
    /// clock's resolution.
    @inline(__always)
    static func eventWallClockSeconds() -> Double {
        var spec = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_REALTIME_COARSE, &spec)
        #else
        clock_gettime(CLOCK_REALTIME, &spec)
        #endif
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }

    public func sleep(until deadline: SegmentsInstant?, wakeup: EngineWakeup) {
        if let deadline {
            wakeup.wait(untilUptimeNanoseconds: deadline.nanoseconds)
        } else {
            wakeup.wait()
        }
    }
}
