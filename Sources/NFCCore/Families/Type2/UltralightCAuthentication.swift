/// MIFARE Ultralight C 3DES mutual authentication (MF0ICU2 §7.5.5, example §7.5.6, command §9.5).
///
/// ```
/// PCD → 1A 00                          PICC → AF ‖ ek(RndB)              (IV = 0)
/// PCD → AF ‖ ek(RndA ‖ RndB')          PICC → 00 ‖ ek(RndA')             (RndX' = RndX rotated left by one byte)
/// ```
/// ek() is 2-key 3DES in CBC mode; the first encryption starts from a zero IV and every later one from
/// the last ciphertext block sent or received: ek(RndA ‖ RndB') uses IV = ek(RndB), ek(RndA') uses IV =
/// the last 8 bytes of ek(RndA ‖ RndB'). This matches the datasheet example and libfreefare.
///
/// **Key order.** `key` is the 16-byte 3DES key Key1 ‖ Key2 as the cipher uses it. The tag stores it in
/// pages 2Ch–2Fh with each 8-byte half reversed (MF0ICU2 §7.5.7: Key1 = 00…07 is written as `07 06 05 04`
/// to 2Ch and `03 02 01 00` to 2Dh). The factory key therefore reads "BREAKMEIFYOUCAN!" in memory and is
/// ``factoryKey`` (`49454D4B41455242 214E4143554F5946`, "IEMKAERB!NACUOYF") as a cipher key. nfcpy's
/// `authenticate(password)` and Proxmark3's key list take the memory order; convert with
/// ``cipherKey(fromKeyPages:)`` and ``keyPages(forCipherKey:)``.
///
/// **Framing.** Both frames go with ``Framing/raw`` (CRC added by the backend, no command
/// interpretation by the reader), like PWD_AUTH. The PN53x InDataExchange is only known to intercept
/// 60h/61h (MIFARE Classic AUTH, libnfc-pty notes), so ``Framing/standard`` would probably pass 1Ah/AFh
/// through too — but the implementations proven on real PN53x boards send them raw: libfreefare's
/// `mifare_ultralightc_authenticate` turns easy framing off for both steps (InCommunicateThru), and nfcpy
/// sends every Type 2 frame with InCommunicateThru.
public enum UltralightCAuthentication {
    /// The factory key as a cipher key (memory pages 2Ch–2Fh: "BREAKMEIFYOUCAN!"), MF0ICU2 §7.5.6 / §7.5.7.
    public static let factoryKey: [UInt8] = [
        0x49, 0x45, 0x4D, 0x4B, 0x41, 0x45, 0x52, 0x42, 0x21, 0x4E, 0x41, 0x43, 0x55, 0x4F, 0x59, 0x46,
    ]

    /// Bytes in a key (2-key 3DES), in pages 2Ch–2Fh, and in each random number.
    static let keyLength = 16
    static let randomLength = 8

    /// Runs the mutual authentication with `key` (the 16-byte cipher key, see the type's documentation),
    /// taking RndA from `random` (one `UInt64` draw, big-endian; pin it in tests).
    ///
    /// Throws ``NFCError/invalidArgument(_:)`` for a key that is not 16 bytes;
    /// ``NFCError/authenticationFailed`` when the tag refuses or ignores a step (wrong key: it answers the
    /// second frame with a NAK) or its ek(RndA') does not decrypt to RndA' (the tag does not hold the key);
    /// ``NFCError/invalidResponse(_:)`` for an answer of the wrong shape. After a failure the tag is IDLE:
    /// re-select before the next command. Other transport errors (``NFCError/tagRemoved``) pass through.
    public static func authenticate(key: [UInt8], transport: some TagTransport,
                                    using random: inout some RandomNumberGenerator) async throws
    {
        guard key.count == keyLength else {
            throw NFCError.invalidArgument("An Ultralight C key is \(keyLength) bytes, not \(key.count)")
        }
        let zeroIV = [UInt8](repeating: 0, count: randomLength)

        let challenge = try await step([0x1A, 0x00], expecting: 0xAF, via: transport)
        let rndB = try TripleDES.cbc(encrypt: false, key: key, iv: zeroIV, data: challenge)
        let rndA = withUnsafeBytes(of: random.next().bigEndian) { Array($0) }
        let token = try TripleDES.cbc(encrypt: true, key: key, iv: challenge, data: rndA + rotatedLeft(rndB))

        let proof = try await step([0xAF] + token, expecting: 0x00, via: transport)
        let rndAPrime = try TripleDES.cbc(encrypt: false, key: key, iv: Array(token.suffix(randomLength)), data: proof)
        guard rndAPrime == rotatedLeft(rndA) else { throw NFCError.authenticationFailed }
    }

    /// ``authenticate(key:transport:using:)`` with RndA from the system's random source.
    public static func authenticate(key: [UInt8], transport: some TagTransport) async throws {
        var random = SystemRandomNumberGenerator()
        try await authenticate(key: key, transport: transport, using: &random)
    }

    /// The cipher key held in pages 2Ch–2Fh (16 bytes, as read from memory or as a dump holds them):
    /// each 8-byte half reversed (MF0ICU2 §7.5.7). Throws ``NFCError/invalidArgument(_:)`` unless 16 bytes.
    public static func cipherKey(fromKeyPages pages: [UInt8]) throws(NFCError) -> [UInt8] {
        guard pages.count == keyLength else {
            throw NFCError.invalidArgument("Ultralight C key pages hold \(keyLength) bytes, not \(pages.count)")
        }
        return reversedHalves(pages)
    }

    /// The 16 bytes to write to pages 2Ch–2Fh so the tag authenticates with cipher key `key`.
    /// Throws ``NFCError/invalidArgument(_:)`` unless 16 bytes.
    public static func keyPages(forCipherKey key: [UInt8]) throws(NFCError) -> [UInt8] {
        guard key.count == keyLength else {
            throw NFCError.invalidArgument("An Ultralight C key is \(keyLength) bytes, not \(key.count)")
        }
        return reversedHalves(key)
    }

    /// RndX': the bytes rotated left by one byte (MF0ICU2 §7.5.5).
    public static func rotatedLeft(_ bytes: [UInt8]) -> [UInt8] {
        guard let first = bytes.first else { return bytes }
        return Array(bytes.dropFirst()) + [first]
    }

    // MARK: - Private

    /// Sends one frame and returns the 8 bytes after the expected status byte.
    private static func step(_ frame: [UInt8], expecting status: UInt8, via transport: some TagTransport)
        async throws -> [UInt8]
    {
        let answer: [UInt8]
        do {
            answer = try await transport.transceive(frame, framing: .raw)
        } catch NFCError.commandRefused, NFCError.timeout {
            throw NFCError.authenticationFailed
        }
        guard answer.count == 1 + randomLength, answer[0] == status else { throw NFCError.invalidResponse(answer) }
        return Array(answer.dropFirst())
    }

    private static func reversedHalves(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes[0..<8].reversed()) + Array(bytes[8..<16].reversed())
    }
}
