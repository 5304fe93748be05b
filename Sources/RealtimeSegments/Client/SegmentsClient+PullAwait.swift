extension SegmentsClient {
    /// Posts a `getSegments` request to the engine and waits for its result, or for the calling
    /// task's cancellation, whichever comes first (see ``PullResumer``). A task already cancelled
    /// posts nothing. The engine is not told about a cancellation: its fetch completes for the
    /// other callers and the cache, and the result meant for this caller is dropped.
    func awaitPull(category: SegmentCategory, force: Bool) async -> Result<[Segment], SegmentsError> {
        let resumer = PullResumer<Result<[Segment], SegmentsError>>()
        let channels = channels
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard resumer.install(continuation) else { return }
                channels.post(.getSegments(category: category, force: force, completion: { resumer.resolve($0) }))
            }
        } onCancel: {
            resumer.resolve(.failure(.cancelled))
        }
    }
}
