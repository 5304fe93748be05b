/// A 24-character lower-case hex ObjectId (the shape real segment ids have, and the one the engine
/// packs): `high` as 16 hex digits, then `low` as 8.
func objectId(high: UInt64, low: UInt32) -> String {
    func padded(_ hex: String, to width: Int) -> String { String(repeating: "0", count: width - hex.count) + hex }
    return padded(String(high, radix: 16), to: 16) + padded(String(low, radix: 16), to: 8)
}
