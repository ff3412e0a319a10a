/// Write and lock on NFC Forum Type 4 tags, on top of ``Type4NDEF``.
///
/// The write is ``Type4NDEF/write(_:transport:)`` (CC write access and capacity checked before the first
/// UPDATE BINARY; NLEN 0000, message, NLEN), then the CC and the message are read back; a difference is
/// ``NFCError/verifyFailed(page:)`` with the byte offset in the NDEF file (NLEN at 0–1, ENLEN at 0–3) where it starts.
/// UPDATE BINARY has no pages, so errors carry none.
enum Type4NDEFOperations {
    static func write(_ message: [UInt8], to transport: any TagTransport, info: CardInfo)
        async throws(TagOperationError) -> WriteReport
    {
        do {
            let apdu = try isoDEP(transport)
            try await Type4NDEF.write(message, transport: apdu)
            let cc = try await Type4NDEF.readCapabilityContainer(transport: apdu)
            let readBack = try await Type4NDEF.read(transport: apdu, capabilityContainer: cc)
            if readBack.count != message.count { throw NFCError.verifyFailed(page: 0) }
            if let index = readBack.firstDifference(from: message) { throw NFCError.verifyFailed(page: cc.nlenSize + index) }
            return WriteReport(uid: info.uid, cardType: info.type, messageLength: message.count,
                               bytesWritten: message.count + cc.nlenSize, pagesWritten: [], capabilityContainer: cc.bytes)
        } catch {
            throw TagOperationError(wrapping: error)
        }
    }

    /// Type 4 write access can only be taken away with vendor commands: ``Type4NDEF/lock(transport:)``
    /// succeeds without writing on a tag whose CC already says read-only and throws
    /// ``NFCError/unsupportedOperation(_:)`` otherwise.
    static func lock(_ transport: any TagTransport, info: CardInfo) async throws(TagOperationError) -> LockReport {
        do {
            let apdu = try isoDEP(transport)
            try await Type4NDEF.lock(transport: apdu)
            let cc = try await Type4NDEF.readCapabilityContainer(transport: apdu)
            return LockReport(uid: info.uid, cardType: info.type, pagesWritten: [], capabilityContainer: cc.bytes,
                              lockBytes: [])
        } catch {
            throw TagOperationError(wrapping: error)
        }
    }

    private static func isoDEP(_ transport: any TagTransport) throws(NFCError) -> any APDUTransport {
        guard let apdu = transport as? any APDUTransport else {
            throw .unsupportedOperation("The reader gives no ISO-DEP (APDU) channel to this tag")
        }
        return apdu
    }
}

/// A family whose NDEF lives in an NFC Forum Type 4 NDEF application (T4T spec §5: NDEF Tag
/// Application, CC file, NDEF file) and is written and locked exactly as a Type 4 tag's: the DESFire
/// products and the NTAG 424 DNA. Conforming gives the two verbs, so the families do not repeat them.
protocol Type4NDEFWriting: TagFamilyVerbs {}

extension Type4NDEFWriting {
    public func write(ndef bytes: [UInt8], to transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport
    {
        try await Type4NDEFOperations.write(bytes, to: transport, info: info)
    }

    public func lock(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8], password: [UInt8]?)
        async throws(TagOperationError) -> LockReport
    {
        try await Type4NDEFOperations.lock(transport, info: info)
    }
}
