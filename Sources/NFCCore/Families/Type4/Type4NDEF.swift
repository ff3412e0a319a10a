/// NDEF on an NFC Forum Type 4 Tag (T4T v2.0 §5.4 for mapping version 2.0, T4T v3.0 §5 for 3.0): SELECT
/// the NDEF Tag Application, read the CC, SELECT the NDEF file, and READ / UPDATE BINARY within MLe / MLc.
/// The same code serves ISO 14443-A and -B targets and a DESFire's NDEF application: it sees only APDUs.
public enum Type4NDEF {
    /// NDEF Tag Application name (T4T v2.0 §5.1.2).
    public static let applicationID: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
    /// Capability Container file id.
    public static let capabilityContainerFileID: [UInt8] = [0xE1, 0x03]

    /// SELECTs the NDEF application and the CC file and reads the CC (`00 B0 00 00 0F`).
    public static func readCapabilityContainer(transport: any APDUTransport) async throws -> Type4CapabilityContainer {
        try await selectApplication(transport: transport)
        return try await readCapabilityContainerFile(transport: transport)
    }

    /// SELECTs the NDEF Tag Application by name (T4T v2.0 §5.4.2). A card without it answers a status word
    /// other than 90 00 (usually 6A 82): ``NFCError/unexpectedStatusWord(_:_:)``.
    static func selectApplication(transport: any APDUTransport) async throws {
        try await transport.send(.select(aid: applicationID)).requireSuccess()
    }

    /// SELECTs the CC file of the selected NDEF application and reads it (`00 B0 00 00 0F`); a mapping 3.0
    /// CC with the extended TLV (`06 08`, 17 bytes) gets its last bytes with a second READ BINARY, so a 2.0
    /// tag sees the same one READ as always.
    static func readCapabilityContainerFile(transport: any APDUTransport) async throws -> Type4CapabilityContainer {
        try await transport.send(.selectFile(id: capabilityContainerFileID)).requireSuccess()
        var data = try await transport.send(try .readBinary(offset: 0, length: 15)).requireSuccess()
        if data.count >= 15, data[2] >> 4 == 3 {
            let needed = Type4CapabilityContainer.encodedLength(tlvTag: data[7])
            if needed > data.count {
                data += try await transport.send(try .readBinary(offset: data.count, length: needed - data.count)).requireSuccess()
            }
        }
        return try Type4CapabilityContainer(bytes: data)
    }

    /// Reads the NDEF message (empty when NLEN is 0). Throws ``NFCError/unexpectedStatusWord(_:_:)``
    /// when a step is refused, ``NFCError/invalidNDEF(_:)`` when NLEN exceeds the file.
    public static func read(transport: any APDUTransport) async throws -> [UInt8] {
        let cc = try await readCapabilityContainer(transport: transport)
        return try await read(transport: transport, capabilityContainer: cc)
    }

    /// Reads the NDEF message with an already-read CC (the NDEF application must be selected): NLEN (2 bytes,
    /// or ENLEN, 4, for an extended CC), then the message in READ BINARYs of at most MLe bytes.
    /// `fileSelected`: the caller selected the NDEF file already.
    public static func read(
        transport: any APDUTransport, capabilityContainer cc: Type4CapabilityContainer, fileSelected: Bool = false
    ) async throws -> [UInt8] {
        if !fileSelected { try await transport.send(.selectFile(id: cc.ndefFileID)).requireSuccess() }
        let nlenBytes = try await readBinary(offset: 0, length: cc.nlenSize, cc: cc, transport: transport)
        guard nlenBytes.count >= cc.nlenSize else { throw NFCError.invalidResponse(nlenBytes) }
        let nlen = nlenBytes.prefix(cc.nlenSize).reduce(0) { $0 << 8 | Int($1) }
        guard nlen <= cc.maxNDEFFileSize - cc.nlenSize else {
            throw NFCError.invalidNDEF("NLEN \(nlen) exceeds the NDEF file of \(cc.maxNDEFFileSize) bytes")
        }
        var message: [UInt8] = []
        while message.count < nlen {
            try Task.checkCancellation()
            let offset = cc.nlenSize + message.count
            let length = min(readChunk(at: offset, cc: cc), nlen - message.count)
            let chunk = try await readBinary(offset: offset, length: length, cc: cc, transport: transport)
            // A card that returns nothing would loop forever.
            guard !chunk.isEmpty else { throw NFCError.invalidResponse(chunk) }
            message += chunk.prefix(length)
        }
        return message
    }

