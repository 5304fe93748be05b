import AsyncHTTPClient
import Foundation
import NIOCore
import RealtimeSegments

/// How HTTP outcomes become `SegmentsError`s.
enum HTTPStatusMapping {
    /// `nil` for 2xx; the typed error otherwise, carrying the server's `Retry-After` for 408, 429
    /// and 5xx.
    static func error(forStatus status: Int, retryAfter: Duration? = nil) -> SegmentsError? {
        switch status {
        case 200..<300: nil
        case 401, 403: .unauthorized(status: status)
        case 404: .notFound
        case 408: .requestTimeout(retryAfter: retryAfter)
        case 429: .rateLimited(retryAfter: retryAfter)
        case 500..<600: .serverError(status: status, retryAfter: retryAfter)
        default: .unexpectedStatus(status)
        }
    }

    /// The longest `Retry-After` honoured: a larger value (or a date further ahead) is taken as a
    /// day, so a broken header cannot stop uploads for good.
    static let longestRetryAfter = Duration.seconds(86_400)

    /// A `Retry-After` header value (RFC 9110 §10.2.3): delay seconds, or an HTTP date (taken
    /// relative to `now`). `nil` for a missing or unreadable value.
    static func retryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            guard let seconds = Int(value) else { return longestRetryAfter }  // too many digits
            return min(.seconds(seconds), longestRetryAfter)
        }
        guard let date = httpDate(value, now: now) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return seconds >= 86_400 ? longestRetryAfter : .milliseconds(Int(seconds * 1_000))
    }

    /// The three forms of an HTTP date a recipient accepts (RFC 9110 §5.6.7): IMF-fixdate, the
    /// form servers send (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete RFC 850
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`) forms.
    private static let httpDateFormats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]

    /// `value` read as an HTTP date in GMT. An RFC 850 year more than 50 years ahead of `now` is
    /// the latest past year with those digits, as RFC 9110 says. Formatters are made per use: a
    /// failed upload is rare, and a shared formatter would need a lock.
    private static func httpDate(_ value: String, now: Date) -> Date? {
        // asctime pads a one-digit day with a space.
        let text = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for format in httpDateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.twoDigitStartDate = Calendar(identifier: .gregorian).date(byAdding: .year, value: -49, to: now)
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
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
        if let error = error as? HTTPSegmentsTransport.UnreadableEncoding {
            return .malformedResponse(
                "the answer is in content-encoding \(error.encoding.escapingControlCharacters.prefix(40)), which nothing on the way decoded (the transport asks for identity)")
        }
        return .malformedResponse("truncated body: \(error)")
    }
}
