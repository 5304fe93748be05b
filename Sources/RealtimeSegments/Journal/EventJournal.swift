import DequeModule
import Foundation
import Logging

/// The write-ahead journal of the upload queue (see ``JournalConfiguration``): every item the
/// engine queues for upload is numbered and written to the current segment file before it can go
/// out; acknowledgements move a mark forward and delete the segment files they cover.
///
/// The owner tells it, in queue order, each item queued (``queue(_:)``) and how many items the
/// server answered off the front (``acknowledge(_:)``); ``commit(at:)`` then writes what was
/// queued since the last commit with one `write` (a group commit: one per drain of the ingestion
/// ring) and syncs per ``JournalConfiguration/Durability``.
///
/// When the journal is full or cannot write, items are kept in memory only: they form the end of
/// the queue (no item is written after one that was not) until they have all been answered, and
/// ``memoryOnlyCount`` tells the owner how many of the queue's last items the state file must
/// hold at stop.
///
/// Threading: engine thread only (owned by ``EngineOwner``); it counts its work in
/// ``EngineCounters``.
final class EventJournal {
    private let directory: URL
    private let durability: JournalConfiguration.Durability
    private let maxBytes: Int
    private let segmentBytes: Int
    private let logger: Logger
    private let counters: EngineCounters

    /// Segment files no longer written to, oldest first.
    private var closed: [JournalRecovery.Segment]
    private var current: JournalSegmentFile?
    /// The highest item sequence number in ``current``.
    private var currentLastSequence: UInt64 = 0
    /// The lowest item sequence number in ``current`` (`nil` before its first item).
    private var currentFirstSequence: UInt64?
    private var nextIndex: UInt64
    private var nextSequence: UInt64
    /// The sequence numbers of the upload queue's items, front first.
    private var queued: Deque<UInt64>
    private(set) var acknowledgedThrough: UInt64
    private var acknowledgementWritten: UInt64
    /// Set when the disk refused a mark written alone: the mark then waits for items to carry it,
    /// instead of each engine turn opening a new file for it and logging the refusal again.
    private var markRefused = false

    /// Records queued since the last commit, and where each item record ends.
    private var staged: [UInt8] = []
    private var stagedEnds: [Int] = []
    private var firstStagedSequence: UInt64 = 0

    /// How many of the queue's last items are not in the journal.
    private(set) var memoryOnlyCount = 0
    /// How many of the queue's last items the state file must hold: those not in the journal, and
    /// while a file whose sync failed holds unanswered items, every one from its first on (the
    /// device may have dropped its writes; the next start may send some twice, never none).
    var itemsForTheStateFile: Int {
        // Set only while a failed sync's file holds items (cleared with the failure).
        guard let from = unsyncedFrom else { return memoryOnlyCount }
        // The queue from the first item of a file whose sync failed: a suffix, as the state file
        // takes it; the items of earlier files were synced.
        let unsynced = queued.count - (queued.firstIndex { $0 >= from } ?? queued.count)
        return max(unsynced, memoryOnlyCount)
    }
    /// The first of them.
    private var memoryOnlyFrom: UInt64?
    /// Why new items are kept in memory only; `nil` while they are journaled.
    private(set) var unavailable: String?
    /// Why a sync failed, until the items of the file it failed on have all been answered: until
    /// then they may be lost at a crash, whatever later syncs of other files do.
    private var syncFailure: String?
    /// The highest item sequence number in a file whose sync failed.
    private var unsyncedThrough: UInt64 = 0
    /// The lowest item sequence number in a file whose sync failed, while one's items wait.
    private var unsyncedFrom: UInt64?
    /// When writes not yet synced must be (``JournalConfiguration/Durability/interval(milliseconds:)``).
    private(set) var syncDue: SegmentsInstant?
    private var lastSync: SegmentsInstant?

