import enum NFCCore.NFCError
import struct NFCCore.Target
import Synchronization

/// An NTAG 424 DNA whose NDEF file (02h) has Secure Dynamic Messaging on: each read without
/// authentication mirrors the UID and the SDM read counter (PICCData, encrypted with the SDMMetaRead
/// key, or in plain) and an SDMMAC from the SDMFileRead key into the file, with a live counter
/// (NT4H2421Gx Rev. 3.0 §9.3). Written for the simulator alone from the datasheet: its own command
/// table (``VirtualSDMTable``), its own SDM steps and AES through libcrypto (``SimAES``).
///
/// The counter (§9.3.1): incremented before the first read command (ISOReadBinary or ReadData) of
/// the file; later reads of the same type on the same file keep it, any other command ends the run,
/// and so does switching read type. A counter at FFFFFFh refuses the next first read (ISO `6985`,
/// ReadData `91 9D`). `frozen` keeps it where it is (a clone replaying one captured message).
/// Files (§8.2.2): 01h CC (E103h, 32 bytes, read free), 02h NDEF (E104h, 256 bytes, read and write
/// free), 03h proprietary (E105h, 128 bytes, CommMode.Full, read key 2: refused without authentication).
public final class VirtualSDMTag: ISODEPVirtualTag {
    /// Where the SDM mirrors go in the NDEF file (offsets from the file's first byte, NLEN included)
    /// and the keys: the simulator's own description of Table 69's fields.
    public struct Mirror: Sendable, Equatable {
        /// SDMMetaRead key: PICCData encrypted with it (32 characters at ``piccOffset``); nil: UID and
        /// counter in plain (14 at ``uidOffset``, 6 at ``counterOffset``).
        public var metaReadKey: [UInt8]?
        public var fileReadKey: [UInt8]
        public var piccOffset: Int
        public var uidOffset: Int
        public var counterOffset: Int
        public var macInputOffset: Int
        public var macOffset: Int

        public init(metaReadKey: [UInt8]?, fileReadKey: [UInt8], piccOffset: Int = 0, uidOffset: Int = 0, counterOffset: Int = 0,
                    macInputOffset: Int, macOffset: Int) {
            self.metaReadKey = metaReadKey
            self.fileReadKey = fileReadKey
            self.piccOffset = piccOffset
            self.uidOffset = uidOffset
            self.counterOffset = counterOffset
            self.macInputOffset = macInputOffset
            self.macOffset = macOffset
        }
    }

    /// The factory CC (§8.2.2: NDEF file E104h 256 bytes read/write free, proprietary file E105h 128 bytes).
    static let capabilityContainer: [UInt8] = [0x00, 0x17, 0x20, 0x01, 0x00, 0x00, 0xFF, 0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00,
                                               0x00, 0x05, 0x06, 0xE1, 0x05, 0x00, 0x80, 0x82, 0x83] + [UInt8](repeating: 0, count: 9)
    static let dfName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
    static let ndefFileSize = 256

    public let target: Target
    public let mirror: Mirror
    public let frozen: Bool
    private let state: Mutex<State>

    private enum ReadKind: Equatable { case iso, readData }

    private struct State {
        var ndefFile: [UInt8]
        var counter: Int
        var applicationSelected = false
        var selectedFile: UInt8?
        /// The read run in progress: its kind and file (nil after any other command).
        var run: (kind: ReadKind, file: UInt8)?
        var padding: [UInt8] = [UInt8](repeating: 0, count: 5)
        var pending: [[UInt8]] = []
        var reads = 0
    }

