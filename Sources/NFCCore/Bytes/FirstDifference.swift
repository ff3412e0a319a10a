extension Array where Element == UInt8 {
    /// Index of the first byte where `self` and `other` differ (the shorter length when one is a prefix
    /// of the other); nil when they are equal. Read-back checks report it as the failing position.
    func firstDifference(from other: [UInt8]) -> Int? {
        if let index = indices.first(where: { $0 < other.count && self[$0] != other[$0] }) { return index }
        return count == other.count ? nil : Swift.min(count, other.count)
    }
}
