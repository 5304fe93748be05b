import Logging
import Synchronization

/// A fixed set of engine threads shared by many clients: for a process that runs thousands of
/// ``SegmentsClient``s (a fleet simulation, a server acting for many devices), where a thread per
/// client would be too many.
///
/// Set it on ``SegmentsConfiguration/engineGroup``. Each client created with it is pinned, for its
/// whole life, to one of the group's threads (round robin, in the order the clients are created),
/// so each client's engine state still has exactly one owner thread. A client behaves as it does
/// on a thread of its own: the same turns, timers, debounce, uploads and callbacks, and the same
/// lock-free, allocation-free `trackEvent`. A group thread runs a turn of each of its clients that
/// has input or whose deadline passed, one turn each in a pass (so a client with a flood of events
/// cannot starve the others), and otherwise sleeps until the earliest deadline among its clients or
/// until one is woken. A client that lingers (events flowing) is looked at again after the same
/// short interval as on its own thread, without the group thread blocking for it.
///
/// Threads start with their first client (at its ``SegmentsClient/start()``) and end when their
/// last client has stopped, so a group needs no shutdown: a group no client uses holds no thread.
/// A thread that ended starts again when a client pinned to it starts.
///
/// Clock: the group's threads wait on the group's ``clock``, and a client joins the group only if
/// its ``SegmentsConfiguration/clock`` is that clock (the same instance for a class, such as the
/// testing module's `ManualClock`; the same type for a value, such as ``SystemClock``). A client
/// configured with another clock runs on a thread of its own, with a `Segments:` error.
///
/// Threading: any thread may create a group and hand it to any number of configurations.
public final class SegmentsEngineGroup: Sendable {
    /// How many threads the group runs at most (1...256).
    public let threadCount: Int
    /// The clock every client of the group uses.
    public let clock: any SegmentsClock
    private let threads: [EngineGroupThread]
    /// The next thread a client is pinned to (round robin).
    private let nextThread = Atomic<Int>(0)

    /// Creates a group of `threadCount` threads (brought into 1...256, with a `Segments:` warning
    /// on `logger`) whose clients use `clock`, its threads competing with the app's as
    /// `scheduling` says (see ``EngineScheduling``). No thread starts before a client does.
    public convenience init(
        threadCount: Int, clock: any SegmentsClock = SystemClock(), scheduling: EngineScheduling = .yieldsToApp,
        logger: Logger = Logger(label: "RealtimeSegments")
    ) {
        self.init(threadCount: threadCount, clock: clock, scheduling: scheduling, logger: logger, aboutToSleep: nil)
    }

    /// Creates a group with a test hook: `aboutToSleep` runs on a group thread after its last
    /// look at its clients and the ready list, right before it waits (see ``EngineGroupThread``),
    /// where a producer's wake-up races the thread's sleep.
    init(
        threadCount: Int, clock: any SegmentsClock, scheduling: EngineScheduling, logger: Logger,
        aboutToSleep: (@Sendable () -> Void)?
    ) {
        let count = min(max(threadCount, 1), 256)
        if count != threadCount {
            logger.warning("Segments: SegmentsEngineGroup threadCount \(threadCount) brought into range: \(count)")
        }
        self.threadCount = count
        self.clock = clock
        self.threads = (0..<count).map { _ in EngineGroupThread(clock: clock, scheduling: scheduling, aboutToSleep: aboutToSleep) }
    }

    /// Whether any of the group's threads runs (they end with their last client).
    var isRunning: Bool { threads.contains { $0.isRunning } }

    /// A place on one of the group's threads for a client configured with `configuration`, or
    /// `nil` (with a `Segments:` error) if its clock is not the group's: it then runs alone.
    func makeMember(for configuration: SegmentsConfiguration) -> EngineGroupMember? {
        guard Self.isSameClock(configuration.clock, clock) else {
            configuration.logger.error(
                "Segments: The client's clock is not its SegmentsEngineGroup's clock; it runs on a thread of its own")
            return nil
        }
        let position = nextThread.wrappingAdd(1, ordering: .relaxed).oldValue
        return EngineGroupMember(thread: threads[Int(UInt(bitPattern: position) % UInt(threads.count))])
    }

    /// `true` for the same instance of a class, or two values of the same type.
    static func isSameClock(_ first: any SegmentsClock, _ second: any SegmentsClock) -> Bool {
        let firstType = type(of: first)
        guard ObjectIdentifier(firstType) == ObjectIdentifier(type(of: second)) else { return false }
        guard firstType is AnyClass else { return true }
        return (first as AnyObject) === (second as AnyObject)
    }
}
