#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SegmentsMockServer
import Synchronization

/// How far a thread's own data is once it has slept: the floor of the work a check does after
/// the engine idled, as every check does under a debounce of seconds.
///
/// The calling thread walks a random cycle through 16 KiB of its own (256 lines by default), each
/// load waiting for the one before, so no two misses overlap and the walk's time per line is the
/// latency of wherever the lines are. Each round times one walk straight after another (the lines
/// in the nearest cache) and one after an idle pause. Where the caches keep the lines across the
/// pause, the two read alike. Where the core is lent to others while the thread sleeps (a virtual
/// machine whose hypervisor runs other work on a halted vCPU), the walk after the pause reads a
/// farther cache's latency, or memory's.
enum CacheAfterIdleFloor {
    /// Where the last walk ended: stored so that the optimizer keeps every load of the walks.
    private static let walkEnd = Atomic<UInt>(0)

    struct Measurement: Sendable {
        /// Nanoseconds per line of a walk straight after the previous one, per round.
        var hot: [Double] = []
        /// Nanoseconds per line of a walk after the idle pause, per round.
        var afterIdle: [Double] = []
    }

    /// `rounds` rounds over `lines` lines (at least 2), each pausing `idle` before its second walk.
    static func measure(rounds: Int, lines: Int = 256, idle: Duration) -> Measurement {
        let next = cycle(lines: lines, seed: 1)
        let lineBytes = 64
        let memory = UnsafeMutableRawPointer.allocate(byteCount: lines * lineBytes, alignment: lineBytes)
        defer { memory.deallocate() }
        // Each line's first word holds the address of the next line of the cycle.
        for line in 0..<lines {
            memory.storeBytes(of: memory + next[line] * lineBytes, toByteOffset: line * lineBytes, as: UnsafeMutableRawPointer.self)
        }
        var position = memory
        func walk() -> Double {
            let start = monotonicNanoseconds()
            position = follow(from: position, steps: lines)
            return Double(monotonicNanoseconds() &- start) / Double(lines)
        }
        var measurement = Measurement()
        let idleMicroseconds = useconds_t(max(idle.wholeNanoseconds / 1_000, 1))
        _ = walk()
        for _ in 0..<rounds {
            _ = walk()
            measurement.hot.append(walk())
            usleep(idleMicroseconds)
            measurement.afterIdle.append(walk())
        }
        // An atomic store is never removed, so neither are the walks that lead to it.
        walkEnd.store(UInt(bitPattern: position), ordering: .relaxed)
        return measurement
    }

    /// Follows `steps` links from `start`; where it ended. Not inlined, so that the optimizer
    /// cannot fold the loads of one walk into the next or drop them.
    @inline(never)
    static func follow(from start: UnsafeMutableRawPointer, steps: Int) -> UnsafeMutableRawPointer {
        var position = start
        for _ in 0..<steps { position = position.load(as: UnsafeMutableRawPointer.self) }
        return position
    }

    /// A random cycle through `lines` indices (at least 2): `next[i]` follows `i`, and following it
    /// from any index visits every index once before coming back. The indices are shuffled with a
    /// seeded generator, so a run's walk is the same each time, and each is linked to the next.
    static func cycle(lines: Int, seed: UInt64) -> [Int] {
        precondition(lines >= 2, "a cycle needs two lines")
        var order = Array(0..<lines)
        var generator = SplitMix64(seed: seed)
        for index in stride(from: lines - 1, to: 0, by: -1) {
            order.swapAt(index, Int(generator.next() % UInt64(index + 1)))
        }
        var next = [Int](repeating: 0, count: lines)
        for (position, line) in order.enumerated() { next[line] = order[(position + 1) % lines] }
        return next
    }
}
