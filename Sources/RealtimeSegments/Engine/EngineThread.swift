import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts the engine's own thread with the scheduling the configuration asks for.
enum EngineThread {
    /// The engine thread's name, as `top -H`, `perf` and debuggers show it (at most 15 characters:
    /// see ``ThreadName``).
    static let name = "Segments.engine"

    /// `SCHED_BATCH` from `<sched.h>`: Linux-only and declared behind `_GNU_SOURCE`, so Swift does
    /// not import the macro.
    private static let schedBatch: Int32 = 3

    /// The name of a ``SegmentsEngineGroup``'s threads.
    static let groupName = "Segments.group"

    /// Runs `body` on a new thread named `name` (``name`` unless told), `consumer` entered for the
    /// thread's whole life; `scheduling` decides how it competes with the app's threads. A policy
    /// the system refuses is logged and the thread runs with the default one.
    ///
    /// `consumer` is entered before anything can log: a log handler that stops a client or tracks
    /// into it must find itself on the thread that serves it.
    static func start(
        scheduling: EngineScheduling, logger: Logger, name: String = EngineThread.name,
        consumer: ThreadMark, body: @escaping @Sendable () -> Void
    ) {
        let thread = Thread {
            ThreadName.setForCurrentThread(name)
            consumer.enter()
            defer { consumer.leave() }
            EngineThreadFlag.markCurrentThread()
            if scheduling == .yieldsToApp { yieldToAppThreads(logger: logger) }
            body()
        }
        #if canImport(Darwin)
        if scheduling == .yieldsToApp { thread.qualityOfService = .utility }
        #endif
        thread.start()
    }

    /// Puts the calling thread under `SCHED_BATCH` (Linux): a thread that wakes no longer preempts
    /// the running one. `segments-bench run tracking-storm` runs its steady two-producer load both
    /// ways (`steady` and `steadyStandardScheduling`), so the effect on the `trackEvent` tail is
    /// measured on the machine at hand rather than assumed.
    private static func yieldToAppThreads(logger: Logger) {
        #if os(Linux)
        var parameters = sched_param()
        if sched_setscheduler(0, schedBatch, &parameters) != 0 {
            logger.debug("Segments: the engine thread keeps the default scheduling (SCHED_BATCH refused: errno \(errno))")
        }
        #endif
    }
}
