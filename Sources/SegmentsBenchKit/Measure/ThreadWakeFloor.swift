import Dispatch
import Foundation
import Synchronization

/// How long this machine takes to run a thread that another thread wakes: the floor of any
/// hand-off to a sleeping thread, such as a delivery without a spin window.
///
/// A thread parks on a semaphore; after an idle pause (so that the cores idle, as they do
/// between checks) a second thread signals it and keeps its own core busy until the woken thread
/// has stamped the time it ran. No engine is involved. Where the woken thread runs decides most
/// of the figure: on the signalling thread's CPU it takes the core at once, while a CPU that went
/// idle must first be woken itself (on a virtual machine, often through the hypervisor).
enum ThreadWakeFloor {
    /// Where the parked thread runs, against the signalling one.
    enum Placement: Sendable, CaseIterable {
        case sameCPU
        case otherCPU

        /// As reports say it: "same CPU", "other CPU".
        var words: String { self == .sameCPU ? "same CPU" : "other CPU" }
        /// As figure names spell it: "SameCPU", "OtherCPU".
        var figureKey: String { self == .sameCPU ? "SameCPU" : "OtherCPU" }
    }

    struct Measurement: Sendable {
        /// Signal → the woken thread runs, per round.
        var wakeToRun = LatencyRecorder()
        /// How long the signal itself held the signalling thread, per round.
        var signal = LatencyRecorder()
    }

    /// `rounds` wake-ups, each after `idle` of sleep, with both threads pinned as `placement`
    /// says; `nil` where threads cannot be pinned (not Linux) or `otherCPU` finds one CPU only.
    static func measure(rounds: Int, idle: Duration = .milliseconds(1), placement: Placement) -> Measurement? {
        let cpus = CPUAffinity.allowedCPUs()
        guard let signallingCPU = cpus.first else { return nil }
        let parkedCPU: Int
        switch placement {
        case .sameCPU: parkedCPU = signallingCPU
        case .otherCPU:
            guard cpus.count > 1 else { return nil }
            parkedCPU = cpus[1]
        }
        let parked = DispatchSemaphore(value: 0)
        let parkedStarted = DispatchSemaphore(value: 0)
        let ranAt = Atomic<UInt64>(0)
        let stop = Atomic<Bool>(false)
        let pinnedBoth = Atomic<Bool>(true)
        let done = DispatchSemaphore(value: 0)
        let sleeper = Thread {
            if !CPUAffinity.pinCurrentThread(to: parkedCPU) { pinnedBoth.store(false, ordering: .relaxed) }
            parkedStarted.signal()
            while true {
                parked.wait()
                if stop.load(ordering: .acquiring) { break }
                ranAt.store(monotonicNanoseconds(), ordering: .releasing)
            }
            done.signal()
        }
        let result = Mutex<Measurement?>(nil)
        let signaller = Thread {
            if !CPUAffinity.pinCurrentThread(to: signallingCPU) { pinnedBoth.store(false, ordering: .relaxed) }
            parkedStarted.wait()
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
            result.withLock { $0 = measurement }
            done.signal()
        }
        sleeper.start()
        signaller.start()
        done.wait()
        done.wait()
        guard pinnedBoth.load(ordering: .relaxed) else { return nil }
        return result.withLock { $0 }
    }
}
