import Synchronization

/// One client's place in a ``SegmentsEngineGroup``: the thread it is pinned to, and its link in
/// that thread's ready list.
///
/// Created with the client and held by its ``EngineChannels``; a producer that finds the client's
/// engine asleep (or lingering, for a control message) calls ``wake()`` instead of signalling a
/// thread of the client's own.
///
/// Threading: ``wake()`` from any thread; `index` on the group thread only.
final class EngineGroupMember: @unchecked Sendable {
    // @unchecked Sendable: `queued` and `next` are atomics; `index` is read and written only by
    // the group thread `thread` (from the client's join to its end), never by producers.

    /// The group thread this client's engine runs on, for the client's whole life.
    let thread: EngineGroupThread
    /// The member is on `thread`'s ready list, or about to be: a second wake-up before the group
    /// thread takes it off adds nothing. Cleared by the group thread as it takes the member off,
    /// before the turn it runs for it, so a wake-up during that turn puts it back.
    let queued = Atomic<Bool>(false)
    /// The next member of the ready list (an unmanaged reference's bits, 0 at the end). Written
    /// by the one producer whose `queued` exchange found `false`, read by the group thread after
    /// the push that published it; not touched again until `queued` is cleared.
    let next = Atomic<UInt>(0)
    /// Where the client's engine is in the group thread's table; -1 before it joins and after it
    /// ended. Group thread only.
    var index = -1

    init(thread: EngineGroupThread) {
        self.thread = thread
    }

    /// Puts the member on its group thread's ready list and signals that thread, unless it is on
    /// the list already. Lock-free and allocation-free: one exchange, a retain, a compare-and-swap
    /// loop on the list head, and the thread's wake-up (whose permit merges repeated signals).
    func wake() {
        if queued.exchange(true, ordering: .acquiringAndReleasing) { return }
        thread.pushReady(self)
    }
}
