@testable import SegmentsBenchKit
import XCTest

/// The generator threads of one open-model run draw unrelated random sequences, so the load they
/// offer together is the Poisson process it is described as, not one thread's arrivals twice.
final class OpenModelRandomTests: XCTestCase {
    func testGeneratorThreadsDrawUnrelatedSequences() {
        for seed: UInt64 in [0, 1, 42, 12_345] {
            var first = LoadGenerator.openModelRandom(seed: seed, generator: 0)
            var second = LoadGenerator.openModelRandom(seed: seed, generator: 1)
            let firstDraws = Set((0..<100_000).map { _ in first.next() })
            let shared = (0..<100).filter { _ in firstDraws.contains(second.next()) }.count
            XCTAssertEqual(shared, 0, "seed \(seed): the second thread repeats the first one's draws")
        }
    }

    func testASeedReproducesEachThreadsSequence() {
        var once = LoadGenerator.openModelRandom(seed: 7, generator: 3)
        var again = LoadGenerator.openModelRandom(seed: 7, generator: 3)
        XCTAssertEqual((0..<10).map { _ in once.next() }, (0..<10).map { _ in again.next() })
    }
}
