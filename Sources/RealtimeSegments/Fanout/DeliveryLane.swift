import Atomics
import Dispatch

/// One category's way to its callbacks: the serial queue its deliveries run on, the hand-off a
/// spinning delivery thread takes them from (with a spin window), and how far they got.
///
/// Threading: made and handed deliveries by the engine thread; its block runs on ``queue``.
final class DeliveryLane: Sendable {
    let queue: DispatchQueue
    /// `nil` without a spin window.
    let handOff: DeliveryHandOff?
    /// The sequence number of the last delivery to every callback that ran to its end for its
    /// customer (0 for none). Written by the lane's block, read by the engine thread.
    let completedFullDelivery = ManagedAtomic<UInt64>(0)

    init(queue: DispatchQueue, handOff: DeliveryHandOff?) {
        self.queue = queue
        self.handOff = handOff
    }
}
