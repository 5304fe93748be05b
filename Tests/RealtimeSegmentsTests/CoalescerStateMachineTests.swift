import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments

/// SPEC §3: trailing debounce, max-wait, one check in flight, cancellation.
final class CoalescerStateMachineTests: XCTestCase {
    private let timing = CoalescerStateMachine.Timing(debounce: .seconds(5), maxWait: .seconds(30))

    private func at(_ seconds: Double) -> SegmentsInstant {
        SegmentsInstant(nanoseconds: UInt64(seconds * 1e9))
    }

    func testARequestStartsACheckOnlyAfterTheDebounce() {
        var machine = CoalescerStateMachine(timing: timing)
        XCTAssertEqual(machine.request(at: at(0)), .none)
        XCTAssertEqual(machine.deadline, at(5))
        XCTAssertEqual(machine.tick(at: at(4.999)), .none)
        XCTAssertEqual(machine.tick(at: at(5)), .startCheck)
        XCTAssertTrue(machine.isChecking)
    }

    func testABurstYieldsOneCheckAfterTheLastRequest() {
        var machine = CoalescerStateMachine(timing: timing)
        var starts = 0
        for step in 0..<33 {
            let instant = SegmentsInstant(nanoseconds: UInt64(step) * 100_000_000)
            if machine.request(at: instant) == .startCheck { starts += 1 }
        }
        XCTAssertEqual(machine.deadline, SegmentsInstant(nanoseconds: 8_200_000_000))
        XCTAssertEqual(machine.tick(at: SegmentsInstant(nanoseconds: 8_199_999_999)), .none)
        if machine.tick(at: SegmentsInstant(nanoseconds: 8_200_000_000)) == .startCheck { starts += 1 }
        XCTAssertEqual(starts, 1)
    }

    func testMaxWaitBoundsASteadyStream() {
        var machine = CoalescerStateMachine(timing: timing)
        var started: Double?
        var now = 0.0
        while now < 60, started == nil {
            if machine.request(at: at(now)) == .startCheck { started = now }
            now += 1
            if machine.tick(at: at(now)) == .startCheck { started = now }
        }
        XCTAssertEqual(started, 30)
    }

    func testRequestsDuringACheckScheduleExactlyOneMoreCheck() {
        var machine = CoalescerStateMachine(timing: timing)
        _ = machine.request(at: at(0))
        XCTAssertEqual(machine.tick(at: at(5)), .startCheck)
        XCTAssertEqual(machine.request(at: at(6)), .none)
        XCTAssertEqual(machine.request(at: at(7)), .none)
        XCTAssertEqual(machine.tick(at: at(100)), .none, "never a second check while one is in flight")
        XCTAssertEqual(machine.checkFinished(at: at(8)), .none)
        XCTAssertEqual(machine.deadline, at(12))
        XCTAssertEqual(machine.tick(at: at(12)), .startCheck)
        XCTAssertEqual(machine.checkFinished(at: at(13)), .none)
        XCTAssertEqual(machine.state, .idle)
    }

    func testALongCheckStartsTheFollowUpAtOnceWhenItsWindowHasClosed() {
        var machine = CoalescerStateMachine(timing: timing)
        _ = machine.request(at: at(0))
        _ = machine.tick(at: at(5))
        _ = machine.request(at: at(6))
        XCTAssertEqual(machine.checkFinished(at: at(60)), .startCheck)
    }

    func testCancelForgetsPendingRequestsButKeepsTheCheckInFlight() {
        var machine = CoalescerStateMachine(timing: timing)
        _ = machine.request(at: at(0))
        XCTAssertTrue(machine.cancel())
        XCTAssertEqual(machine.state, .idle)
        XCTAssertNil(machine.deadline)
        XCTAssertFalse(machine.cancel())

        _ = machine.request(at: at(10))
        _ = machine.tick(at: at(15))
        _ = machine.request(at: at(16))
        XCTAssertTrue(machine.cancel())
        XCTAssertTrue(machine.isChecking)
        XCTAssertEqual(machine.checkFinished(at: at(17)), .none)
        XCTAssertEqual(machine.state, .idle)
    }

    /// Model-based: random inputs against a direct reference implementation of the rules.
    func testMatchesAReferenceModelOnRandomInputs() {
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<300 {
            var machine = CoalescerStateMachine(timing: timing)
            var model = ReferenceCoalescer(debounce: 5_000, maxWait: 30_000)
            var now: UInt64 = 0
            for _ in 0..<200 {
                now += generator.next() % 4_000
                let instant = SegmentsInstant(nanoseconds: now * 1_000_000)
                let input = generator.next() % 4
                let started: Bool
                let expected: Bool
                switch input {
                case 0:
                    started = machine.request(at: instant) == .startCheck
                    expected = model.request(now)
                case 1:
                    started = machine.tick(at: instant) == .startCheck
                    expected = model.tick(now)
                case 2:
                    started = machine.checkFinished(at: instant) == .startCheck
                    expected = model.finish(now)
                default:
                    started = false
                    expected = false
                    XCTAssertEqual(machine.cancel(), model.cancel())
                }
                XCTAssertEqual(started, expected, "input \(input) at \(now) ms")
                XCTAssertEqual(machine.isChecking, model.checking)
            }
        }
    }
}

/// The rules written as plainly as possible, in milliseconds.
private struct ReferenceCoalescer {
    let debounce: UInt64
    let maxWait: UInt64
    var checking = false
    var firstRequest: UInt64?
    var lastRequest: UInt64?

    mutating func request(_ now: UInt64) -> Bool {
        if firstRequest == nil { firstRequest = now }
        lastRequest = max(lastRequest ?? now, now)
        return tick(now)
    }

    mutating func tick(_ now: UInt64) -> Bool {
        guard !checking, let first = firstRequest, let last = lastRequest else { return false }
        guard now >= min(last + debounce, first + maxWait) else { return false }
        checking = true
        firstRequest = nil
        lastRequest = nil
        return true
    }

    mutating func finish(_ now: UInt64) -> Bool {
        guard checking else { return false }
        checking = false
        return tick(now)
    }

    mutating func cancel() -> Bool {
        let busy = checking || firstRequest != nil
        firstRequest = nil
        lastRequest = nil
        return busy
    }
}

/// A small deterministic generator for reproducible random tests.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
