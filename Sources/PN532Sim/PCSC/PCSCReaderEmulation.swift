import enum NFCCore.ClassicKeyType

/// A PC/SC part 3 contactless reader with one slot, and the virtual card in its field: what a
/// driver such as an ACR1252U's answers to SCardTransmit. One command APDU in, one response APDU
/// (data + SW1 SW2) out; the card comes from an ``RFField``.
///
/// Pseudo-APDUs (class FF, PC/SC part 3 rev. 2.02 §3.2.2.1):
/// - `FF CA 00 00` Get Data UID (ISO 15693: least significant byte first, as on the air), `FF CA 01 00`
///   the ATS with its TL byte (ISO/IEC 14443-4 A cards only, ACR1252U §5.2.4.1);
/// - `FF B0 P1 P2 Le` Read Binary and `FF D6 P1 P2 Lc data` Update Binary: Type 2 pages (READ 30h gives
///   16 bytes, WRITE A2h takes 4 per page), Classic blocks after an authentication, ISO 15693 blocks
///   (P1 P2 = block number; from 256 on through the EXTENDED commands);
/// - `FF 82 00 NN 06 key` Load Keys into volatile slot NN (00h or 01h);
/// - `FF 86 00 00 05 01 00 block 60|61 NN` General Authenticate, and the older `FF 88 00 block 60|61 NN`.
///   Only the last authentication counts: a new one replaces the sector, a failed one halts the card
///   and leaves nothing authenticated (what nfc-pcsc learnt from ACR122U's);
/// - `FF C2 00 00` Manage Session and `FF C2 00 01` Transparent Exchange (§3.2.2.1.12–13): raw
///   frames to the card inside a transparent session.
///
/// Any other class goes to an ISO/IEC 14443-4 card unchanged (Type 4, DESFire native-wrapped `90 …`).
/// The status words are ``PCSCStatusWord``; docs/simulator.md lists which command gives which.
///
/// Not thread-safe: one thread (the vpcd connection's) drives it.
public final class PCSCReaderEmulation {
    /// What the reader answers beyond the common set.
    public struct Profile: Sendable, Equatable {
        /// `FF CA 02 00` answers the ATQA (2 bytes, MSB first) and `FF CA 03 00` the SAK, as some
        /// readers' vendor extensions do; off (6A 81), like an ACR1252U, by default.
        public var answersATQAAndSAK: Bool
        /// The reader's command set (``PCSCReaderModel``): what it refuses, its vendor commands.
        public var model: PCSCReaderModel

        /// A profile; the default is a part 3 reader with the transparent session.
        public init(answersATQAAndSAK: Bool = false, model: PCSCReaderModel = .part3Transparent) {
            self.answersATQAAndSAK = answersATQAAndSAK
            self.model = model
        }
    }

    /// Volatile key slots of Load Keys (ACR122U API §5.3: two, 00h and 01h).
    public static let keySlots: ClosedRange<UInt8> = 0x00...0x01

    /// The field the card lies in (faults and removal checks act through it).
    public let field: RFField
    /// Reader-specific answers.
    public let profile: Profile
    /// The card in the slot, nil when none is presented.
    public private(set) var card: PlacedTag?
    /// The LEDs, the buzzer and the reader's faults.
    public let panel: PCSCReaderPanel

    private var keys: [UInt8: [UInt8]] = [:]
    /// The sector of the last successful Classic authentication since the card was powered.
    private var authenticatedSector: Int?
    /// The card halted (NAK, failed authentication): the reader re-selects it before the next command.
    private var mustReselect = false
    private var isTransparentSessionOpen = false

    /// A reader over `field` with no card yet.
    public init(field: RFField, profile: Profile = Profile(), panel: PCSCReaderPanel = PCSCReaderPanel()) {
        self.field = field
        self.profile = profile
        self.panel = panel
    }

    /// The ATR of the card, nil without one (``PCSCAnswerToReset``).
    public var atr: [UInt8]? { card.flatMap { PCSCAnswerToReset.make(for: $0.tag) } }

    /// Puts `placed` in the slot and powers it (the card was detected).
    public func insert(_ placed: PlacedTag) {
        card = placed
        keys = [:]
        powerOn()
    }

    /// Empties the slot (the card left).
    public func eject() {
        powerOff()
        card = nil
        panel.setMute(false)
    }

