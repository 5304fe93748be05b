import XCTest

import SegmentsBenchCLI
@testable import SegmentsBenchKit

/// `soak` compares memory at the end with a sample taken after warm-up, once a second: a run too
/// short for three samples would report no growth figure at all, a silent "no data".
final class SoakScenarioTests: XCTestCase {
    func testADurationTooShortForThreeMemorySamplesIsRefusedNamingTheMinimum() throws {
        var options = BenchOptions()
        options.duration = 1.5
        let refusal = try XCTUnwrap(SoakScenario().refusal(of: options), "a 1.5 s soak measures no growth")
        XCTAssertEqual(
            refusal,
            "scenario 'soak' needs --duration of at least 3 seconds, not 1.5: it samples memory once a second and compares the last sample with the one after warm-up")
        options.duration = 3
        XCTAssertNil(SoakScenario().refusal(of: options))
        options.duration = nil
        options.quick = true
        XCTAssertNil(SoakScenario().refusal(of: options), "the quick default (10 s) is long enough")
    }
}

/// The refusal through the command line: a usage error (64) before anything runs.
final class SoakCommandLineTests: XCTestCase {
    func testRunSoakWithADurationTooShortIsAUsageError() throws {
        do {
            try SegmentsBenchCLI.run(["run", "soak", "--duration", "1"], registry: ScenarioRegistry())
            XCTFail("a 1 s soak was accepted")
        } catch {
            XCTAssertEqual(SegmentsBenchCLI.exitStatus(for: error), 64)
            XCTAssertTrue(SegmentsBenchCLI.message(for: error).contains("needs --duration of at least 3 seconds, not 1"),
                          SegmentsBenchCLI.message(for: error))
        }
    }

    /// `soak.retainedBytesPerOperation` is the slope of allocated bytes against operations: a
    /// steady leak reads its bytes per operation whatever the level the heap started at; a heap
    /// that moves up and down around one level reads about 0.
    func testRetainedBytesPerOperationIsTheSlopeOfTheSamples() throws {
        let leaking: [(operations: Int, bytes: UInt64)] = (0..<6).map { (index: Int) in
            let operations = index * 1_000
            return (operations, UInt64(5_000_000 + operations * 40))
        }
        XCTAssertEqual(try XCTUnwrap(SoakScenario.bytesPerOperation(leaking)), 40, accuracy: 1e-9)
        let swings = [0, 100_000, -80_000, 60_000, -40_000, 0]
        let steady: [(operations: Int, bytes: UInt64)] = swings.indices.map { (index: Int) in
            (index * 4_000, UInt64(8_000_000 + swings[index]))
        }
        XCTAssertLessThan(abs(try XCTUnwrap(SoakScenario.bytesPerOperation(steady))), 5)
        XCTAssertNil(SoakScenario.bytesPerOperation([(operations: 10, bytes: 1), (operations: 10, bytes: 2)]), "no spread of operations")
    }

    /// A flat heap read at a moment when a batch was in flight (here 1.8 MB, as a loaded 2-core
    /// machine showed near the end of a 10 s soak, with a least-squares line of 38 bytes/op) is
    /// not a leak, and such a moment does not hide one either.
    func testAMomentaryPeakInTheHeapNeitherReadsAsALeakNorHidesOne() throws {
        func samples(leaking bytesPerOperation: Int) -> [(operations: Int, bytes: UInt64)] {
            (0..<60).map { (index: Int) in
                let operations = 12_000 + index * 400
                let jitter = [0, 2_000, -1_500, 900][index % 4]
                let peak = index == 57 ? 1_800_000 : 0
                return (operations, UInt64(6_960_000 + operations * bytesPerOperation + jitter + peak))
            }
        }
        XCTAssertLessThan(abs(try XCTUnwrap(SoakScenario.bytesPerOperation(samples(leaking: 0)))), 2, "a flat heap")
        XCTAssertEqual(try XCTUnwrap(SoakScenario.bytesPerOperation(samples(leaking: 48))), 48, accuracy: 2, "a leak of 48 bytes an operation")
    }

    /// A sample that read the heap after the load's last operation (an idle heap, or one holding
    /// the load's last batches) is not fitted.
    func testOnlySamplesTakenUnderLoadAreFitted() {
        let samples: [(operations: Int, bytes: UInt64)] = [(100, 1), (200, 2), (300, 3), (300, 9)]
        XCTAssertEqual(SoakScenario.takenUnderLoad(samples, operationsMade: 300).map(\.operations), [100, 200])
    }

    /// A long soak's thousands of samples are thinned before the pairwise fit, and still read the leak.
    func testALongSoakIsFittedOnThinnedSamples() throws {
        let long: [(operations: Int, bytes: UInt64)] = (0..<36_000).map { (index: Int) in
            (index * 400, UInt64(7_000_000 + index * 400 * 20 + (index % 7) * 1_000))
        }
        XCTAssertEqual(try XCTUnwrap(SoakScenario.bytesPerOperation(long)), 20, accuracy: 1)
    }
}

