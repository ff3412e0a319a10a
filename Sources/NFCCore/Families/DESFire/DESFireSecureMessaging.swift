/// DESFire secure messaging after an authentication: how a command is sent and its answer read in
/// each communication mode, with the answer's MAC (or CRC) checked. A MAC or CRC that does not match
/// is ``NFCError/integrityError(_:)``: the bytes are never returned as data.
///
/// - ``ev1``: after AuthenticateAES (AAh; MIFARE DESFire EV1 MF3ICD(Q)81 §9.1.2 "CMAC" and §9.4):
///   one AES session key and a chained IV. Every command's CMAC (command ‖ parameters, from the IV)
///   becomes the IV; an OK answer in plain or MACed mode is data ‖ CMAC(data ‖ 00)[0..<8] from that
///   IV, the full CMAC becoming the next IV; a fully enciphered answer is E(data ‖ CRC32(data ‖ 00) ‖
///   00…) in CBC from the IV, its last block the next IV.
/// - ``ev2``: after AuthenticateEV2First (71h; AN12196 §5.3–5.4, §7.3; AN12343 §6): SesAuthMACKey,
///   SesAuthENCKey, the transaction identifier TI and a command counter. MACed and full commands carry
///   MACt(Cmd ‖ CmdCtr ‖ TI ‖ header); their answers end in MACt(RC ‖ CmdCtr+1 ‖ TI ‖ data), full
///   answers being E(data ‖ 80 00…) with IV = E(SesAuthENCKey, 5A A5 ‖ TI ‖ CmdCtr+1 ‖ 0⁸). MACt is
///   the CMAC's bytes 1, 3, 5 … 15. The counter counts every command of the session, plain ones too.
public struct DESFireSecureSession: Sendable {
    /// Which secure messaging the session uses, with its state.
    public enum Kind: Sendable {
        /// EV1 AES: the session key and the IV the last CMAC or cipher block left.
        case ev1(key: [UInt8], iv: [UInt8])
        /// EV1 after AuthenticateISO: the same scheme over 3DES (8-byte blocks, 3DES CMAC whose 8 bytes are
        /// the MAC, full mode padded to 8).
        case iso(key: [UInt8], iv: [UInt8])
        /// EV2: the session keys, the transaction identifier and the command counter.
        case ev2(encryptionKey: [UInt8], macKey: [UInt8], transactionIdentifier: [UInt8], commandCounter: UInt16)
        /// D40 after the legacy Authenticate (0Ah; MF3ICD40 §8.5): the DES / 2K3DES session key, no
        /// chaining between messages. Commands travel as they are; a MACed answer ends in the first 4
        /// bytes of the last block of E(data ‖ 00…) in CBC from a zero IV, a full one is E(data ‖
        /// CRC_A(data) ‖ 00…) in CBC from a zero IV (ISO/IEC 14443-3 CRC_A, preset 6363h).
        case legacy(key: [UInt8])
    }

    /// The state; each command moves it on.
    public private(set) var kind: Kind

    /// A session of `kind`.
    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// An EV1 AES session with `sessionKey` and a zero IV (EV1 datasheet §9.4: the IV is reset when the
    /// session key is made).
    public static func ev1(sessionKey: [UInt8]) -> DESFireSecureSession {
        DESFireSecureSession(.ev1(key: sessionKey, iv: [UInt8](repeating: 0, count: AES.blockSize)))
    }

    /// An EV2 session from AuthenticateEV2First's result, command counter 0 (AN12196 §3.3).
    public static func ev2(_ session: DESFireEV2Authentication.Session) -> DESFireSecureSession {
        DESFireSecureSession(.ev2(encryptionKey: session.encryptionKey, macKey: session.macKey,
                                  transactionIdentifier: session.transactionIdentifier, commandCounter: 0))
    }

    /// The EV2 session after AuthenticateEV2NonFirst inside this one: the new session keys, the same TI
    /// and this session's command counter (AN12343 "AuthenticateEV2NonFirst"); nil unless this is an EV2 session.
    public func continued(with next: DESFireEV2Authentication.Session) -> DESFireSecureSession? {
        guard case let .ev2(_, _, ti, counter) = kind else { return nil }
        return DESFireSecureSession(.ev2(encryptionKey: next.encryptionKey, macKey: next.macKey, transactionIdentifier: ti, commandCounter: counter))
    }

    /// Bytes of a MAC on the wire (EV1: the CMAC's first 8; EV2: MACt).
    public static let macLength = 8