    /// A tag holding `ndef` (the message, placeholders included) with `mirror`, its counter at
    /// `counter`. Throws ``NFCError/invalidArgument(_:)`` for a UID that is not 7 bytes, keys that
    /// are not 16 bytes, a message that does not fit 256 bytes or mirrors outside the file.
    public init(uid: [UInt8], ndef: [UInt8], mirror: Mirror, counter: Int = 0, frozen: Bool = false) throws(NFCError) {
        guard uid.count == 7 else { throw .invalidArgument("An NTAG 424 DNA UID has 7 bytes, not \(uid.count)") }
        guard mirror.fileReadKey.count == 16, mirror.metaReadKey.map({ $0.count == 16 }) ?? true else {
            throw .invalidArgument("SDM keys are AES-128 keys of 16 bytes")
        }
        guard ndef.count + 2 <= Self.ndefFileSize else { throw .capacityExceeded(needed: ndef.count, available: Self.ndefFileSize - 2) }
        guard (0...0xFF_FFFF).contains(counter) else { throw .invalidArgument("The SDM read counter is 24 bits") }
        let ends = mirror.metaReadKey == nil ? [mirror.uidOffset + 14, mirror.counterOffset + 6] : [mirror.piccOffset + 32]
        guard (ends + [mirror.macOffset + 16]).allSatisfy({ $0 <= ndef.count + 2 }), mirror.macInputOffset <= mirror.macOffset else {
            throw .invalidArgument("The SDM mirrors must lie inside the NDEF message")
        }
        let file = [UInt8(ndef.count >> 8), UInt8(ndef.count & 0xFF)] + ndef
        self.mirror = mirror
        self.frozen = frozen
        // ATQA 0344, SAK 20 (ISO 14443-4); ATS 77 77 71 02 80 without TL: TA/TB/TC and historical byte
        // 80 as NTAG 424 DNA samples answer (UNVERIFIED against the datasheet's own ATS figure).
        target = Target(modulation: .iso14443a, uid: uid, atqa: [0x03, 0x44], sak: 0x20, ats: [0x77, 0x77, 0x71, 0x02, 0x80])
        state = Mutex(State(ndefFile: file + [UInt8](repeating: 0, count: Self.ndefFileSize - file.count), counter: counter))
    }

    /// The SDM read counter now.
    public var counter: Int { state.withLock { $0.counter } }

    public func activate() -> Bool {
        state.withLock { s in
            s.applicationSelected = false
            s.selectedFile = nil
            s.run = nil
            s.pending = []
        }
        return true
    }

    public func powerOff() { _ = activate() }

    public func receive(_ frame: [UInt8]) -> VirtualTagReply { .silent }

    public func process(apdu: [UInt8]) -> [UInt8] {
        // No native DESFire frames (§10.1): only CLA 00 (ISO) and 90 (wrapped).
        guard let cla = apdu.first, cla == 0x00 || cla == 0x90 else { return VirtualSDMTable.StatusWord.claNotSupported }
        guard apdu.count >= 4 else { return VirtualSDMTable.StatusWord.wrongLength }
        guard let handling = VirtualSDMTable.handling(cla: apdu[0], ins: apdu[1]) else {
            switch apdu[0] {
            case 0x90: return [0x91, VirtualSDMTable.Status.illegalCommand]
            case 0x00: return VirtualSDMTable.StatusWord.insNotSupported
            default: return VirtualSDMTable.StatusWord.claNotSupported
            }
        }
        return state.withLock { s in
            if apdu[0] == 0x90 { return wrapped(apdu, handling: handling, &s) }
            // Any ISO command other than a read of the run's file ends the run (§9.3.1).
            switch apdu[1] {
            case 0xA4: s.run = nil; return select(apdu, &s)
            case 0xB0: return readBinary(apdu, &s)
            default: s.run = nil; return updateBinary(apdu, &s)
            }
        }
    }

    // MARK: ISO commands (§10.9)

    private func select(_ apdu: [UInt8], _ s: inout State) -> [UInt8] {
        guard apdu.count >= 5, Int(apdu[4]) + 5 <= apdu.count else { return VirtualSDMTable.StatusWord.wrongLength }
        let data = Array(apdu[5..<(5 + Int(apdu[4]))])
        switch apdu[2] {
        case 0x04:
            guard data == Self.dfName else { return VirtualSDMTable.StatusWord.fileNotFound }
            s.applicationSelected = true
            s.selectedFile = nil
        case 0x00, 0x02:
            guard s.applicationSelected, data.count == 2, data[0] == 0xE1, (0x03...0x05).contains(data[1]) else {
                return VirtualSDMTable.StatusWord.fileNotFound
            }
            s.selectedFile = data[1] - 0x02  // E103h → 01h, E104h → 02h, E105h → 03h
        default:
            return VirtualSDMTable.StatusWord.wrongP1P2
        }
        return VirtualSDMTable.StatusWord.ok
    }

