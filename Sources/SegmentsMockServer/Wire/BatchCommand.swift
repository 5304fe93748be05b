/// One command of a batch request as decoded: something to apply, a clock reading, or a command
/// that fails on its own (the others still run).
enum BatchCommand: Hashable, Sendable {
    /// `customers/events` or `customers`: still to be checked by ``RequestValidation``.
    case track(TrackingCommand)
    /// `system/time`: answered with the server's time.
    case systemTime
    /// A command that is not an object, has an unknown `name`, or `data` of the wrong shape.
    case invalid(String)
}
