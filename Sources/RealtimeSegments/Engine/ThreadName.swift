#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Names the engine's own threads as `top -H`, `perf` and debuggers show them.
enum ThreadName {
    /// Gives the calling thread `name` at the system level. Call it from inside the thread, first.
    ///
    /// Directly through pthreads rather than `Thread.name`: on Linux, Foundation's setter applies a
    /// name only once it holds the thread's handle, which `Thread.start()` stores after the new
    /// thread may already be running, so the name could be dropped. Linux keeps at most 15
    /// characters and refuses a longer name (the thread then keeps the name it inherited from the
    /// thread that created it); every name passed here fits.
    static func setForCurrentThread(_ name: String) {
        #if canImport(Darwin)
        let result = pthread_setname_np(name)
        #else
        let result = setName?(pthread_self(), name) ?? 0
        #endif
        assert(result == 0, "thread name \(name) refused (error \(result))")
    }

    #if !canImport(Darwin)
    /// glibc's and musl's `pthread_setname_np`, looked up once: the C headers declare it only for
    /// `_GNU_SOURCE`, so Swift does not import it.
    private static let setName: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = {
        guard let symbol = dlsym(nil, "pthread_setname_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
    }()
    #endif
}
