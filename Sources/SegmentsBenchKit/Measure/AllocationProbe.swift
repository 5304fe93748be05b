import CJemalloc
import Foundation

/// Allocation counters from jemalloc's `mallctl`: process-wide malloc calls and bytes.
///
/// Exact call counts need jemalloc's thread caches off (`MALLOC_CONF=tcache:false`): with them on,
/// the arena counters miss cache hits (see shared/notes/bench-tooling.md §1.3).
/// ``JemallocRuntime/preloadIfAvailable()`` starts the harness that way. Without jemalloc every
/// reading is `nil` and reports say how to get the counts.
public enum AllocationProbe {
    /// A reading of the counters.
    public struct Snapshot: Sendable, Hashable {
        /// Allocation calls so far (small + large), process-wide.
        public var mallocCalls: UInt64
        /// Bytes currently allocated.
        public var allocatedBytes: UInt64
        /// Bytes in active pages.
        public var activeBytes: UInt64
        /// Cumulative bytes allocated by the calling thread.
        public var threadAllocatedBytes: UInt64
    }

    /// `true` when jemalloc is this process's allocator, whatever its options.
    public static let isLoaded: Bool = rs_jemalloc_available() != 0

    /// `true` when jemalloc is this process's allocator with its thread caches off, so call counts
    /// are exact.
    public static let countsAreExact: Bool = {
        guard isLoaded else { return false }
        var enabled = false
        var size = MemoryLayout<Bool>.size
        return "opt.tcache".withCString { rs_mallctl($0, &enabled, &size, nil, 0) } == 0 && !enabled
    }()

    /// `true` when allocation counts can be taken: jemalloc with exact counts. With its thread
    /// caches on, cache hits would go uncounted, so that reads as unavailable, never as fewer
    /// allocations.
    public static var isAvailable: Bool { countsAreExact }

    /// jemalloc's version string, or `nil`.
    public static var jemallocVersion: String? {
        guard isLoaded else { return nil }
        var pointer: UnsafePointer<CChar>?
        var size = MemoryLayout<UnsafePointer<CChar>?>.size
        guard "version".withCString({ rs_mallctl($0, &pointer, &size, nil, 0) }) == 0, let pointer else { return nil }
        return String(cString: pointer)
    }

    /// Reads the counters, or `nil` without jemalloc. Allocates nothing (names are static strings).
    public static func snapshot() -> Snapshot? {
        guard isAvailable else { return nil }
        var epoch: UInt64 = 1
        _ = write("epoch", &epoch)
        var small: UInt64 = 0
        var large: UInt64 = 0
        var allocated = 0
        var active = 0
        _ = read("stats.arenas.4096.small.nmalloc", into: &small)
        _ = read("stats.arenas.4096.large.nmalloc", into: &large)
        _ = read("stats.allocated", into: &allocated)
        _ = read("stats.active", into: &active)
        var threadBytes: UInt64 = 0
        _ = read("thread.allocated", into: &threadBytes)
        return Snapshot(
            mallocCalls: small &+ large, allocatedBytes: UInt64(allocated), activeBytes: UInt64(active),
            threadAllocatedBytes: threadBytes)
    }

    private static func read<T: BitwiseCopyable>(_ name: StaticString, into value: inout T) -> Bool {
        var size = MemoryLayout<T>.size
        return name.withUTF8Buffer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { rs_mallctl($0.baseAddress, &value, &size, nil, 0) }
        } == 0
    }

    private static func write(_ name: StaticString, _ newValue: inout UInt64) -> Bool {
        name.withUTF8Buffer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                rs_mallctl($0.baseAddress, nil, nil, &newValue, MemoryLayout<UInt64>.size)
            }
        } == 0
    }

    /// Resident set size of the process in bytes (from `/proc/self/statm`), or `nil`.
    public static func residentBytes() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = UInt64(fields[1]) else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// What a report says when counts are missing.
    public static let unavailableNote =
        "Allocation counts unavailable: jemalloc is not installed, or runs with its thread caches on. Install it with `apt-get install -y libjemalloc-dev` (or libjemalloc2) and run again; segments-bench preloads it by itself."
}
