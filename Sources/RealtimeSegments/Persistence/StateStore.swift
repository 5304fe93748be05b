import Foundation

/// Reads and writes ``PersistedState`` in `<directory>/segments-state.json`.
///
/// Writes are crash-safe: the document goes to a temporary file in the same directory, is flushed
/// to disk, and replaces the old file with one `rename`, so a crash leaves the old or the new state,
/// never a mix. A file that cannot be decoded is reported as ``LoadResult/corrupt(_:)``, one that
/// cannot be read as ``LoadResult/unreadable(_:)``; never a crash.
///
/// Threading: used by the engine thread only.
struct StateStore: Sendable {
    enum LoadResult: Sendable {
        case missing
        case loaded(PersistedState)
        /// Read, but not a state this version can use.
        case corrupt(String)
        /// There, but not read (not a regular file, or the read failed): what it holds is unknown.
        case unreadable(String)
    }

    let directory: URL
    /// Called in ``save(_:)`` between writing the temporary file and renaming it (tests force
    /// interleavings with it).
    var beforeRenameForTesting: (@Sendable () -> Void)?

    init(directory: URL) {
        self.directory = directory
    }

    var fileURL: URL { directory.appendingPathComponent("segments-state.json") }

    func load() -> LoadResult {
        // Only "no such file" is a missing state: a file that cannot be reached now (EACCES on a
        // parent, EIO) may hold the cookie and unsent events. A FIFO or a device there would
        // block the read, or never end it.
        var info = stat()
        guard stat(fileURL.path, &info) == 0 else {
            let code = errno
            return code == ENOENT ? .missing : .unreadable(String(cString: strerror(code)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return .unreadable("not a regular file but \(Self.describe(mode: info.st_mode))") }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            return .unreadable("\(error)")
        }
        do {
            let state = try JSONDecoder().decodeUntrusted(PersistedState.self, from: data)
            guard state.version == PersistedState.currentVersion else {
                return .corrupt("unsupported version \(state.version)")
            }
            guard let cookie = state.customerIds[CustomerIdKey.cookie], !cookie.isEmpty else {
                return .corrupt("no cookie")
            }
            return .loaded(state)
        } catch {
            return .corrupt("\(error)")
        }
    }

    private static func describe(mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }

    /// Moves a file that could not be loaded out of the way, to `segments-state.json.corrupt-<time>`
    /// beside it, and returns where: the next save would otherwise replace it, and with it
    /// whatever it held that a newer version of the library, or a person, could still read (unsent
    /// events among them).
    func setAside() throws -> URL {
        try DurableFile.moveAside(fileURL, label: "corrupt")
    }

    /// Deletes the temporary files of saves that a crash interrupted before their rename
    /// (`.segments-state.json.<tag>.tmp`), each a whole copy of a state. Only for the directory's
    /// lock holder: no other save can be under way. Returns the files deleted.
    @discardableResult
    func removeAbandonedTemporaryFiles() -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(".segments-state.json.") && $0.hasSuffix(".tmp") }.compactMap { name in
            let url = directory.appendingPathComponent(name)
            return (try? FileManager.default.removeItem(at: url)) == nil ? nil : url
        }
    }

    /// Writes `state` atomically. Returns where numbers JSON cannot carry were written as `null`
    /// (see ``JSONValue/encode(to:)``), for the caller to log, and how many bytes were written.
    func save(_ state: PersistedState) throws -> (replaced: [String], bytes: Int) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (data, replaced) = try NonFiniteNumbers.encode(state)
        let temporary = directory.appendingPathComponent(".segments-state.json.\(DurableFile.uniqueTag()).tmp")
        try DurableFile.replace(fileURL, with: data, temporary: temporary, beforeRename: beforeRenameForTesting)
        DurableFile.syncDirectory(directory)
        return (replaced, data.count)
    }
}
