import enum NFCCore.NFCError
import struct NFCCore.Target
import Synchronization

/// An NFC Forum Type 4 Tag (T4T v2.0 mapping version 2.0, or T4T v3.0 mapping 3.0 with an ENDEF file)
/// in the emulated field.
///
/// The emulated PN532 does RATS and I-block chaining; this class sees whole APDUs. File system
/// (T4T v2.0 §5.1): the NDEF Tag Application `D2760000850101`, the Capability Container file E103 and
/// the NDEF file (E104 by default); a mapping 3.0 tag's CC holds the extended TLV `06 08` and its file
/// starts with a 4-byte ENLEN (T4T v3.0 §5). Commands (ISO/IEC 7816-4 §11): SELECT by name (P1 04) and by
/// file id (P1 00, P2 0C/00), READ BINARY (B0), UPDATE BINARY (D6), and on a mapping 3.0 tag their odd-INS
/// forms with an offset data object (B1 `54 03 <offset>` answering `53 <len> <data>`, D7 `54 03 <offset>
/// 53 <len> <data>`, ISO/IEC 7816-4 §11.3.3) for offsets past 7FFFh. Every accepted UPDATE of the NDEF
/// file is logged (``updates``), so tests see the chunking and the NLEN-first order. Status words:
/// 9000 ok · 6A82 application/file not found · 6986 no file selected · 6982 file not writable ·
/// 6B00 offset outside the file · 6700 wrong length (Le > MLe, Lc > MLc, malformed body) ·
/// 6A86 unsupported P1/P2 · 6D00 unknown INS · 6E00 unknown CLA. A plain Type 4 tag has no DESFire
/// command set, so DESFire GET_VERSION (`90 60 00 00 00`) answers 6E00.
public final class VirtualType4Tag: ISODEPVirtualTag {
    /// The CC layouts the simulator offers (its own table; scenario kinds `type4`, `type4_v3`,
    /// `type4_small_mlc`). T4T v2.0 §5.1.2.1 sets the smallest MLe to 000Fh and MLc to 0001h.
    public struct Variant: Sendable, Hashable {
        /// CC mapping version byte (20h or 30h).
        public var mappingVersion: UInt8
        /// Mapping 3.0 with the extended NDEF File Control TLV and ENLEN.
        public var isExtended: Bool
        public var mle: Int
        public var mlc: Int

        /// Mapping 2.0, MLe / MLc FFh: the shape of most Type 4 tags.
        public static let mapping20 = Variant(mappingVersion: 0x20, isExtended: false, mle: 0xFF, mlc: 0xFF)
        /// Mapping 3.0 with an ENDEF file (ENLEN), MLe / MLc FFh.
        public static let mapping30 = Variant(mappingVersion: 0x30, isExtended: true, mle: 0xFF, mlc: 0xFF)
        /// Mapping 2.0 with the smallest MLe the spec allows and a 13-byte MLc, so every message takes
        /// several READ and UPDATE BINARYs.
        public static let smallChunks = Variant(mappingVersion: 0x20, isExtended: false, mle: 0x0F, mlc: 0x0D)
    }

    /// One accepted UPDATE BINARY of the NDEF file: where and how many bytes.
    public struct Update: Sendable, Hashable {
        public var offset: Int
        public var count: Int

        public init(offset: Int, count: Int) {
            self.offset = offset
            self.count = count
        }
    }

    /// NDEF Tag Application name (T4T v2.0 §5.1.2).
    public static let ndefApplication: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
    /// Capability Container file id.
    public static let capabilityContainerID: [UInt8] = [0xE1, 0x03]

    public let target: Target
    /// Maximum R-APDU data size the tag announces in its CC (MLe).
    public let mle: Int
    /// Maximum C-APDU data size the tag announces in its CC (MLc).
    public let mlc: Int
    /// Size of the NDEF file in bytes, NLEN included (the CC's "maximum NDEF file size").
    public let capacity: Int
    /// NDEF file id.
    public let ndefFileID: [UInt8]
    /// CC mapping version byte (20h or 30h).
    public let mappingVersion: UInt8
    /// True for a mapping 3.0 ENDEF file: 4-byte ENLEN, CC TLV `06 08`, odd-INS READ / UPDATE BINARY.
    public let isExtended: Bool
    private let state: Mutex<State>

