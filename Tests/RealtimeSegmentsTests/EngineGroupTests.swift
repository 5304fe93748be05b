import Dispatch
import Foundation
@_spi(Benchmarks) @testable import RealtimeSegments
import RealtimeSegmentsTesting
import Synchronization
import XCTest

/// Many clients on a ``SegmentsEngineGroup`` of two threads, one manual clock and one in-memory
/// transport: each behaves as on a thread of its own.
final class EngineGroupTests: XCTestCase {
    func testEachGroupedClientDebouncesFetchesOncePerWindowAndGetsItsOwnSegments() {
        let fleet = GroupFleet(clients: 200)
        for index in fleet.clients.indices {
            fleet.transport.setSegments(response([.discovery: [index]]), forCookie: fleet.cookie(index))
            fleet.clients[index].segmentation.addCallback(callbackData: fleet.recorder.callback(.discovery, firstLoad: true, tag: "\(index)"))
        }
        fleet.startAll()
        fleet.advance(.milliseconds(4_999))
        XCTAssertEqual(fleet.transport.fetchCount, 0, "each start's check is debounced")
        fleet.advance(.milliseconds(1))
        XCTAssertEqual(fleet.transport.fetchCount, 200, "one fetch per client")
        XCTAssertEqual(Set(fleet.transport.fetchedCookies), Set(fleet.clients.indices.map(fleet.cookie)))
        for index in fleet.clients.indices {
            XCTAssertEqual(fleet.recorder.segments(tag: "\(index)"), [[segment(index)]], "client \(index): its own customer's segments")
        }
        fleet.advance(.seconds(60))
        XCTAssertEqual(fleet.transport.fetchCount, 200, "nothing more without a trigger")
    }

    func testTheNotifyRuleAndUploadsHoldPerClient() throws {
        let fleet = GroupFleet(clients: 200)
        for index in fleet.clients.indices {
            fleet.transport.setSegments(response([.discovery: [index]]), forCookie: fleet.cookie(index))
            fleet.clients[index].segmentation.addCallback(callbackData: fleet.recorder.callback(.discovery, firstLoad: true, tag: "\(index)"))
        }
        fleet.startAll()
        fleet.advance(.seconds(5))
        for index in fleet.clients.indices where index.isMultiple(of: 2) {
            fleet.transport.setSegments(response([.discovery: [index, 1_000 + index]]), forCookie: fleet.cookie(index))
        }
        // Trigger 4: an uploaded event requests a check of that client's listeners.
        for client in fleet.clients { try client.trackEvent(eventType: "view_item") }
        fleet.settleAll()
        let uploaded = fleet.transport.trackedEvents.compactMap { $0.customerIds["cookie"] }
        XCTAssertEqual(uploaded.sorted(), fleet.clients.indices.map(fleet.cookie).sorted(), "each client uploads its own event")
        fleet.advance(.seconds(5))
        XCTAssertEqual(fleet.transport.fetchCount, 400, "one check per client per window")
        for index in fleet.clients.indices {
            let calls = fleet.recorder.segments(tag: "\(index)")
            if index.isMultiple(of: 2) {
                XCTAssertEqual(calls.count, 2, "client \(index): its segments changed")
                XCTAssertEqual(Set(calls.last ?? []), [segment(index), segment(1_000 + index)])
            } else {
                XCTAssertEqual(calls.count, 1, "client \(index): unchanged segments are not delivered again")
            }
        }
    }

