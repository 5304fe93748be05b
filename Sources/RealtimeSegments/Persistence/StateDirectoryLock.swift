#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Synchronization

/// A client's hold on its state directory: an exclusive `flock` on `<directory>/segments.lock`,
/// so that two clients (in one process or two) never both write the state file, the journal and
/// the reporting segments there, each replacing what the other saved. The file holds the project
/// token of the first client whose state file accepted it: the directory belongs to that project
/// from then on.
///
/// Taken when the client is created and held until its engine has ended (after its last save), or,
/// for a client never started, until it is stopped or released. The kernel drops it with the
/// process, so a crashed process leaves no stale lock; the file itself stays.
///
/// A holder that outlives the client's own hold (its reporting write-behind, when a client is
/// dropped without `stop()`) takes a share (``share()``): the lock is dropped when every holder
/// has released it.
///
/// Threading: any thread. Each holder calls ``release()`` once; ``releaseNow()`` may be called
/// more than once.
final class StateDirectoryLock: Sendable {
    enum Failure: Error, Equatable {
        /// Another client holds the directory.
        case held
        /// The directory belongs to another project (the token its lock file names).
        case otherProject(String)
        /// The lock file could not be made or locked (`errno`, in words).
        case unavailable(String)
    }

    /// The lock file's descriptor while held, and how many holders have not released it.
    private let state: Mutex<(descriptor: Int32?, holders: Int)>

    private init(descriptor: Int32) {
        self.state = Mutex((descriptor, 1))
    }

    /// Takes the directory's lock without waiting, creating the directory and the lock file if
    /// needed, for `projectToken`'s client: a lock file naming another project is refused. An
    /// empty one is left empty: the client names its project (``claim(for:)``) once the state
    /// file has accepted it, so a client refused by another project's state file claims nothing.
    static func acquire(in directory: URL, projectToken: String) -> Result<StateDirectoryLock, Failure> {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            return .failure(.unavailable("\(error)"))
        }
        let path = directory.appendingPathComponent("segments.lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return .failure(.unavailable(String(cString: strerror(errno)))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            close(fd)
            return .failure(error == EWOULDBLOCK ? .held : .unavailable(String(cString: strerror(error))))
        }
        var owner = [UInt8](repeating: 0, count: 4_096)
        let count = pread(fd, &owner, owner.count, 0)
        guard count >= 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(.unavailable(reason))
        }
        if count > 0, String(decoding: owner[..<count], as: UTF8.self) != projectToken {
            close(fd)
            return .failure(.otherProject(String(decoding: owner[..<count], as: UTF8.self)))
        }
        return .success(StateDirectoryLock(descriptor: fd))
    }

    /// Names `projectToken`'s project in a lock file that names none yet: the directory belongs to
    /// that project from then on. Nothing once the lock is dropped.
    func claim(for projectToken: String) {
        state.withLock { state in
            guard let descriptor = state.descriptor else { return }
            var byte: UInt8 = 0
            guard pread(descriptor, &byte, 1, 0) == 0 else { return }
            let token = Array(projectToken.utf8)
            _ = pwrite(descriptor, token, token.count, 0)
            _ = DurableFile.syncToDevice(descriptor)
        }
    }

    /// One more holder, which must ``release()`` too; nothing once the lock is dropped.
    func share() {
        state.withLock { state in
            if state.descriptor != nil { state.holders += 1 }
        }
    }

    /// One holder gives the directory up; the last one drops the lock (closing the file).
    func release() {
        state.withLock { state in
            guard let open = state.descriptor else { return }
            state.holders -= 1
            if state.holders <= 0 {
                close(open)
                state.descriptor = nil
            }
        }
    }

    /// Drops the lock now, whoever still holds it, as the kernel does for a process that dies.
    func releaseNow() {
        state.withLock { state in
            if let open = state.descriptor { close(open) }
            state.descriptor = nil
        }
    }

    deinit { releaseNow() }
}
