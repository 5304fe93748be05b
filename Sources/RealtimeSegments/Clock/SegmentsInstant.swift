import Dispatch

/// A point on a monotonic clock, in nanoseconds from an arbitrary origin.
public struct SegmentsInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: UInt64

    /// Creates an instant.
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    public static func < (lhs: SegmentsInstant, rhs: SegmentsInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The instant `duration` later (saturating; negative durations count as zero).
    public static func + (lhs: SegmentsInstant, rhs: Duration) -> SegmentsInstant {
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(rhs.clampedNanoseconds)
        return SegmentsInstant(nanoseconds: overflow ? .max : sum)
    }

    /// The time from `earlier` to `self`, or zero if `earlier` is later.
    public func duration(since earlier: SegmentsInstant) -> Duration {
        nanoseconds >= earlier.nanoseconds ? .nanoseconds(Int64(clamping: nanoseconds - earlier.nanoseconds)) : .zero
    }

    public var description: String { "\(nanoseconds)ns" }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `0...UInt64.max`.
    var clampedNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (total, overflow2) = whole.addingReportingOverflow(UInt64(max(0, attoseconds) / 1_000_000_000))
        return overflow2 ? .max : total
    }

    /// The duration in seconds, as a `Double`.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension DispatchTime {
    /// `duration` from now, as a deadline to wait for; one past what the clock's raw values hold
    /// (2^62 ns, about 146 years: libdispatch reads higher bits as another clock) is the distant
    /// future. Built from the uptime in nanoseconds: `DispatchTimeInterval`'s nanoseconds are an
    /// `Int`, 32 bits on arm64_32 (Apple Watch), where they would cut any wait at about 2.1 s.
    static func after(_ duration: Duration) -> DispatchTime {
        let (end, overflow) = DispatchTime.now().uptimeNanoseconds.addingReportingOverflow(duration.clampedNanoseconds)
        return overflow || end >= 1 << 62 ? .distantFuture : DispatchTime(uptimeNanoseconds: end)
    }
}
