/// The binary form of an ``UploadItem`` inside a journal record, written and read on the engine
/// thread.
///
/// Layout (little-endian): a kind byte (1: event, 2: customer update), the customer ids (a
/// string map), then for an event its type (a string) and timestamp (the `Double`'s bits), and
/// the properties (a ``JSONValue`` map). A string is a `UInt32` byte count and its UTF-8 bytes; a
/// map is a `UInt32` count and its key/value pairs; a ``JSONValue`` is a tag byte and its
/// content. Numbers keep their exact bits (a NaN stays a NaN until the transport encodes it).
///
/// Threading: pure functions.
enum JournalItemCodec {
    /// Why bytes could not be read back as an item (the record's checksum matched, so this means
    /// a writer of another format, never a torn write).
    struct Malformed: Error, CustomStringConvertible {
        var description: String
        /// An item kind or value tag this version does not know, or bytes after the upload: in an
        /// intact record, the work of a newer version of the library, not damage.
        var isNewerFormat = false
    }

    private enum Kind: UInt8 { case event = 1, customer = 2 }
    private enum Tag: UInt8 { case null = 0, falseValue, trueValue, number, string, array, object }
    /// Deeper values are refused when read: a guard for the reader's recursion, far above what
    /// ``JSONNestingLimit`` lets reach the journal.
    static let maxDepth = 1_000

    // MARK: Writing

    static func append(_ item: UploadItem, to buffer: inout [UInt8]) {
        switch item {
        case .event(let event):
            buffer.append(Kind.event.rawValue)
            appendStrings(event.customerIds, to: &buffer)
            appendString(event.eventType, to: &buffer)
            appendInteger(event.timestamp.bitPattern, to: &buffer)
            appendObject(event.properties, to: &buffer)
        case .customer(let update):
            buffer.append(Kind.customer.rawValue)
            appendStrings(update.customerIds, to: &buffer)
            appendObject(update.properties, to: &buffer)
        }
    }

    static func appendInteger<Value: FixedWidthInteger>(_ value: Value, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }

    private static func appendString(_ string: String, to buffer: inout [UInt8]) {
        let utf8 = string.utf8
        appendInteger(UInt32(truncatingIfNeeded: utf8.count), to: &buffer)
        buffer.append(contentsOf: utf8)
    }

    private static func appendStrings(_ map: [String: String], to buffer: inout [UInt8]) {
        appendInteger(UInt32(truncatingIfNeeded: map.count), to: &buffer)
        for (key, value) in map {
            appendString(key, to: &buffer)
            appendString(value, to: &buffer)
        }
    }

    private static func appendObject(_ object: [String: JSONValue], to buffer: inout [UInt8]) {
        appendInteger(UInt32(truncatingIfNeeded: object.count), to: &buffer)
        for (key, value) in object {
            appendString(key, to: &buffer)
            appendValue(value, to: &buffer)
        }
    }

    private static func appendValue(_ value: JSONValue, to buffer: inout [UInt8]) {
        switch value {
        case .null: buffer.append(Tag.null.rawValue)
        case .bool(let flag): buffer.append(flag ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
        case .number(let number):
            buffer.append(Tag.number.rawValue)
            appendInteger(number.bitPattern, to: &buffer)
        case .string(let string):
            buffer.append(Tag.string.rawValue)
            appendString(string, to: &buffer)
        case .array(let elements):
            buffer.append(Tag.array.rawValue)
            appendInteger(UInt32(truncatingIfNeeded: elements.count), to: &buffer)
            for element in elements { appendValue(element, to: &buffer) }
        case .object(let object):
            buffer.append(Tag.object.rawValue)
            appendObject(object, to: &buffer)
        }
    }

    // MARK: Reading

    /// Reads the item that fills `bytes` entirely.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(Malformed) -> UploadItem {
        var reader = Reader(bytes: bytes)
        let item: UploadItem
        switch Kind(rawValue: try reader.byte()) {
        case .event:
            let ids = try reader.strings()
            let type = try reader.string()
            let timestamp = Double(bitPattern: try reader.integer(UInt64.self))
            let properties = try reader.object(depth: 0)
            item = .event(TrackedEvent(customerIds: ids, eventType: type, timestamp: timestamp, properties: properties))
        case .customer:
            let ids = try reader.strings()
            item = .customer(CustomerUpdate(customerIds: ids, properties: try reader.object(depth: 0)))
        case nil:
            throw Malformed(description: "an upload of unknown kind", isNewerFormat: true)
        }
        // This version writes nothing after an item: in an intact record, more is a newer one's field.
        guard reader.offset == bytes.count else {
            throw Malformed(description: "\(bytes.count - reader.offset) bytes after the upload", isNewerFormat: true)
        }
        return item
    }

    /// Reads values off the front of a buffer, refusing any count that runs past its end.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        private(set) var offset = 0

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        mutating func byte() throws(Malformed) -> UInt8 {
            guard offset < bytes.count else { throw Malformed(description: "ends early") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func integer<Value: FixedWidthInteger>(_: Value.Type) throws(Malformed) -> Value {
            let size = MemoryLayout<Value>.size
            guard bytes.count - offset >= size else { throw Malformed(description: "ends early") }
            defer { offset += size }
            return Value(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Value.self))
        }

        /// At most this many elements are reserved ahead: a count is bounded by the bytes left, but
        /// nested containers could each claim nearly all of them, and their reservations add up.
        static let reservationLimit = 1_024

        /// A count of things that each take at least `minimumSize` bytes: no larger than what is left.
        private mutating func count(minimumSize: Int) throws(Malformed) -> Int {
            let count = Int(try integer(UInt32.self))
            guard count <= (bytes.count - offset) / minimumSize else { throw Malformed(description: "a count runs past the end") }
            return count
        }

        mutating func string() throws(Malformed) -> String {
            let length = try count(minimumSize: 1)
            defer { offset += length }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
        }

        mutating func strings() throws(Malformed) -> [String: String] {
            let count = try count(minimumSize: 8)
            var map: [String: String] = [:]
            map.reserveCapacity(min(count, Self.reservationLimit))
            for _ in 0..<count {
                let key = try string()
                map[key] = try string()
            }
            return map
        }

        mutating func object(depth: Int) throws(Malformed) -> [String: JSONValue] {
            let count = try count(minimumSize: 5)
            var object: [String: JSONValue] = [:]
            object.reserveCapacity(min(count, Self.reservationLimit))
            for _ in 0..<count {
                let key = try string()
                object[key] = try value(depth: depth + 1)
            }
            return object
        }

        mutating func value(depth: Int) throws(Malformed) -> JSONValue {
            guard depth <= JournalItemCodec.maxDepth else { throw Malformed(description: "nested too deep") }
            switch Tag(rawValue: try byte()) {
            case .null: return .null
            case .falseValue: return .bool(false)
            case .trueValue: return .bool(true)
            case .number: return .number(Double(bitPattern: try integer(UInt64.self)))
            case .string: return .string(try string())
            case .array:
                let count = try count(minimumSize: 1)
                var elements: [JSONValue] = []
                elements.reserveCapacity(min(count, Self.reservationLimit))
                for _ in 0..<count { elements.append(try value(depth: depth + 1)) }
                return .array(elements)
            case .object: return .object(try object(depth: depth))
            case nil: throw Malformed(description: "a value of unknown tag", isNewerFormat: true)
            }
        }
    }
}