    func testStoppingClientsWhileOthersRunFinishesTheirWorkAndLeavesTheOthersRunning() throws {
        let fleet = GroupFleet(clients: 200)
        fleet.startAll()
        for (index, client) in fleet.clients.enumerated() where index.isMultiple(of: 2) {
            try client.trackEvent(eventType: "before_stop")
        }
        let running = fleet.clients.enumerated().filter { !$0.offset.isMultiple(of: 2) }.map(\.element)
        let stopping = fleet.clients.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element)
        let tracked = Atomic<Int>(0)
        // Half the clients stop on four threads while the other half keep tracking on this one.
        let stopper = DispatchQueue(label: "stopper", attributes: .concurrent)
        let stopped = DispatchGroup()
        for part in 0..<4 {
            stopper.async(group: stopped) {
                for client in stopping.enumerated().filter({ $0.offset % 4 == part }).map(\.element) { client.stop() }
            }
        }
        for round in 0..<5 {
            for client in running {
                try client.trackEvent(eventType: "while_others_stop", properties: ["round": .number(Double(round))])
                tracked.wrappingAdd(1, ordering: .relaxed)
            }
        }
        XCTAssertEqual(stopped.wait(timeout: .now() + 30), .success)
        fleet.settleAll()
        let events = fleet.transport.trackedEvents
        XCTAssertEqual(events.filter { $0.eventType == "before_stop" }.count, 100, "stop made its final upload")
        XCTAssertEqual(events.filter { $0.eventType == "while_others_stop" }.count, tracked.load(ordering: .relaxed))
        for client in stopping {
            XCTAssertThrowsError(try client.trackEvent(eventType: "after_stop"))
        }
        fleet.transport.setSegments(response([.discovery: [1]]), forCookie: fleet.cookie(1))
        running[0].segmentation.addCallback(callbackData: fleet.recorder.callback(.discovery, firstLoad: true, tag: "late"))
        fleet.settleAll()
        fleet.advance(.seconds(5))
        XCTAssertEqual(fleet.recorder.segments(tag: "late"), [[segment(1)]], "a client that kept running still checks")
    }

    func testTheGroupThreadsEndWithTheirLastClientAndStartAgainForTheNext() {
        let fleet = GroupFleet(clients: 6)
        fleet.startAll()
        XCTAssertTrue(fleet.group.isRunning)
        for client in fleet.clients { client.stop() }
        waitUntil { !fleet.group.isRunning }
        let late = fleet.makeClient()
        late.segmentation.addCallback(callbackData: fleet.recorder.callback(.discovery, firstLoad: true, tag: "late"))
        late.start()
        XCTAssertTrue(fleet.group.isRunning)
        XCTAssertTrue(late.waitUntilIdle())
        fleet.clock.advance(by: .seconds(5))
        XCTAssertTrue(late.waitUntilIdle())
        XCTAssertEqual(fleet.recorder.count(tag: "late"), 1, "a client that joins later starts a thread again")
        late.stop()
        waitUntil { !fleet.group.isRunning }
    }

    func testEventsTrackedFromManyThreadsAreAllUploaded() {
        let fleet = GroupFleet(clients: 100)
        fleet.startAll()
        let producers = 8
        let eventsPerClient = 25
        let clients = fleet.clients
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for event in 0..<eventsPerClient {
                for client in clients {
                    try? client.trackEvent(eventType: "e", properties: ["p": .number(Double(producer)), "n": .number(Double(event))])
                }
            }
        }
        fleet.settleAll()
        let events = fleet.transport.trackedEvents
        XCTAssertEqual(events.count, 100 * producers * eventsPerClient, "none lost")
        let perCookie = Dictionary(grouping: events, by: { $0.customerIds["cookie"] ?? "" }).mapValues(\.count)
        XCTAssertEqual(perCookie.count, 100)
        XCTAssertTrue(perCookie.values.allSatisfy { $0 == producers * eventsPerClient }, "each client uploads its own events")
    }

    func testAClientWithAnotherClockRunsOnItsOwnThreadWithAnError() throws {
        let fleet = GroupFleet(clients: 0)
        let otherClock = ManualClock()
        let client = fleet.makeClient { $0.clock = otherClock }
        XCTAssertNil(client.channels.groupMember)
        XCTAssertEqual(
            fleet.logs.count("Segments: The client's clock is not its SegmentsEngineGroup's clock; it runs on a thread of its own"), 1)
        client.segmentation.addCallback(callbackData: fleet.recorder.callback(.discovery, firstLoad: true, tag: "alone"))
        client.start()
        XCTAssertTrue(client.waitUntilIdle())
        otherClock.advance(by: .seconds(5))
        XCTAssertTrue(client.waitUntilIdle())
        XCTAssertEqual(fleet.recorder.count(tag: "alone"), 1)
        XCTAssertFalse(fleet.group.isRunning, "the group never started a thread")
        client.stop()
    }

    func testTheThreadCountIsBroughtIntoRange() {
        let logs = LogCapture()
        XCTAssertEqual(SegmentsEngineGroup(threadCount: 0, logger: logs.makeLogger()).threadCount, 1)
        XCTAssertEqual(logs.count(prefix: "Segments: SegmentsEngineGroup threadCount 0"), 1)
        XCTAssertEqual(SegmentsEngineGroup(threadCount: 3).threadCount, 3)
    }
}

