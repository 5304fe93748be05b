import RealtimeSegments

/// Where a string's characters are stored: the same address for two strings that share one stored
/// string (equal strings stored twice have two). How tests tell a shared spelled id from a copy.
func storage(_ string: String) -> UInt {
    var string = string
    return string.withUTF8 { UInt(bitPattern: $0.baseAddress) }
}

/// The storage of every id string of `segments`.
func storages(of segments: [Segment]) -> Set<UInt> {
    Set(segments.flatMap { [storage($0.id), storage($0.segmentationId)] })
}

/// The storage of each segment's id string, in order.
func idStorages(of segments: [Segment]) -> [UInt] {
    segments.map { storage($0.id) }
}
