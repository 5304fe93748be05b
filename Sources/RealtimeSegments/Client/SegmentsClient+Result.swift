extension SegmentsClient {
    /// The completion form of ``getSegments(category:force:)`` that tells "no segments" from
    /// "failed": `completion` runs once, on a background thread (never the caller's), with
    /// `.success(segments)` (empty when the customer has none in `category`) or `.failure(error)`
    /// with the error the `async` form would throw: ``SegmentsError/invalidArgument(_:)`` for an
    /// empty category, ``SegmentsError/notStarted`` / ``SegmentsError/stopped``, the fetch's error,
    /// or ``SegmentsError/customerChanged``. Same cache, `force` and single-flight rules as the
    /// `async` form; failures are not logged here (the fetch's own `Segments:` line still is).
    ///
    /// ```swift
    /// client.getSegments(category: .content, completion: { result in
    ///     switch result {
    ///     case .success(let segments): render(segments)
    ///     case .failure(let error): showRetry(error)
    ///     }
    /// })
    /// ```
    ///
    /// A trailing closure whose parameter type is not written (`{ segments in ... }`) still picks
    /// the `[Segment]` form, ``getSegments(category:force:result:)``, as Exponea's code expects.
    // Disfavored so that existing trailing-closure calls keep resolving to the `[Segment]` form
    // instead of becoming ambiguous.
    @_disfavoredOverload
    public func getSegments(
        category: SegmentCategory, force: Bool = false,
        completion: @escaping @Sendable (Result<[Segment], SegmentsError>) -> Void
    ) {
        do throws(SegmentsError) {
            guard category.isValid else { throw .invalidArgument("the category name is empty") }
            try requireStarted()
        } catch {
            channels.runInBackground { completion(.failure(error)) }
            return
        }
        if !force, let cached = cachedSegments(category) {
            channels.runInBackground { completion(.success(cached)) }
            return
        }
        channels.post(.getSegments(category: category, force: force, completion: completion))
    }
}
