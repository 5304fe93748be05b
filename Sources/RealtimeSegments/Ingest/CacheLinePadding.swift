/// One cache line of bytes that nothing reads or writes, declared between the stored properties of
/// a class to keep an atomic that one thread writes all the time off the lines that other threads
/// use. A class lays out its stored properties in declaration order, so padding on both sides of a
/// field keeps every other field of the object at least one line away from it, wherever the object
/// starts.
///
/// 64 bytes is the line of x86-64 and of most arm64 cores (Apple's performance cores use 128: there
/// the padding halves false sharing rather than removing it).
struct CacheLinePadding: Sendable {
    /// The cache line size the padding and the ring's slots assume.
    static var lineSize: Int { 64 }

    private let bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
}
