import NFCCore

/// How NFCCore's tag commands become PC/SC pseudo-APDUs and back (PC/SC part 3 §3.2.2.1), written against
/// a `transmit` function so the mapping is tested without pcscd. One value per exchange; it holds no
/// state but the Classic WRITE's two halves (``Exchange/pendingWrite``), which the session keeps.
struct PCSCCommandMapping {
    /// Sends one APDU and returns the whole answer as the card (or reader) gave it.
    typealias Exchange = ([UInt8]) throws(NFCError) -> [UInt8]

    /// `pcsc:<reader name>`, named in `unsupported` errors.
    let reader: String
    let target: Target
    /// What the reader offers (how raw frames travel, if at all).
    let profile: PCSCReaderProfile
    let exchange: Exchange

    init(reader: String, target: Target, profile: PCSCReaderProfile = .row(.transparentSession), exchange: @escaping Exchange) {
        self.reader = reader
        self.target = target
        self.profile = profile
        self.exchange = exchange
    }

    /// Sends one APDU and returns the data and status word; an answer shorter than a status word is
    /// ``NFCError/invalidResponse(_:)``.
    func transmit(_ apdu: [UInt8]) throws(NFCError) -> (data: [UInt8], sw1: UInt8, sw2: UInt8) {
        let answer = try exchange(apdu)
        guard let parts = PCSCPseudoAPDU.split(answer) else { throw .invalidResponse(answer) }
        return parts
    }

    /// MIFARE Classic (SAK bit 4, 08h): 16-byte blocks and Crypto1 sectors.
    var isClassic: Bool { target.modulation == .iso14443a && !target.isISODEP && (target.sak ?? 0) & 0x08 != 0 }

    // MARK: ISO 14443-A storage cards and FeliCa

    /// Sends one Type 2 / Classic / FeliCa command. READ (30h), FAST_READ (3Ah), WRITE (A2h) and
    /// COMPATIBILITY / Classic WRITE (A0h + 16 bytes) become READ BINARY / UPDATE BINARY; every other
    /// frame (GET_VERSION, READ_SIG, PWD_AUTH, READ_CNT, FeliCa commands…) goes through the transparent
    /// session. ISO-DEP cards get the frame as it is. `pendingWrite` carries a Classic / compatibility
    /// WRITE's block from its first half to its data.
    func transceive(_ command: [UInt8], framing: Framing, pendingWrite: inout Int?) throws(NFCError) -> [UInt8] {
        guard let code = command.first else { throw .invalidArgument("An empty command cannot be sent") }
        if target.isISODEP || target.modulation == .iso14443b {
            return try passThrough(command)
        }
        if target.modulation.isFeliCa {
            // FeliCa frames carry their LEN byte on the air; NFCCore's never do.
            let answer = try rawExchange([UInt8(command.count + 1)] + command, command: code).data
            guard let length = answer.first, Int(length) == answer.count, answer.count >= 1 else {
                throw .invalidResponse(answer)
            }
            return Array(answer.dropFirst())
        }
        if let block = pendingWrite {
            pendingWrite = nil
            guard command.count == 16 else {
                throw .invalidArgument("The second half of a WRITE (A0h) must be 16 bytes, got \(command.count)")
            }
            // Type 2 COMPATIBILITY WRITE writes the first 4 bytes (NTAG213/215/216 datasheet §10.4).
            return try update(block: block, data: isClassic ? command : Array(command.prefix(4)), command: 0xA0)
        }
        switch code {
        case 0x30 where command.count == 2:
            return try read(block: Int(command[1]), length: 16, command: code)
        case 0x3A where command.count == 3 && command[2] >= command[1] && !isClassic:
            // FAST_READ start…end: four pages per READ BINARY.
            var data: [UInt8] = []
            var page = Int(command[1])
            let end = Int(command[2])
            while page <= end {
                data += try read(block: page, length: 16, command: code)
                page += 4
            }
            return Array(data.prefix((end - Int(command[1]) + 1) * 4))
        case 0xA2 where command.count == 6 && !isClassic:
            return try update(block: Int(command[1]), data: Array(command[2...]), command: code)
        case 0xA0 where command.count == 18:
            // WRITE in the one frame PN53x InDataExchange takes (`A0 blk` + 16 bytes): UPDATE BINARY of the
            // block, as every part 3 reader writes a Classic block (§3.2.2.1.9); a Type 2 tag takes 4 bytes.
            let data = Array(command[2...])
            return try update(block: Int(command[1]), data: isClassic ? data : Array(data.prefix(4)), command: code)
        case 0xA0 where command.count == 2:
            pendingWrite = Int(command[1])
            return [Self.ack]
        default:
            return try raw(command)
        }
    }

