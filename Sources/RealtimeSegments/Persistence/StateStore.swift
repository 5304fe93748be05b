import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and writes ``PersistedState`` in `<directory>/segments-state.json`.
///
/// Writes are crash-safe: the document goes to a temporary file in the same directory, is flushed
/// to disk, and replaces the old file with one `rename`, so a crash leaves the old or the new state,
/// never a mix. A file that cannot be decoded is reported as ``LoadResult/corrupt(_:)``, never a crash.
///
/// Threading: used by the engine thread only.
struct StateStore: Sendable {
    enum LoadResult: Sendable {
        case missing
        case loaded(PersistedState)
        case corrupt(String)
    }

    let directory: URL
    var fileURL: URL { directory.appendingPathComponent("segments-state.json") }

    func load() -> LoadResult {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            if !FileManager.default.fileExists(atPath: fileURL.path) { return .missing }
            return .corrupt("unreadable: \(error)")
        }
        do {
            let state = try JSONDecoder().decode(PersistedState.self, from: data)
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

    func save(_ state: PersistedState) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(state)
        let temporary = directory.appendingPathComponent(".segments-state.json.\(getpid()).tmp")
        try writeDurably(data, to: temporary)
        guard rename(temporary.path, fileURL.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "rename failed: \(reason)"])
        }
        syncDirectory()
    }

    private func writeDurably(_ data: Data, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
        defer { close(descriptor) }
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "fsync: \(String(cString: strerror(errno)))"])
        }
    }

    private func syncDirectory() {
        let descriptor = open(directory.path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