    init(
        configuration: JournalConfiguration, recovery: JournalRecovery, logger: Logger,
        counters: EngineCounters
    ) {
        self.directory = recovery.directory
        self.durability = configuration.durability
        self.maxBytes = configuration.maxBytes
        self.segmentBytes = configuration.segmentBytes
        self.logger = logger
        self.counters = counters
        self.closed = recovery.segments
        self.nextIndex = recovery.highestIndex + 1
        self.nextSequence = recovery.lastSequence + 1
        self.queued = Deque(recovery.entries.map(\.sequence))
        self.acknowledgedThrough = recovery.acknowledgedThrough
        self.acknowledgementWritten = recovery.acknowledgedThrough
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            keepInMemory(because: "its directory \(directory.path) cannot be created: \(error)")
        }
        deleteAnswered()
    }

    /// Bytes the segment files take.
    var totalBytes: Int { closed.reduce(0) { $0 + $1.bytes } + (current?.bytes ?? 0) }

    // MARK: Queue order

    /// An item joined the end of the upload queue: staged for the next commit, or kept in memory
    /// only while the journal is unavailable.
    func queue(_ item: UploadItem) {
        let sequence = nextSequence
        nextSequence += 1
        queued.append(sequence)
        guard unavailable == nil else {
            markMemoryOnly(from: sequence, count: 1)
            return
        }
        let recordStart = staged.count
        JournalRecord.item(sequence: sequence, item).append(to: &staged)
        let bodySize = staged.count - recordStart - JournalRecord.headerSize
        guard bodySize <= JournalRecord.maxBodySize else {
            // Replay would read a record this large as damage, and drop what follows it.
            staged.removeSubrange(recordStart...)
            markMemoryOnly(from: sequence, count: 1)
            keepInMemory(because: "an upload of \(bodySize) bytes is larger than a journal record can hold (\(JournalRecord.maxBodySize))")
            return
        }
        if stagedEnds.isEmpty { firstStagedSequence = sequence }
        stagedEnds.append(staged.count)
    }

    /// The server answered (accepted or refused for good) `count` items off the queue's front.
    func acknowledge(_ count: Int) {
        for _ in 0..<min(count, queued.count) {
            let sequence = queued.removeFirst()
            acknowledgedThrough = max(acknowledgedThrough, sequence)
            if let from = memoryOnlyFrom, sequence >= from { memoryOnlyCount -= 1 }
        }
        clearSyncFailureIfAnswered()
        if memoryOnlyCount == 0 {
            memoryOnlyFrom = nil
            if count > 0, let reason = unavailable {
                unavailable = nil
                logger.notice("Segments: Event journal resumes: the events kept in memory only while \(reason) have been uploaded")
            }
        }
        deleteAnswered()
    }

    // MARK: Writing

    /// Bytes of an acknowledgement record: header, kind, sequence number.
    static let acknowledgementSize = JournalRecord.headerSize + 9

    /// The server answered items since the last acknowledgement mark was written.
    var acknowledgementDue: Bool { acknowledgedThrough > acknowledgementWritten }

    /// Writes what was queued since the last commit (one `write`) and an acknowledgement mark if
    /// the server answered items since; syncs as the durability asks when items were written.
    func commit(at now: SegmentsInstant) {
        let acknowledgementDue = acknowledgementDue && !(markRefused && stagedEnds.isEmpty)
        guard !stagedEnds.isEmpty || acknowledgementDue else {
            syncIfDue(at: now)
            return
        }
        if let file = current, file.bytes >= segmentBytes {
            // A sync covers only the file being written: this one's last writes get theirs now.
            if file.needsSync { sync(at: now) }
            closeCurrent()
            deleteAnswered()
        }
        // The cap holds for every byte: items that do not fit are kept in memory only, and a
        // mark that does not fit waits for a later commit (it only spares duplicates).
        let markSize = acknowledgementDue ? Self.acknowledgementSize : 0
        var fitting = stagedEnds.count
        if totalBytes + (stagedEnds.last ?? 0) + markSize > maxBytes {
            freeCurrentIfAnswered()
            let room = maxBytes - totalBytes - markSize
            fitting = stagedEnds.firstIndex { $0 > room } ?? stagedEnds.count
        }
        let itemsEnd = fitting == 0 ? 0 : stagedEnds[fitting - 1]
        staged.removeSubrange(itemsEnd...)
        let writesMark = acknowledgementDue && totalBytes + itemsEnd + markSize <= maxBytes
        if writesMark { JournalRecord.acknowledged(through: acknowledgedThrough).append(to: &staged) }
        let unfitted = stagedEnds.count - fitting
        defer {
            staged.removeAll(keepingCapacity: true)
            stagedEnds.removeAll(keepingCapacity: true)
        }
        if !staged.isEmpty {
            var target: JournalSegmentFile?
            var bytesBefore = 0
            do throws(JournalIOError) {
                let file = try openCurrent()
                target = file
                bytesBefore = file.bytes
                try file.append(staged, 0..<staged.count)
            } catch {
                // A torn write: nothing more goes to this file, whose tail replay will skip. The
                // records written whole before it are journaled (replay reads them); what the
                // file holds is synced before it is closed, as a commit would have.
                let written = target.map { $0.bytes - bytesBefore } ?? 0
                let whole = stagedEnds.prefix(fitting).prefix { $0 <= written }.count
                if whole > 0 {
                    currentLastSequence = firstStagedSequence + UInt64(whole - 1)
                    if currentFirstSequence == nil { currentFirstSequence = firstStagedSequence }
                    counters.journalItemsWritten.wrappingIncrement(by: whole, ordering: .relaxed)
                }
                if current?.needsSync == true { sync(at: now) }
                closeCurrent()
                if stagedEnds.count == whole {
                    // Only an acknowledgement mark was lost: replay may send answered items again.
                    if !markRefused {
                        logger.error("Segments: Event journal: \(error); the mark of the answered uploads waits for the next events to carry it")
                    }
                    markRefused = true
                    deleteAnswered()
                } else {
                    markMemoryOnly(from: firstStagedSequence + UInt64(whole), count: stagedEnds.count - whole)
                    keepInMemory(because: "it cannot be written (\(error))")
                }
                return
            }
            counters.journalWrites.wrappingIncrement(ordering: .relaxed)
            counters.journalBytesWritten.wrappingIncrement(by: staged.count, ordering: .relaxed)
            counters.journalItemsWritten.wrappingIncrement(by: fitting, ordering: .relaxed)
            if fitting > 0 {
                currentLastSequence = firstStagedSequence + UInt64(fitting - 1)
                if currentFirstSequence == nil { currentFirstSequence = firstStagedSequence }
            }
            if writesMark {
                acknowledgementWritten = acknowledgedThrough
                markRefused = false
            }
        }
        if unfitted > 0 {
            markMemoryOnly(from: firstStagedSequence + UInt64(fitting), count: unfitted)
            keepInMemory(because: "it holds its maximum of \(maxBytes) bytes of unacknowledged uploads")
        }
        // A mark alone is not synced: losing it costs duplicates, never events, and syncing it
        // would cost an fsync per upload while a backlog drains. The next sync covers it.
        guard fitting > 0 else { return }
        switch durability {
        case .everyCommit:
            sync(at: now)
        case .interval(let milliseconds):
            let due = (lastSync ?? now) + .milliseconds(milliseconds)
            if lastSync == nil || now >= due { sync(at: now) } else if syncDue == nil { syncDue = due }
        }
    }

    /// Syncs the writes an interval left unsynced once their time has come.
    func syncIfDue(at now: SegmentsInstant) {
        guard let due = syncDue, now >= due else { return }
        sync(at: now)
    }

    /// What ``SegmentsClient/flushJournal()`` answers once the items it waits for were committed:
    /// every write synced now, or why the journal does not hold them.
    func syncForFlush(at now: SegmentsInstant) -> Result<Void, SegmentsError> {
        if let unavailable { return .failure(.journalUnavailable("the event journal is unavailable: \(unavailable)")) }
        sync(at: now)
        if let syncFailure { return .failure(.journalUnavailable("the event journal could not be synced: \(syncFailure)")) }
        return .success(())
    }

    /// The engine stops: a mark of what the server answered is written even past the cap (one
    /// record, so that a clean stop never leaves answered items to be sent again), the last
    /// writes are synced and, if every item was answered, the segment files are deleted.
    func finish(at now: SegmentsInstant) {
        if acknowledgementDue {
            var mark: [UInt8] = []
            JournalRecord.acknowledged(through: acknowledgedThrough).append(to: &mark)
            do throws(JournalIOError) {
                let file = try openCurrent()
                try file.append(mark, 0..<mark.count)
                acknowledgementWritten = acknowledgedThrough
            } catch {
                // What the file holds is synced before it is closed, as the end of a stop promises.
                if current?.needsSync == true { sync(at: now) }
                closeCurrent()
                logger.error("Segments: Event journal: \(error); uploads answered before the stop may be sent again at the next start")
            }
        }
        sync(at: now)
        closeCurrent()
        deleteAnswered()
    }

    private func sync(at now: SegmentsInstant) {
        syncDue = nil
        lastSync = now
        guard let file = current, file.needsSync else { return }
        do throws(JournalIOError) {
            try file.sync()
            counters.journalFsyncs.wrappingIncrement(ordering: .relaxed)
            clearSyncFailureIfAnswered()
        } catch {
            counters.journalFsyncs.wrappingIncrement(ordering: .relaxed)
            if syncFailure == nil { logger.error("Segments: Event journal: \(error); its last writes may not survive a power loss") }
            syncFailure = error.description
            unsyncedThrough = max(unsyncedThrough, currentLastSequence)
            if let first = currentFirstSequence { unsyncedFrom = min(unsyncedFrom ?? first, first) }
            closeCurrent()
        }
    }

    /// Forgets a failed sync once every item of the files it failed on has been answered.
    private func clearSyncFailureIfAnswered() {
        guard acknowledgedThrough >= unsyncedThrough else { return }
        syncFailure = nil
        unsyncedFrom = nil
    }

    // MARK: Files

    private func openCurrent() throws(JournalIOError) -> JournalSegmentFile {
        if let current { return current }
        var file: JournalSegmentFile
        while true {
            do throws(JournalIOError) {
                file = try JournalSegmentFile(directory: directory, index: nextIndex, counters: counters)
                break
            } catch where error.code == EEXIST && nextIndex < JournalSegmentFile.largestNumber {
                // Left by another writer since the journal was read: never emptied, passed over.
                nextIndex += 1
            }
        }
        nextIndex += 1
        current = file
        currentLastSequence = 0
        currentFirstSequence = nil
        return file
    }

    private func closeCurrent() {
        guard let file = current else { return }
        file.close()
        closed.append(.init(url: file.url, index: file.index, bytes: file.bytes, lastSequence: currentLastSequence))
        current = nil
    }

    /// Room for new records: the current file goes too if everything in it was answered.
    private func freeCurrentIfAnswered() {
        guard current != nil, currentLastSequence <= acknowledgedThrough else { return }
        closeCurrent()
        deleteAnswered()
    }

    /// Deletes the closed segment files whose items were all answered, oldest first, up to the
    /// first that holds an unanswered one. A newer file without items (an acknowledgement mark
    /// alone) stays with it: the mark is what spares the older file's answered items at replay.
    private func deleteAnswered() {
        let answered = closed.prefix { $0.lastSequence <= acknowledgedThrough }.count
        for segment in closed.prefix(answered) {
            do {
                try FileManager.default.removeItem(at: segment.url)
            } catch {
                if FileManager.default.fileExists(atPath: segment.url.path) {
                    logger.warning("Segments: Event journal file \(segment.url.lastPathComponent) could not be deleted: \(error)")
                }
            }
        }
        closed.removeFirst(answered)
    }

    private func markMemoryOnly(from sequence: UInt64, count: Int) {
        guard count > 0 else { return }
        // The earliest: items staged ahead of one already kept in memory (too large for a record)
        // may fail to fit or to be written at the commit that follows.
        memoryOnlyFrom = min(memoryOnlyFrom ?? sequence, sequence)
        memoryOnlyCount += count
    }

    private func keepInMemory(because reason: String) {
        guard unavailable == nil else { return }
        unavailable = reason
        logger.warning(
            "Segments: Event journal paused because \(reason): new events are kept in memory only (nothing is dropped) until those waiting have been uploaded")
    }
}
