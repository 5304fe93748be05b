import Foundation

/// Starts the harness on jemalloc when the library is installed: if jemalloc is not yet the
/// allocator, the process re-executes itself once with `LD_PRELOAD` set to the library and
/// `MALLOC_CONF=tcache:false` (exact call counts). Nothing happens when it is already loaded, when
/// the library is absent, or when `SEGMENTS_BENCH_NO_JEMALLOC=1`.
public enum JemallocRuntime {
    /// Where Debian and other distributions put the runtime library.
    static let candidates = [
        "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
        "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
        "/usr/lib64/libjemalloc.so.2",
        "/usr/lib/libjemalloc.so.2",
        "/usr/local/lib/libjemalloc.so.2",
    ]

    /// Re-executes the process with jemalloc preloaded if that is possible and not done yet.
    /// Returns only if no re-execution happened.
    public static func preloadIfAvailable() {
        #if os(Linux)
        let environment = ProcessInfo.processInfo.environment
        guard !AllocationProbe.isAvailable, environment["SEGMENTS_BENCH_NO_JEMALLOC"] != "1",
            environment["SEGMENTS_BENCH_REEXEC"] == nil,
            let library = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) })
        else { return }
        let preload = [environment["LD_PRELOAD"], library].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        setenv("LD_PRELOAD", preload, 1)
        setenv("MALLOC_CONF", "tcache:false", 0)
        setenv("SEGMENTS_BENCH_REEXEC", "1", 1)
        let arguments = CommandLine.arguments
        var cArguments = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", &cArguments)
        // execv only returns on failure: carry on without allocation counts.
        for pointer in cArguments { free(pointer) }
        #endif
    }
}