    /// Power on (vpcd control 01h) and reset (02h): the reader selects the card afresh.
    public func powerOn() {
        guard let card else { return }
        card.tag.powerOff()
        _ = card.tag.activate()
        authenticatedSector = nil
        mustReselect = false
        isTransparentSessionOpen = false
    }

    /// Power off (vpcd control 00h): the field goes off for the card.
    public func powerOff() {
        card?.tag.powerOff()
        authenticatedSector = nil
        mustReselect = false
        isTransparentSessionOpen = false
    }

    /// Answers one command APDU.
    public func process(_ apdu: [UInt8]) -> [UInt8] {
        guard let card else { return PCSCStatusWord.failed.bytes }
        // `FF 88 00 block keyType slot` (ACR122U API §5.4, "obsolete" but still answered) has no Lc.
        if apdu.count == 6, apdu[0] == 0xFF, apdu[1] == 0x88, profile.model.row.commands.contains(.classicKeys) {
            guard apdu[2] == 0x00 else { return PCSCStatusWord.wrongParameters.bytes }
            return authenticate(block: Int(apdu[3]), keyType: apdu[4], slot: apdu[5], card)
        }
        // Other classes go to the card as they are (the card judges their form, extended lengths too).
        guard apdu.first == 0xFF else { return passThrough(apdu, to: card) }
        guard let command = CommandAPDU(apdu) else { return PCSCStatusWord.wrongLength.bytes }
        // A part 3 command this reader's manual does not list: 6A 81, as the ACR122U answers FF C2; an
        // ACR122U pseudo-APDU (INS 00) on another reader is an unknown instruction (6D 00).
        guard let kind = PCSCReaderModel.command(ins: command.ins, p1: command.p1) else {
            return PCSCStatusWord.instructionNotSupported.bytes
        }
        guard profile.model.row.commands.contains(kind) else {
            return command.ins == 0x00 ? PCSCStatusWord.instructionNotSupported.bytes : PCSCStatusWord.functionNotSupported.bytes
        }
        switch command.ins {
        case 0x00: return vendorCommand(command, card)
        case 0xCA: return getData(command, card)
        case 0xB0: return readBinary(command, card)
        case 0xD6: return updateBinary(command, card)
        case 0x82: return loadKeys(command)
        case 0x86: return generalAuthenticate(command, card)
        case 0xC2: return transparent(command, card)
        default: return PCSCStatusWord.instructionNotSupported.bytes
        }
    }

    // MARK: Reaching the card

    /// Re-selects a halted card, then lets the command through unless the card left (a
    /// `remove_after_commands` fault counts it here).
    func reach(_ card: PlacedTag) -> Bool {
        if mustReselect {
            card.tag.powerOff()
            _ = card.tag.activate()
            authenticatedSector = nil
            mustReselect = false
        }
        return field.admitCommand(to: card)
    }

    /// Sends one frame; a NAK or silence marks the card for re-selection (it went IDLE).
    func exchange(_ frame: [UInt8], with card: PlacedTag) -> VirtualTagReply {
        let reply = card.tag.receive(frame)
        switch reply {
        case .nak, .silent: mustReselect = true
        case .data, .ack: break
        }
        return reply
    }

    /// ISO/IEC 14443-4 cards (type A with SAK bit 6, the type B card) get the APDU as it is; other cards
    /// do not know classes other than FF.
    private func passThrough(_ apdu: [UInt8], to card: PlacedTag) -> [UInt8] {
        guard card.tag.target.isISODEP || card.tag is VirtualTypeBTag, let isoDEP = card.tag as? ISODEPVirtualTag else {
            return PCSCStatusWord.classNotSupported.bytes
        }
        guard reach(card) else { return PCSCStatusWord.failed.bytes }
        var apdu = apdu
        if WriteCorruption.isAPDUWrite(apdu), field.takeCorruptNextWrite() { apdu = WriteCorruption.corrupted(apdu) }
        return isoDEP.process(apdu: apdu)
    }

    // MARK: Get Data

