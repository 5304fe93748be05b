import ArgumentParser
import Foundation
import SegmentsBenchKit

/// The `segments-bench` command line (run, list, suite, ci, check, baseline, compare, calibrate,
/// serve, …) over a ``ScenarioRegistry``, for a package's own benchmark executable:
///
/// ```swift
/// @main struct MyBench {
///     static func main() {
///         var registry = ScenarioRegistry()
///         try! registry.register(MyScenario())
///         SegmentsBenchCLI.main(registry: registry)
///     }
/// }
/// ```
public enum SegmentsBenchCLI {
    /// The registry the commands of this process use; bound by ``main(registry:arguments:)``.
    @TaskLocal static var registry = ScenarioRegistry()
    /// The arguments of the command being run (without the executable), for its report's
    /// ``BenchReport/command``; bound by ``main(registry:arguments:)`` and ``run(_:registry:)``.
    @TaskLocal static var arguments: [String] = []

    /// Options whose value is a credential: a report records them as `<redacted>`.
    static let secretOptions: Set<String> = ["--authorization", "--basic-auth"]

    /// The command line as a report records it: `segments-bench` and `arguments`, with the value of
    /// every credential option (``secretOptions``, as `--name value` or `--name=value`) replaced by
    /// `<redacted>`.
    static func recordedCommand(_ arguments: [String]) -> String {
        var words = ["segments-bench"]
        var redactNext = false
        for argument in arguments {
            if redactNext {
                words.append("<redacted>")
                redactNext = false
            } else if let equals = argument.firstIndex(of: "="), secretOptions.contains(String(argument[..<equals])) {
                words.append(argument[..<equals] + "=<redacted>")
            } else {
                words.append(argument)
                redactNext = secretOptions.contains(argument)
            }
        }
        return words.joined(separator: " ")
    }

    /// Parses `arguments` (default: the process's), runs the command with `registry`'s scenarios
    /// and exits the process: 0 on success, the gate's statuses (``ExitStatus``) as the command
    /// threw them, 64 for a usage error, 70 for any other error. Loads jemalloc first where it is
    /// present (allocation counts need it from the start). Call it from the main thread, outside
    /// any Swift concurrency task.
    public static func main(registry: ScenarioRegistry, arguments: [String]? = nil) -> Never {
        JemallocRuntime.preloadIfAvailable()
        Self.$registry.withValue(registry) {
            Self.$arguments.withValue(arguments ?? Array(CommandLine.arguments.dropFirst())) {
                do {
                    if let unknown = CommandWords.segmentsBench.unknownCommand(in: Self.arguments) { throw unknown }
                    var command = try SegmentsBench.parseAsRoot(arguments)
                    try RunningCommandError.naming(command) { try command.run() }
                } catch {
                    exit(for: error)
                }
            }
        }
        Foundation.exit(0)
    }

    /// Parses and runs `arguments` with `registry` without exiting, throwing what the command
    /// throws (a usage error, the gate's `ExitCode`, a harness error); ``exitStatus(for:)`` maps
    /// it to the status ``main(registry:arguments:)`` would exit with. For tests and embedding.
    public static func run(_ arguments: [String], registry: ScenarioRegistry) throws {
        try Self.$registry.withValue(registry) {
            try Self.$arguments.withValue(arguments) {
                if let unknown = CommandWords.segmentsBench.unknownCommand(in: arguments) { throw unknown }
                var command = try SegmentsBench.parseAsRoot(arguments)
                try RunningCommandError.naming(command) { try command.run() }
            }
        }
    }

    /// The exit status for `error`: an `ExitCode` the command threw (the gate's statuses) as it is,
    /// a usage or validation error ``ExitStatus/usage`` (64), help and `--version` 0, any other
    /// error ``ExitStatus/harnessError`` (70).
    public static func exitStatus(for error: any Error) -> Int32 {
        if error is RunningCommandError { return ExitStatus.usage.rawValue }
        let code = SegmentsBench.exitCode(for: error)
        if code.isSuccess { return 0 }
        if error is ExitCode { return code.rawValue }
        if code == .validationFailure { return ExitStatus.usage.rawValue }
        return ExitStatus.harnessError.rawValue
    }

    /// The message ArgumentParser would print for `error` (help, or the error with its usage).
    public static func message(for error: any Error) -> String {
        if let error = error as? RunningCommandError { return error.message }
        return SegmentsBench.fullMessage(for: error)
    }

    /// Prints what ArgumentParser would for `error` (help on standard output, errors on standard
    /// error) and exits with ``exitStatus(for:)``.
    static func exit(for error: any Error) -> Never {
        let status = exitStatus(for: error)
        let message = message(for: error)
        if status == 0 {
            if !message.isEmpty { print(message) }
            Foundation.exit(0)
        }
        if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
        Foundation.exit(status)
    }
}
