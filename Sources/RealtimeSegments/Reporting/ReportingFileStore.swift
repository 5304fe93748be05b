import Foundation
import Logging

/// Keeps reporting segments on disk, one file per visitor, in `<stateDirectory>/reporting-segments/`.
///
/// One file per visitor makes a mutation cost O(1) in the number of visitors (Convert rewrites its
/// whole store per mutation, W15). A file is named `visitor-<id>.json` with every byte outside
/// `[a-z0-9_-]` written as `%XX` (capitals too, so names stay distinct on a volume that ignores
/// case, as Apple platforms' default ones do), so names are stable and distinct per id; ids whose escaped form
/// would exceed file-name limits use a 64-bit FNV-1a hash instead (the file also holds the id,
/// which is what restore trusts). Every write is ``DurableFile/replace(_:with:temporary:beforeRename:)``, so a
/// crash leaves a visitor's old or new file; a leftover temporary file (`.visitor-….tmp`) is removed
/// at restore and never read.
///
/// Threading: ``write(_:)`` only from one serial queue (each write's temporary file has a name of
/// its own, so two stores on one directory never share one); ``loadAll()`` before any write.
struct ReportingFileStore: Sendable {
    /// What is stored in one visitor's file.
    private struct Record: Codable {
        static let currentVersion = 1
        var version: Int
        var visitorId: String
        var segments: ReportingSegments
    }

    /// Cost of one ``write(_:)`` batch, and the visitors whose write failed.
    struct WriteOutcome: Sendable {
        var files = 0
        var bytes = 0
        /// Visitors whose file was not replaced; their previous file is unchanged.
        var failed: [String] = []
        /// What to log about the failures, once no persistence work waits on the log handler.
        var lines: [LogLine] = []
    }

    /// A line for the caller of ``loadAll()`` or ``write(_:)`` to log once it holds no lock and
    /// blocks no queue: a log handler is app code, which may call back into the manager.
    struct LogLine: Sendable {
        var level: Logger.Level
        var text: String
    }

    let directory: URL
    let logger: Logger

    init(stateDirectory: URL, logger: Logger) {
        directory = stateDirectory.appendingPathComponent("reporting-segments", isDirectory: true)
        self.logger = logger
    }

    /// The file of the visitor whose ``escapedName(_:)`` is `escapedName`.
    private func fileURL(escapedName: String) -> URL {
        directory.appendingPathComponent("visitor-\(escapedName).json")
    }

    private func temporaryURL(escapedName: String) -> URL {
        directory.appendingPathComponent(".visitor-\(escapedName).\(DurableFile.uniqueTag()).tmp")
    }