    private func getData(_ command: CommandAPDU, _ card: PlacedTag) -> [UInt8] {
        guard command.p2 == 0x00 else { return PCSCStatusWord.wrongParameters.bytes }
        let target = card.tag.target
        let value: [UInt8]
        switch command.p1 {
        case 0x00:
            value = card.tag is ISO15693VirtualTag ? target.uid.reversed() : target.uid
        case 0x01 where target.isISODEP && card.tag is ISODEPVirtualTag:
            value = [UInt8(truncatingIfNeeded: target.ats.count + 1)] + target.ats
        case 0x02 where profile.answersATQAAndSAK && target.modulation == .iso14443a:
            value = target.atqa
        case 0x03 where profile.answersATQAAndSAK && target.modulation == .iso14443a:
            guard let sak = target.sak else { return PCSCStatusWord.functionNotSupported.bytes }
            value = [sak]
        default:
            return PCSCStatusWord.functionNotSupported.bytes
        }
        // ACR1252U §5.2.4.1: Le shorter than the value → 6C XX (the exact length); longer → the value
        // and 62 82 (end reached before Le bytes); 00 → the value.
        guard let le = command.le, le != 256, le != value.count else { return value + PCSCStatusWord.success.bytes }
        if le < value.count { return [0x6C, UInt8(value.count)] }
        return value + [0x62, 0x82]
    }

    // MARK: Read Binary / Update Binary

    /// How the reader talks to a card: what its ATR and the field's modulation say.
    private enum Kind {
        case type2, classic(VirtualClassicTag), iso15693(ISO15693VirtualTag), other
    }

    private func kind(of card: PlacedTag) -> Kind {
        if let iso15693 = card.tag as? ISO15693VirtualTag { return .iso15693(iso15693) }
        if let classic = card.tag as? VirtualClassicTag { return .classic(classic) }
        let target = card.tag.target
        if target.modulation == .iso14443a, !target.isISODEP { return .type2 }
        return .other
    }

    private func readBinary(_ command: CommandAPDU, _ card: PlacedTag) -> [UInt8] {
        switch kind(of: card) {
        case let .iso15693(tag): readISO15693(command.p1p2, le: command.le, tag, card)
        case .type2, .classic: readMIFARE(command.p1p2, le: command.le, card)
        case .other: PCSCStatusWord.functionNotSupported.bytes
        }
    }

    /// Type 2 READ (4 pages) or Classic READ (one block): 16 bytes; Le 1…16 cuts them, 00 gives all.
    private func readMIFARE(_ block: Int, le: Int?, _ card: PlacedTag) -> [UInt8] {
        guard block <= 0xFF else { return PCSCStatusWord.blockNotFound.bytes }
        let length = le == 256 ? 16 : (le ?? 16)
        guard (1...16).contains(length) else { return PCSCStatusWord.wrongLength.bytes }
        if let classic = card.tag as? VirtualClassicTag, classic.layout.sector(ofBlock: block) == nil {
            return PCSCStatusWord.blockNotFound.bytes
        }
        guard reach(card) else { return PCSCStatusWord.failed.bytes }
        guard case let .data(bytes) = exchange([0x30, UInt8(block)], with: card), bytes.count >= length else {
            return refusal(block: block, card)
        }
        return Array(bytes.prefix(length)) + PCSCStatusWord.success.bytes
    }

    private func updateBinary(_ command: CommandAPDU, _ card: PlacedTag) -> [UInt8] {
        let block = command.p1p2
        switch kind(of: card) {
        case let .iso15693(tag):
            return writeISO15693(block, data: command.data, tag, card)
        case let .classic(classic):
            guard block <= 0xFF, classic.layout.sector(ofBlock: block) != nil else { return PCSCStatusWord.blockNotFound.bytes }
            guard command.data.count == 16 else { return PCSCStatusWord.wrongLength.bytes }
            guard reach(card) else { return PCSCStatusWord.failed.bytes }
            guard exchange([0xA0, UInt8(block)], with: card) == .ack else { return refusal(block: block, card) }
            var data = command.data
            if field.takeCorruptNextWrite() { data = WriteCorruption.corrupted(data) }
            guard exchange(data, with: card) == .ack else { return refusal(block: block, card) }
            return PCSCStatusWord.success.bytes
        case .type2:
            // Type 2: 4 bytes per page; 8, 12 or 16 bytes write the following pages too.
            guard block <= 0xFF else { return PCSCStatusWord.blockNotFound.bytes }
            let data = command.data
            guard !data.isEmpty, data.count % 4 == 0, data.count <= 16 else { return PCSCStatusWord.wrongLength.bytes }
            for (offset, page) in data.chunked(4).enumerated() {
                guard block + offset <= 0xFF, reach(card) else { return PCSCStatusWord.failed.bytes }
                var frame = [0xA2, UInt8(block + offset)] + page
                if WriteCorruption.isType2Write(frame), field.takeCorruptNextWrite() { frame = WriteCorruption.corrupted(frame) }
                guard exchange(frame, with: card) == .ack else { return PCSCStatusWord.failed.bytes }
            }
            return PCSCStatusWord.success.bytes
        case .other:
            return PCSCStatusWord.functionNotSupported.bytes
        }
    }

