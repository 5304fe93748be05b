import Dispatch

/// Runs `body` to completion from synchronous code on a plain thread. Never call it from inside
/// a Swift concurrency task (it would block a thread of the cooperative pool).
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = LockedBox<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        box.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return try box.withLock { $0! }.get()
}
