import Foundation

/// The calling thread's name as the system knows it: what `top -H`, `perf` and debuggers show, and
/// what the engine sets with `pthread_setname_np` (`ThreadName`). `Thread.current.name` is
/// Foundation's own record, which on Linux never sees a name set that way. `nil` where the system
/// does not tell.
func systemThreadName() -> String? {
    #if os(Linux)
    let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
    return comm?.trimmingCharacters(in: .whitespacesAndNewlines)
    #elseif canImport(Darwin)
    var buffer = [CChar](repeating: 0, count: 64)
    guard pthread_getname_np(pthread_self(), &buffer, buffer.count) == 0 else { return nil }
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    #else
    return nil
    #endif
}