    /// Writes `message` (a raw NDEF message; empty erases): NLEN := 0 (ENLEN on an extended file), the
    /// message in UPDATE BINARYs of at most MLc bytes, then the real NLEN — so a torn write leaves an empty,
    /// not a broken, message (T4T v2.0 §5.4.5, v3.0 §7.5.5). Throws ``NFCError/tagLocked`` when the CC grants
    /// no write access and ``NFCError/capacityExceeded(needed:available:)`` when the message does not fit.
    public static func write(_ message: [UInt8], transport: any APDUTransport) async throws {
        let cc = try await readCapabilityContainer(transport: transport)
        guard cc.isWritable else { throw NFCError.tagLocked }
        guard message.count <= cc.maxMessageSize else {
            throw NFCError.capacityExceeded(needed: message.count, available: cc.maxMessageSize)
        }
        try await transport.send(.selectFile(id: cc.ndefFileID)).requireSuccess()
        try await updateBinary(offset: 0, data: cc.lengthField(0), transport: transport)
        var written = 0
        while written < message.count {
            try Task.checkCancellation()
            let offset = cc.nlenSize + written
            let end = min(message.count, written + writeChunk(at: offset, cc: cc))
            try await updateBinary(offset: offset, data: Array(message[written..<end]), transport: transport)
            written = end
        }
        if !message.isEmpty {
            try await updateBinary(offset: 0, data: cc.lengthField(message.count), transport: transport)
        }
    }

    // MARK: Far offsets (T4T v3.0 §5: ENDEF files past 7FFFh; ISO/IEC 7816-4 §11.3.3, odd INS B1 / D7)

    /// Largest offset the odd-INS forms address: the 3-byte offset data object.
    public static let maxExtendedOffset = 0xFFFFFF
    /// Offset data object tag (ISO/IEC 7816-4 §11.3.3) and discretionary data object tag.
    static let offsetTag: UInt8 = 0x54, discretionaryDataTag: UInt8 = 0x53
    /// Bytes the odd-INS forms spend on their data objects: `53 81 xx` in a READ answer, and
    /// `54 03 xxxxxx 53 81 xx` in an UPDATE command.
    static let oddReadOverhead = 3, oddUpdateOverhead = 8

    /// Data bytes one READ BINARY at `offset` returns: MLe, less the wrapping past 7FFFh.
    static func readChunk(at offset: Int, cc: Type4CapabilityContainer) -> Int {
        offset > 0x7FFF ? cc.readChunk - oddReadOverhead : cc.readChunk
    }

    /// Data bytes one UPDATE BINARY at `offset` carries: MLc, less the wrapping past 7FFFh.
    static func writeChunk(at offset: Int, cc: Type4CapabilityContainer) -> Int {
        offset > 0x7FFF ? max(1, cc.writeChunk - oddUpdateOverhead) : cc.writeChunk
    }

    /// READ BINARY of the selected file: `00 B0` up to offset 7FFFh, beyond it `00 B1 00 00 05 54 03 <offset>
    /// Le` whose answer is the data object `53 <length> <data>`.
    static func readBinary(offset: Int, length: Int, cc: Type4CapabilityContainer, transport: any APDUTransport)
        async throws -> [UInt8]
    {
        guard offset > 0x7FFF else { return try await transport.send(try .readBinary(offset: offset, length: length)).requireSuccess() }
        guard cc.isExtended, offset <= maxExtendedOffset else {
            throw NFCError.invalidArgument("READ BINARY offset \(offset) needs an extended (mapping 3.0) NDEF file")
        }
        let header = length < 0x80 ? 2 : 3
        let command = CommandAPDU(ins: 0xB1, data: [offsetTag, 0x03] + offsetBytes(offset), le: length + header)
        let answer = try await transport.send(command).requireSuccess()
        return try discretionaryData(answer)
    }

    /// UPDATE BINARY of the selected file: `00 D6` up to offset 7FFFh, beyond it `00 D7 00 00 Lc 54 03 <offset>
    /// 53 <length> <data>`.
    static func updateBinary(offset: Int, data: [UInt8], transport: any APDUTransport) async throws {
        guard offset > 0x7FFF else {
            try await transport.send(try .updateBinary(offset: offset, data: data)).requireSuccess()
            return
        }
        guard offset <= maxExtendedOffset else {
            throw NFCError.invalidArgument("UPDATE BINARY offset \(offset) exceeds \(maxExtendedOffset)")
        }
        let length: [UInt8] = data.count < 0x80 ? [UInt8(data.count)] : [0x81, UInt8(data.count)]
        let body = [offsetTag, 0x03] + offsetBytes(offset) + [discretionaryDataTag] + length + data
        try await transport.send(CommandAPDU(ins: 0xD7, data: body)).requireSuccess()
    }

    static func offsetBytes(_ offset: Int) -> [UInt8] {
        [UInt8((offset >> 16) & 0xFF), UInt8((offset >> 8) & 0xFF), UInt8(offset & 0xFF)]
    }

    /// The value of the `53` data object an odd-INS READ BINARY answers with (BER length, one or two bytes).
    static func discretionaryData(_ answer: [UInt8]) throws(NFCError) -> [UInt8] {
        guard answer.count >= 2, answer[0] == discretionaryDataTag else { throw .invalidResponse(answer) }
        let (length, start) = answer[1] == 0x81 ? (answer.count > 2 ? Int(answer[2]) : -1, 3) : (Int(answer[1]), 2)
        guard answer[1] < 0x80 || answer[1] == 0x81, length >= 0, answer.count >= start + length else {
            throw .invalidResponse(answer)
        }
        return Array(answer[start..<(start + length)])
    }
}
