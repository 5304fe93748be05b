import Atomics
import SegmentsCPUHints
import Synchronization

/// A bounded lock-free multi-producer, single-consumer queue (Vyukov's bounded queue).
///
/// Producers claim a position with one atomic read-modify-write of the enqueue position (a
/// fetch-add for ``enqueue(_:whileFull:)`` and ``claim(whileFull:)``, which wait for their slot;
/// a compare-and-swap for ``tryEnqueue(_:)``, which only claims a free slot) and publish it with a
/// release store of the slot's sequence number; the consumer reads slots in order. Nothing is
/// allocated after construction: elements are moved into and out of a preallocated buffer.
///
/// Each slot holds its sequence number next to its element, padded to whole cache lines: a
/// producer writes one line per element and the consumer reads that one line, instead of a line of
/// eight neighbouring sequence numbers that producer and consumer would keep taking from each other.
///
/// A producer that finds its slot still taken waits for it, and never gives up its place: after a
/// short spin it parks, and the consumer wakes it (``wakeParkedProducers()``, once per batch) when
/// it has freed that slot, in the order of the producers' claims.
///
/// Threading: ``tryEnqueue(_:)``, ``enqueue(_:whileFull:)`` and ``claim(whileFull:)`` with its
/// ``publish(_:)`` from any number of threads;
/// ``dequeue()`` and ``wakeParkedProducers()`` from one consumer thread at a time (the engine
/// thread); ``isEmpty`` from any thread (a snapshot).
@_spi(Benchmarks)
public final class EventRing<Element: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every slot is owned by exactly one thread at a time. A producer owns slot
    // `p` from the moment it has claimed position `p` (a successful CAS, or a fetch-add that
    // returned `p`) and seen `sequence[p] == p` (acquire), until its release store of `sequence[p]`;
    // the consumer owns it from observing that store (acquire) until its own release store of
    // `sequence[p] = p + capacity`, which hands it back to producers. Elements are only touched
    // inside those windows, and each window's acquire/release pair orders the element's writes
    // before the next owner's reads. An element moves from a producer's thread to the consumer's,
    // hence `Element: Sendable`. The other stored properties are immutable or atomic.
    let capacity: Int
    private let mask: Int
    /// `capacity` slots of ``slotStride`` bytes: the sequence at offset 0, the element at
    /// ``elementOffset``.
    private let slots: UnsafeMutableRawPointer
    // The enqueue and dequeue positions live in the object itself, so a producer reaches the
    // enqueue position with one load fewer than through a pointer to a separate allocation. Each
    // is kept off every other field's cache line by a cache line of padding on both sides (a
    // class lays out its stored properties in declaration order): producers write the enqueue
    // position, the consumer the dequeue position, and both read the fields above all the time;
    // sharing a line would make every enqueue wait for the consumer.
    private let paddingBeforeEnqueue = CacheLinePadding()
    private let enqueuePosition = Atomic<Int>(0)
    private let paddingBeforeDequeue = CacheLinePadding()
    private let dequeuePosition = Atomic<Int>(0)
    private let paddingAfterDequeue = CacheLinePadding()
    /// Producers asleep until the consumer frees their slot (see ``wakeParkedProducers()``). Read
    /// by producers only once they found the ring full, and by the consumer once per batch.
    private let parking = ProducerParking()

    /// Creates a ring holding at least `minimumCapacity` elements (rounded up to a power of two).
    @_spi(Benchmarks)
    public init(minimumCapacity: Int) {
        var capacity = 2
        while capacity < minimumCapacity { capacity <<= 1 }
        self.capacity = capacity
        self.mask = capacity - 1
        slots = .allocate(
            byteCount: capacity * Self.slotStride,
            alignment: max(CacheLinePadding.lineSize, MemoryLayout<Element>.alignment))
        for index in 0..<capacity {
            let slot = slot(at: index)
            slot.initializeMemory(as: UnsafeAtomic<Int>.Storage.self, to: .init(index))
            // Bound once, here: every later access to the element goes through
            // `assumingMemoryBound(to: Element.self)` (free), which needs memory bound to
            // `Element`. The element itself is initialized and deinitialized per use.
            (slot + Self.elementOffset).bindMemory(to: Element.self, capacity: 1)
        }
    }

    deinit {
        while dequeue() != nil {}
        for index in 0..<capacity {
            slot(at: index).assumingMemoryBound(to: UnsafeAtomic<Int>.Storage.self).deinitialize(count: 1)
        }
        slots.deallocate()
    }

    /// Where a slot's element starts: after its sequence number, aligned for `Element`.
    ///
    /// This and ``slotStride`` are static, so once the ring is specialized for its element they
    /// are constants in the code: a claim loads nothing from the ring but its buffer and mask,
    /// and the multiplication by the stride is a shift.
    private static var elementOffset: Int {
        let sequenceSize = MemoryLayout<UnsafeAtomic<Int>.Storage>.stride
        let alignment = MemoryLayout<Element>.alignment
        return (sequenceSize + alignment - 1) / alignment * alignment
    }

    /// Bytes per slot: its sequence number and element, rounded up to whole cache lines.
    private static var slotStride: Int {
        let lineSize = CacheLinePadding.lineSize
        return (elementOffset + MemoryLayout<Element>.size + lineSize - 1) / lineSize * lineSize
    }

    /// The start of `position`'s slot: its sequence number, then its element.
    @inline(__always)
    private func slot(at position: Int) -> UnsafeMutableRawPointer {
        Self.slot(at: position, in: slots, mask: mask)
    }

    @inline(__always)
    private static func slot(at position: Int, in slots: UnsafeMutableRawPointer, mask: Int) -> UnsafeMutableRawPointer {
        slots + (position & mask) &* slotStride
    }

    @inline(__always)
    private func sequence(at position: Int) -> UnsafeAtomic<Int> {
        Self.sequence(in: slot(at: position))
    }

    /// The sequence number at the start of `slot`.
    @inline(__always)
    fileprivate static func sequence(in slot: UnsafeMutableRawPointer) -> UnsafeAtomic<Int> {
        UnsafeAtomic(at: slot.assumingMemoryBound(to: UnsafeAtomic<Int>.Storage.self))
    }

    /// The element stored in `slot` (memory bound to `Element` by `init`).
    @inline(__always)
    fileprivate static func element(in slot: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Element> {
        (slot + elementOffset).assumingMemoryBound(to: Element.self)
    }

    /// The element of `position`'s slot.
    @inline(__always)
    private func element(at position: Int) -> UnsafeMutablePointer<Element> {
        Self.element(in: slot(at: position))
    }

    /// A position a producer has claimed with ``claim(whileFull:)`` and the slot it owns until
    /// ``publish(_:)``.
    struct ClaimedSlot {
        let position: Int
        fileprivate let slot: UnsafeMutableRawPointer

        /// The slot's element, which the producer must initialize exactly once before publishing.
        @inline(__always)
        var element: UnsafeMutablePointer<Element> { EventRing.element(in: slot) }
    }

    /// Appends `element`, or returns `false` (leaving it with the caller) if the ring is full.
    @inline(__always)
    @_spi(Benchmarks)
    public func tryEnqueue(_ element: Element) -> Bool {
        guard let claimed = tryClaim() else { return false }
        Self.copy(element, into: claimed.element)
        publish(claimed)
        return true
    }

    /// Appends `element`, taking it over without copying it; while the ring is full, waits for
    /// its slot as ``waitUntilFree(_:whileFull:)`` does. Never drops.
    ///
    /// The claim is one fetch-add on the enqueue position, which always succeeds: producers never
    /// retry against each other, and a producer that finds the ring full already holds its place
    /// in line and waits only for the consumer to free that one slot.
    ///
    /// The element arrives owned, so nothing is retained here: whatever it references was retained
    /// when the caller built it, before this call, and so before the slot is published.
    @inline(__always)
    func enqueue(_ element: consuming Element, whileFull: (_ attempt: Int) -> Void) {
        fill(claim(whileFull: whileFull), with: element)
    }

    /// Moves an owned `element` into a claimed slot that is free, and publishes it: the second
    /// half of ``enqueue(_:whileFull:)``, for a producer that claimed without waiting.
    @inline(__always)
    func fill(_ claimed: ClaimedSlot, with element: consuming Element) {
        Self.move(element, into: claimed.element)
        publish(claimed)
    }

    /// Claims the next position, waiting (see ``waitUntilFree(_:whileFull:)``) until its slot is free, and returns
    /// it: the first half of ``enqueue(_:whileFull:)`` for a producer that builds its element in
    /// place. The caller must initialize the claim's ``ClaimedSlot/element`` and then
    /// ``publish(_:)`` it, with every retain of what the element references done before the
    /// publication: build it from values that were owned on entry to a call that is not inlined,
    /// and consume them, so that no retain happens in between (see ``copy(_:into:)``). Until then
    /// the consumer waits at that position.
    @inline(__always)
    func claim(whileFull: (_ attempt: Int) -> Void) -> ClaimedSlot {
        let (claimed, isFree) = claimWithoutWaiting()
        if _slowPath(!isFree) { wait(until: claimed, isFree: whileFull) }
        return claimed
    }

    /// Claims the next position like ``claim(whileFull:)`` but does not wait for its slot: returns
    /// the claim and whether the slot is free already. When it is not, the caller must
    /// ``waitUntilFree(_:whileFull:)`` before it initializes the element; the position is its own
    /// either way. For a producer whose waiting path is wholly out of line, so that its fast path
    /// keeps nothing in registers across a call.
    @inline(__always)
    func claimWithoutWaiting() -> (claimed: ClaimedSlot, isFree: Bool) {
        // Read before the fetch-add, which is a full barrier on x86: read after it, these loads
        // would wait for it (and it for the previous call's stores), then delay the slot's address.
        let slots = self.slots
        let mask = self.mask
        // Sequentially consistent for the handshake with a falling-asleep engine (see `isEmpty`).
        let position = enqueuePosition.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        segments_prefetch_for_write(Self.slot(at: position &+ Self.prefetchDistance, in: slots, mask: mask))
        let slot = Self.slot(at: position, in: slots, mask: mask)
        let isFree = Self.sequence(in: slot).load(ordering: .acquiring) == position
        return (ClaimedSlot(position: position, slot: slot), isFree)
    }

    /// Waits until the slot of a claim from ``claimWithoutWaiting()`` is free; returns at once if
    /// it is.
    ///
    /// The wait is ``spinsBeforeParking`` looks at the slot, each after a call of `whileFull`
    /// (with the number of calls before it), then sleep: the producer parks until the consumer's
    /// ``wakeParkedProducers()`` finds its slot freed. `whileFull` is called once more after the
    /// producer is listed as parked and before it sleeps, so that a wake-up of the consumer it
    /// sends there cannot be lost against a consumer that checks ``hasParkedProducers`` before
    /// it waits. Parked producers are woken in the order of their claimed positions.
    func waitUntilFree(_ claimed: ClaimedSlot, whileFull: (_ attempt: Int) -> Void) {
        if Self.sequence(in: claimed.slot).load(ordering: .acquiring) != claimed.position {
            wait(until: claimed, isFree: whileFull)
        }
    }

    /// Looks at its slot this many times, each after a call of `whileFull`, before a producer
    /// that found the ring full parks. Few: a spinning producer keeps reading the line of its
    /// slot, which the consumer needs, and with many producers they take the cores the consumer
    /// and the producers ahead of them need; one that sleeps costs the consumer a wake-up call
    /// per drain batch at most.
    static var spinsBeforeParking: Int { 4 }

    /// Waits until the claimed slot's sequence reaches its position (see
    /// ``waitUntilFree(_:whileFull:)``).
    ///
    /// Out of line: inlined, its loop of calls made the claim keep its caller's values in saved
    /// registers and stack slots on every call, full ring or not.
    @inline(never)
    private func wait(until claimed: ClaimedSlot, isFree whileFull: (_ attempt: Int) -> Void) {
        let slotSequence = Self.sequence(in: claimed.slot)
        var attempt = 0
        repeat {
            if attempt < Self.spinsBeforeParking {
                whileFull(attempt)
            } else {
                parking.park(
                    at: claimed.position, isFree: { slotSequence.load(ordering: .acquiring) == claimed.position },
                    beforeSleeping: { whileFull(attempt) })
            }
            attempt += 1
        } while slotSequence.load(ordering: .acquiring) != claimed.position
    }

    /// Wakes the producers parked on slots the consumer has freed, oldest claim first, and returns
    /// how many. The consumer calls it after each batch of ``dequeue()``s and whenever `dequeue`
    /// found nothing ready (a parked producer's own slot may be the next one): a consumer that
    /// never does leaves a producer that found the ring full asleep.
    ///
    /// While nobody is parked it costs a full fence and one load: the fence is the consumer's half
    /// of the handshake with a producer about to sleep (see ``ProducerParking``).
    @discardableResult
    func wakeParkedProducers() -> Int {
        Atomics.atomicMemoryFence(ordering: .sequentiallyConsistent)
        return parking.wake(claimedBelow: dequeuePosition.load(ordering: .relaxed) &+ capacity)
    }

    /// Whether a producer is parked, waiting for the consumer (a snapshot; sequentially
    /// consistent, see ``waitUntilFree(_:whileFull:)``).
    var hasParkedProducers: Bool { parking.hasParked }

    /// Times a producer parked since the ring was made.
    var parkCount: Int { parking.parkCount }

    /// The claimed positions of the parked producers, oldest first (a snapshot, for tests).
    var parkedPositions: [Int] { parking.parkedPositions }

    /// Claims the next slot for the caller, or returns `nil` if the ring is full.
    @inline(__always)
    private func tryClaim() -> ClaimedSlot? {
        var position = enqueuePosition.load(ordering: .relaxed)
        while true {
            let sequence = sequence(at: position).load(ordering: .acquiring)
            let lag = sequence &- position
            if lag == 0 {
                // Sequentially consistent, not relaxed: it is the producer's half of the handshake
                // with a falling-asleep engine (see `isEmpty`). Free on x86, where every
                // compare-and-swap is a full barrier anyway; on ARM it orders the producer's later
                // look at the engine's `sleeping` flag after this claim.
                let (won, current) = enqueuePosition.weakCompareExchange(
                    expected: position, desired: position &+ 1, ordering: .sequentiallyConsistent)
                if won {
                    prefetchSlot(ahead: position)
                    return ClaimedSlot(position: position, slot: slot(at: position))
                }
                position = current
            } else if lag < 0 {
                return nil
            } else {
                position = enqueuePosition.load(ordering: .relaxed)
            }
        }
    }

    /// How many slots ahead of its own a producer prefetches.
    ///
    /// A slot's line was last written by the consumer (it hands the slot back by storing its
    /// sequence), so without a hint each enqueue waits for that line to come from the consumer's
    /// cache or a farther level, and the next claim's fetch-add, a full barrier on x86, waits for
    /// the stores into it. Asking for the line sixteen claims early takes that wait off the call
    /// (`docs/performance-notes.md` has the measurement). It is only a hint: in a ring
    /// smaller than the distance it lands on a slot still in use, which costs nothing but the hint.
    private static var prefetchDistance: Int { 16 }

    @inline(__always)
    private func prefetchSlot(ahead position: Int) {
        segments_prefetch_for_write(slot(at: position &+ Self.prefetchDistance))
    }

    /// Hands a claimed and filled slot to the consumer (see ``claim(whileFull:)``).
    @inline(__always)
    func publish(_ claimed: ClaimedSlot) {
        Self.sequence(in: claimed.slot).store(claimed.position &+ 1, ordering: .releasing)
    }

    /// Copies `element` into a claimed slot, retaining what it references.
    ///
    /// Not inlined on purpose: inlined, the optimizer is free to move the retain of the copy below
    /// the release store that publishes the slot (the caller's borrow keeps the object alive, so to
    /// the optimizer the retain can happen any time before the caller returns). Seen in
    /// release builds: `trackEvent` stored the element, published it, then retained its
    /// properties. A consumer that took the element, uploaded it and released it inside that
    /// window brought a shared properties dictionary to a zero count while the app still held it
    /// ("_DictionaryStorage deallocated with non-zero retain count", or a crash in the next retain).
    /// Behind this call the retain is done before the function returns, so before the publication.
    @inline(never)
    private static func copy(_ element: Element, into slot: UnsafeMutablePointer<Element>) {
        slot.initialize(to: element)
    }

    /// Moves an owned `element` into a claimed slot.
    ///
    /// Not inlined for the reason ``copy(_:into:)`` gives: an owned argument of an opaque call must
    /// have had its retains done before the call, so they cannot sink below the publication.
    @inline(never)
    private static func move(_ element: consuming Element, into slot: UnsafeMutablePointer<Element>) {
        slot.initialize(to: element)
    }

    /// Removes the oldest element, or returns `nil` if none is ready. Consumer thread only.
    @_spi(Benchmarks)
    public func dequeue() -> Element? {
        let position = dequeuePosition.load(ordering: .relaxed)
        let slotSequence = sequence(at: position)
        guard slotSequence.load(ordering: .acquiring) == position &+ 1 else { return nil }
        let element = element(at: position).move()
        slotSequence.store(position &+ capacity, ordering: .releasing)
        dequeuePosition.store(position &+ 1, ordering: .releasing)
        return element
    }

    /// `true` when every claimed slot has been consumed (a snapshot; producers may be mid-enqueue).
    ///
    /// The engine asks this after announcing that it goes to sleep, and a producer looks at that
    /// announcement after claiming its slot (Dekker's handshake): with the claim and both of these
    /// sequentially consistent, either the engine sees the claim or the producer sees the engine
    /// asleep and wakes it, so no event waits in the ring for a wake-up that never comes.
    var isEmpty: Bool {
        let dequeued = dequeuePosition.load(ordering: .acquiring)
        return enqueuePosition.load(ordering: .sequentiallyConsistent) == dequeued
    }

    /// The position the next ``dequeue()`` takes from. Consumer thread only.
    var nextDequeuePosition: Int { dequeuePosition.load(ordering: .relaxed) }

    /// The position the next producer will claim: every position below it has been claimed
    /// (a snapshot; producers claim more meanwhile). Sequentially consistent, like `isEmpty`: the
    /// end of the engine (``EngineChannels/closeRing(logger:)``) relies on it for the same
    /// handshake. A plain load on x86 either way.
    var claimedPositions: Int { enqueuePosition.load(ordering: .sequentiallyConsistent) }
}
