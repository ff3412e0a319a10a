/// A cursor over NDEF bytes whose every read is bounds-checked: running past the end throws
/// ``NFCError/invalidNDEF(_:)`` naming the byte offset, so no input can trap.
struct NDEFByteReader {
    let bytes: [UInt8]
    private(set) var offset: Int = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset >= bytes.count }
    var remaining: Int { bytes.count - offset }

    /// Reads one byte; `what` names the field for the error message.
    mutating func readByte(_ what: String) throws(NFCError) -> UInt8 {
        guard offset < bytes.count else {
            throw NFCError.invalidNDEF("offset \(offset): \(what) is missing (the data ends there)")
        }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads `count` bytes; `what` names the field for the error message.
    mutating func read(_ count: Int, _ what: String) throws(NFCError) -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw NFCError.invalidNDEF(
                "offset \(offset): \(what) needs \(count) bytes but only \(remaining) remain")
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    /// Reads a big-endian 32-bit length.
    mutating func readUInt32(_ what: String) throws(NFCError) -> UInt32 {
        let raw = try read(4, what)
        return raw.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
