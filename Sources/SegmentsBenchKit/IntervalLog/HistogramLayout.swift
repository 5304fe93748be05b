import Histogram

/// Where HdrHistogram keeps each value's count: the index arithmetic of its counts array, derived
/// from the lowest discernible value and the significant digits exactly as HdrHistogram derives
/// it (the Swift package keeps its own internal), so that encoded counts line up with every
/// other implementation's.
struct HistogramLayout: Equatable {
    let unitMagnitude: Int
    let subBucketHalfCountMagnitude: Int
    let subBucketMask: UInt64
    let leadingZeroCountBase: Int
    /// The length of the counts array of a histogram tracking up to `highestTrackableValue`.
    let countsLength: Int

    /// The layout of a histogram with these parameters; `nil` where HdrHistogram would refuse them.
    init?(lowestDiscernibleValue lowest: UInt64, significantDigits digits: Int, highestTrackableValue highest: UInt64) {
        guard lowest >= 1, lowest <= UInt64.max / 2, (0...5).contains(digits), highest >= 2 * lowest else { return nil }
        var largestWithUnitResolution: UInt64 = 2
        for _ in 0..<digits { largestWithUnitResolution *= 10 }
        unitMagnitude = 63 - lowest.leadingZeroBitCount
        // ceil(log2(largestWithUnitResolution))
        let subBucketCountMagnitude = 64 - (largestWithUnitResolution - 1).leadingZeroBitCount
        subBucketHalfCountMagnitude = max(subBucketCountMagnitude, 1) - 1
        guard unitMagnitude + subBucketHalfCountMagnitude <= 61 else { return nil }
        let subBucketCount = 1 << subBucketCountMagnitude
        subBucketMask = UInt64(subBucketCount - 1) << unitMagnitude
        leadingZeroCountBase = 64 - unitMagnitude - subBucketCountMagnitude
        var smallestUntrackable = UInt64(subBucketCount) << unitMagnitude
        var buckets = 1
        while smallestUntrackable <= highest {
            if smallestUntrackable > UInt64.max / 2 {
                buckets += 1
                break
            }
            smallestUntrackable <<= 1
            buckets += 1
        }
        countsLength = (buckets + 1) * (subBucketCount / 2)
    }

    /// The layout of `histogram`.
    init(_ histogram: Histogram<UInt64>) {
        // The histogram's own parameters passed HdrHistogram's checks, so these do too.
        self.init(
            lowestDiscernibleValue: histogram.lowestDiscernibleValue,
            significantDigits: Int(histogram.numberOfSignificantValueDigits.rawValue),
            highestTrackableValue: histogram.highestTrackableValue)!
    }

    /// The counts index of `value`.
    func index(of value: UInt64) -> Int {
        let bucket = leadingZeroCountBase - (value | subBucketMask).leadingZeroBitCount
        let subBucket = Int(value >> UInt64(bucket + unitMagnitude))
        return ((bucket + 1) << subBucketHalfCountMagnitude) + subBucket - (1 << subBucketHalfCountMagnitude)
    }

    /// The lowest value counted at `index`.
    func value(at index: Int) -> UInt64 {
        let halfCount = 1 << subBucketHalfCountMagnitude
        var bucket = (index >> subBucketHalfCountMagnitude) - 1
        var subBucket = (index & (halfCount - 1)) + halfCount
        if bucket < 0 {
            subBucket -= halfCount
            bucket = 0
        }
        return UInt64(subBucket) << UInt64(bucket + unitMagnitude)
    }
}
