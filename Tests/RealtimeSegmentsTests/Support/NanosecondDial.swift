import Foundation
import Synchronization

/// A nanosecond clock that a test sets, counting its reads, so a test can wait until a spinning
/// thread has seen a time instead of sleeping for it.
final class NanosecondDial: Sendable {
    private let nanoseconds = Atomic<UInt64>(0)
    private let reads = Atomic<Int>(0)

    /// The time now; counts one read after loading it.
    @Sendable func read() -> UInt64 {
        let value = nanoseconds.load(ordering: .acquiring)
        reads.add(1, ordering: .releasing)
        return value
    }

    func set(_ value: UInt64) {
        nanoseconds.store(value, ordering: .releasing)
    }

    /// Returns once `count` reads have been counted after this call began, or after 10 s. The
    /// second such read started after this call, so it saw every earlier ``set(_:)``; a third
    /// shows that the reader went on after acting on it.
    func waitForReadsAfterNow(_ count: Int) {
        let start = reads.load(ordering: .acquiring)
        let deadline = Date().addingTimeInterval(10)
        while reads.load(ordering: .acquiring) - start < count && Date() < deadline { sched_yield() }
    }
}
