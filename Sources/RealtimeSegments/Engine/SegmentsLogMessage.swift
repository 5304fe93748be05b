/// The `Segments:` log texts that users grep for. Keep them exactly as they are.
enum SegmentsLogMessage {
    static let skippingAfterTrackedEvent =
        "Segments: Skipping segments update process after tracked event due to no callback registered"
    static let skippingReloadNoCallback = "Segments: Skipping segments reload process for no callback"
    static let skippingInitialNoCallback = "Segments: Skipping initial segments update process for no callback"
    static let skippingInitialNotRequired = "Segments: Skipping initial segments update process as is not required"
    static let checkCancelledMeanwhile = "Segments: Segments change check has been cancelled meanwhile"
    static let emptyDataFromServerAndStore = "Segments: Empty data from server and store."
    static let checkCanceledCustomerChanged = "Segments: Check process was canceled because customer has changed"
    static let newDataIgnoredDifferentCustomer = "Segments: New data are ignored because were loaded for different customer"
    /// Exponea's Android text; its iOS SDK drops the prefix, which SPEC §8 does not allow.
    static let fetchFailedStopping = "Segments: Segments fetch failed, SDK is stopping"

    static func mergeFailed(customerIds: [String: String], error: SegmentsError) -> String {
        "Segments: Customer IDs \(render(customerIds)) merge failed, unable to fetch segments due to \(error)"
    }

    static func fetchFailed(_ error: SegmentsError) -> String {
        "Segments: Fetch of segments failed: \(error)"
    }

    /// Renders customer ids deterministically (sorted keys), e.g. `{cookie=…, registered=…}`.
    static func render(_ customerIds: [String: String]) -> String {
        "{" + customerIds.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "}"
    }
}
