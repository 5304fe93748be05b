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

/// The group's lifecycle and isolation contract in the situations its docs name: a member stopped
/// from its own callback or inside another's turn, members dropped without stop, a flooded member.
final class EngineGroupLifecycleTests: XCTestCase {
    /// A member whose own callback stops it: stop() returns, the group thread goes on for the others.
    func testAMemberStoppedFromInsideItsOwnCallbackEndsAndTheOthersGoOn() throws {
        let fleet = GroupFleet(clients: 2, threads: 1)
        let first = fleet.clients[0]
        let stopped = DispatchSemaphore(value: 0)
        fleet.transport.setSegments(response([.discovery: [0]]), forCookie: fleet.cookie(0))
        fleet.transport.setSegments(response([.discovery: [1]]), forCookie: fleet.cookie(1))
        first.segmentation.addCallback(callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { _ in
            first.stop()
            stopped.signal()
        })
        fleet.clients[1].segmentation.addCallback(callbackData: fleet.recorder.callback(.discovery, firstLoad: true, tag: "other"))
        fleet.startAll()
        fleet.clock.advance(by: .seconds(5))
        XCTAssertEqual(stopped.wait(timeout: .now() + 30), .success, "stop() from the member's own callback returned")
        XCTAssertThrowsError(try first.trackEvent(eventType: "after"))
        XCTAssertTrue(fleet.clients[1].waitUntilIdle(timeout: .seconds(30)))
        XCTAssertEqual(fleet.recorder.segments(tag: "other"), [[segment(1)]])
        try fleet.clients[1].trackEvent(eventType: "still_running")
        fleet.clients[1].flush()
        waitUntil { fleet.transport.trackedEvents.contains { $0.eventType == "still_running" } }
    }

    /// Clients dropped without stop(): their engines end and the group holds no thread.
    func testMembersDroppedWithoutStopEndTheGroupThread() {
        let clock = ManualClock()
        let transport = InMemorySegmentsTransport(expectedProjectToken: Fixture.token)
        let group = SegmentsEngineGroup(threadCount: 1, clock: clock)
        do {
            var configuration = SegmentsConfiguration(projectToken: Fixture.token, authorization: .token("secret"), transport: transport)
            configuration.clock = clock
            configuration.engineGroup = group
            let clients = (0..<3).map { _ in SegmentsClient(configuration: configuration) }
            for client in clients { client.start() }
            for client in clients { XCTAssertTrue(client.waitUntilIdle()) }
            XCTAssertTrue(group.isRunning)
        }
        waitUntil { !group.isRunning }
    }

    /// One member flooded with events (turn after turn asks for more): another member's barrier
    /// and upload still get their turns.
    func testAFloodedMemberDoesNotStarveAnother() throws {
        let fleet = GroupFleet(clients: 2, threads: 1)
        fleet.startAll()
        let busy = fleet.clients[0]
        let done = Atomic<Bool>(false)
        let producing = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: producing) {
                while !done.load(ordering: .relaxed) { try? busy.trackEvent(eventType: "flood") }
            }
        }
        defer {
            done.store(true, ordering: .relaxed)
            producing.wait()
        }
        try fleet.clients[1].trackEvent(eventType: "quiet")
        fleet.clients[1].flush()
        XCTAssertTrue(fleet.clients[1].waitUntilIdle(timeout: .seconds(60)), "the quiet member was starved")
        waitUntil(timeout: 60) { fleet.transport.trackedEvents.contains { $0.eventType == "quiet" } }
    }

    /// stop() of one member while the group thread is held inside another member's turn (its
    /// fetch step blocks the thread): once that turn ends the stopped member finishes, and each
    /// member got only its own segments.
    func testStoppingAMemberWhileTheThreadIsInsideAnothersTurn() throws {
        let inner = InMemorySegmentsTransport(expectedProjectToken: Fixture.token)
        let blocking = BlockingFetchTransport(inner: inner)
        let clock = ManualClock()
        let group = SegmentsEngineGroup(threadCount: 1, clock: clock)
        let recorder = Recorder()
        func make() -> SegmentsClient {
            var configuration = SegmentsConfiguration(projectToken: Fixture.token, authorization: .token("secret"), transport: blocking)
            configuration.clock = clock
            configuration.engineGroup = group
            return SegmentsClient(configuration: configuration)
        }
        let a = make(), b = make()
        defer { a.stop(); b.stop() }
        let cookieA = a.customerIds["cookie"] ?? "", cookieB = b.customerIds["cookie"] ?? ""
        inner.setSegments(response([.discovery: [1]]), forCookie: cookieA)
        inner.setSegments(response([.discovery: [2]]), forCookie: cookieB)
        blocking.blockedCookie.withLock { $0 = cookieA }
        a.segmentation.addCallback(callbackData: recorder.callback(.discovery, firstLoad: true, tag: "a"))
        b.segmentation.addCallback(callbackData: recorder.callback(.discovery, firstLoad: true, tag: "b"))
        a.start(); b.start()
        XCTAssertTrue(a.waitUntilIdle()); XCTAssertTrue(b.waitUntilIdle())
        try b.trackEvent(eventType: "before_stop")
        clock.advance(by: .seconds(5))
        XCTAssertEqual(blocking.entered.wait(timeout: .now() + 30), .success)
        let stopReturned = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { b.stop(); stopReturned.signal() }
        blocking.release.signal()
        XCTAssertEqual(stopReturned.wait(timeout: .now() + 30), .success)
        XCTAssertTrue(a.waitUntilIdle(timeout: .seconds(30)))
        XCTAssertEqual(recorder.segments(tag: "a"), [[segment(1)]])
        XCTAssertTrue(recorder.segments(tag: "b").allSatisfy { $0 == [segment(2)] })
        XCTAssertTrue(inner.trackedEvents.contains { $0.eventType == "before_stop" })
    }
}

/// Forwards to `inner`; a fetch for `blockedCookie` blocks its thread (the group thread: it
/// declares `neverBlocks`) until `release` is signalled.
private final class BlockingFetchTransport: SegmentsTransport {
    let inner: InMemorySegmentsTransport
    let blockedCookie = Mutex<String?>(nil)
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    init(inner: InMemorySegmentsTransport) { self.inner = inner }
    var neverBlocks: Bool { true }
    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
        try await inner.trackEvents(events, context: context)
    }
    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {
        try await inner.identifyCustomer(update, context: context)
    }
    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext) async throws(SegmentsError) {
        try await inner.linkCustomerIds(cookie: cookie, externalIds: externalIds, context: context)
    }
    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        if blockedCookie.withLock({ $0 }) == cookie {
            blockedCookie.withLock { $0 = nil }
            entered.signal()
            release.wait()
        }
        return try await inner.fetchSegments(cookie: cookie, context: context)
    }
}