    private enum SelectedFile { case capabilityContainer, ndef }

    private struct State {
        var active = false
        var applicationSelected = false
        var selected: SelectedFile?
        var ndefFile: [UInt8]
        var writable: Bool
        var updates: [Update] = []

        /// Enters ACTIVE (`true`) or leaves the field (`false`); either way no application or file is
        /// selected.
        mutating func resetSession(active: Bool) {
            self.active = active
            applicationSelected = false
            selected = nil
        }
    }

    /// Largest ENDEF file the simulator builds (T4T v3.0 allows more; 1 MiB keeps memory small).
    public static let maxExtendedCapacity = 0x10_0000

    /// A tag holding `ndef` (a raw NDEF message) in an NDEF file of `capacity` bytes (NLEN included).
    /// ATQA defaults to `00 44` for 7-byte UIDs and `00 04` for 4-byte ones, SAK 20, and the ATS to
    /// `75 77 81 02 80` (FSCI 5 = 64 bytes, as Flipper's default). Throws ``NFCError/invalidArgument(_:)``
    /// for a UID that is not 4, 7 or 10 bytes, a capacity outside 5…32767 (7…1 MiB for an extended file),
    /// or MLe/MLc outside 15…255 / 1…255 (an extended file needs MLc ≥ 9 for its odd-INS UPDATEs);
    /// ``NFCError/capacityExceeded(needed:available:)`` when the message does not fit.
    public init(
        uid: [UInt8], ndef: [UInt8] = [], capacity: Int = 2048, writable: Bool = true, mle: Int = 0xFF,
        mlc: Int = 0xFF, ndefFileID: [UInt8] = [0xE1, 0x04], atqa: [UInt8]? = nil,
        ats: [UInt8] = [0x75, 0x77, 0x81, 0x02, 0x80], mappingVersion: UInt8 = 0x20, isExtended: Bool = false
    ) throws(NFCError) {
        guard [4, 7, 10].contains(uid.count) else { throw .invalidArgument("A UID has 4, 7 or 10 bytes, not \(uid.count)") }
        let nlenSize = isExtended ? 4 : 2
        if isExtended {
            guard mappingVersion >> 4 == 3 else { throw .invalidArgument("An ENDEF file needs mapping version 3.0") }
            guard (nlenSize + 3...Self.maxExtendedCapacity).contains(capacity) else {
                throw .invalidArgument("ENDEF file size \(capacity) is outside 7…\(Self.maxExtendedCapacity)")
            }
            guard mlc >= 9 else { throw .invalidArgument("An ENDEF file needs MLc ≥ 9 for UPDATE BINARY with offset data objects") }
        } else {
            // READ/UPDATE BINARY offsets are 15 bits without the ODO form (ISO/IEC 7816-4 §11.2.2).
            guard (5...0x7FFF).contains(capacity) else { throw .invalidArgument("NDEF file size \(capacity) is outside 5…32767") }
        }
        guard (0x0F...0xFF).contains(mle), (1...0xFF).contains(mlc) else {
            throw .invalidArgument("MLe must be 15…255 and MLc 1…255 (short APDUs)")
        }
        guard ndefFileID.count == 2 else { throw .invalidArgument("A file id has 2 bytes") }
        guard ndef.count + nlenSize <= capacity else {
            throw .capacityExceeded(needed: ndef.count, available: capacity - nlenSize)
        }
        self.target = Target(
            modulation: .iso14443a, uid: uid, atqa: atqa ?? [0x00, uid.count == 4 ? 0x04 : 0x44], sak: 0x20, ats: ats)
        self.mle = mle
        self.mlc = mlc
        self.capacity = capacity
        self.ndefFileID = ndefFileID
        self.mappingVersion = mappingVersion
        self.isExtended = isExtended
        var file = Self.bigEndian(ndef.count, count: nlenSize) + ndef
        file += [UInt8](repeating: 0, count: capacity - file.count)
        self.state = Mutex(State(ndefFile: file, writable: writable))
    }

