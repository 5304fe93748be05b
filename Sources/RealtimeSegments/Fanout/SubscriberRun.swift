/// One category's subscribers as a registry snapshot sees them, in registration order, in chunks
/// of ``chunkSize``.
///
/// Snapshots are immutable and successive ones share all but the last chunk: adding a callback
/// copies the last chunk (at most 64 entries) and the list of chunks, instead of every
/// registration of the category (a copy that grows with the category, which churn of thousands of
/// adds a second could not keep up with). Every chunk but the last is full, so entry `i` is at
/// `chunks[i / 64][i % 64]`.
///
/// A removal leaves its entry in place, its registration inactive and its closure let go
/// (`count - live` such entries): delivery skips them. The registry moves the live entries into
/// fresh chunks when those left behind outnumber them.
struct SubscriberRun: Sendable {
    /// Entries per chunk. A power of two; parallel delivery's shares are whole chunks.
    static let chunkSize = 64

    private(set) var chunks: ContiguousArray<ContiguousArray<Subscriber>>
    /// Entries, removed ones included.
    private(set) var count: Int
    /// Of those, the registrations not removed.
    private(set) var live: Int

    /// `true` if some entries are removed registrations, which delivery must skip.
    var hasRemoved: Bool { live < count }

    /// An empty run.
    static let empty = SubscriberRun(chunks: [], count: 0, live: 0)

    /// Appends `subscriber`. On a run shared with a published snapshot this copies the last chunk
    /// and the list of chunks (copy-on-write); appends after that, in the same batch, do not.
    mutating func append(_ subscriber: Subscriber) {
        subscriber.registration.slot.store(count, ordering: .relaxed)
        if let last = chunks.indices.last, chunks[last].count < Self.chunkSize {
            chunks[last].append(subscriber)
        } else {
            var chunk = ContiguousArray<Subscriber>()
            chunk.reserveCapacity(Self.chunkSize)
            chunk.append(subscriber)
            chunks.append(chunk)
        }
        count += 1
        live += 1
    }

    /// Records that `removed`, deactivated, are no longer registered: their entries stay, with
    /// their closures let go (what a closure captures may be a whole screen). Copies the chunks
    /// that hold them, as an append copies the last one.
    mutating func remove(_ removed: [Registration]) {
        for registration in removed {
            let slot = registration.slot.load(ordering: .relaxed)
            chunks[slot / Self.chunkSize][slot % Self.chunkSize] = Subscriber(onNewData: Self.removedCallback, registration: registration)
        }
        live -= removed.count
    }

    /// What a removed entry holds in place of its callback; never called, since delivery skips
    /// inactive registrations.
    private static let removedCallback: @Sendable ([Segment]) -> Void = { _ in }

    /// The live entries, in order, in full chunks.
    func compacted() -> SubscriberRun {
        var run = SubscriberRun.empty
        forEachLive { run.append($0) }
        return run
    }

    /// Calls `body` with each entry whose registration is active, in order.
    func forEachLive(_ body: (Subscriber) -> Void) {
        for chunk in chunks {
            for subscriber in chunk where subscriber.registration.isActive { body(subscriber) }
        }
    }

    /// Whether an entry still registered satisfies `predicate`.
    func containsLive(where predicate: (Subscriber) -> Bool) -> Bool {
        for chunk in chunks {
            for subscriber in chunk where subscriber.registration.isActive && predicate(subscriber) { return true }
        }
        return false
    }
}
