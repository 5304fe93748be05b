import Dispatch
import Foundation
import XCTest

@testable import RealtimeSegments

/// The engine's wake-up is one binary permit: signals given while nobody waits are remembered
/// once, however many there were.
final class EngineWakeupTests: XCTestCase {
    private var alreadyPassed: UInt64 { DispatchTime.now().uptimeNanoseconds }

    func testSignalsGivenWhileNobodyWaitsAreRememberedOnce() {
        let wakeup = EngineWakeup()
        wakeup.signal()
        wakeup.signal()
        wakeup.signal()
        XCTAssertTrue(wakeup.wait(untilUptimeNanoseconds: alreadyPassed), "the remembered signal ends the first wait")
        XCTAssertFalse(wakeup.wait(untilUptimeNanoseconds: alreadyPassed), "one permit, not one per signal")
    }

    func testASignalAfterAWaitReturnedIsRememberedForTheNextWait() {
        let wakeup = EngineWakeup()
        wakeup.signal()
        XCTAssertTrue(wakeup.wait(untilUptimeNanoseconds: alreadyPassed))
        wakeup.signal()
        XCTAssertTrue(wakeup.wait(untilUptimeNanoseconds: alreadyPassed), "a wake-up is never lost")
        XCTAssertFalse(wakeup.wait(untilUptimeNanoseconds: alreadyPassed))
    }

    func testASignalWakesAThreadThatWaits() {
        let wakeup = EngineWakeup()
        let woke = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            wakeup.wait()
            woke.signal()
        }
        wakeup.signal()
        XCTAssertEqual(woke.wait(timeout: .now() + 10), .success)
        XCTAssertFalse(wakeup.wait(untilUptimeNanoseconds: alreadyPassed), "the signal was used by the wait it ended")
    }
}
