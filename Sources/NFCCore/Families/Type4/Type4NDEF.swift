/// NDEF on an NFC Forum Type 4 Tag (T4T v2.0 §5.4, mapping version 2.0): SELECT the NDEF Tag
/// Application, read the CC, SELECT the NDEF file, and READ / UPDATE BINARY within MLe / MLc.
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

    /// SELECTs the CC file of the selected NDEF application and reads it (`00 B0 00 00 0F`).
    static func readCapabilityContainerFile(transport: any APDUTransport) async throws -> Type4CapabilityContainer {
        try await transport.send(.selectFile(id: capabilityContainerFileID)).requireSuccess()
        let data = try await transport.send(try .readBinary(offset: 0, length: 15)).requireSuccess()
        return try Type4CapabilityContainer(bytes: data)
    }

    /// Reads the NDEF message (empty when NLEN is 0). Throws ``NFCError/unexpectedStatusWord(_:_:)``
    /// when a step is refused, ``NFCError/invalidNDEF(_:)`` when NLEN exceeds the file.
    public static func read(transport: any APDUTransport) async throws -> [UInt8] {
        let cc = try await readCapabilityContainer(transport: transport)
        return try await read(transport: transport, capabilityContainer: cc)
    }

    /// Reads the NDEF message with an already-read CC (the NDEF application must be selected).
    public static func read(transport: any APDUTransport, capabilityContainer cc: Type4CapabilityContainer) async throws -> [UInt8] {
        try await transport.send(.selectFile(id: cc.ndefFileID)).requireSuccess()
        let nlenBytes = try await transport.send(try .readBinary(offset: 0, length: 2)).requireSuccess()
        guard nlenBytes.count >= 2 else { throw NFCError.invalidResponse(nlenBytes) }
        let nlen = Int(nlenBytes[0]) << 8 | Int(nlenBytes[1])
        guard nlen <= cc.maxNDEFFileSize - 2 else {
            throw NFCError.invalidNDEF("NLEN \(nlen) exceeds the NDEF file of \(cc.maxNDEFFileSize) bytes")
        }
        var message: [UInt8] = []
        while message.count < nlen {
            try Task.checkCancellation()
            let length = min(cc.readChunk, nlen - message.count)
            let chunk = try await transport.send(try .readBinary(offset: 2 + message.count, length: length)).requireSuccess()
            // A card that returns nothing would loop forever.
            guard !chunk.isEmpty else { throw NFCError.invalidResponse(chunk) }
            message += chunk.prefix(length)
        }
        return message
    }

    /// Writes `message` (a raw NDEF message; empty erases): NLEN := 0000, the message in MLc-sized chunks
    /// from offset 2, then the real NLEN — so a torn write leaves an empty, not a broken, message
    /// (T4T v2.0 §5.4.5). Throws ``NFCError/tagLocked`` when the CC grants no write access and
    /// ``NFCError/capacityExceeded(needed:available:)`` when the message does not fit.
    public static func write(_ message: [UInt8], transport: any APDUTransport) async throws {
        let cc = try await readCapabilityContainer(transport: transport)
        guard cc.isWritable else { throw NFCError.tagLocked }
        guard message.count <= cc.maxMessageSize else {
            throw NFCError.capacityExceeded(needed: message.count, available: cc.maxMessageSize)
        }
        try await transport.send(.selectFile(id: cc.ndefFileID)).requireSuccess()
        try await transport.send(try .updateBinary(offset: 0, data: [0x00, 0x00])).requireSuccess()
        var offset = 0
        while offset < message.count {
            try Task.checkCancellation()
            let end = min(message.count, offset + cc.writeChunk)
            try await transport.send(try .updateBinary(offset: 2 + offset, data: Array(message[offset..<end]))).requireSuccess()
            offset = end
        }
        if !message.isEmpty {
            let nlen = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
            try await transport.send(try .updateBinary(offset: 0, data: nlen)).requireSuccess()
        }
    }
}
