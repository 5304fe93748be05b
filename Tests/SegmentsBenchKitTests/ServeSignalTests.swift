import Foundation
import XCTest

/// `segments-bench serve` in a script: started as a background job (SIGINT ignored), its port read
/// from its first line, then interrupted at once. The server stops cleanly every time.
final class ServeSignalTests: XCTestCase {
    func testASignalRightAfterThePortLineStopsTheServer() throws {
        let bench = try BuiltBench.url()
        for _ in 0..<5 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // `trap "" INT` ignores SIGINT, as a shell does for a background job, and exec keeps that.
            process.arguments = ["-c", #"trap "" INT; exec "$0" serve --port 0 --duration 60"#, bench.path]
            let output = Pipe()
            process.standardOutput = output
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            let reader = output.fileHandleForReading
            var text = ""
            while !text.contains("\n") {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            XCTAssertTrue(text.hasPrefix("Mock segments server on http://127.0.0.1:"), text)
            kill(process.processIdentifier, SIGINT)
            guard exited.wait(timeout: .now() + 30) == .success else {
                process.terminate()
                return XCTFail("the server did not stop on a SIGINT sent right after its port line")
            }
            text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(process.terminationStatus, 0, text)
            XCTAssertTrue(text.hasSuffix("stopped\n"), text)
        }
    }
}
