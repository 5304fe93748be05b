/// The write-ahead event journal: tracked events and customer updates reach disk, in
/// `<stateDirectory>/events-journal/`, before they are uploaded, so a process that dies (a crash,
/// a kill) before the upload is acknowledged sends them at its next start.
///
/// Set ``SegmentsConfiguration/journal`` to turn it on; it needs
/// ``SegmentsConfiguration/stateDirectory`` (without one the journal stays off, with a `Segments:`
/// warning). It is off by default: each group commit costs a write and, with
/// ``Durability/everyCommit``, an `fsync`, which an app that accepts losing what it tracked
/// since the last upload need not pay. A client started with the journal off on a directory that
/// still holds segment files leaves them in place and says how many in a `Segments:` warning; they
/// are replayed when the journal is turned on again.
///
/// How it works: the engine thread writes what it takes from the ingestion ring to the end of a
/// segment file, one write per batch (a group commit; `trackEvent` itself never touches the
/// journal and stays lock-free). Each record carries its length and a CRC-32. At start, the
/// records of earlier runs that the server had not acknowledged are queued for upload, in their
/// original order, before anything tracked in this run. Segment files whose items have all been
/// answered are deleted. A torn or damaged tail (a crash mid-write) is skipped with a `Segments:`
/// warning; what came before it is replayed. A damaged record with intact ones after it (damage
/// in place) is skipped alone, with a `Segments:` error. A directory or file that cannot be read,
/// or an intact record holding what this version does not know (a record or upload kind, a value's
/// tag, a field after the upload: a newer version of the library wrote it, and a checksum that
/// holds tells it from damage), sets the journal aside for the run, and it is replayed at a start
/// that can read it.
///
/// Delivery is at least once: an upload the server accepted but whose acknowledgement did not
/// reach the journal before the process died is sent again at the next start. Duplicates are
/// possible; losses of journaled events are not.
///
/// When the journal holds ``maxBytes`` of unacknowledged records (the server is unreachable for
/// long), an upload is too large for one record (64 MiB), or a write fails (disk full,
/// permissions), nothing is dropped: new events are kept in memory only, exactly as without a
/// journal, with one `Segments:` warning, and ``SegmentsClient/flushJournal()`` throws
/// ``SegmentsError/journalUnavailable(_:)``. Journaling resumes, with another `Segments:` line,
/// once the events kept in memory only have been uploaded. Those events are written to the state
/// file at ``SegmentsClient/stop(timeout:)`` (as without a journal), not at a crash.
///
/// A segment file left by an earlier run that cannot be read, or that a newer version wrote, sets
/// the journal aside for the whole run, with a `Segments:` error: nothing is replayed, written or
/// deleted (a mark of what the server answers would hide the unread file's events), events are
/// kept as without a journal, and every file is replayed at a start that can read them.
///
/// One running client per state directory: two clients journaling into the same directory at
/// once would replay, and delete, each other's segment files.
public struct JournalConfiguration: Sendable, Hashable {
    /// When the journal's writes are flushed to the storage device (`fsync`; on Apple platforms
    /// `F_FULLFSYNC`, which asks the drive to write out its cache and costs more).
    public enum Durability: Sendable, Hashable {
        /// After every group commit: an event survives a power loss once its batch is written.
        case everyCommit
        /// At most once per interval (and always for ``SegmentsClient/flushJournal()``): a
        /// process crash loses nothing the engine took from the ring (the operating system holds
        /// the written pages), a power loss up to one interval of events. An interval under 1 ms
        /// is raised to 1 ms with a `Segments:` warning.
        case interval(milliseconds: Int)
    }

    /// When writes are flushed to the device (default ``Durability/everyCommit``).
    public var durability: Durability
    /// Most bytes the journal's segment files take together (default 64 MiB); see the type's
    /// documentation for what happens when it is reached. Values under 4 KiB are raised to 4 KiB
    /// with a `Segments:` warning.
    public var maxBytes: Int
    /// Size at which the journal starts a new segment file (a quarter of ``maxBytes``, at most 4
    /// MiB): a fully acknowledged segment file is deleted whole.
    var segmentBytes: Int { min(4 << 20, max(1 << 10, maxBytes / 4)) }

    static let minimumMaxBytes = 4 << 10

    /// Creates a journal configuration.
    public init(durability: Durability = .everyCommit, maxBytes: Int = 64 << 20) {
        self.durability = durability
        self.maxBytes = maxBytes
    }
}
