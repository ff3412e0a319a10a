/// A request payload read once, where it entered: its size, and what the JSON codec found in it —
/// nothing when it was over the limit it was read with (it is refused unread).
public struct RequestPayload: Sendable, Equatable {
    /// Its size in bytes (for the verified body of a signed request: the size of its `signed` text).
    public var size: Int
    /// What it held; nil when it was not read (over the limit).
    public var content: JSONFields.Parsed?

    /// Reads `bytes` when they are at most `limit` long.
    public init(_ bytes: [UInt8], limit: Int) {
        size = bytes.count
        content = bytes.count <= limit ? JSONFields.parse(bytes) : nil
    }

    /// A payload already read.
    public init(size: Int, content: JSONFields.Parsed?) {
        self.size = size
        self.content = content
    }
}
