import Dispatch
import Logging
import Synchronization

/// One thread of a ``SegmentsEngineGroup`` and the clients pinned to it: runs their turns
/// (``EngineOwner/turn()``), each client's state touched by this thread only.
///
/// Scheduling: a client is run when it is ready (a producer or control message woke it, or its
/// last turn asked for another at once), when its deadline on the group's clock passed, or when
/// its linger (``EngineTurn/linger``, real time) is over; one turn per client per pass, so a busy
/// client cannot starve the others. Between passes the thread sleeps on its ``EngineWakeup`` until
/// the earliest deadline or linger end among its clients.
///
/// Timers: the earliest deadline is found by a scan of the client table on each pass, not kept in
/// a heap. Every turn may move a client's deadline (a debounce restarts with each event, an upload
/// answer moves the schedule), so a heap would pay a sift per turn plus its bookkeeping, while
/// the scan reads one small entry per client in a contiguous array (a few microseconds for
/// thousands of clients), done once per pass, which already costs a turn of each ready client.
///
/// Waking: producers push the client onto a lock-free ready list (a Treiber stack of
/// ``EngineGroupMember``s) and signal the thread's wake-up. The thread takes the whole list with
/// one exchange and never pops single members, so no member is pushed while it is still on the
/// list (its `queued` flag is cleared only after the take, and after its `next` was read): the
/// compare-and-swap of a push cannot meet a recycled head (no ABA). The wake-up's permit is kept
/// when the thread is not waiting, so a push after the take ends the next wait at once: no
/// wake-up is lost between "take the list" and "sleep".
///
/// Lifetime: the thread starts when a client joins a thread that is not running, and ends when
/// its last client has finished (decided under the join lock, so a client that joins meanwhile
/// either is seen by the ending thread or starts a new one).
///
/// Threading: ``join(_:)`` and ``pushReady(_:)`` from any thread; the rest on the group thread.
final class EngineGroupThread: @unchecked Sendable {
    // @unchecked Sendable: `engines`, `schedules` and `pendingScratch` are read and written
    // only by the one running group thread (`run()`); a new thread starts only after the previous
    // one cleared `running` under `joins`' lock as its last act on them, which orders the two.
    // Everything else is an atomic, a lock or immutable.

    /// A client on its way onto the thread: what its engine is built from, on the group thread.
    struct Join: Sendable {
        var member: EngineGroupMember
        var channels: EngineChannels
        var logger: Logger
        /// Builds the client's engine (called on the group thread, which then owns it).
        var makeOwner: @Sendable () -> EngineOwner
        /// What the client's own thread does after its engine ended: take late items out of the
        /// ring, and signal `stop()`. Called on the group thread.
        var finished: @Sendable () -> Void
    }

    private struct Joins {
        var pending: [Join] = []
        /// A thread runs this table's loop (set by the join that starts it, cleared as it ends).
        var running = false
    }

    /// A client's engine in the table.
    private struct Engine {
        var member: EngineGroupMember
        var channels: EngineChannels
        var owner: EngineOwner
        var finished: @Sendable () -> Void
    }

    /// When a client's engine runs next: plain values, kept apart from the references in
    /// ``Engine`` so that the scan of a pass reads a small contiguous entry per client and
    /// retains nothing.
    private struct Schedule {
        /// Run at the next pass (woken, or its last turn asked for more).
        var runNow = true
        /// Asleep (``EngineChannels/beginGroupSleep()``) until `deadline` or a wake-up.
        var asleep = false
        /// Lingering (``EngineChannels/beginGroupLinger()``) until `lingerEnd` uptime nanoseconds.
        var lingering = false
        var deadline: SegmentsInstant?
        var lingerEnd: UInt64 = 0

        func isDue(now: SegmentsInstant, uptime: UInt64) -> Bool {
            if runNow { return true }
            if lingering { return lingerEnd <= uptime }
            return deadline.map { $0 <= now } ?? false
        }
    }

    let wakeup = EngineWakeup()
    /// This thread while it runs: the ``EngineChannels/consumerThread`` of every client pinned to
    /// it, including one that has not joined yet (started by code this thread runs) or has ended.
    let consumer = ThreadMark()
    private let clock: any SegmentsClock
    private let scheduling: EngineScheduling
    private let joins = Locked(Joins())
    /// Joins waiting in `joins` (a look without the lock on each pass).
    private let pendingJoins = Atomic<Int>(0)
    /// The ready list's head: an unmanaged, retained ``EngineGroupMember``'s bits, 0 when empty.
    private let readyHead = Atomic<UInt>(0)

    /// The clients' engines and their schedules, at the same index (a member's `index`).
    private var engines: [Engine] = []
    private var schedules: [Schedule] = []
    private var pendingScratch: [Join] = []

    /// Test hook, `nil` outside tests: runs right before the thread waits.
    private let aboutToSleep: (@Sendable () -> Void)?

    init(clock: any SegmentsClock, scheduling: EngineScheduling, aboutToSleep: (@Sendable () -> Void)? = nil) {
        self.clock = clock
        self.scheduling = scheduling
        self.aboutToSleep = aboutToSleep
    }

    /// Whether the thread runs (from its first client's join to its last client's end).
    var isRunning: Bool { joins.withLock { $0.running } }

    // MARK: Any thread

    /// Adds a started client to the thread, starting the thread if it is not running.
    func join(_ join: Join) {
        let start = joins.withLock { joins in
            joins.pending.append(join)
            pendingJoins.wrappingAdd(1, ordering: .releasing)
            if joins.running { return false }
            joins.running = true
            return true
        }
        if start {
            EngineThread.start(
                scheduling: scheduling, logger: join.logger, name: EngineThread.groupName, consumer: consumer
            ) { [self] in
                run()
            }
        } else {
            wakeup.signal()
        }
    }