    /// The 4-bit ACK of a Type 2 WRITE as NFCCore expects it.
    static let ack: UInt8 = 0x0A

    /// A frame through the transparent session, with the 4-bit ACK / NAK of Type 2 tags told apart.
    private func raw(_ command: [UInt8]) throws(NFCError) -> [UInt8] {
        let answer = try rawExchange(command, command: command[0])
        if answer.lastByteBits == 4, answer.data.count == 1 {
            if answer.data[0] & 0x0F == Self.ack { return [Self.ack] }
            throw .commandRefused(command: command[0], nak: answer.data[0] & 0x0F)
        }
        return answer.data
    }

    /// READ BINARY; a refusal is the tag's NAK (the block is out of range or protected).
    private func read(block: Int, length: UInt8, command: UInt8) throws(NFCError) -> [UInt8] {
        let (data, sw1, sw2) = try transmit(PCSCPseudoAPDU.readBinary(block: block, length: length))
        if (sw1, sw2) == (0x90, 0x00) { return data }
        if PCSCPseudoAPDU.meansUnsupported(sw1: sw1, sw2: sw2), (sw1, sw2) != (0x6B, 0x00), (sw1, sw2) != (0x6A, 0x86) {
            throw unsupported("READ BINARY (FF B0)", sw1: sw1, sw2: sw2)
        }
        throw .commandRefused(command: command, nak: nil)
    }

    /// UPDATE BINARY; success is the 4-bit ACK NFCCore expects from a WRITE.
    private func update(block: Int, data: [UInt8], command: UInt8) throws(NFCError) -> [UInt8] {
        let (_, sw1, sw2) = try transmit(PCSCPseudoAPDU.updateBinary(block: block, data: data))
        if (sw1, sw2) == (0x90, 0x00) { return [Self.ack] }
        if PCSCPseudoAPDU.meansUnsupported(sw1: sw1, sw2: sw2), (sw1, sw2) != (0x6B, 0x00), (sw1, sw2) != (0x6A, 0x86) {
            throw unsupported("UPDATE BINARY (FF D6)", sw1: sw1, sw2: sw2)
        }
        throw .commandRefused(command: command, nak: nil)
    }

    // MARK: ISO-DEP

    /// An APDU (or a DESFire native frame) as it is; the answer as the card sent it (a native DESFire
    /// answer may be its status byte alone).
    ///
    /// A frame shorter than an APDU header (4 bytes) cannot be an ISO 7816-4 command: it is a DESFire
    /// native command (GetApplicationIDs 6Ah, GetKeySettings 45h, AFh, GetFileSettings F5h + file…),
    /// which PC/SC readers may refuse as a malformed APDU and vsmartcard's vpcd even takes for a
    /// control message when it is one byte. It travels ISO/IEC 7816-4 wrapped instead
    /// (`90 INS 00 00 [Lc data] 00`, MIFARE DESFire EV1 datasheet §9.2), and the wrapped answer
    /// (data, `91 status`) is given back in native form (status, data): the same exchange.
    func passThrough(_ apdu: [UInt8]) throws(NFCError) -> [UInt8] {
        guard apdu.count < 4, let instruction = apdu.first else { return try exchange(apdu) }
        let data = Array(apdu.dropFirst())
        let wrapped = [0x90, instruction, 0x00, 0x00] + (data.isEmpty ? [] : [UInt8(data.count)] + data) + [0x00]
        let answer = try exchange(wrapped)
        guard let (body, sw1, sw2) = PCSCPseudoAPDU.split(answer), sw1 == 0x91 else { return answer }
        return [sw2] + body
    }

