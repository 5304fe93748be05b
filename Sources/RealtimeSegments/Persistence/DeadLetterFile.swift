import Foundation

/// Where uploads the server refused for good are set aside: `<directory>/segments-dead-letter.jsonl`,
/// one JSON object per line, appended and never rewritten by the engine.
///
/// Each line is `{"reason": "...", "setAsideAt": <seconds since 1970>, "item": <the upload>}`,
/// where `item` is `{"event": {...}}` or `{"customer": {...}}`, the event or customer update in its
/// wire form (``TrackedEvent``, ``CustomerUpdate``). The file is for people and tools to inspect
/// or replay; the engine never reads it back.
///
/// Threading: used by the engine thread only.
struct DeadLetterFile: Sendable {
    struct Entry: Codable, Equatable, Sendable {
        var reason: String
        var setAsideAt: Double
        var item: UploadItem

        init(reason: String, setAsideAt: Double, item: UploadItem) {
            self.reason = reason
            self.setAsideAt = setAsideAt
            self.item = item
        }

        private enum CodingKeys: String, CodingKey { case reason, setAsideAt, item }
        private enum ItemKeys: String, CodingKey { case event, customer }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(reason, forKey: .reason)
            try container.encode(setAsideAt, forKey: .setAsideAt)
            var item = container.nestedContainer(keyedBy: ItemKeys.self, forKey: .item)
            switch self.item {
            case .event(let event): try item.encode(event, forKey: .event)
            case .customer(let update): try item.encode(update, forKey: .customer)
            }
        }

        /// Reads the wire form, and the form lines had before it (`{"event": {"_0": {...}}}`).
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            reason = try container.decode(String.self, forKey: .reason)
            setAsideAt = try container.decode(Double.self, forKey: .setAsideAt)
            let item = try container.nestedContainer(keyedBy: ItemKeys.self, forKey: .item)
            if let event = try? item.decode(TrackedEvent.self, forKey: .event) {
                self.item = .event(event)
            } else if let update = try? item.decode(CustomerUpdate.self, forKey: .customer) {
                self.item = .customer(update)
            } else {
                self.item = try container.decode(UploadItem.self, forKey: .item)
            }
        }
    }

    let directory: URL
    var fileURL: URL { directory.appendingPathComponent("segments-dead-letter.jsonl") }

    /// Appends one line per entry and syncs the file. Returns where numbers JSON cannot carry were
    /// written as `null`, and the entries that could not be encoded at all (properties nested
    /// deeper than JSON's encoder allows), which are left out so that the others are kept.
    func append(_ entries: [Entry]) throws -> (replaced: [String], unencodable: [(index: Int, reason: String)]) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A crash during an append can leave the last line without its newline: these lines
        // start one of their own, or the first would be read as part of the torn one.
        var lines = endsInTornLine ? Data([UInt8(ascii: "\n")]) : Data()
        var replaced: [String] = []
        var unencodable: [(index: Int, reason: String)] = []
        for (index, entry) in entries.enumerated() {
            do {
                let (data, paths) = try NonFiniteNumbers.encode(entry)
                lines.append(data)
                lines.append(UInt8(ascii: "\n"))
                replaced += paths
            } catch let error as EncodingError {
                unencodable.append((index, error.briefDescription))
            }
        }
        if unencodable.count < entries.count {
            try DurableFile.append(lines, to: fileURL)
        }
        return (replaced, unencodable)
    }

    /// Whether the file's last byte is not a newline.
    private var endsInTornLine: Bool {
        guard let handle = try? FileHandle(forReadingFrom: fileURL) else { return false }
        defer { try? handle.close() }
        guard let end = try? handle.seekToEnd(), end > 0, (try? handle.seek(toOffset: end - 1)) != nil else { return false }
        return (try? handle.read(upToCount: 1)) != Data([UInt8(ascii: "\n")])
    }

    /// Every entry in the file, in the order they were set aside (for tests and tools); a line that
    /// cannot be decoded (a torn last line after a crash) is skipped.
    func entries() -> [Entry] {
        guard let data = try? Data(contentsOf: fileURL) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { line in
            try? JSONDecoder().decodeUntrusted(Entry.self, from: Data(line))
        }
    }
}
