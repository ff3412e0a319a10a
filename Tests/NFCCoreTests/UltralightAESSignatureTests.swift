import NFCCore
@testable import PN532Sim
import Testing

private func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex) ?? [] }

/// Ultralight AES and NTAG 22x DNA originality (issue 21): READ_SIG 3Ch 00h answers 48 bytes, an ECDSA
/// signature on secp192r1 over the 7-byte UID (MF0AES(H)20 §8.9, §10.7; AN13452 for the Ultralight AES
/// keys, AN12998 for the NTAG 22x DNA key, both as Proxmark3's originality.c lists them). Through
/// ``OriginalityCheck`` and the Type 2 dump against PN532Sim's own Ultralight AES
/// (``VirtualType2Product/ultralightAES``). The genuine pair is a real Ultralight AES's from Proxmark3's
/// `tools/recover_pk.py` self-test ("MIFARE Ultralight AES").
@Suite struct UltralightAESSignatureTests {
    static let uid = bytes("045E4CC2451390")
    static let genuine = bytes(
        "C9BBDA1B99EB6634CDFD8E3251AC5C4742EA5FA507B8A8A8B39B19AB7340D173331589C54C56C49F0CCA6DDBAC1E492A")

    static func ultralightAES(signature: [UInt8]) -> VirtualType2Tag {
        let tag = VirtualType2Tag(model: .ultralightAES, uid: uid)
        tag.signature = signature
        return tag
    }

    @Test func aGenuineSignatureIsValidAndTheDumpKeepsAll48Bytes() async throws {
        let tag = Self.ultralightAES(signature: Self.genuine)
        let info = try await TagIdentifier.identify(VirtualTagTransport(tag: tag))
        #expect(info.product?.name == "Ultralight AES")
        #expect(OriginalityCheck.reading(for: info) == .type2ReadSig)
        let outcome = try await OriginalityCheck.check(info: info, transport: VirtualTagTransport(tag: tag))
        guard case let .valid(key, signature) = outcome else {
            Issue.record("expected valid, got \(outcome)")
            return
        }
        #expect(key.name == "NXP Ultralight AES" && key.curve == .secp192r1)
        #expect(signature == Self.genuine)

        let dump = try await TagDumper.dump(info: info, transport: VirtualTagTransport(tag: tag))
        #expect(dump.type2?.signature == Self.genuine, "all 48 bytes kept, not the first 32")
        #expect(dump.fact("Originality Signature") == "Valid (NXP Ultralight AES)")
    }

    /// A signature copied from another tag (one bit flipped), or a clone's made-up one, is `invalid`.
    @Test func aWrongSignatureIsInvalid() async throws {
        var copied = Self.genuine
        copied[30] ^= 0x04
        let tag = Self.ultralightAES(signature: copied)
        let info = try await TagIdentifier.identify(VirtualTagTransport(tag: tag))
        #expect(try await OriginalityCheck.check(info: info, transport: VirtualTagTransport(tag: tag)) == .invalid(signature: copied))
        let dump = try await TagDumper.dump(info: info, transport: VirtualTagTransport(tag: tag))
        #expect(dump.fact("Originality Signature") == "Not verified (no known NXP key matches)")
        // The genuine signature on another UID does not verify either.
        let other = VirtualType2Tag(model: .ultralightAES, uid: bytes("043F88C2451390"))
        other.signature = Self.genuine
        let otherInfo = try await TagIdentifier.identify(VirtualTagTransport(tag: other))
        #expect(try await OriginalityCheck.check(info: otherInfo, transport: VirtualTagTransport(tag: other))
            == .invalid(signature: Self.genuine))
    }

    /// Curve and length: a 48-byte signature is only tried against the secp192r1 keys, a 32-byte one only
    /// against the secp128r1 keys (so the first half of a genuine answer verifies nowhere), and a length
    /// no curve has is `unreadable`.
    @Test func eachKeyIsTriedOnlyOnItsOwnLength() {
        let verdict = OriginalityCheck.verdict(uid: Self.uid, signature: Self.genuine, reading: .type2ReadSig)
        guard case let .valid(key, _) = verdict else {
            Issue.record("expected valid, got \(verdict)")
            return
        }
        #expect(key.curve.fieldBytes * 2 == 48)
        let half = Array(Self.genuine.prefix(32))
        #expect(OriginalityCheck.verdict(uid: Self.uid, signature: half, reading: .type2ReadSig) == .invalid(signature: half))
        guard case .unreadable = OriginalityCheck.verdict(uid: Self.uid, signature: Self.genuine + [0x00], reading: .type2ReadSig) else {
            Issue.record("a 49-byte answer should be unreadable")
            return
        }
        // The Ultralight AES answer is not tried against the ISO-DEP (secp224r1) keys.
        #expect(OriginalityCheck.verdict(uid: Self.uid, signature: Self.genuine, reading: .isoDEPReadSig)
            == .invalid(signature: Self.genuine))
    }

    /// NTAG 223 DNA / 224 DNA (by their GET_VERSION rows) read the signature too; the genuine pairs of
    /// recover_pk.py ("NTAG223DNA, NTAG224DNA") verify against the NTAG 22x DNA key and no other.
    @Test func ntag22xDNARowsReadTheirSignatureAndAGenuineOneVerifies() {
        for version: [UInt8] in [
            [0x00, 0x04, 0x04, 0x02, 0x04, 0x00, 0x0F, 0x03], [0x00, 0x04, 0x04, 0x08, 0x04, 0x00, 0x0F, 0x03],
            [0x00, 0x04, 0x04, 0x02, 0x05, 0x00, 0x10, 0x03], [0x00, 0x04, 0x04, 0x08, 0x05, 0x00, 0x10, 0x03],
        ] {
            let product = GetVersionTable.lookup(version)?.product
            #expect(product?.features.contains(.readSignature) == true && product?.signatureLength == 48, "\(version)")
        }
        let uid = bytes("043302218D3D00")
        let signature = bytes(
            "6A5D5E034F4FC823CACAB56C1A77A409B8DB345F89BD3FD59ED1F9C0093518609BE62D0A20764D2011E47EFA187F29AA")
        guard case let .valid(key, _) = OriginalityCheck.verdict(uid: uid, signature: signature, reading: .type2ReadSig) else {
            Issue.record("the NTAG 22x DNA pair should verify")
            return
        }
        #expect(key.name == "NXP NTAG 22x DNA" && key.curve == .secp192r1)
    }
}
