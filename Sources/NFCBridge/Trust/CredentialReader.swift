import NFCCore

/// What reading the credential gave: its bytes, and for a DESFire file behind a key which keys of
/// `auth.keys_file` were tried (names, never keys) and whether a secured answer failed its MAC.
package struct CredentialRead: Sendable, Equatable {
    /// The credential's bytes; nil when the tag does not have it or it could not be read.
    package var bytes: [UInt8]?
    /// What each key tried for the credential's file did, in order; empty when no key was needed.
    package var authentications: [DESFireAuthentication] = []
    /// A secured answer's MAC (EV1 full mode: CRC32) did not match: its data was dropped.
    package var failedIntegrity = false
    /// The keys file has a key for the credential's application, but the card gave the bytes without
    /// proving them with it (``DESFireFileRead/isProven``): they were dropped.
    package var unproven = false

    package init(bytes: [UInt8]? = nil, authentications: [DESFireAuthentication] = [], failedIntegrity: Bool = false,
                 unproven: Bool = false) {
        self.bytes = bytes
        self.authentications = authentications
        self.failedIntegrity = failedIntegrity
        self.unproven = unproven
    }
}

/// Reads the credential an ``AccessPolicy`` names from the tag of a scan.
package enum CredentialReader {
    /// The credential (bytes nil when the tag does not have it: no such record, a DESFire file that is
    /// missing or whose key is not in `keys` or was refused, not a DESFire card; and for `sun`, whose
    /// check supplies it). Throws only what ends the scan.
    package static func read(
        _ source: CredentialSource, info: CardInfo, records: [NDEFRecordJSON], transport: any TagTransport,
        keys: DESFireKeys = .standard
    ) async throws -> CredentialRead {
        switch source {
        case .uid:
            return CredentialRead(bytes: info.uid)
        case let .ndefRecord(index):
            guard index >= 1, index <= records.count else { return CredentialRead() }
            return CredentialRead(bytes: records[index - 1].payloadHex.flatMap { [UInt8](hex: $0) })
        case let .desfire(aid, file, offset, length):
            guard info.type.family == .mifareDesfire, let apdu = transport as? any APDUTransport,
                let version = info.version.flatMap({ try? DESFireVersion(bytes: $0) })
            else { return CredentialRead() }
            let place = DESFirePlace(application: DESFireAIDNotation.cardOrder(written: aid), file: file, range: offset..<offset + length)
            var read = CredentialRead()
            do {
                read = try await readDESFire(place, version: version, keys: keys, transport: apdu)
            } catch let error as NFCError {
                // The tag, the line or the reader failing ends the checks (`check_interrupted` and an
                // event/error); a refusal of the card's means no credential.
                if Self.interruptsTheRead(error) { throw error }
            }
            // No credential and no refusal that explains it: an answer that is no DESFire answer (a PC/SC
            // reader's 63 00 when the card left mid-APDU) may be the tag leaving. Selecting it again
            // tells (``NFCError/tagRemoved`` ends the checks).
            let explained = read.unproven || read.failedIntegrity || read.authentications.contains { $0.outcome != .opened }
            if read.bytes == nil, !explained { try await transport.reselect() }
            return read
        case .sun:
            return CredentialRead()
        }
    }

    /// True for the errors of the exchange itself (the tag gone or silent, a garbled frame, the reader
    /// lost, cancellation), as opposed to the card's answer refusing the read.
    static func interruptsTheRead(_ error: NFCError) -> Bool {
        switch error {
        case .timeout, .tagRemoved, .readerUnavailable, .readerUnresponsive, .rfError, .crcMismatch, .userCanceled: true
        default: false
        }
    }

    /// Where a DESFire credential is: the application in card order, the file, the bytes.
    private struct DESFirePlace {
        var application: [UInt8]
        var file: UInt8
        var range: Range<Int>
    }

    /// With a key for the application in `keys` (or on a DESFire Light / NTAG 4xx DNA, whose one
    /// application is keyed by its DF name), NFCCore's ``DESFireDumper/readFile(transport:version:application:file:keys:range:random:)``:
    /// GetFileSettings, then the file's read key authenticated (AuthenticateAES AAh, EV2First 71h or
    /// ISO 1Ah as the chip and the key's cipher say) and the range read with secure messaging, its MAC
    /// checked. Otherwise the plain path: SelectApplication (5Ah, AID least significant byte first) then
    /// ReadData (BDh: file, 3-byte offset, 3-byte length, LSB first) in plain communication (MIFARE
    /// DESFire EV1 datasheet §9.2.3); a file behind a key answers AUTHENTICATION_ERROR (AEh).
    private static func readDESFire(
        _ place: DESFirePlace, version: DESFireVersion, keys: DESFireKeys, transport: any APDUTransport
    ) async throws -> CredentialRead {
        let enteredByDFName = version.hardware.type == DESFireLight.hardwareType || version.hardware.type == NTAG4xxDNA.hardwareType
        let keyed = !keys.keys(forApplication: place.application).isEmpty
        if enteredByDFName || keyed {
            let read = try await DESFireDumper.readFile(
                transport: transport, version: version, application: place.application, file: place.file, keys: keys, range: place.range)
            var bytes: [UInt8]?
            if case let .data(data)? = read.content, data.count == place.range.count { bytes = data }
            // With a key for the application the card must prove the bytes with it: a free file, or one
            // the card calls plain, is what a clone (or a relay) would answer.
            let unproven = bytes != nil && (keyed || read.hasKeys) && !read.isProven
            return CredentialRead(bytes: unproven ? nil : bytes, authentications: read.authentications,
                                  failedIntegrity: read.failedIntegrity, unproven: unproven)
        }
        let framing: DESFireFraming = transport.carriesNativeDESFireFrames ? DESFireFraming.framing(for: version) : .wrapped
        let channel = DESFireChannel(transport: transport, framing: framing)
        _ = try await channel.command(DESFireInstruction.selectApplication, place.application)
        let data = try await channel.command(
            DESFireInstruction.readData,
            [place.file] + DESFireDumper.littleEndian24(place.range.lowerBound) + DESFireDumper.littleEndian24(place.range.count))
        return CredentialRead(bytes: data.count == place.range.count ? data : nil)
    }

}
