/// The flag bits of an NDEF record header byte; the low 3 bits are the TNF.
/// Source: NFC Forum NDEF 1.0, §3.2 (record layout) and §3.2.1–3.2.5 (MB, ME, CF, SR, IL).
struct NDEFHeaderFlags: OptionSet, Sendable {
    let rawValue: UInt8

    /// Message Begin: first record of a message.
    static let messageBegin = NDEFHeaderFlags(rawValue: 0x80)
    /// Message End: last record of a message.
    static let messageEnd = NDEFHeaderFlags(rawValue: 0x40)
    /// Chunk Flag: this is the first or a middle chunk of a chunked payload.
    static let chunk = NDEFHeaderFlags(rawValue: 0x20)
    /// Short Record: PAYLOAD_LENGTH is 1 byte instead of 4.
    static let shortRecord = NDEFHeaderFlags(rawValue: 0x10)
    /// ID_LENGTH is present.
    static let idLengthPresent = NDEFHeaderFlags(rawValue: 0x08)

    static let tnfMask: UInt8 = 0x07
}

/// One record exactly as it sits on the wire (a chunk is one wire record), with the offset of its
/// header byte for error messages.
struct NDEFWireRecord {
    var flags: NDEFHeaderFlags
    var tnfValue: UInt8
    var type: [UInt8]
    var identifier: [UInt8]
    var payload: [UInt8]
    var offset: Int

    /// Reads one record at the reader's position. Only truncation is checked here: the TNF and
    /// flag rules depend on the leniency and on the neighbouring records (see ``NDEFMessage``).
    static func read(from reader: inout NDEFByteReader) throws(NFCError) -> NDEFWireRecord {
        let start = reader.offset
        let header = try reader.readByte("record header")
        let flags = NDEFHeaderFlags(rawValue: header & ~NDEFHeaderFlags.tnfMask)
        let typeLength = Int(try reader.readByte("TYPE_LENGTH"))
        let payloadLength: Int
        if flags.contains(.shortRecord) {
            payloadLength = Int(try reader.readByte("PAYLOAD_LENGTH"))
        } else {
            payloadLength = Int(try reader.readUInt32("PAYLOAD_LENGTH (4 bytes, SR not set)"))
        }
        let idLength = flags.contains(.idLengthPresent) ? Int(try reader.readByte("ID_LENGTH")) : 0
        let type = try reader.read(typeLength, "TYPE of the record at offset \(start)")
        let identifier = try reader.read(idLength, "ID of the record at offset \(start)")
        let payload = try reader.read(payloadLength, "PAYLOAD of the record at offset \(start)")
        return NDEFWireRecord(flags: flags, tnfValue: header & NDEFHeaderFlags.tnfMask, type: type,
                              identifier: identifier, payload: payload, offset: start)
    }

    /// Appends one record: SR when the payload is shorter than 256 bytes, IL only with an id.
    /// TYPE_LENGTH and ID_LENGTH are one byte each, so longer fields are refused, not cut.
    static func write(_ record: NDEFRecord, index: Int, messageBegin: Bool, messageEnd: Bool,
                      to out: inout [UInt8]) throws(NFCError) {
        guard record.type.count <= 255 else {
            throw NFCError.invalidNDEF("record \(index): TYPE is \(record.type.count) bytes, at most 255 fit")
        }
        guard record.identifier.count <= 255 else {
            throw NFCError.invalidNDEF("record \(index): ID is \(record.identifier.count) bytes, at most 255 fit")
        }
        guard UInt64(record.payload.count) <= UInt64(UInt32.max) else {
            throw NFCError.invalidNDEF("record \(index): PAYLOAD is \(record.payload.count) bytes, at most 4294967295 fit")
        }
        var flags: NDEFHeaderFlags = []
        if messageBegin { flags.insert(.messageBegin) }
        if messageEnd { flags.insert(.messageEnd) }
        let isShort = record.payload.count < 256
        if isShort { flags.insert(.shortRecord) }
        if !record.identifier.isEmpty { flags.insert(.idLengthPresent) }

        out.append(flags.rawValue | record.tnf.rawValue)
        out.append(UInt8(record.type.count))
        if isShort {
            out.append(UInt8(record.payload.count))
        } else {
            let length = UInt32(record.payload.count)
            out += [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        }
        if !record.identifier.isEmpty { out.append(UInt8(record.identifier.count)) }
        out += record.type
        out += record.identifier
        out += record.payload
    }
}
