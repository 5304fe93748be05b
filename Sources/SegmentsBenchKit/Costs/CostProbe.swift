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

        public var description: String {
            switch self {
            case .valgrindMissing:
                "valgrind is not installed (Debian: apt-get install valgrind): instruction counts cannot be measured"
            case .valgrindFailed(let region, let status, let output):
                "valgrind exited \(status) counting \(region): \(output.suffix(600))"
            case .noOutput(let region): "callgrind wrote no profile for \(region)"
            case .regionStalled(let region): "the \(region) region did not complete"
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
    /// Allocation entry points (the Swift runtime's allocations go through `malloc` too, but a
    /// direct `swift_slowAlloc` caller is counted here as well).
    static let allocationFunctions: Set<String> = ["malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc"]

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

    /// The cost of one operation of `region`.
    public func measure(_ region: CostRegion) throws -> Cost {
        let n = region.iterations
        let once = try profile(region, iterations: n)
        let twice = try profile(region, iterations: 2 * n)
        let operations = Double(n * region.operationsPerIteration)
        func perOperation(_ value: (CallgrindProfile) -> Int) -> Double {
            Double(value(twice) - value(once)) / operations
        }
        return Cost(
            instructions: perOperation(\.instructions),
            retains: perOperation { $0.calls(to: Self.retainFunctions) },
            releases: perOperation { $0.calls(to: Self.releaseFunctions) },
            allocations: perOperation { $0.calls(to: Self.allocationFunctions) })
    }

    /// Runs `region` with `iterations` under callgrind and reads the profile (all threads).
    func profile(_ region: CostRegion, iterations: Int) throws -> CallgrindProfile {
        guard let valgrind = Self.valgrind else { throw Failure.valgrindMissing }
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        let output = workDirectory.appendingPathComponent("callgrind.\(region.rawValue).\(iterations).out")
        try? FileManager.default.removeItem(at: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: valgrind)
        process.arguments = [
            "--tool=callgrind", "--collect-atstart=no", "--compress-strings=no", "--compress-pos=no",
            "--callgrind-out-file=\(output.path)",
        ] + region.toggleFunctions.map { "--toggle-collect=\($0)" }
            + [executable, "cost-region", region.rawValue, "--iterations", String(iterations)]
        var environment = ProcessInfo.processInfo.environment
        // glibc's malloc, whose calls callgrind counts; no re-exec under jemalloc.
        environment["SEGMENTS_BENCH_NO_JEMALLOC"] = "1"
        process.environment = environment
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
}
