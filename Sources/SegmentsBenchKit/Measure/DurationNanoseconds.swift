extension Duration {
    /// The duration in whole nanoseconds (negative durations count as zero), for comparing with
    /// ``monotonicNanoseconds()`` readings.
    var wholeNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
