import XCTest

final class SmokeTests: XCTestCase {
    func testModuleBuilds() {}
}
