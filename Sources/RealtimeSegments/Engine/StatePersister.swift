import Logging

/// Writes the engine's state file when the state changed, and sets aside refused uploads in the
/// dead-letter file. Both live in the configuration's state directory; without one, nothing is
/// written (and refused uploads are discarded, with a `Segments:` error line).
///
/// When uploads are answered, the state file that still lists them is written again, so that a
/// restart does not send those events a second time: at once when the queue empties, otherwise at
/// most once per ``answeredUploadsRewriteInterval`` while uploads keep going out, so steady tracking
/// does not rewrite the whole file per upload.
///
/// Threading: engine thread only (owned by ``EngineOwner``, not Sendable). It owns the dirty flag,
/// the rewrite schedule and the two files; it counts its writes in ``EngineCounters``. It reads no
/// engine state itself: the owner hands it the state to write.
final class StatePersister {
    /// Written into the state file: the project the directory's state belongs to.
    private let projectToken: String
    private let store: StateStore?
    private let deadLetters: DeadLetterFile?
    private let clock: any SegmentsClock
    private let logger: Logger
    private let counters: EngineCounters

    /// The state changed since it was last written.
    private(set) var isDirty = false
    /// Whether the state file last written lists unsent uploads.
    private var persistedUploads = false
    /// When the state file, listing uploads answered since, is next rewritten; `nil` if not due.
    private(set) var answeredUploadsRewriteAt: SegmentsInstant?
    static let answeredUploadsRewriteInterval = Duration.seconds(1)

    init(configuration: SegmentsConfiguration, counters: EngineCounters) {
        self.projectToken = configuration.projectToken
        self.store = configuration.stateDirectory.map(StateStore.init(directory:))
        self.deadLetters = configuration.stateDirectory.map(DeadLetterFile.init(directory:))
        self.clock = configuration.clock
        self.logger = configuration.logger
        self.counters = counters
    }

    /// Whether a state directory is configured (unsent uploads survive a stop).
    var keepsState: Bool { store != nil }

    /// Whether ``write(customerIds:linkedIds:lastKnown:pendingUploads:)`` should be called now: the state changed and there is a file to write.
    var needsWrite: Bool { isDirty && store != nil }

    /// The state changed: it is written at the end of the engine's turn.
    func markDirty() {
        isDirty = true
    }

    /// Uploads were answered and taken off the queue (`queueIsEmpty` tells whether any remain).
    func uploadsAnswered(queueIsEmpty: Bool) {
        guard persistedUploads else { return }
        if queueIsEmpty {
            isDirty = true
        } else if answeredUploadsRewriteAt == nil {
            answeredUploadsRewriteAt = clock.now() + Self.answeredUploadsRewriteInterval
        }
    }

    /// Time passed: marks the state dirty if the throttled rewrite is due at `now`.
    func tick(at now: SegmentsInstant) {
        guard let due = answeredUploadsRewriteAt, now >= due else { return }
        answeredUploadsRewriteAt = nil
        isDirty = true
    }

    /// Writes the state file (call when ``needsWrite``): the current customer's ids, the hard ids the
    /// server links its cookie to, the last known segments and the unsent uploads (so that events
    /// restored at start, or waiting while uploads fail, are not lost if the process dies before
    /// they go out). A failure is logged; the state is written again when it next changes.
    /// Returns whether the file was written (items that cannot be encoded are left out of it, each
    /// with its own line).
    @discardableResult
    func write(
        customerIds: [String: String], linkedIds: [String: String], lastKnown: LastKnownState?,
        pendingUploads: [UploadItem]
    ) -> Bool {
        guard let store else { return false }
        isDirty = false
        var state = PersistedState(
            projectToken: projectToken,
            customerIds: customerIds,
            linkedIds: linkedIds,
            lastKnown: lastKnown.map { known in
                PersistedState.LastKnown(
                    customerIds: known.customerIds,
                    categories: Dictionary(uniqueKeysWithValues: known.categories.map { ($0.key.name, $0.value) }))
            },
            pendingUploads: pendingUploads)
        do {
            try save(state, to: store)
            return true
        } catch let error as EncodingError {
            // An item whose properties JSON cannot encode (nested deeper than its encoder allows)
            // must not cost the customer and every other unsent item their place in the file.
            let unencodable = Self.unencodableItems(of: state)
            guard !unencodable.isEmpty else {
                logger.error("Segments: Could not save state to \(store.fileURL.path): \(error.briefDescription)")
                return false
            }
            for (index, reason) in unencodable.reversed() {
                logger.error(
                    "Segments: An unsent \(Self.describe(state.pendingUploads[index])) cannot be encoded (\(reason)); it stays queued for upload but is left out of the state file, so it does not survive a restart")
                state.pendingUploads.remove(at: index)
            }
            do {
                try save(state, to: store)
                return true
            } catch {
                logger.error("Segments: Could not save state to \(store.fileURL.path): \(error)")
                return false
            }
        } catch {
            logger.error("Segments: Could not save state to \(store.fileURL.path): \(error)")
            return false
        }
    }

