import Foundation
import SegmentsMockServer
import XCTest

@testable import SegmentsBenchKit

/// Against a target, tracking-storm counts what the client saw acknowledged in each of its runs:
/// an event the server never acknowledged is counted, never left out.
final class TrackingStormTargetTests: XCTestCase {
    func testTheJournalRunAgainstATargetCountsUnconfirmedEvents() throws {
        let server = SegmentsMockHTTPServer(backend: SegmentsBackend(projects: [MockProject(token: "storm", apiKey: "k")]))
        try runBlocking { try await server.start() }
        defer { try? runBlocking { try await server.stop() } }
        var options = BenchOptions()
        options.target = try BenchTarget(url: server.baseURL.absoluteString, projectToken: "storm", authorization: "token:k", allowRemote: false)
        options.rate = 200
        let (figures, _) = try TrackingStormScenario.journalRun(
            options: options, producers: 1, seconds: 0.5, debounce: .milliseconds(100), progress: Progress(enabled: false))
        let unconfirmed = figures.first { $0.name == "tracking-storm.journal.eventsUnconfirmed" }
        XCTAssertEqual(unconfirmed?.value, 0, "the journal run against a target counts no acknowledgements: \(figures.map(\.name))")
        XCTAssertEqual(unconfirmed?.gate, .zero)
    }
}
