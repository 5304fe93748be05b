#if canImport(Glibc)
import Glibc
#endif
import SegmentsCPUHints

/// Pins the calling thread to the CPU it is running on for the duration of a measurement.
///
/// Threads created meanwhile inherit the mask (Linux copies the creator's affinity into a new
/// thread), so a client started inside ``onOneCPU(_:)`` has its engine thread on the same CPU as
/// the producer. That isolates the cost of a call from the cost of handing its cache lines to
/// another core, which on a shared VM varies with whatever else the host runs.
enum CPUAffinity {
    /// Runs `body` pinned to the current CPU and restores the previous mask. `pinned` is `false`
    /// where pinning is not available (not Linux, or the calls failed): `body` then ran unpinned.
    static func onOneCPU<T>(_ body: () throws -> T) rethrows -> (value: T, pinned: Bool) {
        #if os(Linux)
        // glibc declares the affinity calls only with _GNU_SOURCE, which the Swift Glibc module
        // does not set: looked up at run time (the CPU number comes from `SegmentsCPUHints`, the
        // engine's own C target, which has no use for affinity).
        guard let calls = Calls.load() else { return (try body(), false) }
        var previous = [UInt8](repeating: 0, count: Calls.maskBytes)
        guard calls.getAffinity(0, previous.count, &previous) == 0,
              pinCurrentThread(to: Int(segments_current_cpu()))
        else { return (try body(), false) }
        defer { _ = calls.setAffinity(0, previous.count, &previous) }
        return (try body(), true)
        #else
        return (try body(), false)
        #endif
    }

    /// The CPUs the calling thread may run on, lowest first; empty where that is not known.
    static func allowedCPUs() -> [Int] {
        #if os(Linux)
        guard let calls = Calls.load() else { return [] }
        var mask = [UInt8](repeating: 0, count: Calls.maskBytes)
        guard calls.getAffinity(0, mask.count, &mask) == 0 else { return [] }
        return (0..<mask.count * 8).filter { mask[$0 / 8] & (UInt8(1) << UInt8($0 % 8)) != 0 }
        #else
        return []
        #endif
    }

    /// Pins the calling thread to `cpu` for the rest of its life; `false` where that is not
    /// possible. For threads a measurement makes and ends itself.
    static func pinCurrentThread(to cpu: Int) -> Bool {
        #if os(Linux)
        guard let calls = Calls.load(), cpu >= 0, cpu < Calls.maskBytes * 8 else { return false }
        var single = [UInt8](repeating: 0, count: Calls.maskBytes)
        single[cpu / 8] = UInt8(1) << UInt8(cpu % 8)
        return calls.setAffinity(0, single.count, &single) == 0
        #else
        return false
        #endif
    }

    #if os(Linux)
    private struct Calls {
        /// A CPU mask's size: 1024 CPUs, like glibc's `cpu_set_t`.
        static let maskBytes = 128
        typealias Affinity = @convention(c) (Int32, Int, UnsafeMutableRawPointer) -> Int32
        let getAffinity: Affinity
        let setAffinity: Affinity

        static func load() -> Calls? {
            let handle = dlopen(nil, RTLD_NOW)
            guard let getAffinity = dlsym(handle, "sched_getaffinity"),
                  let setAffinity = dlsym(handle, "sched_setaffinity")
            else { return nil }
            return Calls(
                getAffinity: unsafeBitCast(getAffinity, to: Affinity.self),
                setAffinity: unsafeBitCast(setAffinity, to: Affinity.self))
        }
    }
    #endif
}
