import Dispatch
import Foundation
import Synchronization

/// How long this machine takes to run a thread that another thread wakes: the floor of any
/// hand-off to a sleeping thread, such as a delivery without a spin window.
///
/// A thread parks on a semaphore; after an idle pause (so that its core idles, as a delivery
/// thread's does between checks) the measuring thread signals it and keeps its own core busy
/// until the woken thread has stamped the time it ran. No engine is involved.
enum ThreadWakeFloor {
    struct Measurement {
        /// Signal → the woken thread runs, per round.
        var wakeToRun = LatencyRecorder()
        /// How long the signal itself held the signalling thread, per round.
        var signal = LatencyRecorder()
    }

    /// `rounds` wake-ups, each after `idle` of sleep.
    static func measure(rounds: Int, idle: Duration = .milliseconds(1)) -> Measurement {
        let parked = DispatchSemaphore(value: 0)
        let ranAt = Atomic<UInt64>(0)
        let finished = DispatchSemaphore(value: 0)
        let stop = Atomic<Bool>(false)
        let sleeper = Thread {
            while true {
                parked.wait()
                if stop.load(ordering: .acquiring) { break }
                ranAt.store(monotonicNanoseconds(), ordering: .releasing)
            }
            finished.signal()
        }
        sleeper.start()
        var measurement = Measurement()
        let idleMicroseconds = useconds_t(max(idle.wholeNanoseconds / 1_000, 1))
        for round in 0...rounds {
            ranAt.store(0, ordering: .relaxed)
            usleep(idleMicroseconds)
            let start = monotonicNanoseconds()
            parked.signal()
            let signalled = monotonicNanoseconds()
            var ran: UInt64 = 0
            while ran == 0 { ran = ranAt.load(ordering: .acquiring) }
            if round > 0 {  // the first wakes a thread that has never run
                measurement.wakeToRun.record(ran &- start)
                measurement.signal.record(signalled &- start)
            }
        }
        stop.store(true, ordering: .releasing)
        parked.signal()
        finished.wait()
        return measurement
    }
}
