import ArgumentParser

/// A usage error a command found while running (an `--out` that cannot be made, an unknown
/// `--scenario`), with the usage of that command: ArgumentParser, told of it after parsing, shows
/// the top level's (`Usage: segments-bench <subcommand>`).
struct RunningCommandError: Error {
    /// What is printed: the error, then the command's usage.
    let message: String

    /// Runs `body`, the run of `command`; a `ValidationError` it throws comes out as this error.
    static func naming(_ command: any ParsableCommand, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ValidationError {
            let usage = SegmentsBench.usageString(for: type(of: command))
            throw RunningCommandError(message: "Error: \(error.message)\nUsage: \(usage)")
        }
    }
}
