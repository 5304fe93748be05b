/// What a client's event journal has written so far (``SegmentsClient/journalStatistics``).
package struct JournalStatistics: Sendable, Hashable {
    /// Bytes appended to segment files (records, framing included).
    package var bytesWritten: Int
    /// `write` calls: one per group commit.
    package var writes: Int
    /// `fsync` calls, of segment files and of the journal's directory.
    package var fsyncs: Int
    /// Upload items (events and customer updates) written.
    package var itemsWritten: Int
}
