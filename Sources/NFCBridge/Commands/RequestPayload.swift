/// A request payload read once, where it entered: its size, and what the JSON codec found in it —
/// nothing when it was over the limit it was read with (it is refused unread).
package struct RequestPayload: Sendable, Equatable {
    /// Its size in bytes (for the verified body of a signed request: the size of its `signed` text).
    package var size: Int
    /// What it held; nil when it was not read (over the limit).
    package var content: JSONFields.Parsed?

    /// Reads `bytes` when they are at most `limit` long.
    package init(_ bytes: [UInt8], limit: Int) {
        size = bytes.count
        content = bytes.count <= limit ? JSONFields.parse(bytes) : nil
    }

    /// A payload already read.
    package init(size: Int, content: JSONFields.Parsed?) {
        self.size = size
        self.content = content
    }
}
