import Foundation
import XCTest

@testable import RealtimeSegments
import RealtimeSegmentsTesting

#if os(Linux)
import Glibc

/// The engine thread's scheduling follows ``SegmentsConfiguration/engineScheduling``.
final class EngineThreadTests: XCTestCase {
    /// A manual clock that notes the scheduling policy of the thread the engine sleeps on.
    final class PolicyRecordingClock: SteppedClock {
        let base = ManualClock()
        let policies = Locked<[Int32]>([])
        let threadNames = Locked<Set<String>>([])

        func now() -> SegmentsInstant { base.now() }
        func wallClockSeconds() -> Double { base.wallClockSeconds() }
        func sleep(until deadline: SegmentsInstant?, wakeup: EngineWakeup) {
            let policy = sched_getscheduler(0)
            policies.withLock { $0.append(policy) }
            // The name the kernel holds (what `top -H` and `perf` show).
            if let name = systemThreadName() {
                threadNames.withLock { _ = $0.insert(name) }
            }
            base.sleep(until: deadline, wakeup: wakeup)
        }
    }

    /// `SCHED_OTHER` and `SCHED_BATCH` from `<sched.h>` (the latter is not imported into Swift).
    private static let schedOther: Int32 = 0
    private static let schedBatch: Int32 = 3

    private func policiesOfEngineThread(_ scheduling: EngineScheduling?) -> [Int32] {
        engineThread(scheduling).policies.withLock { $0 }
    }

    private func engineThread(_ scheduling: EngineScheduling?) -> PolicyRecordingClock {
        let clock = PolicyRecordingClock()
        var configuration = SegmentsConfiguration(projectToken: "t", transport: InMemorySegmentsTransport())
        configuration.clock = clock
        if let scheduling { configuration.engineScheduling = scheduling }
        let client = SegmentsClient(configuration: configuration)
        client.start()
        XCTAssertTrue(client.waitUntilIdle(timeout: .seconds(10)))
        waitUntil { !clock.policies.withLock { $0.isEmpty } }
        client.stop()
        return clock
    }

    /// The name is short enough for Linux to accept, so `top -H` and `perf` show the engine thread.
    func testTheEngineThreadCarriesItsNameAtTheSystemLevel() {
        let clock = engineThread(nil)
        XCTAssertEqual(clock.threadNames.withLock { $0 }, [EngineThread.name])
    }

    /// The qualified-segments executor's thread, too, carries a name the kernel accepted.
    func testTheQualifiedFetchThreadCarriesItsNameAtTheSystemLevel() async {
        let name = await Task(executorPreference: QualifiedFetchExecutor.shared) {
            systemThreadName()
        }.value
        XCTAssertEqual(name, QualifiedFetchExecutor.threadName)
    }

    func testTheEngineThreadYieldsToAppThreadsByDefault() {
        let policies = policiesOfEngineThread(nil)
        XCTAssertFalse(policies.isEmpty)
        XCTAssertEqual(Set(policies), [Self.schedBatch], "the engine thread should run under SCHED_BATCH")
    }

    func testStandardSchedulingLeavesTheEngineThreadWithTheDefaultPolicy() {
        let policies = policiesOfEngineThread(.standard)
        XCTAssertFalse(policies.isEmpty)
        XCTAssertEqual(Set(policies), [Self.schedOther])
    }
}
#endif
