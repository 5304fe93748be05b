import ArgumentParser
import SegmentsBenchKit

/// `segments-bench`: the benchmark and load-testing harness of RealtimeSegments.
@main
struct SegmentsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segments-bench",
        abstract: "Benchmark and load-test the RealtimeSegments engine against an in-process mock segments server.",
        subcommands: [ListCommand.self],
        defaultSubcommand: ListCommand.self)
}

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the scenarios.")

    func run() {
        print("tracking-storm")
    }
}
