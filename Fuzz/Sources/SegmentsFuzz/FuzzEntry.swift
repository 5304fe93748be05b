import CFuzzerDriver
import Foundation

/// The decoders this executable fuzzes, one per run: `SEGMENTS_FUZZ_TARGET` names it (see `Fuzz/run`).
enum FuzzTarget: String, CaseIterable, Sendable {
    case segmentsResponse = "segments-response"
    case uploadAnswer = "upload-answer"
    case stateFile = "state-file"
    case reportingFile = "reporting-file"
    case qualifiedResponse = "qualified-response"
    case mockRequest = "mock-request"

    func run(_ data: Data) {
        switch self {
        case .segmentsResponse: SegmentsResponseTarget.run(data)
        case .uploadAnswer: UploadAnswerTarget.run(data)
        case .stateFile: StateFileTarget.run(data)
        case .reportingFile: ReportingFileTarget.run(data)
        case .qualifiedResponse: QualifiedResponseTarget.run(data)
        case .mockRequest: MockRequestTarget.run(data)
        }
    }
}

private let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["SEGMENTS_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("SEGMENTS_FUZZ_TARGET must be one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}()

/// Runs libFuzzer's driver (its command line is libFuzzer's) on ``fuzzOneInput(_:_:)``.
@main
enum SegmentsFuzzMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
    }
}

/// libFuzzer's entry point: one input, for the target of this run. A finding is a crash (a trap,
/// an AddressSanitizer report, or a failed oracle `check`) or a run over libFuzzer's `-timeout`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    target.run(data)
    return 0
}

/// Stops the run with `message` (libFuzzer saves the input) when an oracle fails.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    guard !condition() else { return }
    FileHandle.standardError.write(Data("oracle failed: \(message())\n".utf8))
    abort()
}
