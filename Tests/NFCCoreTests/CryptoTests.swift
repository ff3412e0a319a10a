import NFCCore
import Testing

private func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex) ?? [] }

@Suite struct CryptoTripleDESTests {
    private let zeroIV = [UInt8](repeating: 0, count: 8)

    /// FIPS 46 worked example (the textbook single-DES vector), through the K1 = K2 = K3 path.
    @Test func singleDESKeyRunsAsThreeEqualKeys() throws {
        let cipher = try TripleDES.cbc(encrypt: true, key: bytes("133457799BBCDFF1"), iv: zeroIV,
                                       data: bytes("0123456789ABCDEF"))
        #expect(cipher.hexString == "85E813540F0AB405")
    }

    /// NIST SP 800-67 Rev. 1 Appendix B (3-key TDEA, ECB): each block alone with a zero IV is ECB.
    @Test func threeKeyKnownAnswer() throws {
        let key = bytes("0123456789ABCDEF 23456789ABCDEF01 456789ABCDEF0123")
        let plain = Array("The qufck brown fox jump".utf8)
        let expected = ["A826FD8CE53B855F", "CCE21C8112256FE6", "68D5C05DD9B6B900"]
        for (index, block) in stride(from: 0, to: 24, by: 8).enumerated() {
            let cipher = try TripleDES.cbc(encrypt: true, key: key, iv: zeroIV, data: Array(plain[block..<block + 8]))
            #expect(cipher.hexString == expected[index])
        }
        // CBC over all three blocks chains: the first block equals ECB, the others differ.
        let chained = try TripleDES.cbc(encrypt: true, key: key, iv: zeroIV, data: plain)
        #expect(chained.hexString.hasPrefix("A826FD8CE53B855F"))
        #expect(chained.hexString != expected.joined())
        #expect(try TripleDES.cbc(encrypt: false, key: key, iv: zeroIV, data: chained) == plain)
    }

    /// MF0ICU2 §7.5.6: 2-key 3DES CBC, one block from a zero IV and two chained blocks.
    @Test func twoKeyCBCKnownAnswerFromTheUltralightCDatasheet() throws {
        let key = UltralightCAuthentication.factoryKey
        let challenge = try TripleDES.cbc(encrypt: true, key: key, iv: zeroIV, data: bytes("51E764602678DF2B"))
        #expect(challenge.hexString == "577293FD2F34CA51")
        let token = try TripleDES.cbc(encrypt: true, key: key, iv: challenge,
                                      data: bytes("A8AF3B256C75ED40 E764602678DF2B51"))
        #expect(token.hexString == "0A638559FC7737F9F15D7862EBBE967A")
        let plain = try TripleDES.cbc(encrypt: false, key: key, iv: challenge, data: token)
        #expect(plain.hexString == "A8AF3B256C75ED40E764602678DF2B51")
    }

    @Test func emptyDataGivesEmptyOutput() throws {
        #expect(try TripleDES.cbc(encrypt: true, key: UltralightCAuthentication.factoryKey, iv: zeroIV, data: []) == [])
    }

    @Test(arguments: [0, 7, 15, 17, 23, 32])
    func wrongKeyLengthIsAnError(length: Int) {
        #expect(throws: NFCError.self) {
            try TripleDES.cbc(encrypt: true, key: [UInt8](repeating: 1, count: length), iv: zeroIV, data: zeroIV)
        }
    }

    @Test func wrongIVOrDataLengthIsAnError() {
        let key = UltralightCAuthentication.factoryKey
        #expect(throws: NFCError.invalidArgument("A 3DES IV is 8 bytes, not 7")) {
            try TripleDES.cbc(encrypt: true, key: key, iv: [0, 0, 0, 0, 0, 0, 0], data: zeroIV)
        }
        #expect(throws: NFCError.invalidArgument("3DES data must be a multiple of 8 bytes, not 9")) {
            try TripleDES.cbc(encrypt: false, key: key, iv: zeroIV, data: [UInt8](repeating: 0, count: 9))
        }
    }
}

@Suite struct CryptoECDSAVerifierTests {
    static let ntag21xKey = "04494E1A386D3D3CFE3DC10E5DE68A499B1C202DB5B132393E89ED19FE5BE8BC61"
    static let uid = bytes("04 51 5C FA 6F 73 81")
    static let signature = bytes("4221E46C796A815EEA0D936D85EE4B0C2A00D577F1C567F36375F8EB86485E6B")

    @Test func verifiesARawUnhashedMessage() throws {
        let verifier = try ECDSAVerifier(curve: .secp128r1, publicKeyHex: Self.ntag21xKey)
        #expect(try verifier.isValidSignature(Self.signature, for: Self.uid))
    }

    @Test func rejectsAChangedMessageOrSignature() throws {
        let verifier = try ECDSAVerifier(curve: .secp128r1, publicKeyHex: Self.ntag21xKey)
        var uid = Self.uid
        uid[6] ^= 0x01
        #expect(try !verifier.isValidSignature(Self.signature, for: uid))
        var signature = Self.signature
        signature[31] ^= 0x01
        #expect(try !verifier.isValidSignature(signature, for: Self.uid))
        // r = s = 0 and r, s ≥ n are out of range: not valid, and no trap.
        #expect(try !verifier.isValidSignature([UInt8](repeating: 0, count: 32), for: Self.uid))
        #expect(try !verifier.isValidSignature([UInt8](repeating: 0xFF, count: 32), for: Self.uid))
        // A hashed-message verifier would need the SHA digest; the raw UID must not be padded or hashed.
        #expect(try !verifier.isValidSignature(Self.signature, for: Self.uid + [0x00]))
    }

    @Test(arguments: [0, 31, 33, 64])
    func signatureOfTheWrongLengthIsAnError(length: Int) throws {
        let verifier = try ECDSAVerifier(curve: .secp128r1, publicKeyHex: Self.ntag21xKey)
        #expect(throws: NFCError.self) {
            try verifier.isValidSignature([UInt8](repeating: 1, count: length), for: Self.uid)
        }
    }

    @Test func keyOfTheWrongLengthIsAnError() {
        let full = bytes(Self.ntag21xKey)
        for key in [[], Array(full.prefix(17)), Array(full.prefix(32)), full + [0x00], Array(full.dropFirst())] {
            #expect(throws: NFCError.self) { try ECDSAVerifier(curve: .secp128r1, publicKey: key) }
        }
        let error = #expect(throws: NFCError.self) { try ECDSAVerifier(curve: .secp128r1, publicKey: [0x04]) }
        #expect(error?.code == "invalid_argument")
    }

    @Test func compressedKeyOrPointOffTheCurveIsAnError() {
        var compressed = bytes(Self.ntag21xKey)
        compressed[0] = 0x02
        #expect(throws: NFCError.self) { try ECDSAVerifier(curve: .secp128r1, publicKey: compressed) }
        var offCurve = bytes(Self.ntag21xKey)
        offCurve[32] ^= 0x01
        let error = #expect(throws: NFCError.self) { try ECDSAVerifier(curve: .secp128r1, publicKey: offCurve) }
        #expect(error?.code == "invalid_argument")
    }

    @Test func keyThatIsNotHexIsAnError() {
        #expect(throws: NFCError.invalidArgument("The secp128r1 public key is not hex")) {
            try ECDSAVerifier(curve: .secp128r1, publicKeyHex: "04ZZ")
        }
    }
}
