/// 64-bit FNV-1a: a hash that is the same in every process (Swift's `Hasher` is seeded per
/// process), for values that must not change from run to run.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Hashes `bytes` in order.
    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    /// Hashes `word`'s eight bytes, least significant first.
    mutating func add(_ word: UInt64) {
        add((0..<8).lazy.map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) })
    }
}