    /// A Classic block outside the authenticated sector: 69 82; any other refusal: 63 00.
    private func refusal(block: Int, _ card: PlacedTag) -> [UInt8] {
        if let classic = card.tag as? VirtualClassicTag, classic.layout.sector(ofBlock: block) != authenticatedSector {
            return PCSCStatusWord.securityStatusNotSatisfied.bytes
        }
        return PCSCStatusWord.failed.bytes
    }

    // MARK: ISO 15693 blocks

    /// ISO/IEC 15693-3 request flags the reader sends: addressed (bit 6) at the high data rate (bit 2).
    static let iso15693AddressedFlags: UInt8 = 0x22

    private func iso15693Request(_ command: UInt8, block: Int, _ tag: ISO15693VirtualTag) -> [UInt8] {
        // Blocks up to 255: READ/WRITE SINGLE BLOCK (20h/21h) with a one-byte address; beyond: the
        // EXTENDED commands (30h/31h) with a two-byte address, LSB first (ISO/IEC 15693-3:2019).
        let uid = Array(tag.target.uid.reversed())
        if block <= 0xFF { return [Self.iso15693AddressedFlags, command] + uid + [UInt8(block)] }
        return [Self.iso15693AddressedFlags, command | 0x10] + uid + [UInt8(block & 0xFF), UInt8(block >> 8)]
    }

    private func readISO15693(_ block: Int, le: Int?, _ tag: ISO15693VirtualTag, _ card: PlacedTag) -> [UInt8] {
        guard block < tag.blockCount else { return PCSCStatusWord.blockNotFound.bytes }
        let length = le == 256 ? tag.blockSize : (le ?? tag.blockSize)
        guard (1...tag.blockSize).contains(length) else { return PCSCStatusWord.wrongLength.bytes }
        guard reach(card) else { return PCSCStatusWord.failed.bytes }
        let reply = exchange(iso15693Request(0x20, block: block, tag), with: card)
        guard case let .data(response) = reply, let flags = response.first else { return PCSCStatusWord.failed.bytes }
        guard flags & 0x01 == 0 else { return Self.statusWord(iso15693Error: response.dropFirst().first) }
        guard response.count > length else { return PCSCStatusWord.failed.bytes }
        return Array(response[1...length]) + PCSCStatusWord.success.bytes
    }

    private func writeISO15693(_ block: Int, data: [UInt8], _ tag: ISO15693VirtualTag, _ card: PlacedTag) -> [UInt8] {
        guard block < tag.blockCount else { return PCSCStatusWord.blockNotFound.bytes }
        guard data.count == tag.blockSize else { return PCSCStatusWord.wrongLength.bytes }
        guard reach(card) else { return PCSCStatusWord.failed.bytes }
        var payload = data
        if field.takeCorruptNextWrite() { payload = WriteCorruption.corrupted(payload) }
        let reply = exchange(iso15693Request(0x21, block: block, tag) + payload, with: card)
        guard case let .data(response) = reply, let flags = response.first else { return PCSCStatusWord.failed.bytes }
        guard flags & 0x01 == 0 else { return Self.statusWord(iso15693Error: response.dropFirst().first) }
        return PCSCStatusWord.success.bytes
    }

    /// ISO/IEC 15693-3 error codes as a reader reports them: 10h block not available → 6A 82, 11h/12h
    /// block (already) locked → 69 86, 01h/02h command not supported or recognised → 6A 81, others 63 00.
    static func statusWord(iso15693Error code: UInt8?) -> [UInt8] {
        switch code {
        case 0x10: PCSCStatusWord.blockNotFound.bytes
        case 0x11, 0x12: PCSCStatusWord.commandNotAllowed.bytes
        case 0x01, 0x02: PCSCStatusWord.functionNotSupported.bytes
        default: PCSCStatusWord.failed.bytes
        }
    }

