import Dispatch
import Foundation
import Synchronization

/// A nanosecond clock that a test sets, counting its reads, so a test can wait until a spinning
/// thread has seen a time instead of sleeping for it; it can also hold one read until released,
/// to force an interleaving. All its atomics are sequentially consistent, so that "a read counted
/// after a set" implies "that read saw the set".
final class NanosecondDial: Sendable {
    private let nanoseconds = Atomic<UInt64>(0)
    private let reads = Atomic<Int>(0)
    private let holdNext = Atomic<Bool>(false)
    private let held = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)

    /// The time now; counts one read after loading it. A read that finds ``holdNextRead()``
    /// armed waits for ``releaseHeldRead()`` first and then loads the time.
    @Sendable func read() -> UInt64 {
        if holdNext.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged {
            held.signal()
            release.wait()
        }
        let value = nanoseconds.load(ordering: .sequentiallyConsistent)
        reads.add(1, ordering: .sequentiallyConsistent)
        return value
    }

    func set(_ value: UInt64) {
        nanoseconds.store(value, ordering: .sequentiallyConsistent)
    }

    /// The next read waits, inside ``read()``, until ``releaseHeldRead()``.
    func holdNextRead() {
        holdNext.store(true, ordering: .sequentiallyConsistent)
    }

    /// Returns `true` once a read is held, `false` after 10 s without one.
    func waitUntilAReadIsHeld() -> Bool {
        held.wait(timeout: .now() + 10) == .success
    }

    /// Lets the held read load the time and return.
    func releaseHeldRead() {
        release.signal()
    }

    /// Returns once `count` reads have been counted after this call began (fails the test after
    /// 10 s). The second such read started after this call, so it saw every earlier ``set(_:)``; a
    /// third shows that the reader went on after acting on it.
    func waitForReadsAfterNow(_ count: Int, file: StaticString = #filePath, line: UInt = #line) {
        let start = reads.load(ordering: .sequentiallyConsistent)
        waitUntil(file: file, line: line) { reads.load(ordering: .sequentiallyConsistent) - start >= count }
    }
}