    // MARK: MIFARE Classic

    /// LOAD KEYS into the reader's volatile slot, then GENERAL AUTHENTICATE the block. The reader keeps
    /// one authenticated sector, the last one (a Classic card has one Crypto1 session): nothing here
    /// remembers earlier ones — the lesson of nfc-pcsc#80.
    func authenticate(block: Int, keyType: ClassicKeyType, key: [UInt8]) throws(NFCError) {
        guard key.count == 6 else { throw .invalidArgument("A MIFARE Classic key is 6 bytes, got \(key.count)") }
        let (_, loadSW1, loadSW2) = try transmit(PCSCPseudoAPDU.loadKey(key))
        guard (loadSW1, loadSW2) == (0x90, 0x00) else {
            throw unsupported("LOAD KEYS (FF 82)", sw1: loadSW1, sw2: loadSW2)
        }
        let (_, sw1, sw2) = try transmit(PCSCPseudoAPDU.generalAuthenticate(block: block, keyType: keyType))
        if (sw1, sw2) == (0x90, 0x00) { return }
        if PCSCPseudoAPDU.meansUnsupported(sw1: sw1, sw2: sw2) {
            throw unsupported("GENERAL AUTHENTICATE (FF 86)", sw1: sw1, sw2: sw2)
        }
        throw .authenticationFailed
    }

    // MARK: ISO 15693

    /// One ISO 15693 request: READ / WRITE SINGLE BLOCK and their EXTENDED forms without the option flag
    /// become READ / UPDATE BINARY with the block number in P1 P2 (so blocks above 255 work); every other
    /// request (GET SYSTEM INFORMATION, EXTENDED GET SYSTEM INFORMATION, reads with the security status,
    /// LOCK BLOCK, custom commands) goes through the transparent session as its frame. The answer is the
    /// response frame NFCCore expects: flags byte first, `01 <code>` for a refusal.
    func send(_ request: ISO15693Request) throws(NFCError) -> [UInt8] {
        let plain = !request.flags.contains(.option)
        switch request.command {
        case 0x20, 0x30:
            if plain, let block = request.blockNumber {
                let (data, sw1, sw2) = try transmit(PCSCPseudoAPDU.readBinary(block: block, length: 0x00))
                if (sw1, sw2) == (0x90, 0x00) { return [0x00] + data }
                if PCSCPseudoAPDU.meansUnsupported(sw1: sw1, sw2: sw2), (sw1, sw2) != (0x6B, 0x00), (sw1, sw2) != (0x6A, 0x86) {
                    throw unsupported("READ BINARY (FF B0)", sw1: sw1, sw2: sw2)
                }
                return [0x01, PCSCPseudoAPDU.iso15693ErrorCode(sw1: sw1, sw2: sw2)]
            }
        case 0x21, 0x31:
            let dataStart = request.command == 0x21 ? 1 : 2
            if plain, let block = request.blockNumber, request.parameters.count > dataStart {
                let data = Array(request.parameters[dataStart...])
                let (_, sw1, sw2) = try transmit(PCSCPseudoAPDU.updateBinary(block: block, data: data))
                if (sw1, sw2) == (0x90, 0x00) { return [0x00] }
                if PCSCPseudoAPDU.meansUnsupported(sw1: sw1, sw2: sw2), (sw1, sw2) != (0x6B, 0x00), (sw1, sw2) != (0x6A, 0x86) {
                    throw unsupported("UPDATE BINARY (FF D6)", sw1: sw1, sw2: sw2)
                }
                return [0x01, PCSCPseudoAPDU.iso15693ErrorCode(sw1: sw1, sw2: sw2)]
            }
        default:
            break
        }
        let answer = try rawExchange(request.frame, command: request.command)
        guard !answer.data.isEmpty else { throw .invalidResponse([]) }
        return answer.data
    }

    // MARK: Raw frames

