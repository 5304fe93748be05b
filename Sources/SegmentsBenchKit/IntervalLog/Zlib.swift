import CSegmentsZlib

/// zlib's one-shot `compress2` and `uncompress` over byte arrays (the zlib format, RFC 1950).
enum Zlib {
    /// `bytes` deflated at the default level; deterministic for the same input and zlib.
    ///
    /// - Throws: ``IntervalLogError/zlib(_:)`` when zlib fails (out of memory).
    static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        var capacity = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(capacity))
        let status = output.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in
                compress2(out.baseAddress, &capacity, input.baseAddress, uLong(input.count), Z_DEFAULT_COMPRESSION)
            }
        }
        guard status == Z_OK else { throw IntervalLogError.zlib(status) }
        output.removeSubrange(Int(capacity)...)
        return output
    }

    /// `bytes` inflated, refusing more than `limit` bytes of output (a hostile file cannot make it
    /// allocate without bound).
    ///
    /// - Throws: ``IntervalLogError/zlib(_:)`` for data that is not zlib or inflates past `limit`.
    static func decompress(_ bytes: [UInt8], limit: Int) throws -> [UInt8] {
        var size = max(64, min(limit, bytes.count * 8))
        while true {
            var produced = uLong(size)
            var output = [UInt8](repeating: 0, count: size)
            let status = output.withUnsafeMutableBufferPointer { out in
                bytes.withUnsafeBufferPointer { input in
                    uncompress(out.baseAddress, &produced, input.baseAddress, uLong(input.count))
                }
            }
            if status == Z_OK {
                output.removeSubrange(Int(produced)...)
                return output
            }
            guard status == Z_BUF_ERROR, size < limit else { throw IntervalLogError.zlib(status) }
            size = min(limit, size * 4)
        }
    }
}
