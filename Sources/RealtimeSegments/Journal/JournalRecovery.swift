import Foundation
import Logging

/// What the event journal held at start: the unacknowledged items to queue again, in order, and
/// the segment files they are in. Read by the client before the engine starts.
///
/// Threading: a value, built on the thread that creates the client and handed to the engine.
struct JournalRecovery: Sendable {
    /// An item of an earlier run that the server had not acknowledged.
    struct Entry: Sendable, Equatable {
        var sequence: UInt64
        var item: UploadItem
    }

    /// A segment file found at start.
    struct Segment: Sendable, Equatable {
        var url: URL
        var index: UInt64
        var bytes: Int
        /// The highest item sequence number in it (0 if none): it can go once that is acknowledged.
        var lastSequence: UInt64
    }

    var directory: URL
    var entries: [Entry] = []
    var segments: [Segment] = []
    /// The highest sequence number any record used (items and acknowledgements).
    var lastSequence: UInt64 = 0
    /// The highest index among the segment files' names, read or not: the journal's next file
    /// takes a higher one, so a file that could not be read is never opened (and emptied) again.
    var highestIndex: UInt64 = 0
    var acknowledgedThrough: UInt64 = 0
    /// Segment files that could not be read. While there are any, the journal is set aside for the
    /// run (see ``SegmentsClient``): a mark of what the server answers now would also cover their
    /// items, whose numbers are unknown, and hide them once they can be read.
    var unreadableFiles: [String] = []
    /// Segment files holding a record this version does not know, written by a newer version of
    /// the library. They set the journal aside for the run as unreadable files do.
    var newerFormatFiles: [String] = []

    /// Why the journal cannot be used in this run, or `nil` when it can.
    var setAsideReason: String? {
        if !unreadableFiles.isEmpty { return "\(unreadableFiles.joined(separator: ", ")) cannot be read" }
        if !newerFormatFiles.isEmpty {
            return "\(newerFormatFiles.joined(separator: ", ")) \(newerFormatFiles.count == 1 ? "was" : "were") written by a newer version of RealtimeSegments"
        }
        return nil
    }

    /// The journal's directory inside the state directory.
    static func directory(in stateDirectory: URL) -> URL {
        stateDirectory.appendingPathComponent("events-journal", isDirectory: true)
    }

    /// With the journal off: a `Segments:` warning if `directory` still holds segment files of an
    /// earlier run with it on. They are left in place (never replayed, never deleted), so turning
    /// the journal on again uploads what they hold.
    static func warnOfSegmentFilesLeft(in directory: URL, logger: Logger) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let count = names.filter { JournalSegmentFile.index(ofName: $0) != nil }.count
        guard count > 0 else { return }
        logger.warning(
            "Segments: The event journal is off but \(directory.path) holds \(count) segment file\(count == 1 ? "" : "s") of an earlier run; their events are not uploaded until the journal is turned on again (SegmentsConfiguration.journal)")
    }

    /// Whether `decoded` is an intact record that can follow items up to `lastSequence` in one
    /// file: an item numbered above them (items rise within a file), a mark in range, or an item
    /// whose upload cannot be read but whose checksum holds.
    private static func isIntactRecord(_ decoded: JournalRecord.Decoded, after lastSequence: UInt64) -> Bool {
        switch decoded {
        case .record(.item(let sequence, _), _): sequence > lastSequence && sequence <= JournalSegmentFile.largestNumber
        case .record(.acknowledged(let through), _): through <= JournalSegmentFile.largestNumber
        case .unreadable, .newerFormat: true
        case .end, .damaged: false
        }
    }

    /// Reads every segment file of `directory` in order. A damaged or torn tail is skipped with a
    /// `Segments:` warning. A file that cannot be read is listed in ``unreadableFiles``, one a newer
    /// version wrote in ``newerFormatFiles``, and then nothing is to be replayed. Never throws.
    static func read(directory: URL, logger: Logger) -> JournalRecovery {
        var recovery = JournalRecovery(directory: directory)
        // No directory is an empty journal. One that cannot be listed (EACCES, EIO, a file in its
        // place) may hold files whose numbers this run would take again, and whose events its
        // marks would then hide.
        var info = stat()
        if stat(directory.path, &info) != 0, errno == ENOENT { return recovery }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            recovery.unreadableFiles.append(directory.path)
            return recovery
        }
        let indexed = names.compactMap { name in JournalSegmentFile.index(ofName: name).map { ($0, name) } }.sorted { $0.0 < $1.0 }
        var items: [Entry] = []
        for (index, name) in indexed {
            guard index <= JournalSegmentFile.largestNumber else {
                logger.warning(
                    "Segments: Event journal file \(name) is not one this journal wrote (its number is out of range); left in place, not replayed")
                continue
            }
            recovery.highestIndex = max(recovery.highestIndex, index)
            let url = directory.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                recovery.unreadableFiles.append(url.path)
                continue
            }
            var segment = Segment(url: url, index: index, bytes: data.count, lastSequence: 0)
            data.withUnsafeBytes { bytes in
                var offset = 0
                while true {
                    switch JournalRecord.decode(bytes, at: offset) {
                    case .end:
                        return
                    case .damaged(let reason):
                        // Writes never go on after a torn record, so an intact record after this
                        // one means damage in place (a flipped bit): only this record is lost.
                        if let next = JournalRecord.declaredEnd(bytes, at: offset),
                           Self.isIntactRecord(JournalRecord.decode(bytes, at: next), after: segment.lastSequence) {
                            logger.error(
                                "Segments: Event journal file \(name) has a damaged record at byte \(offset) (\(reason)); it is skipped, the intact records after it are replayed")
                            offset = next
                            continue
                        }
                        logger.warning(
                            "Segments: Event journal file \(name) has a damaged tail at byte \(offset) (\(reason)); its last \(bytes.count - offset) bytes are skipped")
                        return
                    case .newerFormat(let what):
                        logger.error(
                            "Segments: Event journal file \(name) holds a record at byte \(offset) of \(what), written by a newer version of RealtimeSegments; the file is left in place")
                        recovery.newerFormatFiles.append(url.path)
                        return
                    case .unreadable(let reason, let next):
                        logger.error(
                            "Segments: Event journal file \(name) has a record at byte \(offset) that cannot be read (\(reason)); that upload is skipped, the rest of the file is replayed")
                        offset = next
                    case .record(let record, let next):
                        if record.number > JournalSegmentFile.largestNumber {
                            logger.warning(
                                "Segments: Event journal file \(name) has a damaged tail at byte \(offset) (a record numbered \(record.number), out of range); its last \(bytes.count - offset) bytes are skipped")
                            return
                        }
                        offset = next
                        switch record {
                        case .item(let sequence, let item):
                            items.append(Entry(sequence: sequence, item: item))
                            segment.lastSequence = max(segment.lastSequence, sequence)
                            recovery.lastSequence = max(recovery.lastSequence, sequence)
                        case .acknowledged(let through):
                            recovery.acknowledgedThrough = max(recovery.acknowledgedThrough, through)
                            recovery.lastSequence = max(recovery.lastSequence, through)
                        }
                    }
                }
            }
            recovery.segments.append(segment)
        }
        guard recovery.setAsideReason == nil else { return recovery }
        let acknowledged = recovery.acknowledgedThrough
        recovery.entries = items.filter { $0.sequence > acknowledged }
        if !recovery.entries.isEmpty {
            logger.info("Segments: Replaying \(recovery.entries.count) unacknowledged uploads from the event journal")
        }
        return recovery
    }
}
