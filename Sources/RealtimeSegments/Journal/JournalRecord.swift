/// One record of the event journal: an upload item queued with its sequence number, or a mark
/// that every item up to a sequence number has been answered by the server.
///
/// Framing (little-endian): a `UInt32` body length, the body's ``CRC32`` as a `UInt32`, then the
/// body: a kind byte (1: item, 2: acknowledgement), the `UInt64` sequence number and, for an item,
/// its ``JournalItemCodec`` bytes. A crash during a write leaves a prefix of a record at the end of
/// a file (a torn tail); the length and checksum tell it from a whole record.
enum JournalRecord: Equatable, Sendable {
    /// An upload item, numbered in queue order.
    case item(sequence: UInt64, UploadItem)
    /// Every item numbered up to `through` has been answered (accepted or set aside).
    case acknowledged(through: UInt64)

    /// The item's sequence number, or the last one a mark acknowledges.
    var number: UInt64 {
        switch self {
        case .item(let sequence, _): sequence
        case .acknowledged(let through): through
        }
    }

    static let headerSize = 8
    /// Larger lengths are read as damage, never allocated.
    static let maxBodySize = 64 << 20

    private static let itemKind: UInt8 = 1
    private static let acknowledgementKind: UInt8 = 2

    /// Appends the framed record to `buffer`.
    func append(to buffer: inout [UInt8]) {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: Self.headerSize))
        switch self {
        case .item(let sequence, let item):
            buffer.append(Self.itemKind)
            JournalItemCodec.appendInteger(sequence, to: &buffer)
            JournalItemCodec.append(item, to: &buffer)
        case .acknowledged(let through):
            buffer.append(Self.acknowledgementKind)
            JournalItemCodec.appendInteger(through, to: &buffer)
        }
        let bodyLength = UInt32(truncatingIfNeeded: buffer.count - start - Self.headerSize)
        let checksum = buffer.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[(start + Self.headerSize)...])) }
        buffer.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: bodyLength.littleEndian, toByteOffset: start, as: UInt32.self)
            bytes.storeBytes(of: checksum.littleEndian, toByteOffset: start + 4, as: UInt32.self)
        }
    }

    /// What lies at an offset of a journal file.
    enum Decoded: Equatable {
        /// A whole record, and the offset of what follows it.
        case record(JournalRecord, next: Int)
        /// The end of the file, exactly after the last record.
        case end
        /// Not a whole, intact record: a torn write, or damage; nothing after it can be trusted.
        case damaged(String)
        /// A whole, intact item record whose upload cannot be read (say, properties nested deeper
        /// than the reader allows), and the offset of what follows it.
        case unreadable(String, next: Int)
        /// A whole, intact record of a kind, or holding an upload, this version does not know: one
        /// written by a newer version of the library. Names what is unknown.
        case newerFormat(String)
    }

    /// Where the record at `offset` would end by its header, when that length is possible and
    /// within `bytes`; `nil` otherwise. Lets a reader look past a record whose body is damaged.
    static func declaredEnd(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int? {
        guard bytes.count - offset >= headerSize else { return nil }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        guard length >= 9, length <= maxBodySize, bytes.count - offset - headerSize >= length else { return nil }
        return offset + headerSize + length
    }

    /// Reads the record at `offset` of `bytes`.
    static func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Decoded {
        let left = bytes.count - offset
        guard left > 0 else { return .end }
        guard left >= headerSize else { return .damaged("a record header is cut short (\(left) of \(headerSize) bytes)") }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        let checksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        guard length >= 9, length <= maxBodySize else { return .damaged("a record length of \(length) bytes is impossible") }
        guard left - headerSize >= length else {
            return .damaged("a record is cut short (\(left - headerSize) of \(length) bytes)")
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + headerSize)..<(offset + headerSize + length)])
        guard CRC32.checksum(body) == checksum else { return .damaged("a record's checksum does not match") }
        var reader = JournalItemCodec.Reader(bytes: body)
        let next = offset + headerSize + length
        do {
            let kind = try reader.byte()
            let sequence = try reader.integer(UInt64.self)
            switch kind {
            case itemKind:
                do {
                    let item = try JournalItemCodec.decode(UnsafeRawBufferPointer(rebasing: body[reader.offset...]))
                    return .record(.item(sequence: sequence, item), next: next)
                } catch {
                    if error.isNewerFormat { return .newerFormat("kind \(kind) holding \(error)") }
                    return .unreadable("\(error)", next: next)
                }
            case acknowledgementKind where length == 9:
                return .record(.acknowledged(through: sequence), next: next)
            default:
                // The checksum holds, so the writer meant it: a kind, or a longer mark, of a newer
                // format. Reading on, or skipping it as damage, would lose what it holds.
                return .newerFormat("kind \(kind)")
            }
        } catch {
            return .damaged("a record's content cannot be read: \(error)")
        }
    }
}