    /// What goes on the wire for `instruction` with `header` in `mode` (EV2 MACed and full: header ‖
    /// MACt); moves the state on as the command is sent.
    public mutating func command(_ instruction: UInt8, header: [UInt8], mode: DESFireFileSettings.CommunicationMode)
        throws(NFCError) -> [UInt8]
    {
        switch kind {
        case let .ev1(key, iv):
            // EV1: the command travels as it is; its CMAC only advances the IV (§9.1.2).
            kind = .ev1(key: key, iv: try AES.cmac(key: key, message: [instruction] + header, iv: iv))
            return header
        case let .iso(key, iv):
            kind = .iso(key: key, iv: try TripleDES.cmac(key: key, message: [instruction] + header, iv: iv))
            return header
        case let .ev2(_, macKey, ti, counter):
            guard mode != .plain else { return header }
            return header + Self.truncated(try AES.cmac(key: macKey, message: [instruction] + Self.le(counter) + ti + header))
        case .legacy:
            return header
        }
    }

    /// The data of an OK answer `answer` (status 00) to a command in `mode`, its MAC or CRC checked.
    /// `expectedLength`: the plain data's length when the caller knows it (an EV1 full answer's CRC
    /// is found there, else searched from the end). Throws ``NFCError/integrityError(_:)`` for a MAC or
    /// CRC that does not match or a padding that is not one, ``NFCError/invalidResponse(_:)`` for an
    /// answer too short to hold its MAC or not whole cipher blocks.
    public mutating func response(_ answer: [UInt8], mode: DESFireFileSettings.CommunicationMode, expectedLength: Int? = nil)
        throws(NFCError) -> [UInt8]
    {
        switch kind {
        case let .ev1(key, iv):
            if mode == .full {
                guard !answer.isEmpty, answer.count % AES.blockSize == 0 else { throw .invalidResponse(Array(answer.prefix(16))) }
                let plain = try AES.cbc(encrypt: false, key: key, iv: iv, data: answer)
                kind = .ev1(key: key, iv: Array(answer.suffix(AES.blockSize)))
                return try Self.ev1Unpadded(plain, expectedLength: expectedLength, block: AES.blockSize)
            }
            guard answer.count >= Self.macLength else { throw .invalidResponse(answer) }
            let data = Array(answer.dropLast(Self.macLength))
            let mac = try AES.cmac(key: key, message: data + [0x00], iv: iv)
            kind = .ev1(key: key, iv: mac)
            guard Array(mac.prefix(Self.macLength)) == Array(answer.suffix(Self.macLength)) else {
                throw .integrityError("the answer's CMAC does not match its data")
            }
            return data
        case let .iso(key, iv):
            if mode == .full {
                guard !answer.isEmpty, answer.count % TripleDES.blockSize == 0 else { throw .invalidResponse(Array(answer.prefix(16))) }
                let plain = try TripleDES.cbc(encrypt: false, key: key, iv: iv, data: answer)
                kind = .iso(key: key, iv: Array(answer.suffix(TripleDES.blockSize)))
                return try Self.ev1Unpadded(plain, expectedLength: expectedLength, block: TripleDES.blockSize)
            }
            guard answer.count >= Self.macLength else { throw .invalidResponse(answer) }
            let data = Array(answer.dropLast(Self.macLength))
            let mac = try TripleDES.cmac(key: key, message: data + [0x00], iv: iv)
            kind = .iso(key: key, iv: mac)
            guard mac == Array(answer.suffix(Self.macLength)) else { throw .integrityError("the answer's CMAC does not match its data") }
            return data
        case let .ev2(encryptionKey, macKey, ti, counter):
            let next = counter &+ 1
            kind = .ev2(encryptionKey: encryptionKey, macKey: macKey, transactionIdentifier: ti, commandCounter: next)
            guard mode != .plain else { return answer }
            guard answer.count >= Self.macLength else { throw .invalidResponse(answer) }
            let data = Array(answer.dropLast(Self.macLength))
            let mac = Self.truncated(try AES.cmac(key: macKey, message: [0x00] + Self.le(next) + ti + data))
            guard mac == Array(answer.suffix(Self.macLength)) else { throw .integrityError("the answer's MACt does not match its data") }
            guard mode == .full else { return data }
            guard !data.isEmpty, data.count % AES.blockSize == 0 else { throw .invalidResponse(Array(data.prefix(16))) }
            let ivInput = [0x5A, 0xA5] + ti + Self.le(next) + [UInt8](repeating: 0, count: 8)
            let iv = try AES.cbc(encrypt: true, key: encryptionKey, data: ivInput)
            return try Self.iso9797Unpadded(try AES.cbc(encrypt: false, key: encryptionKey, iv: iv, data: data))
        case let .legacy(key):
            return try Self.legacyResponse(answer, key: key, mode: mode, expectedLength: expectedLength)
        }
    }

