import NFCCore

/// Reads the credential an ``AccessPolicy`` names from the tag of a scan.
package enum CredentialReader {
    /// The credential's bytes; nil when the tag does not have it (no such record, a DESFire file that
    /// is missing or needs a key, not a DESFire card), or for `sun`, whose check supplies it. Throws
    /// only what ends the scan.
    package static func read(
        _ source: CredentialSource, info: CardInfo, records: [NDEFRecordJSON], transport: any TagTransport
    ) async throws -> [UInt8]? {
        switch source {
        case .uid:
            return info.uid
        case let .ndefRecord(index):
            guard index >= 1, index <= records.count else { return nil }
            return records[index - 1].payloadHex.flatMap { [UInt8](hex: $0) }
        case let .desfire(aid, file, offset, length):
            return try await readDESFire(aid: aid, file: file, offset: offset, length: length, info: info, transport: transport)
        case .sun:
            return nil
        }
    }

    /// SelectApplication (5Ah, AID least significant byte first) then ReadData (BDh: file, 3-byte
    /// offset, 3-byte length, LSB first) in plain communication (MIFARE DESFire EV1 datasheet §9.2,
    /// ReadData). A file behind a key answers AUTHENTICATION_ERROR (AEh): no credential.
    private static func readDESFire(
        aid: [UInt8], file: UInt8, offset: Int, length: Int, info: CardInfo, transport: any TagTransport
    ) async throws -> [UInt8]? {
        guard info.type.family == .mifareDesfire, let apdu = transport as? any APDUTransport,
            let version = info.version.flatMap({ try? DESFireVersion(bytes: $0) })
        else { return nil }
        let framing: DESFireFraming = apdu.carriesNativeDESFireFrames ? DESFireFraming.framing(for: version) : .wrapped
        let channel = DESFireChannel(transport: apdu, framing: framing)
        do {
            _ = try await channel.command(DESFireInstruction.selectApplication, aid.reversed())
            let data = try await channel.command(
                DESFireInstruction.readData, [file] + littleEndian24(offset) + littleEndian24(length))
            return data.count == length ? data : nil
        } catch let error as NFCError {
            // The tag or the reader gone ends the scan; any refusal means no credential.
            if case .readerUnavailable = error { throw error }
            if error == .tagRemoved { throw error }
            return nil
        }
    }

    private static func littleEndian24(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16)]
    }
}
