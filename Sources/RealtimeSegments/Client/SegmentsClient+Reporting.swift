extension SegmentsClient {
    /// The reporting segments context of `visitorId` (Convert-style, SPEC §10). Works before
    /// ``start()`` and after ``stop(timeout:)``; the first call restores persisted visitors if ``start()``
    /// has not already done so. Contexts of the same id share the same segments. Changes made after
    /// ``stop(timeout:)`` stay in memory (with one `Segments:` warning): a stopped client gives
    /// its state directory up.
    ///
    /// Threading: may be called from any thread. A first call that restores persisted visitors
    /// reads their files on the caller's thread.
    ///
    /// - Throws: ``SegmentsError/invalidArgument(_:)`` for an empty `visitorId`.
    public func reportingVisitor(visitorId: String) throws(SegmentsError) -> ReportingVisitor {
        guard !visitorId.isEmpty else { throw .invalidArgument("visitorId is empty") }
        reporting.restoreIfNeeded()
        return ReportingVisitor(visitorId: visitorId, manager: reporting)
    }
}
