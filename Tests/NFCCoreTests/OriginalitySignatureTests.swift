import NFCCore
import PN532Sim
import Testing

private func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex) ?? [] }

/// Vectors: peers-nfc §9 item 5 (real tags; checked there with an independent secp128r1 implementation).
@Suite struct OriginalitySignatureTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let uid: String
        let signature: String
        let source: String
        var testDescription: String { source }
    }

    static let genuine = [
        Vector(uid: "04 58 69 D2 9C 39 80", signature: "1FA9FE479435E4B60280F7A2B44293DF9127471B3251BC8942F0941AD71A1755",
               source: "Proxmark3 traces/mifare/ntag216-empty.json"),
        Vector(uid: "04 51 5C FA 6F 73 81", signature: "4221E46C796A815EEA0D936D85EE4B0C2A00D577F1C567F36375F8EB86485E6B",
               source: "Flipper Ntag215.nfc"),
        Vector(uid: "04 85 92 8A A0 61 81", signature: "1B84EB70BD4CBD1B1DE4980B1858BD7C7285B4E47B388E96CF886BEEA343AD90",
               source: "Flipper format doc NTAG216 example"),
    ]

    /// Proxmark3 #1861: an amiibo restored onto a tag of unknown origin.
    static let clone = Vector(uid: "04 CA 20 1F 39 61 81",
                              signature: "9F87F95818B24E907D410096CEB9A74AB09E3A1AFA30E7B2ACBDAF4E89683804",
                              source: "Proxmark3 issue 1861")

    @Test(arguments: genuine)
    func genuineNTAGSignaturesVerifyAgainstTheNTAG21xKey(vector: Vector) {
        let match = OriginalitySignature.verify(uid: bytes(vector.uid), signature: bytes(vector.signature))
        #expect(match?.key.name == "NXP NTAG21x")
    }

    @Test func cloneSignatureMatchesNoKey() throws {
        let uid = bytes(Self.clone.uid)
        let signature = bytes(Self.clone.signature)
        #expect(OriginalitySignature.verify(uid: uid, signature: signature) == nil)
        // …against every key of its length on its own, not just the first.
        for key in OriginalitySignature.keys where 2 * key.curve.fieldBytes == signature.count {
            let verifier = try ECDSAVerifier(curve: key.curve, publicKeyHex: key.publicKeyHex)
            #expect(try !verifier.isValidSignature(signature, for: uid), "\(key.name)")
        }
    }

    @Test func aGenuineSignatureDoesNotVerifyForAnotherUID() {
        let vector = Self.genuine[0]
        #expect(OriginalitySignature.verify(uid: bytes(Self.genuine[1].uid), signature: bytes(vector.signature)) == nil)
    }

    @Test func everyTableKeyLoads() throws {
        #expect(OriginalitySignature.keys.map(\.name) == ["NXP NTAG21x", "NXP Ultralight EV1", "NXP (TagInfo)", "NXP Ultralight AES", "NXP Ultralight AES (alternative)", "NXP NTAG 22x DNA"])
        for key in OriginalitySignature.keys {
            let verifier = try ECDSAVerifier(curve: key.curve, publicKeyHex: key.publicKeyHex)
            #expect(verifier.publicKey.count == 1 + 2 * key.curve.fieldBytes)
        }
    }

    @Test func signaturesOfAnotherLengthMatchNothingAndDoNotThrow() {
        let uid = bytes(Self.genuine[0].uid)
        for length in [0, 16, 31, 33, 48, 56] {
            #expect(OriginalitySignature.verify(uid: uid, signature: [UInt8](repeating: 0x5A, count: length)) == nil)
        }
        #expect(OriginalitySignature.verify(uid: [], signature: bytes(Self.genuine[0].signature)) == nil)
    }

    @Test func factWording() {
        let valid = OriginalitySignature.fact(uid: bytes(Self.genuine[2].uid), signature: bytes(Self.genuine[2].signature))
        #expect(valid == Fact(key: "Originality Signature", value: "Valid (NXP NTAG21x)"))
        let clone = OriginalitySignature.fact(uid: bytes(Self.clone.uid), signature: bytes(Self.clone.signature))
        #expect(clone == Fact(key: "Originality Signature", value: "Not verified (no known NXP key matches)"))
    }

    // MARK: In the Type 2 dump

    private func dump(_ tag: VirtualType2Tag) async throws -> TagDump {
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        return try await Type2Dump.dump(info: info, transport: transport)
    }

    @Test func dumpOfAGenuineNTAG216SaysValid() async throws {
        let vector = Self.genuine[2]
        let tag = VirtualType2Tag(model: .ntag216, uid: bytes(vector.uid))
        tag.signature = bytes(vector.signature)
        let dump = try await dump(tag)
        #expect(dump.type2?.signature == bytes(vector.signature))
        #expect(dump.fact("Originality Signature") == "Valid (NXP NTAG21x)")
    }

    @Test func dumpOfACloneSaysNotVerifiedAndStillSucceeds() async throws {
        let tag = VirtualType2Tag(model: .ntag215, uid: bytes(Self.clone.uid))
        tag.signature = bytes(Self.clone.signature)
        let dump = try await dump(tag)
        #expect(dump.fact("Originality Signature") == "Not verified (no known NXP key matches)")
        #expect(dump.pages.count == 135)
    }

    @Test func dumpWithoutSignatureHasNoSignatureFact() async throws {
        let dump = try await dump(VirtualType2Tag(model: .ntag203, uid: bytes(Self.genuine[0].uid)))
        #expect(dump.type2?.signature == nil)
        #expect(dump.fact("Originality Signature") == nil)
    }
}
