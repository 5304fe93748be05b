import Foundation

/// Counts what one operation of a ``CostRegion`` costs, by running this executable's
/// `cost-region` command under valgrind's callgrind twice, with `n` and `2n` iterations, and
/// dividing the difference by `n`: setup, warm-up and the counted function's own entry cancel out.
///
/// The counts are deterministic: the same build gives the same numbers on an idle or a loaded
/// machine (callgrind counts executed instructions, not time). Threading: blocking; call from a
/// plain thread.
public struct CostProbe: Sendable {
    /// What one operation costs.
    public struct Cost: Sendable, Hashable {
        public var instructions: Double
        public var retains: Double
        public var releases: Double
        public var allocations: Double
    }

    public enum Failure: Error, CustomStringConvertible {
        case valgrindMissing
        case valgrindFailed(region: String, status: Int32, output: String)
        case noOutput(region: String)
        case regionStalled(String)
        case stripFailed(status: Int32)

        public var description: String {
            switch self {
            case .valgrindMissing:
                "valgrind is not installed (Debian: apt-get install valgrind): instruction counts cannot be measured"
            case .valgrindFailed(let region, let status, let output):
                "valgrind exited \(status) counting \(region): \(output.suffix(600))"
            case .noOutput(let region): "callgrind wrote no profile for \(region)"
            case .regionStalled(let region): "the \(region) region did not complete"
            case .stripFailed(let status): "objcopy --strip-debug exited \(status) (binutils is needed to count instructions)"
            }
        }
    }

    /// The Swift runtime entry points that retain or release a heap object.
    static let retainFunctions: Set<String> = [
        "swift_retain", "swift_retain_n", "swift_bridgeObjectRetain", "swift_bridgeObjectRetain_n",
        "swift_nonatomic_retain", "swift_unknownObjectRetain",
    ]
    static let releaseFunctions: Set<String> = [
        "swift_release", "swift_release_n", "swift_bridgeObjectRelease", "swift_bridgeObjectRelease_n",
        "swift_nonatomic_release", "swift_unknownObjectRelease",
    ]
    /// Allocation entry points: the C allocator's, and the Swift runtime's, which calls `malloc`
    /// itself (an object allocated through `swift_allocObject` counts once).
    static let allocationFunctions: Set<String> = [
        "malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "swift_slowAlloc",
    ]

    /// The executable that runs `cost-region` (this one).
    public var executable: String
    /// Where the profiles are written.
    public var workDirectory: URL

    public init(executable: String = CostProbe.currentExecutable, workDirectory: URL) {
        self.executable = executable
        self.workDirectory = workDirectory
    }

