/// The floor: a plain loop over `[closure]` on the calling thread
/// (``FanoutProbe/closureLoop(callbacks:rounds:)``). Every other peer's time is read as a ratio
/// to this one, measured in the same run.
final class ClosureLoopPeer: PeerMechanism {
    let name = "closure-loop"
    let timedSpan = "first closure called → last closure returned"
    private let callbacks: Int

    /// A loop over `callbacks` closures.
    init(callbacks: Int) {
        self.callbacks = callbacks
    }

    func trial(rounds: Int) -> PeerTrial {
        // No delivery check: a loop over an array calls every element, and the probe keeps its
        // counters to itself.
        PeerTrial(perNotification: FanoutProbe.closureLoop(callbacks: callbacks, rounds: rounds), loss: nil)
    }

    func tearDown() {}
}
