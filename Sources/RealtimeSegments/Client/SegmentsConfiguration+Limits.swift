import Logging

/// The ranges the engine works in. A configuration is a plain struct the app fills in; a value out
/// of range (a batch size of zero, a negative delay, a ring larger than memory) would otherwise
/// stall uploads, spin the engine or trap, so the client brings it into range and says so.
extension SegmentsConfiguration {
    /// Largest ingestion ring: 1,048,576 events (a slot is one or two cache lines: 64–128 MiB).
    static let maximumIngestCapacity = 1 << 20
    /// Shortest retry delay and periodic flush interval: shorter ones would keep the engine and the
    /// server busy with a failing or empty upload.
    static let minimumRepeatInterval = Duration.milliseconds(10)
    /// Longest delivery spin window: a thread spinning longer than a scheduler's time slice is a
    /// thread kept busy, not a wake-up saved.
    static let maximumDeliverySpinWindow = Duration.milliseconds(10)

    /// This configuration with every out-of-range value brought into range, and a `Segments:`
    /// warning on `logger` for each one changed.
    func withinLimits() -> SegmentsConfiguration {
        var result = self
        func adjust<Value: Equatable>(_ name: String, _ value: inout Value, to fixed: Value, because reason: String) {
            guard value != fixed else { return }
            logger.warning("Segments: configuration \(name) \(value) \(reason); using \(fixed)")
            value = fixed
        }
        adjust("debounce", &result.debounce, to: max(debounce, .zero), because: "is negative")
        adjust("maxWait", &result.maxWait, to: max(maxWait, .zero), because: "is negative")
        adjust("cacheTTL", &result.cacheTTL, to: max(cacheTTL, .zero), because: "is negative")
        adjust("ingestCapacity", &result.ingestCapacity,
               to: min(max(ingestCapacity, 1), Self.maximumIngestCapacity), because: "is out of range 1...\(Self.maximumIngestCapacity)")
        adjust("maxUploadBatchSize", &result.maxUploadBatchSize, to: max(maxUploadBatchSize, 1), because: "is below 1")
        adjust("deliverySpinWindow", &result.deliverySpinWindow,
               to: min(max(deliverySpinWindow, .zero), Self.maximumDeliverySpinWindow),
               because: "is out of range 0...\(Self.maximumDeliverySpinWindow)")
        adjust("maxPullRefetches", &result.maxPullRefetches, to: max(maxPullRefetches, 0), because: "is negative")
        adjust("uploadRetry.initial", &result.uploadRetry.initial,
               to: max(uploadRetry.initial, Self.minimumRepeatInterval), because: "is below \(Self.minimumRepeatInterval)")
        adjust("uploadRetry.maximum", &result.uploadRetry.maximum,
               to: max(uploadRetry.maximum, result.uploadRetry.initial), because: "is below uploadRetry.initial")
        adjust("uploadRetry.jitter", &result.uploadRetry.jitter,
               to: uploadRetry.jitter.isNaN ? 0 : min(max(uploadRetry.jitter, 0), 1), because: "is out of range 0...1")
        if case .periodic(let interval) = flushingMode, interval < Self.minimumRepeatInterval {
            adjust("flushingMode", &result.flushingMode, to: .periodic(Self.minimumRepeatInterval),
                   because: "flushes more often than every \(Self.minimumRepeatInterval)")
        }
        if var journal = result.journal {
            adjust("journal.maxBytes", &journal.maxBytes,
                   to: max(journal.maxBytes, JournalConfiguration.minimumMaxBytes), because: "is below \(JournalConfiguration.minimumMaxBytes)")
            if case .interval(let milliseconds) = journal.durability, milliseconds < 1 {
                adjust("journal.durability", &journal.durability, to: .interval(milliseconds: 1), because: "syncs more often than every millisecond")
            }
            result.journal = journal
            if stateDirectory == nil {
                logger.warning("Segments: configuration journal is ignored: it needs a stateDirectory to write to")
                result.journal = nil
            }
        }
        return result
    }
}