    private func readBinary(_ apdu: [UInt8], _ s: inout State) -> [UInt8] {
        guard let file = s.selectedFile else { s.run = nil; return VirtualSDMTable.StatusWord.noCurrentEF }
        guard apdu.count == 5, apdu[2] & 0x80 == 0 else { s.run = nil; return VirtualSDMTable.StatusWord.wrongLength }
        let offset = Int(apdu[2]) << 8 | Int(apdu[3])
        let length = apdu[4] == 0 ? 256 : Int(apdu[4])
        guard file != 0x03 else { s.run = nil; return VirtualSDMTable.StatusWord.securityNotSatisfied }
        guard let content = content(of: file, reading: .iso, &s) else { return [0x69, 0x85] }
        guard offset <= content.count else { return VirtualSDMTable.StatusWord.wrongParameters }
        return Array(content[offset..<min(content.count, offset + length)]) + VirtualSDMTable.StatusWord.ok
    }

    /// ISOUpdateBinary of the NDEF file (write access free); the CC needs key 0, the proprietary file key 3.
    private func updateBinary(_ apdu: [UInt8], _ s: inout State) -> [UInt8] {
        guard let file = s.selectedFile else { return VirtualSDMTable.StatusWord.noCurrentEF }
        guard file == 0x02 else { return VirtualSDMTable.StatusWord.securityNotSatisfied }
        guard apdu.count >= 5, apdu[4] > 0, Int(apdu[4]) + 5 == apdu.count else { return VirtualSDMTable.StatusWord.wrongLength }
        let offset = Int(apdu[2]) << 8 | Int(apdu[3])
        let data = Array(apdu[5...])
        guard apdu[2] & 0x80 == 0, offset + data.count <= Self.ndefFileSize else { return VirtualSDMTable.StatusWord.wrongParameters }
        s.ndefFile.replaceSubrange(offset..<offset + data.count, with: data)
        return VirtualSDMTable.StatusWord.ok
    }

    // MARK: Wrapped commands (§10.4–§10.8)

    private func wrapped(_ apdu: [UInt8], handling: VirtualSDMTable.Handling, _ s: inout State) -> [UInt8] {
        typealias Status = VirtualSDMTable.Status
        guard apdu.count >= 5, apdu[2] == 0, apdu[3] == 0, apdu.last == 0 else { return VirtualSDMTable.StatusWord.wrongLength }
        let data: [UInt8] = apdu.count == 5 ? [] : Array(apdu[5..<(apdu.count - 1)])
        guard apdu.count == 5 || Int(apdu[4]) == data.count else { return VirtualSDMTable.StatusWord.wrongLength }
        let ins = apdu[1]
        if ins == 0xAF {
            guard !s.pending.isEmpty else { return [0x91, Status.illegalCommand] }
            let frame = s.pending.removeFirst()
            return frame + [0x91, s.pending.isEmpty ? Status.ok : Status.additionalFrame]
        }
        s.pending = []
        if ins != 0xAD { s.run = nil }
        guard handling == .simulated else { return [0x91, Status.permissionDenied] }
        switch ins {
        case 0x60:
            guard data.isEmpty else { return [0x91, Status.lengthError] }
            // §10.5.2: hardware 04 04 02 30 00 11 05, software 04 04 02 01 02 11 05, then UID, batch, week, year.
            s.pending = [[0x04, 0x04, 0x02, 0x01, 0x02, 0x11, 0x05], target.uid + [0x00, 0x11, 0x22, 0x33, 0x44, 0x10, 0x21]]
            return [0x04, 0x04, 0x02, 0x30, 0x00, 0x11, 0x05, 0x91, Status.additionalFrame]
        case 0x64:
            guard data.count == 1 else { return [0x91, Status.lengthError] }
            guard data[0] < 5 else { return [0x91, Status.noSuchKey] }  // AppKeys 0h–4h (§8.2.3.1)
            return [0x00, 0x91, Status.ok]
        case 0xF5:
            guard data.count == 1 else { return [0x91, Status.lengthError] }
            guard let settings = fileSettings(data[0]) else { return [0x91, Status.fileNotFound] }
            return settings + [0x91, Status.ok]
        default:  // 0xAD ReadData: FileNo, Offset (3), Length (3, 0 = to the end), §10.8.1
            guard data.count == 7 else { return [0x91, Status.lengthError] }
            guard (0x01...0x03).contains(data[0]) else { s.run = nil; return [0x91, Status.fileNotFound] }
            guard data[0] != 0x03 else { s.run = nil; return [0x91, Status.authenticationError] }
            let offset = Int(data[1]) | Int(data[2]) << 8 | Int(data[3]) << 16
            let length = Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16
            guard let content = content(of: data[0], reading: .readData, &s) else { return [0x91, Status.permissionDenied] }
            let count = length == 0 ? content.count - offset : length
            guard offset <= content.count, count >= 0, offset + count <= content.count else { return [0x91, Status.boundaryError] }
            return Array(content[offset..<offset + count]) + [0x91, Status.ok]
        }
    }

