import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// SPEC §10: concurrent setters never lose an update; events follow the order of the changes.
final class ReportingConcurrencyTests: XCTestCase {
    private static let callsPerThread = 10_000

    /// The race forced: one setter is held inside its change, under the visitor's lock; another
    /// setter of the same visitor waits for it, and both changes are kept, in order. A setter that
    /// read the segments, changed a copy and stored it back would finish first and then be
    /// overwritten by the held one's stale copy.
    func testASetterWaitsForAnotherHeldInsideItsChangeAndBothAreKept() throws {
        for form in ["default", "custom"] {
            let held = HeldHook(armed: false)
            let fixture = Fixture { $0.reportingChangedForTesting = { held.hold() } }
            let log = EventLog()
            fixture.client.reporting.subscribe { log.append($0) }
            let visitor = try fixture.client.reportingVisitor(visitorId: "shared")
            @Sendable func set(_ value: String) {
                if form == "default" { visitor.setDefaultSegments([value == "a" ? "country" : "campaign": value]) } else { visitor.setCustomSegments([value]) }
            }
            held.arm()
            let first = DispatchSemaphore(value: 0)
            Thread { set("a"); first.signal() }.start()
            XCTAssertEqual(held.waitUntilHeld(timeout: .now() + 10), .success, form)
            let second = DispatchSemaphore(value: 0)
            Thread { set("b"); second.signal() }.start()
            XCTAssertEqual(second.wait(timeout: .now() + 0.2), .timedOut, "\(form): the second setter finished while the first was inside its change")
            held.release()
            XCTAssertEqual(first.wait(timeout: .now() + 10), .success, form)
            XCTAssertEqual(second.wait(timeout: .now() + 10), .success, form)
            if form == "default" {
                XCTAssertEqual(visitor.segments, ReportingSegments(country: "a", campaign: "b"))
            } else {
                XCTAssertEqual(visitor.segments.customSegments, ["a", "b"])
            }
            fixture.client.reporting.waitForDeliveries()
            XCTAssertEqual(log.all.count, 2, form)
            XCTAssertEqual(log.all.last?.segments, visitor.segments, "\(form): events follow the changes' order")
        }
    }

    func testTwoThreadsSettingDefaultSegmentsLoseNoUpdate() throws {
        let fixture = Fixture()
        let log = EventLog()
        fixture.client.reporting.subscribe { log.append($0) }
        let visitor = try fixture.client.reportingVisitor(visitorId: "shared")
        let keys = ["country", "campaign"]
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for call in 0..<Self.callsPerThread { visitor.setDefaultSegments([keys[thread]: "\(call)"]) }
        }
        XCTAssertEqual(visitor.segments, ReportingSegments(country: "9999", campaign: "9999"))
        // A lost update would show as a key going back to an older value in the event stream,
        // which follows the order of the changes.
        fixture.client.reporting.waitForDeliveries()
        let events = log.all
        XCTAssertEqual(events.count, 2 * Self.callsPerThread)
        var last: [ReportingSegmentKey: Int] = [:]
        var regressions = 0
        for event in events {
            for key in [ReportingSegmentKey.country, .campaign] {
                let value = event.segments[key].flatMap(Int.init) ?? -1
                if value < last[key, default: -1] { regressions += 1 }
                last[key] = value
            }
        }
        XCTAssertEqual(regressions, 0)
    }

    func testTwoThreadsAppendingCustomSegmentsLoseNoUpdate() throws {
        let fixture = Fixture()
        let visitor = try fixture.client.reportingVisitor(visitorId: "shared")
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for call in 0..<Self.callsPerThread { visitor.setCustomSegments(["\(thread)-\(call)"]) }
        }
        let custom = visitor.segments.customSegments
        XCTAssertEqual(custom.count, 2 * Self.callsPerThread)
        for thread in 0..<2 {
            XCTAssertEqual(custom.filter { $0.hasPrefix("\(thread)-") }, (0..<Self.callsPerThread).map { "\(thread)-\($0)" })
        }
    }

    /// Run under `--sanitize=thread`: setters on overlapping visitors, readers, subscription churn
    /// and persistence flushes all at once.
    func testStressOfSettersReadersSubscribersAndPersistenceIsConsistent() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = Fixture(stateDirectory: directory)
        let reporting = fixture.client.reporting
        let log = EventLog()
        reporting.subscribe { log.append($0) }
        let visitors = try (0..<8).map { try fixture.client.reportingVisitor(visitorId: "visitor/\($0)") }
        let calls = 2_000
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            switch thread {
            case 0, 1:
                for call in 0..<calls {
                    let visitor = visitors[call % visitors.count]
                    if call % 2 == 0 {
                        visitor.setCustomSegments(["\(thread)-\(call)"])
                    } else {
                        visitor.setDefaultSegments([thread == 0 ? "country" : "source": "\(call)"])
                    }
                }
            case 2:
                for call in 0..<calls / 10 {
                    let subscription = reporting.subscribe { _ in }
                    _ = visitors[call % visitors.count].attributesForAudienceEvaluation(overlaying: [:])
                    reporting.unsubscribe(subscription)
                }
            default:
                for _ in 0..<20 { reporting.flush() }
            }
        }
        reporting.flush()
        reporting.waitForDeliveries()
        XCTAssertEqual(log.all.count, 2 * calls)
        XCTAssertEqual(visitors.reduce(0) { $0 + $1.segments.customSegments.count }, calls)

        fixture.client.releaseStateDirectoryForTesting()
        let restored = Fixture(stateDirectory: directory)
        for visitor in visitors {
            XCTAssertEqual(try restored.client.reportingVisitor(visitorId: visitor.visitorId).segments, visitor.segments)
        }
    }
}
