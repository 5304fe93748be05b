/// HdrHistogram's variable-length integers: ZigZag (so small negative numbers stay short), then
/// LEB128 in at most 9 bytes, the 9th carrying 8 whole bits (as the Java `ZigZagEncoding` does).
enum ZigZagLEB128 {
    /// Appends `value` to `bytes`.
    static func append(_ value: Int64, to bytes: inout [UInt8]) {
        var remaining = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        for _ in 0..<8 {
            if remaining >> 7 == 0 {
                bytes.append(UInt8(remaining))
                return
            }
            bytes.append(UInt8(remaining & 0x7F) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: remaining))
    }

    /// Reads one value at `offset` and moves `offset` past it.
    ///
    /// - Throws: ``IntervalLogError/truncated(_:)`` when the bytes end inside the value.
    static func read(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) throws -> Int64 {
        var raw: UInt64 = 0
        var shift: UInt64 = 0
        for position in 0..<9 {
            guard offset < bytes.count else { throw IntervalLogError.truncated("counts") }
            let byte = bytes[offset]
            offset += 1
            if position == 8 {
                raw |= UInt64(byte) << 56
                break
            }
            raw |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }
}