    /// Pushes `member` (whose `queued` flag the caller set) onto the ready list and signals.
    func pushReady(_ member: EngineGroupMember) {
        let bits = UInt(bitPattern: Unmanaged.passRetained(member).toOpaque())
        var head = readyHead.load(ordering: .relaxed)
        while true {
            member.next.store(head, ordering: .relaxed)
            let (exchanged, original) = readyHead.compareExchange(
                expected: head, desired: bits, successOrdering: .releasing, failureOrdering: .relaxed)
            if exchanged { break }
            head = original
        }
        wakeup.signal()
    }

    // MARK: Group thread

    private func run() {
        while takeJoins() {
            takeReady()
            let now = clock.now()
            let uptime = DispatchTime.now().uptimeNanoseconds
            var again = false
            var earliest: SegmentsInstant?
            var earliestLingerEnd = UInt64.max
            var index = 0
            while index < schedules.count {
                if schedules[index].isDue(now: now, uptime: uptime) {
                    guard runTurn(at: index) else { continue }  // ended: the last entry moved here
                }
                if schedules[index].runNow {
                    again = true
                } else if schedules[index].lingering {
                    earliestLingerEnd = min(earliestLingerEnd, schedules[index].lingerEnd)
                } else if let deadline = schedules[index].deadline {
                    earliest = earliest.map { min($0, deadline) } ?? deadline
                }
                index += 1
            }
            // With no client left, `takeJoins` ends the thread (or takes the clients that joined).
            if again || engines.isEmpty { continue }
            aboutToSleep?()
            wait(until: earliest, lingerEnd: earliestLingerEnd == .max ? nil : earliestLingerEnd)
        }
    }

    /// Runs one turn of the engine at `index` and records what it asked for; `false` if the engine
    /// finished and left the table (the last entry now sits at `index`).
    private func runTurn(at index: Int) -> Bool {
        let channels = engines[index].channels
        if schedules[index].asleep { channels.endGroupSleep() }
        if schedules[index].lingering { channels.endGroupLinger() }
        var schedule = Schedule(runNow: false)
        switch engines[index].owner.turn() {
        case .again:
            schedule.runNow = true
        case .linger:
            if channels.beginGroupLinger() {
                schedule.lingering = true
                schedule.lingerEnd = DispatchTime.now().uptimeNanoseconds &+ EngineOwner.lingerNanoseconds
            } else {
                schedule.runNow = true
            }
        case .sleep(let deadline):
            if channels.beginGroupSleep() {
                schedule.asleep = true
                schedule.deadline = deadline
            } else {
                schedule.runNow = true
            }
        case .finished:
            let ended = remove(at: index)
            // What the client's own thread does after `run()`.
            ended.finished()
            return false
        }
        schedules[index] = schedule
        return true
    }

    /// Takes the engine at `index` out of the table, moving the last one into its place.
    private func remove(at index: Int) -> Engine {
        let ended = engines[index]
        ended.member.index = -1
        let last = engines.removeLast()
        let lastSchedule = schedules.removeLast()
        if index < engines.count {
            engines[index] = last
            schedules[index] = lastSchedule
            last.member.index = index
        }
        return ended
    }

    /// Moves the joined clients into the table and begins their engines; `false` once the table
    /// is empty and nobody joins, after which this thread ends (and the next join starts one).
    private func takeJoins() -> Bool {
        if pendingJoins.load(ordering: .acquiring) == 0 && !engines.isEmpty { return true }
        let keepRunning = joins.withLock { joins in
            swap(&joins.pending, &pendingScratch)
            pendingJoins.wrappingSubtract(pendingScratch.count, ordering: .relaxed)
            if pendingScratch.isEmpty && engines.isEmpty {
                joins.running = false
                return false
            }
            return true
        }
        guard keepRunning else { return false }
        for join in pendingScratch {
            let owner = join.makeOwner()
            join.member.index = engines.count
            engines.append(Engine(member: join.member, channels: join.channels, owner: owner, finished: join.finished))
            schedules.append(Schedule())
            owner.begin()
        }
        pendingScratch.removeAll(keepingCapacity: true)
        return true
    }

    /// Takes the whole ready list (one exchange) and marks its members to run.
    private func takeReady() {
        var bits = readyHead.exchange(0, ordering: .acquiring)
        while let pointer = UnsafeRawPointer(bitPattern: bits) {
            let member = Unmanaged<EngineGroupMember>.fromOpaque(pointer).takeRetainedValue()
            bits = member.next.load(ordering: .relaxed)
            // After `next` was read: from here on a producer may push it again.
            member.queued.store(false, ordering: .sequentiallyConsistent)
            // -1: not joined yet (the join marks it to run anyway) or ended (nothing to run).
            if member.index >= 0 { schedules[member.index].runNow = true }
        }
    }

    /// Sleeps until `deadline` on the group's clock, `lingerEnd` in uptime nanoseconds (the
    /// earlier of the two), or a wake-up.
    private func wait(until deadline: SegmentsInstant?, lingerEnd: UInt64?) {
        guard let lingerEnd else {
            wakeup.wait(until: deadline, on: clock)
            return
        }
        var end = lingerEnd
        // A linger is real time; a deadline on a clock that moves with real time is too. A
        // stepped clock's deadline is looked at again when the linger (a millisecond) is over.
        if let deadline, !(clock is any SteppedClock) {
            let left = deadline.duration(since: clock.now()).clampedNanoseconds
            let (deadlineEnd, overflow) = DispatchTime.now().uptimeNanoseconds.addingReportingOverflow(left)
            if !overflow { end = min(end, deadlineEnd) }
        }
        wakeup.wait(untilUptimeNanoseconds: end)
    }
}
