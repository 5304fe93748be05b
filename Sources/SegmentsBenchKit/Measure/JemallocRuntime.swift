import Foundation

/// Starts the harness on jemalloc when the library is installed: if jemalloc is not yet the
/// allocator, or is but with its thread caches on, the process re-executes itself once with
/// `LD_PRELOAD` set to the library and `tcache:false` added to `MALLOC_CONF` (exact call counts).
/// Nothing happens when counts are already exact, when the library is absent, or when
/// `SEGMENTS_BENCH_NO_JEMALLOC=1`.
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
        guard environment["SEGMENTS_BENCH_NO_JEMALLOC"] != "1", environment["SEGMENTS_BENCH_REEXEC"] == nil else { return }
        if AllocationProbe.isLoaded {
            // Already jemalloc (preloaded by the caller): counts are exact only with the thread
            // caches off, so run again with them off unless they already are.
            guard !AllocationProbe.countsAreExact else { return }
        } else {
            guard let library = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else { return }
            let preload = [environment["LD_PRELOAD"], library].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
            setenv("LD_PRELOAD", preload, 1)
        }
        // Appended, not only set when unset: a MALLOC_CONF of the caller's own (any option) would
        // otherwise leave the thread caches on and every allocation count short.
        setenv("MALLOC_CONF", mallocConfiguration(adding: environment["MALLOC_CONF"]), 1)
        setenv("SEGMENTS_BENCH_REEXEC", "1", 1)
        let arguments = CommandLine.arguments
        var cArguments = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", &cArguments)
        // execv only returns on failure: carry on without allocation counts.
        for pointer in cArguments { free(pointer) }
        #endif
    }

    /// The caller's `MALLOC_CONF` with the thread caches turned off after it (jemalloc reads the
    /// options in order, so the last one wins).
    static func mallocConfiguration(adding existing: String?) -> String {
        [existing, "tcache:false"].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ",")
    }
}
