import AsyncHTTPClient
import NIOCore
import RealtimeSegments

/// How HTTP outcomes become ``SegmentsError``s.
enum HTTPStatusMapping {
    /// `nil` for 2xx; the typed error otherwise.
    static func error(forStatus status: Int) -> SegmentsError? {
        switch status {
        case 200..<300: nil
        case 401, 403: .unauthorized(status: status)
        case 404: .notFound
        case 429: .rateLimited
        case 500..<600: .serverError(status: status)
        default: .unexpectedStatus(status)
        }
    }

    /// A client-side failure before a response head arrived.
    static func error(forRequestFailure error: any Error) -> SegmentsError {
        if let error = error as? SegmentsError { return error }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout:
                return .timeout
            default:
                return .connectionFailed("\(error)")
            }
        }
        return .connectionFailed("\(error)")
    }

    /// A failure while reading the body of a 2xx response. The transport maps a response with any
    /// other status by ``error(forStatus:)`` whatever happened to its body, so this only decides
    /// between a deadline (`timeout`) and a body cut short or too large (`malformedResponse`).
    static func error(forBodyFailure error: any Error) -> SegmentsError {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout: return .timeout
            default: break
            }
        }
        if error is NIOTooManyBytesError { return .malformedResponse("response body too large") }
        return .malformedResponse("truncated body: \(error)")
    }
}
