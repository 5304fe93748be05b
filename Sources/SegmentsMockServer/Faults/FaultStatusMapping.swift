import RealtimeSegments

extension SegmentsError {
    /// The error the HTTP transport reports for an HTTP error `status`: 401/403 →
    /// `SegmentsError.unauthorized(status:)`, 404 → `SegmentsError.notFound`, 408 → `SegmentsError.requestTimeout`, 429 →
    /// `SegmentsError.rateLimited`, 5xx → `SegmentsError.serverError(status:)`, anything else →
    /// `SegmentsError.unexpectedStatus(_:)`. The in-memory transport uses it so that both ways in
    /// fail the same way.
    static func forMockStatus(_ status: Int) -> SegmentsError {
        switch status {
        case 401, 403: .unauthorized(status: status)
        case 404: .notFound
        case 408: .requestTimeout()
        case 429: .rateLimited()
        case 500...599: .serverError(status: status)
        default: .unexpectedStatus(status)
        }
    }
}