    // MARK: Load Keys / General Authenticate

    private func loadKeys(_ command: CommandAPDU) -> [UInt8] {
        guard command.p1 == 0x00 else { return PCSCStatusWord.wrongParameters.bytes }
        guard Self.keySlots.contains(command.p2) else { return PCSCStatusWord.keyNumberNotValid.bytes }
        guard command.data.count == 6 else { return PCSCStatusWord.keyLengthNotCorrect.bytes }
        keys[command.p2] = command.data
        return PCSCStatusWord.success.bytes
    }

    /// `FF 86 00 00 05 01 00 block keyType slot`: version 01, block MSB LSB, key type 60 (A) / 61 (B).
    private func generalAuthenticate(_ command: CommandAPDU, _ card: PlacedTag) -> [UInt8] {
        let data = command.data
        guard command.p1 == 0x00, command.p2 == 0x00 else { return PCSCStatusWord.wrongParameters.bytes }
        guard data.count == 5 else { return PCSCStatusWord.wrongLength.bytes }
        guard data[0] == 0x01 else { return PCSCStatusWord.wrongParameters.bytes }
        return authenticate(block: Int(data[1]) << 8 | Int(data[2]), keyType: data[3], slot: data[4], card)
    }

    private func authenticate(block: Int, keyType code: UInt8, slot: UInt8, _ card: PlacedTag) -> [UInt8] {
        guard let classic = card.tag as? ClassicVirtualTag else { return PCSCStatusWord.functionNotSupported.bytes }
        let keyType: ClassicKeyType
        switch code {
        case 0x60: keyType = .a
        case 0x61: keyType = .b
        default: return PCSCStatusWord.commandNotAllowed.bytes
        }
        guard let key = keys[slot] else { return PCSCStatusWord.keyNumberNotValid.bytes }
        guard block <= 0xFF, reach(card) else { return PCSCStatusWord.failed.bytes }
        authenticatedSector = nil
        guard classic.authenticate(block: block, keyType: keyType, key: key, uid: Array(card.tag.target.uid.suffix(4))) else {
            mustReselect = true
            return PCSCStatusWord.failed.bytes
        }
        authenticatedSector = (classic as? VirtualClassicTag)?.layout.sector(ofBlock: block)
        return PCSCStatusWord.success.bytes
    }

    // MARK: Transparent session

    private func transparent(_ command: CommandAPDU, _ card: PlacedTag) -> [UInt8] {
        guard command.p1 == 0x00, command.p2 <= 0x01 else { return PCSCStatusWord.functionNotSupported.bytes }
        guard let objects = BERTLV.parse(command.data) else { return PCSCStatusWord.wrongLength.bytes }
        var answer: [UInt8] = []
        for (index, object) in objects.enumerated() {
            let position = UInt8(truncatingIfNeeded: index + 1)
            switch (command.p2, object.tag) {
            case (0x00, 0x80):  // version of the transparent session interface
                answer += [0x80, 0x03, 0x01, 0x00, 0x00]
            case (0x00, 0x81):
                isTransparentSessionOpen = true
            case (0x00, 0x82):
                isTransparentSessionOpen = false
            case (0x00, 0x83):
                card.tag.powerOff()
            case (0x00, 0x84):
                _ = card.tag.activate()
            case (_, 0x5F46), (_, 0xFF6E), (0x01, 0x90):
                break  // timer, set parameters, transmission flags: accepted, nothing to model
            case (0x01, 0x95):
                guard isTransparentSessionOpen else { return Self.sessionError(position, .commandNotAllowed) }
                guard let response = transceive(object.value, card) else {
                    return Self.sessionError(position, nil)
                }
                return Self.sessionOK + answer + response + PCSCStatusWord.success.bytes
            default:
                return Self.sessionError(position, .functionNotSupported)
            }
        }
        return Self.sessionOK + answer + PCSCStatusWord.success.bytes
    }

    /// C0 03 00 90 00: the generic error status "no error" (PC/SC part 3 §3.2.2.1.12, table 3-23).
    static let sessionOK: [UInt8] = [0xC0, 0x03, 0x00, 0x90, 0x00]