    private func save(_ state: PersistedState, to store: StateStore) throws {
        let (replaced, bytes) = try store.save(state)
        counters.stateWrites.wrappingIncrement(ordering: .relaxed)
        counters.stateBytesWritten.wrappingIncrement(by: bytes, ordering: .relaxed)
        persistedUploads = !state.pendingUploads.isEmpty
        answeredUploadsRewriteAt = nil
        if !replaced.isEmpty {
            logger.error("Segments: State saved with numbers JSON cannot carry written as null: \(replaced.joined(separator: ", "))")
        }
    }

    /// The positions of the unsent items that cannot be encoded, and why: each is tried alone in a
    /// state of its own, so at the depth it has in the file.
    private static func unencodableItems(of state: PersistedState) -> [(index: Int, reason: String)] {
        var probe = state
        probe.lastKnown = nil
        return state.pendingUploads.indices.compactMap { index in
            probe.pendingUploads = [state.pendingUploads[index]]
            do {
                _ = try NonFiniteNumbers.encode(probe)
                return nil
            } catch let error as EncodingError {
                return (index, error.briefDescription)
            } catch {
                return (index, "\(error)")
            }
        }
    }

    private static func describe(_ item: UploadItem) -> String {
        switch item {
        case .event(let event): "tracked event (\(event.eventType))"
        case .customer: "customer update"
        }
    }

    /// Sets aside uploads the server refused for good: appended to the dead-letter file, with one
    /// `Segments:` error line for the lot.
    func setAside(_ refused: [(item: UploadItem, reason: String)]) {
        counters.uploadsSetAside.wrappingIncrement(by: refused.count, ordering: .relaxed)
        let events = refused.count { if case .event = $0.item { true } else { false } }
        let what = [(events, "tracked events"), (refused.count - events, "customer updates")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: " and ")
        let reasons = Array(Set(refused.map(\.reason))).sorted()
        let why = reasons.prefix(3).joined(separator: "; ") + (reasons.count > 3 ? "; …" : "")
        guard let deadLetters else {
            logger.error("Segments: The server refused \(what) for good (\(why)); discarded: configure stateDirectory to keep them")
            return
        }
        let now = clock.wallClockSeconds()
        do {
            let (replaced, unencodable) = try deadLetters.append(refused.map { .init(reason: $0.reason, setAsideAt: now, item: $0.item) })
            logger.error("Segments: The server refused \(what) for good (\(why)); set aside in \(deadLetters.fileURL.path)")
            for (index, reason) in unencodable {
                logger.error(
                    "Segments: A refused \(Self.describe(refused[index].item)) cannot be encoded (\(reason)); discarded, not set aside")
            }
            if !replaced.isEmpty {
                logger.error("Segments: Set aside with numbers JSON cannot carry written as null: \(replaced.joined(separator: ", "))")
            }
        } catch {
            logger.error("Segments: The server refused \(what) for good (\(why)); could not set them aside in \(deadLetters.fileURL.path): \(error)")
        }
    }
}