    /// This process's executable.
    public static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The path of valgrind, if installed.
    static var valgrind: String? {
        ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The tool ``measure(_:)`` needs that this machine lacks, with how to install it; `nil` when
    /// it has valgrind and binutils' `objcopy`.
    static var missingTool: String? {
        if valgrind == nil { return "valgrind (apt-get install valgrind)" }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let hasObjcopy = path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/objcopy") }
        return hasObjcopy ? nil : "objcopy (apt-get install binutils)"
    }

    /// The cost of one operation of `region`.
    public func measure(_ region: CostRegion) throws -> Cost {
        let n = region.iterations
        let executable = try countedExecutable()
        let once = try profile(region, iterations: n, executable: executable)
        let twice = try profile(region, iterations: 2 * n, executable: executable)
        let operations = Double(n * region.operationsPerIteration)
        func perOperation(_ value: (CallgrindProfile) -> Int) -> Double {
            Double(value(twice) - value(once)) / operations
        }
        return Cost(
            instructions: perOperation(\.instructions),
            retains: perOperation { $0.calls(to: Self.retainFunctions, notFrom: Self.releaseFunctions) },
            releases: perOperation { $0.calls(to: Self.releaseFunctions, notFrom: Self.retainFunctions) },
            allocations: perOperation { $0.calls(to: Self.allocationFunctions) })
    }

    /// A copy of ``executable`` without its DWARF debug information, which valgrind 3.19 cannot
    /// read in the form this toolchain writes (it gives up on the whole binary); the symbol table,
    /// which names the counted functions, stays. Made once per work directory.
    func countedExecutable() throws -> String {
        let copy = workDirectory.appendingPathComponent("segments-bench.counted")
        if FileManager.default.isExecutableFile(atPath: copy.path) { return copy.path }
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        let strip = Process()
        strip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        strip.arguments = ["objcopy", "--strip-debug", executable, copy.path]
        try strip.run()
        strip.waitUntilExit()
        guard strip.terminationStatus == 0 else { throw Failure.stripFailed(status: strip.terminationStatus) }
        return copy.path
    }

    /// Runs `region` with `iterations` under callgrind and reads the profile (all threads).
    func profile(_ region: CostRegion, iterations: Int, executable: String) throws -> CallgrindProfile {
        guard let valgrind = Self.valgrind else { throw Failure.valgrindMissing }
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        let output = workDirectory.appendingPathComponent("callgrind.\(region.rawValue).\(iterations).out")
        try? FileManager.default.removeItem(at: output)
        let process = Self.childProcess(
            running: valgrind,
            [
                "--tool=callgrind", "--collect-atstart=no", "--compress-strings=no", "--compress-pos=no",
                "--callgrind-out-file=\(output.path)",
            ] + region.toggleFunctions.map { "--toggle-collect=\($0)" }
                + [executable, "cost-region", region.rawValue, "--iterations", String(iterations)],
            parentEnvironment: ProcessInfo.processInfo.environment)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let log = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure.valgrindFailed(
                region: region.rawValue, status: process.terminationStatus, output: String(decoding: log, as: UTF8.self))
        }
        guard let text = try? String(contentsOf: output, encoding: .utf8) else { throw Failure.noOutput(region: region.rawValue) }
        return try CallgrindProfile(parsing: text)
    }

    /// The environment of every counted child, in this order, before ``passedThrough``.
    ///
    /// Fixed, not derived from this process's: the variables a child starts with, and their order,
    /// are part of its heap before the counted loop, and that heap decides which paths the C
    /// allocator takes on every iteration (the same build counted the same region a few hundred
    /// instructions apart with the same variables in another order). No jemalloc either: the
    /// C library's malloc, as an app has it, since the allocator changes every allocating path.
    static let childEnvironment = [
        "PATH=/usr/local/bin:/usr/bin:/bin",
        // The C library's allocator, without this executable's re-exec into jemalloc.
        "SEGMENTS_BENCH_NO_JEMALLOC=1",
        // A fixed hash seed: with the per-process random one, dictionary and set operations (the
        // decoder's, the engine's) take more or fewer probes from run to run.
        "SWIFT_DETERMINISTIC_HASHING=1",
    ]

    /// The variables of this process the child keeps when set, in this order after
    /// ``childEnvironment``: where a relocated valgrind finds its tools, where a Swift runtime
    /// outside the default paths is, and where temporary files go. Constant on one machine.
    static let passedThrough = ["VALGRIND_LIB", "LD_LIBRARY_PATH", "TMPDIR"]

    /// The process that runs `program` with `arguments` in ``childEnvironment`` and the
    /// ``passedThrough`` variables `parent` (this process's environment) sets, and nothing else of
    /// it (not started).
    static func childProcess(running program: String, _ arguments: [String], parentEnvironment parent: [String: String]) -> Process {
        // `env -i` sets the variables in the order given; `Process.environment`, a dictionary,
        // would pass them in this process's random hash order.
        let kept = passedThrough.compactMap { name in parent[name].map { "\(name)=\($0)" } }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["-i"] + childEnvironment + kept + [program] + arguments
        process.environment = parent
        return process
    }
}
