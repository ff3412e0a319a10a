import enum NFCCore.NFCError
import struct NFCCore.Target
import Synchronization

/// An NFC Forum Type 4 Tag (T4T v2.0, mapping version 2.0) in the emulated field.
///
/// The emulated PN532 does RATS and I-block chaining; this class sees whole APDUs. File system
/// (T4T v2.0 §5.1): the NDEF Tag Application `D2760000850101`, the Capability Container file E103 and
/// the NDEF file (E104 by default). Commands (ISO/IEC 7816-4 §11): SELECT by name (P1 04) and by file
/// id (P1 00, P2 0C/00), READ BINARY (B0), UPDATE BINARY (D6). Status words:
/// 9000 ok · 6A82 application/file not found · 6986 no file selected · 6982 file not writable ·
/// 6B00 offset outside the file · 6700 wrong length (Le > MLe, Lc > MLc, malformed body) ·
/// 6A86 unsupported P1/P2 · 6D00 unknown INS · 6E00 unknown CLA. A plain Type 4 tag has no DESFire
/// command set, so DESFire GET_VERSION (`90 60 00 00 00`) answers 6E00.
public final class VirtualType4Tag: ISODEPVirtualTag {
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
    private let state: Mutex<State>

    private enum SelectedFile { case capabilityContainer, ndef }

    private struct State {
        var active = false
        var applicationSelected = false
        var selected: SelectedFile?
        var ndefFile: [UInt8]
        var writable: Bool

        /// Enters ACTIVE (`true`) or leaves the field (`false`); either way no application or file is
        /// selected.
        mutating func resetSession(active: Bool) {
            self.active = active
            applicationSelected = false
            selected = nil
        }
    }

    /// A tag holding `ndef` (a raw NDEF message) in an NDEF file of `capacity` bytes (NLEN included).
    /// ATQA defaults to `00 44` for 7-byte UIDs and `00 04` for 4-byte ones, SAK 20, and the ATS to
    /// `75 77 81 02 80` (FSCI 5 = 64 bytes, as Flipper's default). Throws ``NFCError/invalidArgument(_:)``
    /// for a UID that is not 4, 7 or 10 bytes, a capacity outside 5…32767, or MLe/MLc outside 15…255 /
    /// 1…255; ``NFCError/capacityExceeded(needed:available:)`` when the message does not fit.
    public init(
        uid: [UInt8], ndef: [UInt8] = [], capacity: Int = 2048, writable: Bool = true, mle: Int = 0xFF,
        mlc: Int = 0xFF, ndefFileID: [UInt8] = [0xE1, 0x04], atqa: [UInt8]? = nil,
        ats: [UInt8] = [0x75, 0x77, 0x81, 0x02, 0x80]
    ) throws(NFCError) {
        guard [4, 7, 10].contains(uid.count) else { throw .invalidArgument("A UID has 4, 7 or 10 bytes, not \(uid.count)") }
        // READ/UPDATE BINARY offsets are 15 bits without the ODO form (ISO/IEC 7816-4 §11.2.2).
        guard (5...0x7FFF).contains(capacity) else { throw .invalidArgument("NDEF file size \(capacity) is outside 5…32767") }
        guard (0x0F...0xFF).contains(mle), (1...0xFF).contains(mlc) else {
            throw .invalidArgument("MLe must be 15…255 and MLc 1…255 (short APDUs)")
        }
        guard ndefFileID.count == 2 else { throw .invalidArgument("A file id has 2 bytes") }
        guard ndef.count + 2 <= capacity else { throw .capacityExceeded(needed: ndef.count, available: capacity - 2) }
        self.target = Target(
            modulation: .iso14443a, uid: uid, atqa: atqa ?? [0x00, uid.count == 4 ? 0x04 : 0x44], sak: 0x20, ats: ats)
        self.mle = mle
        self.mlc = mlc
        self.capacity = capacity
        self.ndefFileID = ndefFileID
        var file = [UInt8(ndef.count >> 8), UInt8(ndef.count & 0xFF)] + ndef
        file += [UInt8](repeating: 0, count: capacity - file.count)
        self.state = Mutex(State(ndefFile: file, writable: writable))
    }

    /// The CC file (T4T v2.0 §5.1.2.1): CCLEN 000F, mapping version 2.0, MLe, MLc, then the NDEF File
    /// Control TLV `04 06` file id, maximum file size, read access 00, write access 00 / FF.
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

    /// The NDEF message as NLEN delimits it (empty when NLEN is 0 or larger than the file).
    public var ndefMessage: [UInt8] {
        let file = ndefFile
        let length = Int(file[0]) << 8 | Int(file[1])
        guard length + 2 <= file.count else { return [] }
        return Array(file[2..<(2 + length)])
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
        [0x00, 0x0F, 0x20, UInt8(mle >> 8), UInt8(mle & 0xFF), UInt8(mlc >> 8), UInt8(mlc & 0xFF), 0x04, 0x06]
            + ndefFileID + [UInt8(capacity >> 8), UInt8(capacity & 0xFF), 0x00, writable ? 0x00 : 0xFF]
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

    private func updateBinary(p1: UInt8, p2: UInt8, body: CommandBody, state s: inout State) -> [UInt8] {
        guard let selected = s.selected else { return StatusWord.noCurrentFile }
        guard selected == .ndef, s.writable else { return StatusWord.securityNotSatisfied }
        guard !body.data.isEmpty, body.le == nil, body.data.count <= mlc else { return StatusWord.wrongLength }
        guard p1 & 0x80 == 0 else { return StatusWord.wrongParameters }
        let offset = Int(p1) << 8 | Int(p2)
        guard offset + body.data.count <= s.ndefFile.count else { return StatusWord.wrongParameters }
        s.ndefFile.replaceSubrange(offset..<(offset + body.data.count), with: body.data)
        return StatusWord.ok
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
