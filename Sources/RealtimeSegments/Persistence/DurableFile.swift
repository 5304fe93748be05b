import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Crash-safe replacement of a file: the bytes go to a temporary file in the same directory, are
/// flushed to disk, and replace the target with one `rename`, so a crash leaves the old or the new
/// content, never a mix. ``syncDirectory(_:)`` then makes the rename itself durable; callers that
/// replace many files in one directory call it once for the batch.
///
/// Threading: any thread; concurrent calls must use different temporary paths (names made with
/// ``uniqueTag()``).
enum DurableFile {
    /// A tag no other call returns (a random UUID), for a temporary file's name: two writers of
    /// one file, in one process or two (even two containers sharing a volume, whose process IDs
    /// may be equal), never share a temporary file.
    static func uniqueTag() -> String { UUID().uuidString }

    /// Writes `data` to `temporary`, fsyncs it and renames it over `target` (same directory).
    /// On failure the temporary file is removed and `target` is untouched.
    static func replace(_ target: URL, with data: Data, temporary: URL, beforeRename: (@Sendable () -> Void)? = nil) throws {
        do {
            try writeAndSync(data, to: temporary)
        } catch {
            unlink(temporary.path)
            throw error
        }
        beforeRename?()
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "rename failed: \(reason)"])
        }
    }

    /// Flushes `directory`'s entries (the renames made in it) to disk. Best effort.
    static func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = syncToDevice(descriptor)
        close(descriptor)
    }

    /// Flushes what was written through `descriptor` to the storage device; returns `fsync`'s
    /// result. On Apple platforms `fsync` leaves the writes in the drive's cache, where a power
    /// loss takes them: `F_FULLFSYNC` asks the drive to write them out (`fsync` if it is refused).
    static func syncToDevice(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return fsync(descriptor)
    }

    /// Renames `url` to `<its name>.<label>-<seconds since 1970>-<process id>` beside it and returns
    /// where it went: a file that could not be loaded is kept for a person, or a newer version of
    /// the library, instead of being replaced by the next save.
    static func moveAside(_ url: URL, label: String) throws -> URL {
        let kept = url.deletingLastPathComponent().appendingPathComponent(
            "\(url.lastPathComponent).\(label)-\(Int(Date().timeIntervalSince1970))-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.moveItem(at: url, to: kept)
        return kept
    }

    /// Appends `data` to `target` (created if missing) and fsyncs it. A crash can leave only a
    /// prefix of `data` at the end of the file, never damage what was there before.
    static func append(_ data: Data, to target: URL) throws {
        try writeAndSync(data, to: target, flags: O_WRONLY | O_CREAT | O_APPEND)
    }

    private static func writeAndSync(_ data: Data, to url: URL, flags: Int32 = O_WRONLY | O_CREAT | O_TRUNC) throws {
        let descriptor = open(url.path, flags | O_CLOEXEC, 0o600)
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
        guard syncToDevice(descriptor) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "fsync: \(String(cString: strerror(errno)))"])
        }
    }
}
