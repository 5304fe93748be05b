import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One append-only segment file of the event journal, `events-<index>.journal`, open for
/// appending. A new file is started at each client start and whenever the current one reaches
/// ``JournalConfiguration/segmentBytes``, so a file is never appended to after a torn write.
///
/// Threading: engine thread only (owned by ``EventJournal``).
final class JournalSegmentFile {
    let url: URL
    let index: UInt64
    private var descriptor: Int32
    /// Bytes written to the file so far.
    private(set) var bytes = 0
    /// Writes made since the last ``sync()``.
    private(set) var needsSync = false

    /// Creates the file of `index` in `directory` and makes its name durable. A file of that name
    /// is never opened: it may be another writer's (`EEXIST` in the error's ``JournalIOError/code``).
    init(directory: URL, index: UInt64, counters: EngineCounters) throws(JournalIOError) {
        self.url = directory.appendingPathComponent(Self.name(index: index))
        self.index = index
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno  // before the message's interpolation, which may change it
            throw JournalIOError("creating \(url.path)", errno: code)
        }
        // The new name must survive a power loss for the records in it to be found.
        let directoryDescriptor = open(directory.path, O_RDONLY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            _ = DurableFile.syncToDevice(directoryDescriptor)
            _ = closeDescriptor(directoryDescriptor)
            counters.journalFsyncs.wrappingIncrement(ordering: .relaxed)
        }
    }

    deinit { close() }

    /// Appends `buffer[range]` with as few `write` calls as the system allows (one, normally).
    func append(_ buffer: [UInt8], _ range: Range<Int>) throws(JournalIOError) {
        guard descriptor >= 0 else { throw JournalIOError("\(url.lastPathComponent) is closed") }
        var offset = range.lowerBound
        var failure: Int32 = 0
        buffer.withUnsafeBytes { bytes in
            while offset < range.upperBound {
                let written = write(descriptor, bytes.baseAddress! + offset, range.upperBound - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        bytes += offset - range.lowerBound
        needsSync = true
        if failure != 0 { throw JournalIOError("write to \(url.lastPathComponent)", errno: failure) }
    }

    /// Flushes what was written to the device.
    func sync() throws(JournalIOError) {
        guard needsSync, descriptor >= 0 else { return }
        guard DurableFile.syncToDevice(descriptor) == 0 else {
            let code = errno
            throw JournalIOError("fsync of \(url.lastPathComponent)", errno: code)
        }
        needsSync = false
    }

    func close() {
        guard descriptor >= 0 else { return }
        _ = closeDescriptor(descriptor)
        descriptor = -1
    }

    static func name(index: UInt64) -> String {
        let digits = String(index)
        return "events-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".journal"
    }

    /// The largest file index and record sequence number the journal uses. Counted up from 1 by
    /// one per file or item, it is never reached; a number above it was not written by the
    /// journal, and counting on from it would overflow.
    static let largestNumber: UInt64 = 1 << 62

    /// The index in a segment file's name, `nil` for any other name.
    static func index(ofName name: String) -> UInt64? {
        guard name.hasPrefix("events-"), name.hasSuffix(".journal") else { return nil }
        return UInt64(name.dropFirst("events-".count).dropLast(".journal".count))
    }
}

/// The system's `close`, which ``JournalSegmentFile/close()`` hides inside the class.
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

/// Why the journal could not write or sync.
struct JournalIOError: Error, CustomStringConvertible {
    var description: String
    /// The system's error code, if a call failed with one.
    var code: Int32?

    init(_ what: String, errno code: Int32? = nil) {
        description = code.map { "\(what) failed: \(String(cString: strerror($0)))" } ?? what
        self.code = code
    }
}