    /// C0 03 <data object number> SW1 SW2, then 90 00; `nil` = no answer from the card (64 01).
    static func sessionError(_ position: UInt8, _ status: PCSCStatusWord?) -> [UInt8] {
        [0xC0, 0x03, position] + (status?.bytes ?? [0x64, 0x01]) + PCSCStatusWord.success.bytes
    }

    /// One raw frame to the card (Transceive data object 95h); the card's answer as data objects:
    /// 92 01 (valid bits of the last byte: 04 for a 4-bit ACK/NAK, else 00), 96 02 00 00 (response
    /// status: no error) and 97 (the answer). FeliCa frames carry their LEN byte both ways. Nil when
    /// the card does not answer.
    private func transceive(_ frame: [UInt8], _ card: PlacedTag) -> [UInt8]? {
        guard !frame.isEmpty, reach(card) else { return nil }
        let answer: [UInt8]
        var validBits: UInt8 = 0
        if let felica = card.tag as? FeliCaVirtualTag {
            guard frame.count >= 2, let response = felica.process(felica: Array(frame.dropFirst())) else { return nil }
            answer = [UInt8(truncatingIfNeeded: response.count + 1)] + response
        } else {
            var frame = frame
            if WriteCorruption.isType2Write(frame), field.takeCorruptNextWrite() { frame = WriteCorruption.corrupted(frame) }
            switch exchange(frame, with: card) {
            case let .data(bytes): answer = bytes
            case .ack: answer = [0x0A]; validBits = 4
            case let .nak(code): answer = [code]; validBits = 4
            case .silent: return nil
            }
        }
        return [0x92, 0x01, validBits, 0x96, 0x02, 0x00, 0x00] + BERTLV.encode(tag: 0x97, answer)
    }
}

/// A command APDU in short form (ISO/IEC 7816-4 §5.1): header, optional Lc + data, optional Le
/// (00 = 256).
struct CommandAPDU {
    let cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8
    let data: [UInt8]
    let le: Int?

    /// P1 P2 as one 16-bit number (the block address of Read/Update Binary).
    var p1p2: Int { Int(p1) << 8 | Int(p2) }

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 4 else { return nil }
        (cla, ins, p1, p2) = (bytes[0], bytes[1], bytes[2], bytes[3])
        switch bytes.count {
        case 4:
            data = []
            le = nil
        case 5:
            data = []
            le = bytes[4] == 0 ? 256 : Int(bytes[4])
        default:
            let lc = Int(bytes[4])
            guard lc > 0, bytes.count == 5 + lc || bytes.count == 6 + lc else { return nil }
            data = Array(bytes[5..<5 + lc])
            le = bytes.count == 6 + lc ? (bytes[5 + lc] == 0 ? 256 : Int(bytes[5 + lc])) : nil
        }
    }
}

/// The BER-TLV data objects of the transparent session (PC/SC part 3 §3.2.2.1.12): one-byte tags,
/// or two when the first has its low five bits set (5F 46, FF 6E); lengths in short form or 81/82.
enum BERTLV {
    struct Object {
        let tag: Int
        let value: [UInt8]
    }

    static func parse(_ bytes: [UInt8]) -> [Object]? {
        var objects: [Object] = [], index = 0
        while index < bytes.count {
            var tag = Int(bytes[index])
            index += 1
            if tag & 0x1F == 0x1F {
                guard index < bytes.count else { return nil }
                tag = tag << 8 | Int(bytes[index])
                index += 1
            }
            guard index < bytes.count else { return nil }
            var length = Int(bytes[index])
            index += 1
            if length == 0x81 || length == 0x82 {
                let count = length - 0x80
                guard index + count <= bytes.count else { return nil }
                length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
                index += count
            } else if length > 0x7F {
                return nil
            }
            guard index + length <= bytes.count else { return nil }
            objects.append(Object(tag: tag, value: Array(bytes[index..<index + length])))
            index += length
        }
        return objects
    }

    static func encode(tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        let length: [UInt8] = switch value.count {
        case ..<0x80: [UInt8(value.count)]
        case ..<0x100: [0x81, UInt8(value.count)]
        default: [0x82, UInt8(value.count >> 8), UInt8(value.count & 0xFF)]
        }
        return [tag] + length + value
    }
}
