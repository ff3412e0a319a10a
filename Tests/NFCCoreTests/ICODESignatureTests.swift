import NFCCore
@testable import PN532Sim
import Testing

private func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex) ?? [] }

/// ICODE SLIX2 / DNA originality (issue 21): READ SIGNATURE (NXP custom command BDh, SL2S2602 datasheet
/// §9.5.3.20) through ``OriginalityCheck`` and the ISO 15693 dump, against PN532Sim's own SLIX2 on an
/// ``ISO15693TagLink``. The genuine pair is a real SLIX2's from Proxmark3's `tools/recover_pk.py`
/// self-test (UID there least significant byte first: 838ED22A080104E0).
@Suite struct ICODESignatureTests {
    static let uid = bytes("E00401082AD28E83")
    static let genuine = bytes("CAE8183CB4823C765AFDEB78C9D66C959990FD52A5820E76E1D6E025D76EAD79")

    static func slix2(signature: [UInt8]) throws -> ISO15693TagLink {
        let link = try ISO15693TagLink(.icodeSLIX2, uid: uid)
        link.tag.signature = signature
        return link
    }

    /// The request is flags, BDh, the manufacturer code 04h, then the UID least significant byte first
    /// (SL2S2602 Table 76: the IC Mfg code goes before the UID).
    @Test func readSignatureCarriesTheManufacturerCodeBeforeTheUID() {
        let request = ISO15693Request(command: 0xBD, manufacturerCode: 0x04, uid: Self.uid)
        #expect(request.frame == [0x22, 0xBD, 0x04] + Self.uid.reversed())
    }

    @Test func aGenuineSLIX2SignatureIsValidAndTheDumpSaysSo() async throws {
        let link = try Self.slix2(signature: Self.genuine)
        let info = try await TagIdentifier.identify(link)
        #expect(info.product?.name == "ICODE SLIX2")
        #expect(OriginalityCheck.reading(for: info) == .iso15693ReadSignature)
        let outcome = try await OriginalityCheck.check(info: info, transport: link)
        guard case let .valid(key, signature) = outcome else {
            Issue.record("expected valid, got \(outcome)")
            return
        }
        #expect(key.name == "NXP ICODE DNA / SLIX2" && key.curve == .secp128r1)
        #expect(signature == Self.genuine)
        #expect(link.requests.last == [0x22, 0xBD, 0x04] + Self.uid.reversed())

        let dump = try await TagDumper.dump(info: info, transport: link)
        #expect(dump.fact("Originality Signature") == "Valid (NXP ICODE DNA / SLIX2)")
        #expect(dump.blocks.count == 80)
    }

    /// A signature copied from another tag (here: one bit of the genuine one flipped) is `invalid`;
    /// the dump calls it not verified.
    @Test func aWrongSignatureIsInvalid() async throws {
        var copied = Self.genuine
        copied[5] ^= 0x10
        let link = try Self.slix2(signature: copied)
        let info = try await TagIdentifier.identify(link)
        #expect(try await OriginalityCheck.check(info: info, transport: link) == .invalid(signature: copied))
        let dump = try await TagDumper.dump(info: info, transport: link)
        #expect(dump.fact("Originality Signature") == "Not verified (no known NXP key matches)")
    }

    /// A SLIX2 that refuses the command gives `unreadable` and a dump without the fact; a SLIX (no READ
    /// SIGNATURE in its datasheet) is never asked.
    @Test func aRefusalIsUnreadableAndTheSLIXIsNeverAsked() async throws {
        let refusing = try ISO15693TagLink(.icodeSLIX2, uid: Self.uid, faults: .init(refused: [0xBD: .notSupported]))
        let info = try await TagIdentifier.identify(refusing)
        guard case .unreadable = try await OriginalityCheck.check(info: info, transport: refusing) else {
            Issue.record("a refused READ SIGNATURE should be unreadable")
            return
        }
        #expect(try await TagDumper.dump(info: info, transport: refusing).fact("Originality Signature") == nil)

        let slix = try ISO15693TestTags.icodeSLIX()
        let slixInfo = try await TagIdentifier.identify(slix)
        #expect(try await OriginalityCheck.check(info: slixInfo, transport: slix) == .unsupported)
        _ = try await TagDumper.dump(info: slixInfo, transport: slix)
        #expect(!slix.commands.contains(0xBD))
    }
}