    /// A tag of `variant` (CC layout from the simulator's table) holding `ndef`; `atqa` as in the
    /// designated initializer.
    public convenience init(
        uid: [UInt8], variant: Variant, ndef: [UInt8] = [], capacity: Int = 2048, writable: Bool = true, atqa: [UInt8]? = nil
    ) throws(NFCError) {
        try self.init(uid: uid, ndef: ndef, capacity: capacity, writable: writable, mle: variant.mle, mlc: variant.mlc,
                      atqa: atqa, mappingVersion: variant.mappingVersion, isExtended: variant.isExtended)
    }

    private static func bigEndian(_ value: Int, count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) }
    }

    /// Bytes of the length field the NDEF file starts with: NLEN (2) or ENLEN (4).
    public var nlenSize: Int { isExtended ? 4 : 2 }

    /// Every UPDATE BINARY the NDEF file accepted since the tag was made, in order.
    public var updates: [Update] { state.withLock { $0.updates } }

    /// The CC file (T4T v2.0 §5.1.2.1): CCLEN 000F, mapping version, MLe, MLc, then the NDEF File
    /// Control TLV `04 06` file id, maximum file size (2 bytes), read access 00, write access 00 / FF; an
    /// extended tag has CCLEN 0011 and the TLV `06 08` with a 4-byte file size (T4T v3.0 §5).
    public var capabilityContainer: [UInt8] {
        capabilityContainer(writable: state.withLock { $0.writable })
    }

    /// The whole NDEF file (NLEN + message + padding). Setting pads or cuts to ``capacity``.
    public var ndefFile: [UInt8] {
        get { state.withLock { $0.ndefFile } }
        set {
            let padded = Array((newValue + [UInt8](repeating: 0, count: capacity)).prefix(capacity))
            state.withLock { $0.ndefFile = padded }
        }
    }

    /// The NDEF message as NLEN / ENLEN delimits it (empty when it is 0 or larger than the file).
    public var ndefMessage: [UInt8] {
        let file = ndefFile
        let length = file.prefix(nlenSize).reduce(0) { $0 << 8 | Int($1) }
        guard length + nlenSize <= file.count else { return [] }
        return Array(file[nlenSize..<(nlenSize + length)])
    }

    /// Whether the CC grants write access (00) or not (FF).
    public var isWritable: Bool {
        get { state.withLock { $0.writable } }
        set { state.withLock { $0.writable = newValue } }
    }

    public func activate() -> Bool {
        state.withLock { $0.resetSession(active: true) }
        return true
    }

    public func powerOff() {
        state.withLock { $0.resetSession(active: false) }
    }

    /// ISO 14443-3 frames: the emulator handles RATS and blocks itself, so only HLTA means something.
    public func receive(_ frame: [UInt8]) -> VirtualTagReply {
        state.withLock { s in
            if frame.first == 0x50 { s.active = false }
            return .silent
        }
    }

    public func process(apdu: [UInt8]) -> [UInt8] {
        guard apdu.count >= 4 else { return StatusWord.wrongLength }
        guard let body = CommandBody(apdu) else { return StatusWord.wrongLength }
        guard apdu[0] == 0x00 else { return StatusWord.claNotSupported }
        return state.withLock { s in
            switch apdu[1] {
            case 0xA4: select(p1: apdu[2], p2: apdu[3], body: body, state: &s)
            case 0xB0: readBinary(p1: apdu[2], p2: apdu[3], body: body, state: s)
            case 0xD6: updateBinary(p1: apdu[2], p2: apdu[3], body: body, state: &s)
            case 0xB1 where isExtended: readBinaryOdd(p1: apdu[2], p2: apdu[3], body: body, state: s)
            case 0xD7 where isExtended: updateBinaryOdd(p1: apdu[2], p2: apdu[3], body: body, state: &s)
            default: StatusWord.insNotSupported
            }
        }
    }

    private func select(p1: UInt8, p2: UInt8, body: CommandBody, state s: inout State) -> [UInt8] {
        switch p1 {
        case 0x04:
            guard p2 == 0x00 || p2 == 0x0C else { return StatusWord.wrongP1P2 }
            guard body.data == Self.ndefApplication else { return StatusWord.notFound }
            s.applicationSelected = true
            s.selected = nil
            return StatusWord.ok
        case 0x00:
            guard p2 == 0x0C || p2 == 0x00 else { return StatusWord.wrongP1P2 }
            guard body.data.count == 2 else { return StatusWord.wrongLength }
            guard s.applicationSelected else { return StatusWord.notFound }
            if body.data == Self.capabilityContainerID {
                s.selected = .capabilityContainer
            } else if body.data == ndefFileID {
                s.selected = .ndef
            } else {
                return StatusWord.notFound
            }
            return StatusWord.ok
        default:
            return StatusWord.wrongP1P2
        }
    }

    private func file(_ selected: SelectedFile, state s: State) -> [UInt8] {
        switch selected {
        case .capabilityContainer: capabilityContainer(writable: s.writable)
        case .ndef: s.ndefFile
        }
    }

    private func capabilityContainer(writable: Bool) -> [UInt8] {
        let header: [UInt8] = [0x00, isExtended ? 0x11 : 0x0F, mappingVersion, UInt8(mle >> 8), UInt8(mle & 0xFF),
                               UInt8(mlc >> 8), UInt8(mlc & 0xFF)]
        let tlv: [UInt8] = isExtended ? [0x06, 0x08] : [0x04, 0x06]
        return header + tlv + ndefFileID + Self.bigEndian(capacity, count: isExtended ? 4 : 2)
            + [0x00, writable ? 0x00 : 0xFF]
    }

    private func readBinary(p1: UInt8, p2: UInt8, body: CommandBody, state s: State) -> [UInt8] {
        guard let selected = s.selected else { return StatusWord.noCurrentFile }
        guard body.data.isEmpty, let le = body.le else { return StatusWord.wrongLength }
        // P1 bit 8 set would address a short EF id instead of an offset; T4T never uses it.
        guard p1 & 0x80 == 0 else { return StatusWord.wrongParameters }
        let content = file(selected, state: s)
        let offset = Int(p1) << 8 | Int(p2)
        guard offset <= content.count else { return StatusWord.wrongParameters }
        guard le <= mle else { return StatusWord.wrongLength }
        let end = min(content.count, offset + le)
        return Array(content[offset..<end]) + StatusWord.ok
    }

    /// The offset of an odd-INS body `54 03 <offset>` (P1 P2 00 00 = the current file), and the rest.
    private func offsetObject(p1: UInt8, p2: UInt8, _ data: [UInt8]) -> (offset: Int, rest: [UInt8])? {
        guard p1 == 0, p2 == 0, data.count >= 5, data[0] == 0x54, data[1] == 0x03 else { return nil }
        return (Int(data[2]) << 16 | Int(data[3]) << 8 | Int(data[4]), Array(data.dropFirst(5)))
    }

    /// READ BINARY B1: the answer is the data object `53 <len> <data>`, the whole within Le ≤ MLe.
    private func readBinaryOdd(p1: UInt8, p2: UInt8, body: CommandBody, state s: State) -> [UInt8] {
        guard let selected = s.selected else { return StatusWord.noCurrentFile }
        guard let le = body.le, le <= mle, let (offset, rest) = offsetObject(p1: p1, p2: p2, body.data), rest.isEmpty else {
            return StatusWord.wrongLength
        }
        let content = file(selected, state: s)
        guard offset <= content.count else { return StatusWord.wrongParameters }
        let room = le - (le - 2 < 0x80 ? 2 : 3)
        let data = Array(content[offset..<min(content.count, offset + max(0, room))])
        let length: [UInt8] = data.count < 0x80 ? [UInt8(data.count)] : [0x81, UInt8(data.count)]
        return [0x53] + length + data + StatusWord.ok
    }

    /// UPDATE BINARY D7: `54 03 <offset> 53 <len> <data>`, the whole body within MLc.
    private func updateBinaryOdd(p1: UInt8, p2: UInt8, body: CommandBody, state s: inout State) -> [UInt8] {
        guard let selected = s.selected else { return StatusWord.noCurrentFile }
        guard selected == .ndef, s.writable else { return StatusWord.securityNotSatisfied }
        guard body.le == nil, body.data.count <= mlc, let (offset, rest) = offsetObject(p1: p1, p2: p2, body.data),
            rest.count >= 2, rest[0] == 0x53
        else { return StatusWord.wrongLength }
        let (length, start) = rest[1] == 0x81 ? (rest.count > 2 ? Int(rest[2]) : -1, 3) : (Int(rest[1]), 2)
        guard rest[1] < 0x80 || rest[1] == 0x81, length > 0, rest.count == start + length else { return StatusWord.wrongLength }
        return store(Array(rest[start...]), at: offset, state: &s)
    }

    /// Writes `data` into the NDEF file at `offset` and logs the update.
    private func store(_ data: [UInt8], at offset: Int, state s: inout State) -> [UInt8] {
        guard offset + data.count <= s.ndefFile.count else { return StatusWord.wrongParameters }
        s.ndefFile.replaceSubrange(offset..<(offset + data.count), with: data)
        s.updates.append(Update(offset: offset, count: data.count))
        return StatusWord.ok
    }

    private func updateBinary(p1: UInt8, p2: UInt8, body: CommandBody, state s: inout State) -> [UInt8] {
        guard let selected = s.selected else { return StatusWord.noCurrentFile }
        guard selected == .ndef, s.writable else { return StatusWord.securityNotSatisfied }
        guard !body.data.isEmpty, body.le == nil, body.data.count <= mlc else { return StatusWord.wrongLength }
        guard p1 & 0x80 == 0 else { return StatusWord.wrongParameters }
        return store(body.data, at: Int(p1) << 8 | Int(p2), state: &s)
    }
}