    /// Bytes of a D40 MAC on the wire.
    static let legacyMACLength = 4

    /// A D40 answer's data (``Kind/legacy(key:)``), its MAC or CRC checked.
    static func legacyResponse(_ answer: [UInt8], key: [UInt8], mode: DESFireFileSettings.CommunicationMode, expectedLength: Int?)
        throws(NFCError) -> [UInt8]
    {
        let zero = [UInt8](repeating: 0, count: TripleDES.blockSize)
        switch mode {
        case .plain:
            return answer
        case .mac:
            guard answer.count >= legacyMACLength else { throw .invalidResponse(answer) }
            let data = Array(answer.dropLast(legacyMACLength))
            let padded = data + [UInt8](repeating: 0, count: (TripleDES.blockSize - data.count % TripleDES.blockSize) % TripleDES.blockSize)
            let chain = try TripleDES.cbc(encrypt: true, key: key, iv: zero, data: padded.isEmpty ? zero : padded)
            guard Array(chain.suffix(TripleDES.blockSize).prefix(legacyMACLength)) == Array(answer.suffix(legacyMACLength)) else {
                throw .integrityError("the answer's MAC does not match its data")
            }
            return data
        case .full:
            guard !answer.isEmpty, answer.count % TripleDES.blockSize == 0 else { throw .invalidResponse(Array(answer.prefix(16))) }
            let plain = try TripleDES.cbc(encrypt: false, key: key, iv: zero, data: answer)
            let candidates = expectedLength.map { [$0] } ?? Array((0...max(0, plain.count - 2)).reversed())
            for length in candidates where length >= 0 && length + 2 <= plain.count && plain.count - length - 2 < TripleDES.blockSize {
                let data = Array(plain[..<length])
                if plain[(length + 2)...].allSatisfy({ $0 == 0 }), Array(plain[length..<length + 2]) == ISO14443.crcA(data) { return data }
            }
            throw .integrityError("the deciphered answer's CRC16 does not match its data")
        }
    }

    /// MACt: the CMAC's bytes at odd positions 1, 3 … 15 (AN12196 §5.3, "S14 S12 … S0" in its MSB-first
    /// numbering).
    static func truncated(_ cmac: [UInt8]) -> [UInt8] {
        stride(from: 1, to: cmac.count, by: 2).map { cmac[$0] }
    }

    /// A 16-bit counter least significant byte first.
    static func le(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    /// `data` without its ISO/IEC 9797-1 method 2 padding (80 00…, always present, AN12196 §5.4).
    static func iso9797Unpadded(_ data: [UInt8]) throws(NFCError) -> [UInt8] {
        guard let marker = data.lastIndex(where: { $0 != 0 }), data[marker] == 0x80, data.count - marker <= AES.blockSize else {
            throw .integrityError("the deciphered answer has no valid padding")
        }
        return Array(data[..<marker])
    }

    /// EV1 full mode: data ‖ CRC32(data ‖ 00) ‖ zero padding. The data's length is `expectedLength`
    /// when given, else the longest whose CRC matches and whose remaining bytes are zero.
    static func ev1Unpadded(_ plain: [UInt8], expectedLength: Int?, block: Int) throws(NFCError) -> [UInt8] {
        let candidates = expectedLength.map { [$0] } ?? Array((0...max(0, plain.count - 4)).reversed())
        for length in candidates where length >= 0 && length + 4 <= plain.count {
            let data = Array(plain[..<length])
            guard plain[(length + 4)...].allSatisfy({ $0 == 0 }), plain.count - length - 4 < block else { continue }
            if Array(plain[length..<length + 4]) == crc32(data + [0x00]) { return data }
        }
        throw .integrityError("the deciphered answer's CRC32 does not match its data")
    }

    /// DESFire's CRC32 (EV1 datasheet §9.1.3 / §9.4): IEEE 802.3's polynomial EDB88320h, reflected,
    /// preset FFFFFFFFh, no final complement; least significant byte first.
    public static func crc32(_ data: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return [UInt8(crc & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8((crc >> 16) & 0xFF), UInt8(crc >> 24)]
    }
}