    /// One raw frame by the way the reader offers: the transparent session, else the ACR122U's Direct
    /// Transmit (InCommunicateThru); a reader with neither answers ``NFCError/unsupportedOperation(_:)``
    /// naming itself, its profile and the command, with nothing sent.
    func rawExchange(_ frame: [UInt8], command: UInt8) throws(NFCError) -> PCSCPseudoAPDU.TransparentAnswer {
        let capabilities = profile.capabilities
        if capabilities.contains(.transparentSession) { return try transparent(frame, command: command) }
        guard capabilities.contains(.directTransmit) else {
            throw .unsupportedOperation(
                "\(reader) (profile \(profile.model.rawValue)) cannot send command \(command.hexString): "
                    + "it has no transparent session (FF C2) and no Direct Transmit escape")
        }
        switch try PCSCVendorAPDU.thruAnswer(try exchange(PCSCVendorAPDU.inCommunicateThru(frame))) {
        case let .data(bytes):
            // A one-byte answer to a Type 2 command is its 4-bit ACK / NAK.
            return .init(status: (0x90, 0x00), data: bytes, lastByteBits: bytes.count == 1 ? 4 : nil)
        case .timeout:
            throw .timeout
        case let .pn532Error(status):
            throw .rfError("\(reader): InCommunicateThru (Direct Transmit) of command \(command.hexString) failed: PN532 status \(status.hexString)")
        case let .refused(sw1, sw2):
            throw unsupported("command \(command.hexString) through Direct Transmit (FF 00 00 00)", sw1: sw1, sw2: sw2)
        }
    }

    // MARK: Transparent session

    /// Starts a transparent session, exchanges `frame` (the reader adds and checks the CRC) and ends the
    /// session. A reader without transparent sessions answers ``NFCError/unsupportedOperation(_:)``
    /// naming itself and the command; a tag that stays silent is ``NFCError/timeout``.
    func transparent(_ frame: [UInt8], command: UInt8) throws(NFCError) -> PCSCPseudoAPDU.TransparentAnswer {
        let name = "command \(command.hexString) through the transparent session (FF C2)"
        let (_, startSW1, startSW2) = try transmit(PCSCPseudoAPDU.startSession)
        guard (startSW1, startSW2) == (0x90, 0x00) else { throw unsupported(name, sw1: startSW1, sw2: startSW2) }
        let result: Result<PCSCPseudoAPDU.TransparentAnswer, NFCError>
        do throws(NFCError) {
            let (data, sw1, sw2) = try transmit(PCSCPseudoAPDU.transparentExchange(frame))
            if (sw1, sw2) != (0x90, 0x00), PCSCPseudoAPDU.meansUnsupported(sw1: sw1, sw2: sw2) {
                throw unsupported(name, sw1: sw1, sw2: sw2)
            }
            let answer = try PCSCPseudoAPDU.parseTransparentAnswer(data)
            switch answer.status {
            case (0x90, 0x00) where (sw1, sw2) == (0x90, 0x00): result = .success(answer)
            // 64 01: no answer from the card within the reader's timer (PC/SC part 3 supplement, error status).
            case (0x64, _): result = .failure(.timeout)
            case (0x6A, 0x81), (0x6D, 0x00): result = .failure(unsupported(name, sw1: answer.status.0, sw2: answer.status.1))
            default:
                result = .failure(.rfError(
                    "\(reader): \(name) failed: status \(answer.status.0.hexString) \(answer.status.1.hexString), SW \(sw1.hexString) \(sw2.hexString)"))
            }
        } catch {
            result = .failure(error)
        }
        // Always end the session, so the reader goes back to its own polling; a card that left makes
        // this fail too, and the exchange's error is the one that matters.
        if case .failure(.tagRemoved) = result {} else { _ = try? transmit(PCSCPseudoAPDU.endSession) }
        return try result.get()
    }

    /// `unsupported` naming the reader and the command, with the status word the reader answered.
    func unsupported(_ what: String, sw1: UInt8, sw2: UInt8) -> NFCError {
        .unsupportedOperation("\(reader) does not support \(what) (it answered \(sw1.hexString) \(sw2.hexString))")
    }
}
