import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments

/// The registry behind addCallback/removeCallback: O(1) appends into shared buffers, removals left
/// behind until compaction, and snapshots that never change under a reader.
final class CallbackRegistryTests: XCTestCase {
    private func callback(_ category: SegmentCategory = .discovery) -> SegmentCallbackData {
        SegmentCallbackData(category: category, isIncludeFirstLoad: false) { _ in }
    }

    /// The identities a delivery over `snapshot` would notify, in order.
    private func delivered(_ snapshot: RegistrySnapshot, _ category: SegmentCategory = .discovery) -> [UUID] {
        guard let run = snapshot.subscribers(of: category) else { return [] }
        var identities: [UUID] = []
        run.forEachLive { identities.append($0.registration.identity) }
        return identities
    }

    /// A random sequence of adds and removes against a plain array: same registrations, same order,
    /// same counts, whatever appends, removals and compactions happened in between.
    func testRandomAddsAndRemovesMatchAPlainList() {
        var generator = SplitMix64(seed: 0xC0FFEE)
        let registry = CallbackRegistry()
        var model: [SegmentCallbackData] = []
        for step in 0..<20_000 {
            if model.isEmpty || Int.random(in: 0..<100, using: &generator) < 55 {
                let value = callback()
                registry.add(value)
                model.append(value)
            } else {
                let index = Int.random(in: 0..<model.count, using: &generator)
                let value = model.remove(at: index)
                XCTAssertEqual(registry.remove(identity: value.id, category: value.category), 1)
            }
            if step % 97 == 0 || step == 19_999 {
                let snapshot = registry.snapshot()
                XCTAssertEqual(delivered(snapshot), model.map(\.id), "step \(step)")
                XCTAssertEqual(snapshot.count, model.count)
                XCTAssertEqual(snapshot.count(of: .discovery), model.count)
                if let run = snapshot.subscribers(of: .discovery) {
                    // Entries left behind never outnumber the live ones by more than the slack.
                    XCTAssertLessThanOrEqual(run.count - run.live, max(run.live, 64), "step \(step)")
                    // Every chunk but the last is full (delivery finds entry i at chunks[i / 64]).
                    XCTAssertTrue(run.chunks.dropLast().allSatisfy { $0.count == SubscriberRun.chunkSize }, "step \(step)")
                    XCTAssertEqual(run.chunks.reduce(0) { $0 + $1.count }, run.count)
                }
            }
        }
    }

    func testASnapshotNeverSeesLaterAddsOrLosesItsOwnEntries() {
        let registry = CallbackRegistry()
        let first = (0..<10).map { _ in callback() }
        registry.add(first)
        let before = registry.snapshot()
        // Enough adds to fill and replace the buffer, and removals enough to compact it.
        let later = (0..<100).map { _ in callback() }
        for value in later { registry.add(value) }
        for value in later.prefix(90) { registry.remove(identity: value.id, category: .discovery) }
        XCTAssertEqual(before.subscribers(of: .discovery)?.count, 10)
        XCTAssertEqual(delivered(before), first.map(\.id))
        XCTAssertEqual(delivered(registry.snapshot()), first.map(\.id) + later.suffix(10).map(\.id))
    }

    func testRemovingLeavesTheEntryBehindInactiveAndDeliverySkipsIt() {
        let registry = CallbackRegistry()
        let values = (0..<140).map { _ in callback() }
        registry.add(values)
        registry.remove(identity: values[3].id, category: .discovery)
        let run = registry.snapshot().subscribers(of: .discovery)!
        XCTAssertTrue(run.hasRemoved)
        XCTAssertEqual(run.count, 140)
        XCTAssertEqual(run.live, 139)
        XCTAssertFalse(run.chunks[0][3].registration.isActive)

        let notified = Locked<[Int]>([])
        let counting = CallbackRegistry()
        let callbacks = (0..<140).map { index in
            SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in notified.withLock { $0.append(index) } }
        }
        counting.add(callbacks)
        for removed in [3, 64, 130] { counting.remove(identity: callbacks[removed].id, category: .discovery) }
        let identity = IdentityCell(IdentitySnapshot(customerIds: ["cookie": "c"], generation: 1))
        let job = DeliveryExecutor.Job(category: .discovery, segments: [], notifyAll: true, generation: 1)
        XCTAssertEqual(DeliveryExecutor.runDelivery(job, registry: counting, identity: identity, mode: .ordered).notified, 137)
        XCTAssertEqual(notified.withLock { $0 }, (0..<140).filter { ![3, 64, 130].contains($0) })
    }

    /// A removed callback's closure, and what it captures (a screen, say), is let go once no
    /// delivery holds an older snapshot: the entry left behind keeps the registration, not the
    /// closure. Also with the category kept alive by others and over many removals.
    func testARemovedCallbackIsReleasedWhileTheCategoryLivesOn() {
        final class Screen: Sendable {}
        let registry = CallbackRegistry()
        registry.add(callback())  // a listener for the app's life keeps the category
        weak var weakScreen: Screen?
        var values: [SegmentCallbackData] = []
        do {
            let screen = Screen()
            weakScreen = screen
            for _ in 0..<3 {
                values.append(SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in _ = screen })
            }
        }
        registry.add(values)
        for value in values { registry.remove(identity: value.id, category: value.category) }
        values.removeAll()
        XCTAssertNil(weakScreen, "the registry still holds the removed callbacks' closures")
        XCTAssertEqual(registry.snapshot().count(of: .discovery), 1)
    }

    func testTheLastRemovalDropsTheCategory() {
        let registry = CallbackRegistry()
        let value = callback(.content)
        registry.add(value)
        registry.remove(identity: value.id, category: .content)
        XCTAssertNil(registry.snapshot().subscribers(of: .content))
        XCTAssertEqual(registry.snapshot().count, 0)
    }

    func testRegisteringOneValueTwiceAndRemovingItRemovesBoth() {
        let registry = CallbackRegistry()
        let value = callback()
        registry.add(value)
        registry.add(callback())
        registry.add(value)
        XCTAssertEqual(registry.remove(identity: value.id, category: .discovery), 2)
        XCTAssertEqual(registry.snapshot().count, 1)
        XCTAssertEqual(registry.remove(identity: value.id, category: .discovery), 0)
    }
}
