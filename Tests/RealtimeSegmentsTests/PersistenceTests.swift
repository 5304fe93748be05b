import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// SPEC §1, §4: the cookie, ids and last known state survive a restart; a corrupt file is ignored.
final class PersistenceTests: XCTestCase {
    private var directory: URL!

    override func setUp() {
        directory = temporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private var stateFile: URL { directory.appendingPathComponent("segments-state.json") }

    func testTheCookieAndHardIdsSurviveARestart() throws {
        let first = Fixture(stateDirectory: directory)
        first.client.start()
        try first.client.identifyCustomer(customerIds: ["registered": "jane"])
        first.settle()
        let ids = first.client.customerIds
        first.client.stop()

        let second = Fixture(stateDirectory: directory)
        XCTAssertEqual(second.client.customerIds, ids)
    }

    func testLinkedIdsSurviveARestartSoUnchangedIdsAreNotLinkedAgain() throws {
        let first = Fixture(stateDirectory: directory)
        _ = first.register(.discovery)
        first.client.start()
        try first.client.identifyCustomer(customerIds: ["registered": "jane"])
        first.settle()
        first.advance(.seconds(5))
        XCTAssertEqual(first.transport.linkCalls.count, 1)
        first.client.stop()

        let second = Fixture(stateDirectory: directory)
        _ = second.register(.discovery)
        second.startAndRunInitialCheck()
        XCTAssertEqual(second.transport.fetchCount, 1)
        XCTAssertTrue(second.transport.linkCalls.isEmpty, "the ids were linked before the restart")
    }

    /// SPEC §5: a response for the previous customer never updates the state, and anonymize clears
    /// it. Callbacks cannot show either (a new cookie makes every category changed anyway); the
    /// state file can.
    func testAStaleResponseNeverBecomesTheStateAndAnonymizeClearsIt() throws {
        let fixture = Fixture(stateDirectory: directory)
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(try lastKnownCookie(), fixture.cookie, "the first check's state is stored")
        fixture.transport.holdFetches()
        fixture.client.segmentation.addCallback(callbackData: fixture.recorder.callback(.content))  // requests a check
        fixture.settle()
        fixture.clock.advance(by: .seconds(5))
        waitUntil { fixture.transport.heldFetchCount == 1 }
        fixture.client.anonymize()
        fixture.transport.releaseHeldFetches(keepHolding: true)
        fixture.settle()
        fixture.client.stop()
        XCTAssertEqual(fixture.client.statistics.staleResultsDropped, 1)
        XCTAssertNil(try lastKnownCookie(), "neither the stale response nor the previous customer's state was kept")
    }

    /// The cookie of the last known state in the state file, `nil` if there is none.
    private func lastKnownCookie() throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: stateFile)) as? [String: Any]
        let lastKnown = object?["lastKnown"] as? [String: Any]
        return (lastKnown?["customerIds"] as? [String: String])?["cookie"]
    }

    func testTheLastKnownStateSurvivesARestartSoUnchangedDataNotifiesNobody() {
        let first = Fixture(stateDirectory: directory)
        first.transport.defaultResponse = response([.discovery: [1]])
        _ = first.register(.discovery, tag: "d")
        first.startAndRunInitialCheck()
        XCTAssertEqual(first.recorder.count, 1)
        first.client.stop()

        let second = Fixture(stateDirectory: directory)
        second.transport.defaultResponse = response([.discovery: [1]])
        _ = second.register(.discovery, tag: "d")
        _ = second.register(.content, firstLoad: true, tag: "c")
        second.startAndRunInitialCheck()
        XCTAssertEqual(second.recorder.tags, ["c"], "discovery is unchanged since before the restart")
    }

    func testACorruptStateFileIsIgnoredWithALogLine() throws {
        try Data("{ not json".utf8).write(to: stateFile)
        let fixture = Fixture(stateDirectory: directory)
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Ignoring corrupt state file \(stateFile.path)"), 1)
        // A warning: shown at swift-log's default level, as the loss of the last known state is news.
        let line = fixture.logs.all.first { $0.message.hasPrefix("Segments: Ignoring corrupt state file") }
        XCTAssertEqual(line?.level, .warning)
        XCTAssertNotNil(fixture.client.customerIds["cookie"])
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery, tag: "d")
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.recorder.count, 1, "the engine works from a fresh state")
    }

    /// "Nothing is lost": a state file this version cannot load (another version's, say) is set
    /// aside with its bytes intact, not replaced by the next save with whatever it held.
    func testAStateFileThatCannotBeLoadedIsSetAsideNotOverwritten() throws {
        let original = Data(#"{"version":99,"customerIds":{"cookie":"c-old"},"linkedIds":{},"pendingUploads":[]}"#.utf8)
        try original.write(to: stateFile)
        let fixture = Fixture(stateDirectory: directory)
        fixture.client.start()
        fixture.client.stop()
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("segments-state.json.corrupt-") }
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(try kept.first.map { try Data(contentsOf: directory.appendingPathComponent($0)) }, original)
        XCTAssertEqual(
            fixture.logs.messages.filter { $0.hasPrefix("Segments: Ignoring corrupt state file") },
            ["Segments: Ignoring corrupt state file \(stateFile.path): unsupported version 99; kept as \(kept.first ?? "")"])
        XCTAssertNotEqual(try Data(contentsOf: stateFile), original, "a fresh state was saved in its place")
    }

    /// Nesting that `JSONDecoder` traps on (513 `[`, the last one ending the file) is a corrupt
    /// file like any other: set aside and logged, not a crash at start.
    func testAStateFileNestedTooDeepIsSetAsideNotACrash() throws {
        let original = Data(repeating: UInt8(ascii: "["), count: 513)
        try original.write(to: stateFile)
        let fixture = Fixture(stateDirectory: directory)
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Ignoring corrupt state file \(stateFile.path)"), 1)
        fixture.client.start()
        fixture.client.stop()
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("segments-state.json.corrupt-") }
        XCTAssertEqual(try kept.map { try Data(contentsOf: directory.appendingPathComponent($0)) }, [original])
    }

    /// A state file that exists but cannot be read (here a directory in its place, as for EACCES
    /// or EIO) is not corrupt: it stays where it is, with the unsent uploads it holds, and this run
    /// keeps its state in memory, with a `Segments:` error naming the file.
    func testAStateFileThatCannotBeReadIsLeftInPlaceAndTheRunKeepsItsStateInMemory() throws {
        try FileManager.default.createDirectory(at: stateFile, withIntermediateDirectories: true)
        let fixture = Fixture(stateDirectory: directory)
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "e")
        fixture.client.stop()
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: stateFile.path, isDirectory: &isDirectory) && isDirectory.boolValue,
                      "what stands at the state file's path is left as it was")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("corrupt") }, [])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Ignoring corrupt state file"), 0)
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: The state file \(stateFile.path) cannot be read"), 1, "\(fixture.logs.messages)")
    }

    /// A FIFO at the state file's path would block the read, and with it the client's creation,
    /// for good: it is not read.
    func testAStateFileThatIsAFIFODoesNotBlockTheClientsCreation() throws {
        XCTAssertEqual(mkfifo(stateFile.path, 0o600), 0)
        let created = DispatchSemaphore(value: 0)
        let logs = Locked<[String]>([])
        let directory = directory!
        Thread {
            let fixture = Fixture(stateDirectory: directory)
            logs.withLock { $0 = fixture.logs.messages }
            created.signal()
        }.start()
        XCTAssertEqual(created.wait(timeout: .now() + 10), .success, "the client's creation blocked on the FIFO")
        let said = logs.withLock { $0 }
        XCTAssertEqual(said.filter { $0.hasPrefix("Segments: The state file") && $0.contains("not a regular file") }.count, 1, "\(said)")
    }

    /// A save that a crash interrupted before its rename left a whole copy of the state in a
    /// temporary file, and every such crash left another: the next client holding the directory
    /// deletes them.
    func testTheTemporaryFileOfASaveACrashInterruptedIsDeleted() throws {
        let leftover = directory.appendingPathComponent(".segments-state.json.\(UUID().uuidString).tmp")
        try Data("{}".utf8).write(to: leftover)
        let fixture = Fixture(stateDirectory: directory)
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover.path))
        fixture.client.start()
        fixture.client.stop()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") && $0.hasPrefix(".segments-state") }, [])
    }

    func testAStateFileWithoutACookieIsTreatedAsCorrupt() throws {
        try Data(#"{"version":1,"customerIds":{},"linkedIds":{},"pendingUploads":[]}"#.utf8).write(to: stateFile)
        let fixture = Fixture(stateDirectory: directory)
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Ignoring corrupt state file"), 1)
        XCTAssertFalse(fixture.cookie.isEmpty)
    }

    func testWritesReplaceTheFileAtomicallyAndLeaveNoTemporaryFiles() throws {
        let fixture = Fixture(stateDirectory: directory)
        fixture.transport.defaultResponse = response([.discovery: [1]])
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        fixture.client.stop()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(files.sorted(), ["segments-state.json", "segments.lock"])
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: stateFile)) as? [String: Any]
        XCTAssertNotNil(object?["lastKnown"])
    }

    func testUnsentEventsArePersistedAtStopAndUploadedAfterTheRestart() throws {
        let first = Fixture(stateDirectory: directory) { $0.flushingMode = .manual }
        first.transport.failNext(.trackEvents, with: .connectionFailed("offline"), count: 10)
        first.client.start()
        try first.client.trackEvent(eventType: "kept-1")
        try first.client.trackEvent(eventType: "kept-2")
        first.client.stop()
        XCTAssertTrue(first.transport.trackedEvents.isEmpty)
        XCTAssertEqual(first.logs.count("Segments: 2 unsent uploads kept for the next start"), 1)

        let second = Fixture(stateDirectory: directory)
        second.client.start()
        second.settle()
        XCTAssertEqual(second.transport.trackedEvents.map(\.eventType), ["kept-1", "kept-2"])
    }

    /// A started client on the test's directory that has tracked one event, `waiting`, whose
    /// upload failed (offline), so it waits for the retry.
    private func trackingWhileTheFirstUploadFails() throws -> Fixture {
        let live = Fixture(stateDirectory: directory)
        live.transport.failNext(.trackEvents, with: .connectionFailed("offline"), count: 1)
        live.client.start()
        live.settle()
        try live.client.trackEvent(eventType: "waiting")
        live.settle()
        return live
    }

    /// "Nothing is lost": while uploads fail, what waits is written down at each failure, so a
    /// process that dies before `stop()` keeps it. (A client started on the same directory while
    /// the first one has not stopped stands for the restart after a crash.)
    func testEventsWaitingWhileUploadsFailAreOnDiskBeforeStop() throws {
        let live = try trackingWhileTheFirstUploadFails()
        XCTAssertEqual(live.client.statistics.uploadFailures, 1)
        XCTAssertTrue(live.transport.trackedEvents.isEmpty)

        live.client.releaseStateDirectoryForTesting()  // as the kernel does at a crash
        let afterACrash = Fixture(stateDirectory: directory)
        afterACrash.client.start()
        afterACrash.settle()
        XCTAssertEqual(afterACrash.transport.trackedEvents.map(\.eventType), ["waiting"])
    }

    /// Once events written down while uploads failed are sent, the file no longer lists them: a
    /// restart does not send them a second time.
    func testEventsSentAfterFailingAreNotSentAgainAfterARestart() throws {
        let live = try trackingWhileTheFirstUploadFails()
        live.advance(.seconds(60))
        XCTAssertEqual(live.transport.trackedEvents.map(\.eventType), ["waiting"], "sent by the retry")

        live.client.releaseStateDirectoryForTesting()  // as the kernel does at a crash
        let afterACrash = Fixture(stateDirectory: directory)
        afterACrash.client.start()
        afterACrash.settle()
        XCTAssertTrue(afterACrash.transport.trackedEvents.isEmpty, "sent once, not again after a restart")
    }

    func testAnUnsentEventWithANumberJSONCannotCarryIsSavedWithNullAndLogged() throws {
        let fixture = Fixture(stateDirectory: directory) { $0.flushingMode = .manual }
        fixture.transport.failNext(.trackEvents, with: .connectionFailed("offline"), count: 10)
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "view", properties: ["price": .number(.infinity)])
        fixture.settle()
        fixture.client.stop()
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Could not save state"), 0)
        let saved = fixture.logs.messages.filter { $0.hasPrefix("Segments: State saved with numbers JSON cannot carry written as null: pendingUploads[0]") }
        XCTAssertFalse(saved.isEmpty, "\(fixture.logs.messages)")
        XCTAssertTrue(saved.allSatisfy { $0.hasSuffix(".properties.price (inf)") }, "\(saved)")
        let restarted = Fixture(stateDirectory: directory)
        restarted.client.start()
        restarted.client.flush()
        restarted.settle()
        XCTAssertEqual(restarted.transport.trackedEvents.map(\.properties), [["price": nil]], "restored and uploaded")
    }

    func testWithoutAStateDirectoryUnsentEventsAtStopAreReportedNotSilentlyLost() throws {
        let fixture = Fixture { $0.flushingMode = .manual }
        fixture.transport.failNext(.trackEvents, with: .connectionFailed("offline"))
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "e")
        fixture.client.stop()
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: 1 unsent uploads are lost at stop"), 1)
    }

    /// "Nothing is lost" or said so: when the state file cannot be written at stop, the unsent
    /// events are reported lost, not "kept for the next start".
    func testUnsentEventsAStopCannotWriteDownAreReportedLostNotKept() throws {
        let fixture = Fixture(stateDirectory: directory) { $0.flushingMode = .manual }
        fixture.transport.failNext(.trackEvents, with: .connectionFailed("offline"), count: 10)
        fixture.client.start()
        fixture.settle()  // the start's own write is over
        // The state file's place is taken by a directory that is not empty: every save's rename fails.
        try? FileManager.default.removeItem(at: stateFile)
        try FileManager.default.createDirectory(at: stateFile.appendingPathComponent("occupied"), withIntermediateDirectories: true)
        try fixture.client.trackEvent(eventType: "e")
        fixture.client.stop()
        XCTAssertEqual(fixture.logs.count("Segments: 1 unsent uploads kept for the next start"), 0,
                       "reported kept, though the state file could not be written")
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: 1 unsent uploads are lost at stop"), 1)
    }

    /// A state directory holds one project's customer and unsent events. A client of another
    /// project leaves it alone: nothing tracked for that project is uploaded to this one, and the
    /// other project's client still finds it all.
    func testAStateDirectoryOfAnotherProjectIsLeftToThatProject() throws {
        try assertTheDirectoryIsLeftToProjectA(withoutItsLockFile: false)
    }

    /// A lock file that went missing (a backup or migration that copied only the state file) is
    /// not claimed by a client the state file refuses.
    func testAStateDirectoryOfAnotherProjectWithoutItsLockFileIsLeftToThatProject() throws {
        try assertTheDirectoryIsLeftToProjectA(withoutItsLockFile: true)
    }

    private func assertTheDirectoryIsLeftToProjectA(withoutItsLockFile: Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let projectA = InMemorySegmentsTransport(expectedProjectToken: "project-a")
        projectA.failNext(.trackEvents, with: .connectionFailed("offline"), count: 10)
        let first = Fixture(stateDirectory: directory, transport: projectA) {
            $0.projectToken = "project-a"
            $0.flushingMode = .manual
        }
        first.client.start()
        try first.client.trackEvent(eventType: "for-project-a")
        first.client.stop()
        let firstCookie = first.cookie
        if withoutItsLockFile {
            try FileManager.default.removeItem(at: directory.appendingPathComponent("segments.lock"))
        }

        let second = Fixture(stateDirectory: directory, directoryMayBeRefused: true)
        second.client.start()
        second.settle()
        XCTAssertTrue(second.transport.trackedEvents.isEmpty, "an event tracked for project-a was uploaded to \(Fixture.token)",
                      file: file, line: line)
        XCTAssertNotEqual(second.cookie, firstCookie, "project-a's customer was taken over", file: file, line: line)
        XCTAssertEqual(second.logs.count(prefix: "Segments: State directory \(directory.path) belongs to another project"), 1,
                       file: file, line: line)
        second.client.stop()

        let againA = InMemorySegmentsTransport(expectedProjectToken: "project-a")
        let third = Fixture(stateDirectory: directory, transport: againA, file: file, line: line) { $0.projectToken = "project-a" }
        third.client.start()
        third.settle()
        XCTAssertEqual(againA.trackedEvents.map(\.eventType), ["for-project-a"], "project-a's unsent event is still there for it",
                       file: file, line: line)
        XCTAssertEqual(third.cookie, firstCookie, file: file, line: line)
    }

    /// JSON's encoder refuses nesting beyond 512 levels, and properties built in code can go
    /// deeper. One such unsent event must not cost the others (and the customer) their place in
    /// the state file.
    func testOneUnencodableUnsentEventDoesNotCostTheOthersTheirPlaceInTheStateFile() throws {
        var deep: JSONValue = .null
        for _ in 0..<520 { deep = .array([deep]) }
        let first = Fixture(stateDirectory: directory) { $0.flushingMode = .manual }
        first.client.start()
        try first.client.trackEvent(eventType: "kept")
        try first.client.trackEvent(eventType: "deep", properties: ["p": deep])
        try first.client.trackEvent(eventType: "kept-too")
        first.transport.failNext(.trackEvents, with: .connectionFailed("offline"), count: 10)
        first.client.stop()
        XCTAssertEqual(first.logs.count(prefix: "Segments: Could not save state"), 0, "the state was saved")
        XCTAssertGreaterThanOrEqual(first.logs.count(prefix: "Segments: An unsent tracked event (deep) cannot be encoded"), 1,
                                    "the event left out is named (at each save that leaves it out)")

        let restarted = Fixture(stateDirectory: directory)
        restarted.client.start()
        restarted.settle()
        XCTAssertEqual(restarted.transport.trackedEvents.map(\.eventType), ["kept", "kept-too"],
                       "one too-deep event cost every unsent event its place in the state file")
        XCTAssertEqual(restarted.cookie, first.cookie)
    }

    /// One client at a time keeps its state in a directory. A second client on a directory in use
    /// (the first not stopped, or its stop() timed out) keeps its own state in memory, so neither
    /// replaces what the other saved.
    func testASecondClientOnADirectoryInUseLeavesTheFirstOnesUnsentEvents() throws {
        let first = Fixture(stateDirectory: directory) { $0.flushingMode = .manual }
        first.transport.failNext(.trackEvents, with: .connectionFailed("offline"), count: 10)
        first.client.start()
        try first.client.trackEvent(eventType: "kept")
        let second = Fixture(stateDirectory: directory, directoryMayBeRefused: true) { $0.flushingMode = .manual }
        second.client.start()
        first.client.stop()
        second.client.stop()
        XCTAssertEqual(second.logs.count(prefix: "Segments: State directory \(directory.path) is in use by another client"), 1)

        let restarted = Fixture(stateDirectory: directory)
        restarted.client.start()
        restarted.settle()
        XCTAssertEqual(restarted.transport.trackedEvents.map(\.eventType), ["kept"],
                       "the second client's save replaced the first one's unsent event")
        XCTAssertEqual(restarted.cookie, first.cookie)
    }

    func testStopMakesAFinalUploadAttempt() throws {
        let fixture = Fixture { $0.flushingMode = .manual }
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "last")
        fixture.client.stop()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["last"])
    }

    /// An upload that was already in flight when `stop()` came, and failed after it, was not the
    /// final attempt stop promises: what waited behind it still gets one.
    func testAnUploadInFlightThatFailsAfterStopStillLeavesStopItsFinalAttempt() throws {
        let fixture = Fixture()
        fixture.transport.holdUploads()
        fixture.transport.holdFetches()
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "a")
        waitUntil { fixture.transport.heldUploadCount == 1 }  // a is in flight
        try fixture.client.trackEvent(eventType: "b")          // queued behind it
        // A pull waiting on a held fetch fails with `.stopped` once the engine has handled stop.
        let stopHandled = DispatchSemaphore(value: 0)
        fixture.client.getSegments(category: .discovery, force: true) { (result: Result<[Segment], SegmentsError>) in
            if case .failure(.stopped) = result { stopHandled.signal() }
        }
        waitUntil { fixture.transport.heldFetchCount == 1 }
        let stopReturned = fixture.stopOnAnotherThread()
        XCTAssertEqual(stopHandled.wait(timeout: .now() + 10), .success, "the engine handled stop")
        fixture.transport.failNext(.trackEvents, with: .timeout)
        fixture.transport.releaseHeldUploads()
        XCTAssertEqual(stopReturned.wait(timeout: .now() + 10), .success, "stop() returned")
        fixture.transport.releaseHeldFetches()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["a", "b"],
                       "stop() made no attempt for what waited behind an upload that failed after it")
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Final upload before stop failed"), 0)
    }

    /// "Nothing is lost" when `stop(timeout:)` gives up on a final upload that outlasts it: what
    /// was tracked before the call is on disk once the engine has taken the stop, so an app that
    /// exits when `stop` returns keeps it (the upload in flight included: at least once).
    func testEventsTrackedBeforeAStopThatTimesOutAreOnDiskWhenItReturns() throws {
        let first = Fixture(stateDirectory: directory)
        first.transport.holdUploads()
        first.transport.holdFetches()
        first.client.start()
        try first.client.trackEvent(eventType: "a")
        waitUntil { first.transport.heldUploadCount == 1 }  // a is in flight, and stays there
        try first.client.trackEvent(eventType: "b")          // queued behind it
        // A pull waiting on a held fetch fails with `.stopped` once the engine has handled stop.
        let stopHandled = DispatchSemaphore(value: 0)
        first.client.getSegments(category: .discovery, force: true) { (result: Result<[Segment], SegmentsError>) in
            if case .failure(.stopped) = result { stopHandled.signal() }
        }
        waitUntil { first.transport.heldFetchCount == 1 }
        let stopReturned = DispatchSemaphore(value: 0)
        let client = first.client
        Thread.detachNewThread {
            client.stop(timeout: .milliseconds(50))
            stopReturned.signal()
        }
        XCTAssertEqual(stopHandled.wait(timeout: .now() + 10), .success, "the engine handled stop")
        XCTAssertEqual(stopReturned.wait(timeout: .now() + 10), .success, "stop() returned")
        XCTAssertEqual(first.logs.count("Segments: stop() timed out waiting for the final upload"), 1)

        first.client.releaseStateDirectoryForTesting()  // the app exits, as the kernel releases the lock
        let restarted = Fixture(stateDirectory: directory)
        restarted.client.start()
        restarted.settle()
        XCTAssertEqual(restarted.transport.trackedEvents.map(\.eventType), ["a", "b"],
                       "the events stop() timed out on were not on disk")
        first.transport.releaseHeldFetches()
        first.transport.releaseHeldUploads()
    }

    /// Every `stop()` blocks until the engine has ended, not only the first: an app that exits
    /// once its own call returns must find the final upload over.
    func testASecondStopWaitsForTheEngineAsTheFirstDoes() throws {
        let fixture = Fixture { $0.flushingMode = .manual }
        fixture.transport.holdUploads()
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "last")
        let firstReturned = DispatchSemaphore(value: 0)
        Thread {
            fixture.client.stop()
            firstReturned.signal()
        }.start()
        waitUntil { fixture.transport.heldUploadCount == 1 }  // the final upload started
        let released = Locked(false)
        let secondSawReleased = Locked<Bool?>(nil)
        let secondReturned = DispatchSemaphore(value: 0)
        Thread {
            fixture.client.stop()
            secondSawReleased.withLock { $0 = released.withLock { $0 } }
            secondReturned.signal()
        }.start()
        // Time for a second stop() that does not wait to show itself; one that waits passes whatever it is.
        Thread.sleep(forTimeInterval: 0.1)
        released.withLock { $0 = true }
        fixture.transport.releaseHeldUploads()
        XCTAssertEqual(secondReturned.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(firstReturned.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(secondSawReleased.withLock { $0 }, true, "the second stop() returned while the final upload was still out")
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["last"])
    }
}
