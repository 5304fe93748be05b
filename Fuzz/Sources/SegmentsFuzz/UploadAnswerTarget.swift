import Foundation
@testable import RealtimeSegmentsHTTP
import RealtimeSegments

/// The answers of the tracking and link-ids endpoints (`UploadAnswer`): every body is an answer or
/// a `malformedResponse`, never a crash or a hang; decoding is deterministic.
enum UploadAnswerTarget {
    static func run(_ data: Data) {
        let body = [UInt8](data)
        let command = Result { () throws(SegmentsError) in try UploadAnswer.command(body, endpoint: "customers/events") }
        check(isAnswer(command), "command: \(command)")
        let again = Result { () throws(SegmentsError) in try UploadAnswer.command(body, endpoint: "customers/events") }
        check(command == again, "command decoded twice: \(command) vs \(again)")
        for commands in [1, 2] {
            let batch = Result { () throws(SegmentsError) in try UploadAnswer.batch(body, commands: commands, endpoint: "batch") }
            check(isAnswer(batch), "batch: \(batch)")
            if case .success(let refusals) = batch {
                check(refusals.allSatisfy { (0..<commands).contains($0.index) }, "batch refusals out of range: \(refusals)")
            }
        }
        let link = Result { () throws(SegmentsError) in try UploadAnswer.link(body, endpoint: "link-ids") }
        check(isAnswer(link), "link: \(link)")
    }

    private static func isAnswer<Value>(_ result: Result<Value, SegmentsError>) -> Bool {
        if case .failure(let error) = result, case .malformedResponse = error { return true }
        if case .success = result { return true }
        return false
    }
}
