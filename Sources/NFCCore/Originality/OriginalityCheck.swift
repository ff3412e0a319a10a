/// Reads a tag's originality signature and verifies it against ``OriginalityKeyTable``.
///
/// Which command reads it comes from the product identification found:
/// - Type 2 products whose row has READ_SIG (``Type2Product/Features/readSignature``: NTAG21x,
///   Ultralight EV1, Ultralight AES, NTAG 223 / 224 DNA): READ_SIG 3Ch 00h, 32 bytes (secp128r1:
///   NTAG213/215/216 and MF0ULX1 datasheets, READ_SIG) or 48 bytes (secp192r1: MF0AES(H)20 §10.7;
///   NTAG 22x DNA per AN12998); the whole answer is verified, each key only on its own length.
/// - DESFire EV2 / EV3 (hardware type 01h/81h, major version 12h and up), DESFire Light (08h) and
///   NTAG 4xx DNA (04h): Read_Sig 3Ch with address 00h, 56 bytes in plain, ISO 7816-4 wrapped as
///   `90 3C 00 00 01 00 00` (MIFARE DESFire EV2 / EV3 and NT4H2421Gx datasheets, Read_Sig; AN12196
///   §8.2 shows the exchange).
///   Unauthenticated, the signature comes back in plain.
/// - ISO 15693 products whose row has READ SIGNATURE (``ISO15693Product/Features/readSignature``:
///   ICODE SLIX2, ICODE DNA): the NXP custom command BDh with manufacturer code 04h, 32 bytes (ICODE
///   SLIX2 datasheet §9.5.3.20), through a reader that exchanges ISO 15693 frames (PC/SC; libnfc has
///   no ISO 15693). The signature is over the UID as it goes on the air, least significant byte
///   first (``OriginalityKey/Reading/signedMessage(uid:)``).
/// - Everything else has no signature NFCBridge reads: ``Outcome/unsupported``.
///
/// Never writes, never authenticates. A Type 2 READ_SIG that is refused re-selects the tag (as every
/// Type 2 probe does), so the scan goes on.
public enum OriginalityCheck {
    /// What the check found.
    public enum Outcome: Sendable, Equatable {
        /// The signature verifies against this key.
        case valid(OriginalityKey, signature: [UInt8])
        /// The tag answered a signature that verifies against no key (a clone, a blank or custom
        /// signature, or a genuine chip whose key is not known).
        case invalid(signature: [UInt8])
        /// The product has a signature but the tag did not give one (refused, silent, wrong length).
        case unreadable(String)
        /// The product has no signature NFCBridge reads.
        case unsupported
    }

    /// How `info`'s product gives its signature; nil when it has none NFCBridge reads.
    public static func reading(for info: CardInfo) -> OriginalityKey.Reading? {
        if let row = info.product?.type2 {
            return row.features.contains(.readSignature) ? .type2ReadSig : nil
        }
        if let row = info.product?.iso15693 {
            return row.features.contains(.readSignature) ? .iso15693ReadSignature : nil
        }
        guard info.type.family == .mifareDesfire || info.type.family == .type4,
            let version = info.version.flatMap({ try? DESFireVersion(bytes: $0) }),
            version.hardware.vendor == 0x04
        else { return nil }
        switch version.hardware.type {
        case 0x01, 0x81: return version.hardware.major >= 0x12 ? .isoDEPReadSig : nil
        case 0x04, 0x08: return .isoDEPReadSig
        default: return nil
        }
    }

    /// Reads and verifies the signature of the tag `info` describes, against the table's keys plus
    /// `extraKeys` (`access.originality_keys_file`). Throws only what ends the scan (the tag left,
    /// cancellation); a refused or garbled answer is ``Outcome/unreadable(_:)``.
    public static func check(
        info: CardInfo, transport: any TagTransport, extraKeys: [OriginalityKey] = []
    ) async throws -> Outcome {
        guard let reading = reading(for: info) else { return .unsupported }
        let signature: [UInt8]
        switch reading {
        case .type2ReadSig:
            switch try await Type2Command.readSignature.probe(via: transport) {
            case let .answered(bytes): signature = bytes
            case let other: return .unreadable("READ_SIG: \(other.summary)")
            }
        case .isoDEPReadSig:
            guard let apdu = transport as? any APDUTransport else {
                return .unreadable("Read_Sig needs a reader that exchanges ISO-DEP frames")
            }
            do {
                signature = try await DESFireChannel(transport: apdu, framing: .wrapped)
                    .command(readSignatureInstruction, [0x00])
            } catch let error as NFCError where Self.isRefusal(error) {
                return .unreadable("Read_Sig: \(error.message)")
            }
        case .iso15693ReadSignature:
            guard let vicinity = transport as? any ISO15693Transport else {
                return .unreadable("READ SIGNATURE needs a reader that exchanges ISO 15693 frames (PC/SC)")
            }
            do {
                signature = try await ISO15693Command.readSignature(uid: info.uid, transport: vicinity)
            } catch let error as NFCError where Self.isRefusal(error) {
                return .unreadable("READ SIGNATURE: \(error.message)")
            }
        }
        return verdict(uid: info.uid, signature: signature, reading: reading, extraKeys: extraKeys)
    }

    /// The verdict on `signature`, read by `reading` from the tag with `uid` (MSB first, as
    /// ``CardInfo/uid`` holds it), against the table's keys of that reading plus every key of
    /// `extraKeys` (each is tried only on signatures of its curve's length, so a secp128r1 key from
    /// the file checks Type 2 and ICODE signatures alike).
    public static func verdict(
        uid: [UInt8], signature: [UInt8], reading: OriginalityKey.Reading, extraKeys: [OriginalityKey] = []
    ) -> Outcome {
        let keys = OriginalityKeyTable.keys(readBy: reading) + extraKeys
        guard signature.count == 32 || signature.count == 48 || signature.count == 56 else {
            return .unreadable("the signature is \(signature.count) bytes (32, 48 or 56 expected)")
        }
        if let key = OriginalityKeyTable.verify(uid: reading.signedMessage(uid: uid), signature: signature, in: keys) {
            return .valid(key, signature: signature)
        }
        return .invalid(signature: signature)
    }

    /// The dump fact `Originality Signature` for a signature that was read, in
    /// ``OriginalitySignature/fact(verifiedBy:)``'s wording. Nil when no signature was read.
    public static func fact(_ outcome: Outcome) -> Fact? {
        switch outcome {
        case let .valid(key, _): OriginalitySignature.fact(verifiedBy: key.name)
        case .invalid: OriginalitySignature.fact(verifiedBy: nil)
        case .unreadable, .unsupported: nil
        }
    }

    /// Read_Sig's command code (MIFARE DESFire EV2 and NT4H2421Gx datasheets, Read_Sig).
    static let readSignatureInstruction: UInt8 = 0x3C

    /// An answer that says the card does not give its signature (rather than that it left).
    static func isRefusal(_ error: NFCError) -> Bool {
        switch error {
        case .tagRemoved, .readerUnavailable: false
        default: true
        }
    }
}
