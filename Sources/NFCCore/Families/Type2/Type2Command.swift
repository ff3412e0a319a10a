/// The Type 2 (Ultralight / NTAG) command set: one case per command frame, its framing, and the
/// answer it expects. Frames carry no CRC (the transport adds it).
///
/// Sources: MF0ICU1 §9, MF0ICU2 §9, MF0ULX1 §10, NTAG213/215/216 §10 (command tables).
///
/// Send with ``send(via:)`` or with the typed helpers (``read(page:from:)``, ``fastRead(pages:from:)``,
/// ``write(page:data:to:)`` …), which validate the answer's length. These helpers never re-select:
/// after a refused command NXP tags are IDLE, and the caller decides whether to ``TagTransport/reselect()``.
public enum Type2Command: Sendable, Hashable {
    /// READ (30h): four pages from `page` (16 bytes), rolling over at the end of memory or AUTH0.
    case read(page: UInt8)
    /// FAST_READ (3Ah): pages `start` through `end` inclusive.
    case fastRead(start: UInt8, end: UInt8)
    /// WRITE (A2h): one page; answered by a 4-bit ACK.
    case write(page: UInt8, data: [UInt8])
    /// COMPATIBILITY_WRITE (A0h), first frame: the page address; the tag ACKs and waits for the data.
    case compatibilityWriteAddress(page: UInt8)
    /// COMPATIBILITY_WRITE, second frame: 16 bytes of which the tag stores the first 4.
    case compatibilityWriteData([UInt8])
    /// GET_VERSION (60h): 8 bytes.
    case getVersion
    /// READ_SIG (3Ch 00h): the originality signature, 32 bytes (48 on Ultralight AES and NTAG 22x DNA).
    case readSignature
    /// READ_CNT (39h): a 24-bit counter, little-endian.
    case readCounter(UInt8)
    /// CHECK_TEARING_EVENT (3Eh): one byte, BDh when the counter was written without tearing.
    case checkTearingEvent(UInt8)
    /// PWD_AUTH (1Bh): 4-byte password; answered by the 2-byte PACK.
    case pwdAuth(password: [UInt8])

    /// The frame to send (without CRC).
    public var bytes: [UInt8] {
        switch self {
        case let .read(page): [0x30, page]
        case let .fastRead(start, end): [0x3A, start, end]
        case let .write(page, data): [0xA2, page] + data
        case let .compatibilityWriteAddress(page): [0xA0, page]
        case let .compatibilityWriteData(data): data
        case .getVersion: [0x60]
        case .readSignature: [0x3C, 0x00]
        case let .readCounter(counter): [0x39, counter]
        case let .checkTearingEvent(counter): [0x3E, counter]
        case let .pwdAuth(password): [0x1B] + password
        }
    }

    /// How the frame must travel. GET_VERSION and PWD_AUTH go raw: a PN53x would otherwise take 60h/1Bh
    /// frames for MIFARE Classic commands (libnfc's nfc-mfultralight sends them raw too).
    public var framing: Framing {
        switch self {
        case .getVersion, .pwdAuth: .raw
        default: .standard
        }
    }

    /// The answer length a well-behaved tag gives (READ_SIG: the shortest, 32); nil for a 4-bit ACK.
    public var expectedAnswerLength: Int? {
        switch self {
        case .read: 16
        case let .fastRead(start, end): end >= start ? (Int(end) - Int(start) + 1) * 4 : 0
        case .write, .compatibilityWriteAddress, .compatibilityWriteData: nil
        case .getVersion: 8
        case .readSignature: 32
        case .readCounter: 3
        case .checkTearingEvent: 1
        case .pwdAuth: 2
        }
    }

    /// Sends the frame and checks the answer: data commands must return at least
    /// ``expectedAnswerLength`` bytes (extra bytes are cut off), write frames must be ACKed.
    /// Throws ``NFCError/invalidResponse(_:)`` for a short answer or a missing ACK; transport errors pass through.
    @discardableResult
    public func send(via transport: some TagTransport) async throws -> [UInt8] {
        let answer = try await transport.transceive(bytes, framing: framing)
        guard let length = expectedAnswerLength else {
            // 4-bit ACK is 0Ah; some backends give an empty answer for it.
            guard answer.isEmpty || answer == [0x0A] else { throw NFCError.invalidResponse(answer) }
            return answer
        }
        guard answer.count >= length else { throw NFCError.invalidResponse(answer) }
        return Array(answer.prefix(length))
    }
}

// MARK: - Typed helpers

