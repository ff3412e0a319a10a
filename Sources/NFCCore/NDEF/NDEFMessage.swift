/// An NDEF message: the ordered records a tag or an NDEF file holds.
/// Source: NFC Forum NDEF 1.0, §3 (message and record layout, chunking §3.2.3).
public struct NDEFMessage: Sendable, Hashable {
    /// The records, chunked records already reassembled.
    public var records: [NDEFRecord]

    /// A message holding `records`.
    public init(records: [NDEFRecord]) {
        self.records = records
    }

    /// Decodes NDEF message bytes. Never traps: malformed input throws ``NFCError/invalidNDEF(_:)``
    /// with the byte offset of the problem.
    ///
    /// Chunked records (CF) are reassembled into one record carrying the first chunk's TNF, TYPE
    /// and ID. Decoding stops after the record with ME; bytes after it are ignored (tag areas are
    /// often padded). No bytes decode to an empty message, the inverse of ``bytes``.
    /// - Parameter leniency: `.strict` enforces the MB/ME/CF and TNF length rules; `.relaxed`
    ///   tolerates them and keeps records as found. Truncation fails in both modes.
    public init(bytes: [UInt8], leniency: NDEFLeniency = .strict) throws(NFCError) {
        var reader = NDEFByteReader(bytes)
        var decoded: [NDEFRecord] = []
        var pendingChunk: NDEFRecord?
        var wireIndex = 0
        var sawMessageEnd = false
        let strict = leniency == .strict

        func fail(_ wire: NDEFWireRecord, _ problem: String) -> NFCError {
            NFCError.invalidNDEF("offset \(wire.offset): \(problem)")
        }

        while !reader.isAtEnd {
            let wire = try NDEFWireRecord.read(from: &reader)
            let tnf = TypeNameFormat(rawValue: wire.tnfValue) ?? .reserved
            if strict {
                if wireIndex == 0 && !wire.flags.contains(.messageBegin) {
                    throw fail(wire, "MB flag not set in the first record")
                }
                if wireIndex > 0 && wire.flags.contains(.messageBegin) {
                    throw fail(wire, "MB flag set in a record that is not the first")
                }
            }
            if var chunked = pendingChunk {
                // A middle or last chunk: TNF 6, no TYPE, no ID (NDEF §3.2.3, §3.2.6).
                if strict {
                    guard tnf == .unchanged else {
                        throw fail(wire, "a middle or last chunk must have TNF 6 (unchanged), found \(wire.tnfValue)")
                    }
                    guard wire.type.isEmpty else { throw fail(wire, "TYPE_LENGTH must be 0 in a middle or last chunk") }
                    guard !wire.flags.contains(.idLengthPresent) else {
                        throw fail(wire, "IL flag must not be set in a middle or last chunk")
                    }
                }
                chunked.payload += wire.payload
                if wire.flags.contains(.chunk) {
                    pendingChunk = chunked
                } else {
                    decoded.append(chunked)
                    pendingChunk = nil
                }
            } else {
                if strict { try Self.checkLengthRules(wire, tnf: tnf) }
                let record = NDEFRecord(tnf: tnf, type: wire.type, identifier: wire.identifier, payload: wire.payload)
                if wire.flags.contains(.chunk) {
                    pendingChunk = record
                } else {
                    decoded.append(record)
                }
            }
            wireIndex += 1
            if wire.flags.contains(.messageEnd) {
                if let dangling = pendingChunk {
                    if strict { throw fail(wire, "CF flag set in the last record") }
                    decoded.append(dangling)
                    pendingChunk = nil
                }
                sawMessageEnd = true
                break
            }
        }
        if wireIndex > 0 && !sawMessageEnd {
            if strict {
                throw NFCError.invalidNDEF("offset \(bytes.count): the data ends but no record had the ME flag")
            }
            if let dangling = pendingChunk { decoded.append(dangling) }
        }
        records = decoded
    }

    /// The TYPE/ID/PAYLOAD length rules of each TNF (NDEF §3.3), TNF 6 outside a chunk and the
    /// reserved TNF 7: ``TypeNameFormat/lengthViolation(type:identifier:payload:)``, the rules the
    /// JSON form's encoder checks too.
    private static func checkLengthRules(_ wire: NDEFWireRecord, tnf: TypeNameFormat) throws(NFCError) {
        if let violation = tnf.lengthViolation(type: wire.type, identifier: wire.identifier, payload: wire.payload) {
            throw NFCError.invalidNDEF("offset \(wire.offset): \(violation.description)")
        }
    }

    /// The encoded message: MB on the first record, ME on the last, SR when a payload is shorter
    /// than 256 bytes, IL only when a record has an id. Records are never chunked. An empty message
    /// encodes to no bytes. Throws ``NFCError/invalidNDEF(_:)`` when a TYPE or ID exceeds 255 bytes.
    public var bytes: [UInt8] {
        get throws(NFCError) {
            var out: [UInt8] = []
            for (index, record) in records.enumerated() {
                try NDEFWireRecord.write(record, index: index, messageBegin: index == 0,
                                         messageEnd: index == records.count - 1, to: &out)
            }
            return out
        }
    }
}