/// A producer wakes a grouped client that just fell asleep while its group thread is about to
/// sleep too: the wake-up must not be lost.
final class EngineGroupRaceTests: XCTestCase {
    func testAWakeUpBetweenTheGroupThreadsLastLookAndItsSleepIsNotLost() throws {
        let armed = Atomic<Bool>(false)
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let fleet = GroupFleet(clients: 1, threads: 1) {
            if armed.exchange(false, ordering: .acquiringAndReleasing) {
                arrived.signal()
                release.wait()
            }
        }
        fleet.startAll()
        let client = fleet.clients[0]
        armed.store(true, ordering: .releasing)
        // A turn for the flush; the client then sleeps and the thread stops at the hook.
        client.flush()
        XCTAssertEqual(arrived.wait(timeout: .now() + 10), .success)
        try client.trackEvent(eventType: "racing_the_sleep")
        release.signal()
        // No barrier (it would wake the client itself): only the producer's wake-up gets it out.
        waitUntil { fleet.transport.trackedEvents.count == 1 }
        XCTAssertEqual(fleet.transport.trackedEvents.first?.eventType, "racing_the_sleep")
    }
}

/// Clients on one ``SegmentsEngineGroup``, one ``ManualClock`` and one in-memory transport.
private final class GroupFleet: Sendable {
    let clock: ManualClock
    let transport: InMemorySegmentsTransport
    let logs: LogCapture
    let recorder = Recorder()
    let group: SegmentsEngineGroup
    let clients: [SegmentsClient]

    init(clients count: Int, threads: Int = 2, aboutToSleep: (@Sendable () -> Void)? = nil) {
        let clock = ManualClock()
        let transport = InMemorySegmentsTransport(expectedProjectToken: Fixture.token)
        let logs = LogCapture()
        let group = SegmentsEngineGroup(
            threadCount: threads, clock: clock, scheduling: .yieldsToApp, logger: logs.makeLogger(),
            aboutToSleep: aboutToSleep)
        self.clock = clock
        self.transport = transport
        self.logs = logs
        self.group = group
        self.clients = (0..<count).map { _ in
            Self.makeClient(clock: clock, transport: transport, logs: logs, group: group) { _ in }
        }
    }

    deinit {
        for client in clients { client.stop() }
    }

    func makeClient(configure: (inout SegmentsConfiguration) -> Void = { _ in }) -> SegmentsClient {
        Self.makeClient(clock: clock, transport: transport, logs: logs, group: group, configure: configure)
    }

    private static func makeClient(
        clock: ManualClock, transport: InMemorySegmentsTransport, logs: LogCapture, group: SegmentsEngineGroup,
        configure: (inout SegmentsConfiguration) -> Void
    ) -> SegmentsClient {
        var configuration = SegmentsConfiguration(projectToken: Fixture.token, authorization: .token("secret"), transport: transport)
        configuration.clock = clock
        configuration.logger = logs.makeLogger()
        configuration.engineGroup = group
        configure(&configuration)
        return SegmentsClient(configuration: configuration)
    }

    func cookie(_ index: Int) -> String { clients[index].customerIds["cookie"] ?? "" }

    func startAll() {
        for client in clients { client.start() }
        settleAll()
    }

    func settleAll(file: StaticString = #filePath, line: UInt = #line) {
        for client in clients {
            XCTAssertTrue(client.waitUntilIdle(timeout: .seconds(30)), "a client did not settle", file: file, line: line)
        }
    }

    func advance(_ duration: Duration, file: StaticString = #filePath, line: UInt = #line) {
        clock.advance(by: duration)
        settleAll(file: file, line: line)
    }
}