/// The body of a short command APDU (ISO/IEC 7816-4 §5.1): cases 1–4. Extended lengths are not
/// accepted (nil), which the tag reports as 6700.
struct CommandBody {
    var data: [UInt8] = []
    /// Ne: nil when absent, 256 for Le = 00.
    var le: Int?

    init?(_ apdu: [UInt8]) {
        let rest = Array(apdu.dropFirst(4))
        switch rest.count {
        case 0:
            break
        case 1:
            le = rest[0] == 0 ? 256 : Int(rest[0])
        default:
            let lc = Int(rest[0])
            guard lc > 0 else { return nil }
            if rest.count == 1 + lc {
                data = Array(rest[1...])
            } else if rest.count == 2 + lc {
                data = Array(rest[1..<(1 + lc)])
                le = rest[1 + lc] == 0 ? 256 : Int(rest[1 + lc])
            } else {
                return nil
            }
        }
    }
}

/// ISO/IEC 7816-4 §5.1.3 status words the virtual ISO-DEP tags answer.
enum StatusWord {
    static let ok: [UInt8] = [0x90, 0x00]
    static let wrongLength: [UInt8] = [0x67, 0x00]
    static let securityNotSatisfied: [UInt8] = [0x69, 0x82]
    static let noCurrentFile: [UInt8] = [0x69, 0x86]
    static let notFound: [UInt8] = [0x6A, 0x82]
    static let wrongP1P2: [UInt8] = [0x6A, 0x86]
    static let wrongParameters: [UInt8] = [0x6B, 0x00]
    static let insNotSupported: [UInt8] = [0x6D, 0x00]
    static let claNotSupported: [UInt8] = [0x6E, 0x00]
}