extension Type2Command {
    /// READ: 16 bytes from `page` (four pages, rolling over at the end of memory or at AUTH0).
    public static func read(page: Int, from transport: some TagTransport) async throws -> [UInt8] {
        try await Type2Command.read(page: try pageAddress(page)).send(via: transport)
    }

    /// FAST_READ: exactly `pages.count * 4` bytes. Keep ranges ≤ 60 pages through libnfc, which cannot
    /// return more than about 262 bytes in one exchange.
    public static func fastRead(pages: ClosedRange<Int>, from transport: some TagTransport) async throws -> [UInt8] {
        try await Type2Command.fastRead(start: try pageAddress(pages.lowerBound), end: try pageAddress(pages.upperBound))
            .send(via: transport)
    }

    /// WRITE one 4-byte page. A NAK or a missing ACK throws ``NFCError/writeFailed(page:)``.
    public static func write(page: Int, data: [UInt8], to transport: some TagTransport) async throws {
        guard data.count == 4 else { throw NFCError.invalidArgument("A Type 2 page holds 4 bytes, not \(data.count)") }
        let address = try pageAddress(page)
        do {
            try await Type2Command.write(page: address, data: data).send(via: transport)
        } catch let error as NFCError {
            throw mapWriteError(error, page: page)
        }
    }

    /// COMPATIBILITY_WRITE as the protocol has it: two frames, `A0 pp` → ACK, then 16 bytes (the page
    /// data and 12 zero bytes) → ACK. Upstream sent one 18-byte frame, which a real tag NAKs.
    public static func compatibilityWrite(page: Int, data: [UInt8], to transport: some TagTransport) async throws {
        guard data.count == 4 else { throw NFCError.invalidArgument("A Type 2 page holds 4 bytes, not \(data.count)") }
        let address = try pageAddress(page)
        do {
            try await Type2Command.compatibilityWriteAddress(page: address).send(via: transport)
            try await Type2Command.compatibilityWriteData(data + [UInt8](repeating: 0, count: 12)).send(via: transport)
        } catch let error as NFCError {
            throw mapWriteError(error, page: page)
        }
    }

    /// GET_VERSION: the 8-byte version (look it up in ``GetVersionTable``).
    public static func getVersion(from transport: some TagTransport) async throws -> [UInt8] {
        try await Type2Command.getVersion.send(via: transport)
    }

    /// READ_SIG: the ECC originality signature (not verified here), `length` bytes: the product's
    /// ``Type2Product/signatureLength`` (32 on secp128r1, 48 on secp192r1). A shorter answer throws
    /// ``NFCError/invalidResponse(_:)``.
    public static func readSignature(from transport: some TagTransport, length: Int) async throws -> [UInt8] {
        let command = Type2Command.readSignature
        let answer = try await transport.transceive(command.bytes, framing: command.framing)
        guard length > 0, answer.count >= length else { throw NFCError.invalidResponse(answer) }
        return Array(answer.prefix(length))
    }

    /// READ_CNT: counter `counter` (0–2) as a number; the wire order is little-endian.
    public static func readCounter(_ counter: UInt8, from transport: some TagTransport) async throws -> UInt32 {
        let bytes = try await Type2Command.readCounter(counter).send(via: transport)
        return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16
    }

    /// CHECK_TEARING_EVENT: the tearing flag of counter `counter` (BDh = no tearing).
    public static func checkTearingEvent(_ counter: UInt8, from transport: some TagTransport) async throws -> UInt8 {
        try await Type2Command.checkTearingEvent(counter).send(via: transport)[0]
    }

    /// PWD_AUTH with a 4-byte password; returns the PACK. A refused or unanswered password throws
    /// ``NFCError/authenticationFailed`` (the tag is then IDLE: re-select before the next command).
    /// The PACK is returned, not checked: compare it with the expected one where it matters.
    public static func pwdAuth(password: [UInt8], on transport: some TagTransport) async throws -> [UInt8] {
        guard password.count == 4 else {
            throw NFCError.invalidArgument("A PWD_AUTH password is 4 bytes, not \(password.count)")
        }
        do {
            return try await Type2Command.pwdAuth(password: password).send(via: transport)
        } catch NFCError.commandRefused, NFCError.timeout {
            throw NFCError.authenticationFailed
        }
    }

    private static func pageAddress(_ page: Int) throws(NFCError) -> UInt8 {
        guard let address = UInt8(exactly: page) else {
            throw NFCError.invalidArgument("Page \(page) is outside 0-255")
        }
        return address
    }

    private static func mapWriteError(_ error: NFCError, page: Int) -> NFCError {
        switch error {
        case .commandRefused, .invalidResponse: .writeFailed(page: page)
        default: error
        }
    }
}
