import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts the engine's own thread with the scheduling the configuration asks for.
enum EngineThread {
    /// The engine thread's name, as `top -H`, `perf` and debuggers show it. Linux keeps at most 15
    /// characters and refuses a longer name outright (the thread then shows the process's name).
    static let name = "Segments.engine"

    /// `SCHED_BATCH` from `<sched.h>`: Linux-only and declared behind `_GNU_SOURCE`, so Swift does
    /// not import the macro.
    private static let schedBatch: Int32 = 3

    /// Runs `body` on a new thread named ``name``; `scheduling` decides how it competes with the
    /// app's threads. A policy the system refuses is logged and the thread runs with the default one.
    static func start(scheduling: EngineScheduling, logger: Logger, body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            // Named from inside: on Linux, Foundation passes a name to the system only when the
            // thread names itself (set from outside, the kernel keeps showing the process's name).
            Thread.current.name = name
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
