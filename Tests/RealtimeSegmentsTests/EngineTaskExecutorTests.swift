import Dispatch
import Foundation
import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments

/// A step of a call on the engine's executor can tell whether the engine's turn runs it: only then
/// does a fetch hand its result to the engine in place (`EngineOwner.launchFetch`). Anywhere else
/// (a step run after the engine ended, another thread, another engine's turn) it goes through the
/// inbox. This test thread plays the engine: it takes the steps from the inbox and runs them.
final class EngineTaskExecutorTests: XCTestCase {
    private let channels = EngineChannels(ringCapacity: 16)
    private lazy var executor = EngineTaskExecutor(channels: channels)

    func testAStepRunInTheEnginesTurnIsInTurnAndOnlyThere() {
        let other = EngineTaskExecutor(channels: EngineChannels(ringCapacity: 16))
        let seen = Locked<[String: Bool]>([:])
        let executor = executor
        XCTAssertFalse(executor.isInTurn, "no step runs")

        Task(executorPreference: executor) {
            let elsewhere = onAnotherThread { executor.isInTurn } ?? true
            seen.withLock {
                $0["step"] = executor.isInTurn
                $0["another engine's executor"] = other.isInTurn
                $0["another thread during the step"] = elsewhere
            }
        }
        runNextStep { job, executor in executor.runStep(job) }
        XCTAssertFalse(executor.isInTurn, "the step has ended")

        Task(executorPreference: executor) {
            seen.withLock { $0["step outside the turn"] = executor.isInTurn }
        }
        runNextStep { job, executor in executor.runStepOutsideTurn(job) }

        XCTAssertEqual(seen.withLock { $0 }, [
            "step": true,
            "another engine's executor": false,
            "another thread during the step": false,
            "step outside the turn": false,
        ])
    }

    /// Takes the next step the executor posted to the inbox and runs it with `run`.
    private func runNextStep(
        file: StaticString = #filePath, line: UInt = #line,
        _ run: (UnownedJob, EngineTaskExecutor) -> Void
    ) {
        var messages: [ControlMessage] = []
        waitUntil(file: file, line: line) {
            channels.takeMessages(into: &messages)
            return !messages.isEmpty
        }
        guard messages.count == 1, case .runJob(let job, let executor) = messages[0] else {
            XCTFail("expected one step in the inbox, found \(messages.count) messages", file: file, line: line)
            return
        }
        run(job, executor)
    }
}