    /// Every persisted visitor, and the lines to log about the others. Corrupt files, those of
    /// another version, and a visitor's other files beside the one restored (its file under its
    /// name now, else the copy written last) are skipped with a `Segments:` error and, when
    /// `tidying`, moved aside. When `tidying`, leftover temporary files are deleted and a restored
    /// file under an earlier name is renamed. Without `tidying` (a client that gave the directory
    /// up) no file is changed. Logs nothing itself: its caller holds a lock (see ``LogLine``).
    func loadAll(tidying: Bool = true) -> (entries: [(visitorId: String, segments: ReportingSegments)], lines: [LogLine]) {
        var lines: [LogLine] = []
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            // No directory yet: nothing was ever persisted. Any other failure is reported.
            if FileManager.default.fileExists(atPath: directory.path) {
                lines.append(.init(level: .error, text: "Segments: Cannot read reporting segments directory \(directory.path): \(error); nothing restored"))
            }
            return ([], lines)
        }
        let decoder = JSONDecoder()
        var found: [Found] = []
        found.reserveCapacity(names.count)
        for name in names.sorted() {
            let url = directory.appendingPathComponent(name)
            if name.hasPrefix(".visitor-") && name.hasSuffix(".tmp") {
                // Without tidying, perhaps the directory's holder's write in progress.
                guard tidying else { continue }
                // An interrupted write: the rename never happened, so the visitor's file (if any)
                // still holds the previous state.
                lines.append(.init(level: .debug, text: "Segments: Removing leftover reporting segments temporary file \(url.path)"))
                try? FileManager.default.removeItem(at: url)
                continue
            }
            guard name.hasPrefix("visitor-") && name.hasSuffix(".json") else { continue }
            do {
                let record = try decoder.decodeUntrusted(Record.self, from: Data(contentsOf: url))
                guard record.version == Record.currentVersion else {
                    lines.append(.init(level: .error, text: "Segments: Ignoring reporting segments file \(url.path): unsupported version \(record.version); \(tidying ? Self.moveAside(url) : "left in place")"))
                    continue
                }
                let modified = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? .distantPast
                found.append(Found(name: name, url: url, record: record, modified: modified))
            } catch {
                lines.append(.init(level: .error, text: "Segments: Ignoring corrupt reporting segments file \(url.path): \(error); \(tidying ? Self.moveAside(url) : "left in place")"))
            }
        }
        var loaded: [(visitorId: String, segments: ReportingSegments)] = []
        loaded.reserveCapacity(found.count)
        for files in Dictionary(grouping: found, by: \.record.visitorId).values.sorted(by: { $0[0].name < $1[0].name }) {
            let visitorId = files[0].record.visitorId
            let expected = "visitor-\(Self.escapedName(visitorId)).json"
            // A file under the name of its own id, as this version spells names or as an earlier one
            // spelled the id (each Unicode spelling had a file of its own), is what the visitor
            // wrote: the newest of those is kept. A copy under another name (one made by hand, an
            // earlier version's scheme) never replaces one; without any, the copy written last.
            // Names are sorted, so a tie goes the same way at every restore.
            let written = files.filter {
                $0.name == expected || $0.name == "visitor-\(Self.escapedName($0.record.visitorId, composing: false)).json"
            }
            let newest = { (candidates: [Found]) in candidates.max { $0.modified < $1.modified } }
            let kept = newest(written) ?? newest(files)!
            loaded.append((visitorId, kept.record.segments))
            for other in files where other.name != kept.name {
                lines.append(.init(level: .error, text: "Segments: Ignoring reporting segments file \(other.url.path): \(kept.name) holds the same visitor and was written later or under its name; \(tidying ? Self.moveAside(other.url) : "left in place")"))
            }
            if tidying, kept.name != expected {
                // Written under the name an earlier version gave the id: the visitor's next
                // write goes to its name now, and must not leave this file to compete with it.
                // A file under that name was older, and has just been moved aside; if it could
                // not be, it stays, and the visitor's next change replaces it (not this one).
                let target = fileURL(escapedName: Self.escapedName(visitorId))
                if FileManager.default.fileExists(atPath: target.path) {
                    lines.append(.init(level: .error, text: "Segments: Reporting segments file \(kept.url.path) is not renamed to \(expected), which is still there; the visitor's next change replaces \(expected)"))
                } else if rename(kept.url.path, target.path) == 0 {
                    lines.append(.init(level: .debug, text: "Segments: Renamed reporting segments file \(kept.name) to \(expected)"))
                } else {
                    lines.append(.init(level: .error, text: "Segments: Could not rename reporting segments file \(kept.url.path) to \(expected) (errno \(errno)); the visitor's next change is written beside it"))
                }
            }
        }
        return (loaded, lines)
    }

    /// A visitor's file found at restore.
    private struct Found {
        var name: String
        var url: URL
        var record: Record
        var modified: Date
    }

    /// Moves a file skipped at restore out of the way, to `<name>.skipped-<time>-<pid>` beside it
    /// (a name restore does not read): the visitor's next change would otherwise replace it, and
    /// with it what a newer version of the library, or a person, could still read. Returns the end
    /// of the log line that says where it went.
    private static func moveAside(_ url: URL) -> String {
        do {
            return "kept as \(try DurableFile.moveAside(url, label: "skipped").lastPathComponent)"
        } catch {
            return "could not move it aside (\(error)), so the visitor's next change replaces it"
        }
    }

    /// Replaces the file of every visitor in `entries`, then syncs the directory once. A failed
    /// write leaves that visitor's previous file, is listed in ``WriteOutcome/failed``, and has a
    /// `Segments:` error in ``WriteOutcome/lines`` for the caller to log.
    func write(_ entries: [(visitorId: String, segments: ReportingSegments)]) -> WriteOutcome {
        var outcome = WriteOutcome()
        guard !entries.isEmpty else { return outcome }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            outcome.lines.append(.init(level: .error, text: "Segments: Cannot create reporting segments directory \(directory.path): \(error)"))
            outcome.failed = entries.map(\.visitorId)
            return outcome
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for (visitorId, segments) in entries {
            do {
                let data = try encoder.encode(Record(version: Record.currentVersion, visitorId: visitorId, segments: segments))
                let name = Self.escapedName(visitorId)
                try DurableFile.replace(fileURL(escapedName: name), with: data, temporary: temporaryURL(escapedName: name))
                outcome.files += 1
                outcome.bytes += data.count
            } catch {
                outcome.lines.append(.init(level: .error, text: "Segments: Failed to persist reporting segments of visitor \(visitorId): \(error)"))
                outcome.failed.append(visitorId)
            }
        }
        DurableFile.syncDirectory(directory)
        return outcome
    }

    /// Longest escaped id used as a name; beyond it the name is a hash (names are limited to 255 bytes).
    private static let maximumEscapedLength = 200

    /// The file name part for `visitorId`: its bytes, escaped, in Unicode's composed form (NFC),
    /// since `String` equality, and so the store, takes an id's spellings for one visitor.
    /// `composing: false` gives the name an earlier version gave the id as it was spelled.
    static func escapedName(_ visitorId: String, composing: Bool = true) -> String {
        let visitorId = composing ? visitorId.precomposedStringWithCanonicalMapping : visitorId
        var name = ""
        for byte in visitorId.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "-"):
                name.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                name += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
            if name.utf8.count > maximumEscapedLength {
                // `~` never appears in an escaped name, so hashed names cannot collide with them.
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in visitorId.utf8 {
                    hash ^= UInt64(byte)
                    hash = hash &* 0x0000_0100_0000_01b3
                }
                return "~" + String(hash, radix: 16).leftPadded(to: 16)
            }
        }
        return name
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
