import Atomics
import SegmentsCPUHints

/// The shares of one parallel delivery, claimed one at a time from either end of the list until
/// the two ends meet: every share is claimed exactly once.
///
/// Both ends, so that each core keeps writing the same callbacks' cache lines from one delivery to
/// the next. A callback writes its own state (a counter, a flag), and that line stays in the cache
/// of the core that last ran it. With one counter the race decided which core ran which share, so
/// a core could run callbacks whose lines the other core had written in the previous delivery.
/// Claiming from the end that belongs to the core (``End/forCurrentCPU()``) keeps each core on its
/// own part except near where the two meet. It pays at 100,000 callbacks and makes no difference
/// at 10,000 (`docs/performance-notes.md`, "Parallel delivery").
///
/// Threading: ``claim(from:)`` from any number of threads at once; lock-free (one
/// compare-exchange on one word per claim, retried only when another thread claimed meanwhile).
struct ShareClaims {
    /// Which end of the list a thread claims its shares from.
    enum End {
        /// Shares in ascending order, from the first.
        case front
        /// Shares in descending order, from the last.
        case back

        /// The end of the CPU the calling thread runs on: `back` on an odd-numbered CPU, `front`
        /// on an even-numbered one, and `front` where the CPU is not known (every thread then
        /// claims in ascending order, as from one counter).
        static func forCurrentCPU() -> End {
            forCPU(Int(segments_current_cpu()))
        }

        /// The end of CPU number `cpu` (negative: not known).
        static func forCPU(_ cpu: Int) -> End {
            cpu >= 0 && cpu & 1 == 1 ? .back : .front
        }
    }

    /// The next share from the front in the low half; the share after the next one from the back
    /// in the high half. What lies between them is unclaimed.
    private let word: UnsafeAtomic<UInt64>

    /// How many shares can be claimed from one list: both ends fit in one 64-bit word (and the
    /// count in an `Int` where that has 32 bits).
    static let maximumShares = Int(clamping: UInt32.max)

    /// Sets up the claims on `shares` shares (0 ... ``maximumShares``) in `storage`, which must
    /// outlive every claim.
    init(shares: Int, storage: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>) {
        precondition((0...Self.maximumShares).contains(shares), "shares out of range")
        storage.initialize(to: .init(UInt64(shares) << 32))
        word = UnsafeAtomic(at: storage)
    }

    /// Claims the next unclaimed share from `end`: its index, or `nil` when every share is claimed.
    func claim(from end: End) -> Int? {
        var current = word.load(ordering: .relaxed)
        while true {
            let front = current & 0xFFFF_FFFF
            let back = current >> 32
            guard front < back else { return nil }
            let (claimed, share) = end == .front ? (current &+ 1, front) : (current &- (1 << 32), back &- 1)
            let (exchanged, original) = word.weakCompareExchange(expected: current, desired: claimed, ordering: .relaxed)
            if exchanged { return Int(share) }
            current = original
        }
    }
}
