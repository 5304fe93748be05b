import SegmentsBenchKit
import XCTest

final class ScenarioRegistryTests: XCTestCase {
    func testTheDefaultRegistryHoldsTheBuiltInScenariosInSuiteOrder() {
        XCTAssertEqual(ScenarioRegistry().names, [
            "tracking-storm", "hot-path", "customer-switch", "fanout-sweep", "peers", "pull", "qualified", "reporting",
            "faults", "crash", "soak", "fleet", "costs",
        ])
    }

    func testAnEmptyRegistryHoldsNoScenario() {
        XCTAssertTrue(ScenarioRegistry(builtIns: false).scenarios.isEmpty)
    }

    func testARegisteredScenarioRunsAfterTheBuiltIns() throws {
        var registry = ScenarioRegistry()
        try registry.register(StubScenario(name: "my-scenario"))
        XCTAssertEqual(registry.names.last, "my-scenario")
        XCTAssertEqual(registry.named("my-scenario")?.name, "my-scenario")
    }

    func testANameClashIsRefused() throws {
        var registry = ScenarioRegistry()
        XCTAssertThrowsError(try registry.register(StubScenario(name: "hot-path"))) { error in
            XCTAssertEqual(error as? ScenarioRegistryError, .duplicateName("hot-path"))
            XCTAssertTrue("\(error)".contains("'hot-path' is registered already"), "\(error)")
        }
        XCTAssertEqual(registry.names.filter { $0 == "hot-path" }.count, 1)
    }

    func testANameThatCannotBeTypedIsRefused() {
        var registry = ScenarioRegistry(builtIns: false)
        for name in ["", "--quick", "two words"] {
            XCTAssertThrowsError(try registry.register(StubScenario(name: name))) { error in
                XCTAssertEqual(error as? ScenarioRegistryError, .invalidName(name))
            }
        }
        XCTAssertTrue(registry.scenarios.isEmpty)
    }

    /// The gate finds a figure's scenario by the part of its name before the first dot.
    func testANameWithADotIsRefused() {
        var registry = ScenarioRegistry(builtIns: false)
        XCTAssertThrowsError(try registry.register(StubScenario(name: "net.v2"))) { error in
            XCTAssertEqual(error as? ScenarioRegistryError, .invalidName("net.v2"))
            XCTAssertTrue("\(error)".contains("."), "\(error)")
        }
    }

    func testTheConfigurationRecordsOnlyTheHonouredOptions() {
        var options = BenchOptions()
        options.producers = 3
        options.callbacks = 10
        options.transport = .http
        XCTAssertEqual(options.configuration(honouring: [.producers, .seed]), ["quick": "false", "producers": "3", "seed": "1"])
        XCTAssertEqual(options.configuration(honouring: []), ["quick": "false"])
    }
}

/// A scenario that measures nothing: one figure, its configuration as the options say.
struct StubScenario: Scenario {
    var name: String
    var simulates = "nothing"
    var measures = "nothing"
    var honouredOptions: Set<BenchOptionName> = []

    func run(_ options: BenchOptions, progress: SegmentsBenchKit.Progress) throws -> ScenarioResult {
        ScenarioResult(
            scenario: name, summary: "stub", configuration: options.configuration(honouring: honouredOptions),
            figures: [Figure(name: "\(name).ran", value: 1, unit: "count", summary: "it ran")], allocationsMeasured: false)
    }
}
