/// CRC-32 (IEEE 802.3, reflected polynomial `0xEDB88320`, the checksum of zlib and PNG), one
/// table lookup per byte: what each journal record carries to tell a torn or damaged write.
///
/// Threading: a pure function over an immutable table.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// The checksum of `bytes` (`checksum("123456789".utf8) == 0xCBF43926`).
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        let array = Array(bytes)
        return array.withUnsafeBytes { checksum($0) }
    }
}