    /// GetFileSettings answer (§10.7.2 Table 73): FileType 00, FileOption, AccessRights (RW<<4|Change,
    /// Read<<4|Write), FileSize (3, LSB first), and for 02h the SDM fields (Table 69).
    private func fileSettings(_ file: UInt8) -> [UInt8]? {
        func le(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF)] }
        switch file {
        case 0x01: return [0x00, 0x00, 0x00, 0xE0] + le(32)
        case 0x03: return [0x00, 0x03, 0x30, 0x23] + le(128)
        case 0x02:
            // SDMOptions C1 (UID, SDMReadCtr, ASCII); SDMAccessRights F F | meta | file, LSB first: RFU Fh and
            // SDMCtrRet Fh, then SDMMetaRead (key 0, or Eh plain) and SDMFileRead key 0.
            var out: [UInt8] = [0x00, 0x40, 0xE0, 0xEE] + le(Self.ndefFileSize) + [0xC1, 0xFF, mirror.metaReadKey == nil ? 0xE0 : 0x00]
            out += mirror.metaReadKey == nil ? le(mirror.uidOffset) + le(mirror.counterOffset) : le(mirror.piccOffset)
            return out + le(mirror.macInputOffset) + le(mirror.macOffset)
        default: return nil
        }
    }

    // MARK: Secure Dynamic Messaging (§9.3)

    /// The file as it goes out; for 02h, the first read of a run counts (§9.3.1) and the mirrors are
    /// filled. Nil when the counter is exhausted.
    private func content(of file: UInt8, reading kind: ReadKind, _ s: inout State) -> [UInt8]? {
        guard file == 0x02 else {
            s.run = (kind, file)
            return file == 0x01 ? Self.capabilityContainer : nil
        }
        if s.run.map({ $0.kind != kind || $0.file != file }) ?? true {
            if !frozen {
                guard s.counter < 0xFF_FFFF else { s.run = nil; return nil }
                s.counter += 1
                // Fresh random padding for each run (§9.3.4); the frozen clone keeps its captured one.
                s.padding = (0..<5).map { _ in UInt8.random(in: 0...255) }
            }
            s.reads += 1
        }
        s.run = (kind, file)
        return dynamicFile(s)
    }

    /// The NDEF file with PICCData (or the plain UID and counter) and the SDMMAC mirrored in (§9.3.3–§9.3.8).
    private func dynamicFile(_ s: State) -> [UInt8] {
        var file = s.ndefFile
        let counter = [UInt8(s.counter & 0xFF), UInt8((s.counter >> 8) & 0xFF), UInt8((s.counter >> 16) & 0xFF)]  // LSB first
        func put(_ text: String, at offset: Int) { file.replaceSubrange(offset..<offset + text.utf8.count, with: Array(text.utf8)) }
        if let key = mirror.metaReadKey {
            // PICCDataTag C7: UID (7 bytes) and SDMReadCtr mirrored (§9.3.4 Table 21).
            let plain = [0xC7] + target.uid + counter + s.padding + [UInt8](repeating: 0, count: 16 - 11 - s.padding.count)
            put(Self.hex(SimAES.encryptBlock(key: key, plain) ?? []), at: mirror.piccOffset)
        } else {
            put(Self.hex(target.uid), at: mirror.uidOffset)
            put(Self.hex(counter.reversed()), at: mirror.counterOffset)  // ASCII: MSB first (§9.3.1)
        }
        // SV2 = 3C C3 00 01 00 80 UID SDMReadCtr (16 bytes with a 7-byte UID, §9.3.9.1).
        let sessionKey = SimAES.cmac(key: mirror.fileReadKey, [0x3C, 0xC3, 0x00, 0x01, 0x00, 0x80] + target.uid + counter) ?? []
        let full = SimAES.cmac(key: sessionKey, Array(file[mirror.macInputOffset..<mirror.macOffset])) ?? []
        // MACt: the bytes at odd positions, 1, 3 … 15 (§9.1.3).
        put(Self.hex(full.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)), at: mirror.macOffset)
        return file
    }

    /// How many times the counter moved (reads that started a run).
    public var readRuns: Int { state.withLock { $0.reads } }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}
