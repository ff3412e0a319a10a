import enum NFCCore.ClassicKeyType
import enum NFCCore.NFCError
import struct NFCCore.Target
import Synchronization

/// A MIFARE Classic Mini / 1K / 4K in the emulated field.
///
/// Crypto1 is not modelled (the PN532 runs it in firmware): ``authenticate(block:keyType:key:uid:)``
/// compares the key with the sector trailer, as the card's own check would end. Afterwards READ (30h)
/// and WRITE (A0h) work inside the authenticated sector, as far as the access conditions allow
/// (MF1S50yyX §8.7, the simulator's own tables in ``VirtualClassicAccess``). WRITE is accepted both as libnfc's one-frame
/// `A0 blk` + 16 bytes (what `nfc_initiator_mifare_cmd(MC_WRITE)` hands to InDataExchange) and as the
/// card's own two frames (`A0 blk` → ACK, 16 bytes → ACK). Any refusal answers NAK 4h and halts the
/// card (MF1S50yyX §9.3), as does a failed authentication: it stays silent until ``activate()``.
/// Every other frame — HLTA, the listed commands not modelled (value operations C0h/C1h/C2h/B0h,
/// 40h, 43h) and what the datasheet does not list (RATS, libnfc's ISO 14443-4 probe; the Ultralight
/// and NTAG commands) — gets no answer and leaves the card halted (``VirtualClassicCommandSet``).
public final class VirtualClassicTag: ClassicVirtualTag {
    /// Which product.
    public enum Model: String, Sendable, CaseIterable {
        case mini, classic1K, classic4K

        /// Sector layout (the simulator's own table, ``VirtualClassicLayout``).
        public var layout: VirtualClassicLayout {
            switch self {
            case .mini: .mini
            case .classic1K: .classic1K
            case .classic4K: .classic4K
            }
        }

        /// SAK (AN10833 §3.2: 09 Mini, 08 1K, 18 4K).
        var sak: UInt8 {
            switch self {
            case .mini: 0x09
            case .classic1K: 0x08
            case .classic4K: 0x18
            }
        }

        /// ATQA, MSB first, for a 4-byte UID; a 7-byte UID sets bit 6 of the low byte (ISO/IEC 14443-3 §6.3.2).
        func atqa(uidLength: Int) -> [UInt8] {
            let low: UInt8 = self == .classic4K ? 0x02 : 0x04
            return [0x00, uidLength == 7 ? low | 0x40 : low]
        }
    }

    /// Factory key (MF1S50yyX §8.6.3: transport keys are FFFFFFFFFFFF).
    public static let factoryKey: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    /// Factory access bits and general-purpose byte.
    public static let factoryAccessBits: [UInt8] = [0xFF, 0x07, 0x80, 0x69]

    public let model: Model
    public let layout: VirtualClassicLayout
    /// A "magic" Gen1a clone (scenario `magic: gen1a`).
    public let hasGen1aBackdoor: Bool
    /// A "magic" Gen4 GTU clone (scenario `magic: gen4`): answers the Gen4 version read (``VirtualGen4GTU``).
    public let hasGen4GTU: Bool
    public let target: Target
    private let state: Mutex<State>

    private struct State {
        var memory: [[UInt8]]
        var active = false
        /// Sector and key of the last successful authentication.
        var authenticated: (sector: Int, keyType: VirtualClassicAccess.KeyType)?
        /// Block of a WRITE whose data frame is still to come.
        var pendingWrite: Int?

        /// Enters ACTIVE (`true`) or IDLE/HALT (`false`); either way authentication and a pending WRITE
        /// are lost.
        mutating func resetSession(active: Bool) {
            self.active = active
            authenticated = nil
            pendingWrite = nil
        }
    }

    /// A factory-fresh tag: block 0 holds the UID (+ BCC for 4-byte UIDs), SAK and ATQA; data blocks are
    /// zero; every trailer is `FFFFFFFFFFFF FF0780 69 FFFFFFFFFFFF`. Throws
    /// ``NFCError/invalidArgument(_:)`` unless `uid` has 4 or 7 bytes. `gen1a`: a "magic" Gen1a clone
    /// that answers the backdoor unlock (``PN532Chip/gen1aUnlockFirstStep()``).
    /// `gen4`: a "magic" Gen4 GTU clone.
    public init(model: Model, uid: [UInt8], gen1a: Bool = false, gen4: Bool = false) throws(NFCError) {
        guard uid.count == 4 || uid.count == 7 else {
            throw .invalidArgument("A MIFARE Classic UID has 4 or 7 bytes, not \(uid.count)")
        }
        self.model = model
        self.layout = model.layout
        self.hasGen1aBackdoor = gen1a
        self.hasGen4GTU = gen4
        let atqa = model.atqa(uidLength: uid.count)
        self.target = Target(modulation: .iso14443a, uid: uid, atqa: atqa, sak: model.sak)
        self.state = Mutex(State(memory: Self.factoryMemory(layout: model.layout, uid: uid, atqa: atqa, sak: model.sak)))
    }

    /// Block 0 as NXP programs it (MF1S50yyX §8.6.1), with the ATQA stored in wire order (LSB first)
    /// and made-up manufacturer bytes.
    static func factoryMemory(layout: VirtualClassicLayout, uid: [UInt8], atqa: [UInt8], sak: UInt8) -> [[UInt8]] {
        var memory = [[UInt8]](repeating: [UInt8](repeating: 0, count: 16), count: layout.totalBlocks)
        let manufacturer: [UInt8] = [0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69]
        var block0 = uid
        if uid.count == 4 { block0.append(AirChecksum.bcc(uid)) }
        block0 += [sak, atqa[1], atqa[0]] + manufacturer
        memory[0] = Array(block0.prefix(16))
        for sector in 0..<layout.sectorCount {
            if let trailer = layout.trailerBlock(ofSector: sector) {
                memory[trailer] = factoryKey + factoryAccessBits + factoryKey
            }
        }
        return memory
    }

    /// All blocks (16 bytes each). Setting pads or cuts each block to 16 bytes and the list to the
    /// product's block count.
    public var memory: [[UInt8]] {
        get { state.withLock { $0.memory } }
        set {
            let total = layout.totalBlocks
            state.withLock { s in
                for index in 0..<min(total, newValue.count) {
                    s.memory[index] = Array((newValue[index] + [UInt8](repeating: 0, count: 16)).prefix(16))
                }
            }
        }
    }

    /// One block, or nil when out of range.
    public func block(_ number: Int) -> [UInt8]? {
        state.withLock { s in s.memory.indices.contains(number) ? s.memory[number] : nil }
    }

    /// Sets one block (padded or cut to 16 bytes); ignored when out of range.
    public func setBlock(_ number: Int, _ data: [UInt8]) {
        state.withLock { s in
            if s.memory.indices.contains(number) {
                s.memory[number] = Array((data + [UInt8](repeating: 0, count: 16)).prefix(16))
            }
        }
    }

    /// Rewrites the trailer of `sector`: key A, access bits (3 bytes + general-purpose byte; 3 bytes
    /// keep the current GPB) and key B. Ignored when the sector does not exist or a key is not 6 bytes.
    public func setKeys(sector: Int, a: [UInt8], b: [UInt8], accessBits: [UInt8] = VirtualClassicTag.factoryAccessBits) {
        guard a.count == 6, b.count == 6, accessBits.count == 3 || accessBits.count == 4,
            let trailer = layout.trailerBlock(ofSector: sector)
        else { return }
        state.withLock { s in
            let gpb = accessBits.count == 4 ? accessBits[3] : s.memory[trailer][9]
            s.memory[trailer] = a + accessBits.prefix(3) + [gpb] + b
        }
    }

    public func activate() -> Bool {
        state.withLock { $0.resetSession(active: true) }
        return true
    }

    public func powerOff() {
        state.withLock { $0.resetSession(active: false) }
    }

    public func authenticate(block: Int, keyType: ClassicKeyType, key: [UInt8], uid: [UInt8]) -> Bool {
        state.withLock { s in
            guard s.active else { return false }
            s.pendingWrite = nil
            // Crypto1 is seeded with UID3…UID6 for 7-byte UIDs (AN10927), i.e. the last four bytes.
            guard let sector = layout.sector(ofBlock: block), let trailer = layout.trailerBlock(ofSector: sector),
                uid == Array(target.uid.suffix(4)), key.count == 6,
                VirtualClassicAccess.conditions(s.memory[trailer][6..<9]) != nil
            else {
                Self.halt(&s)
                return false
            }
            let stored = keyType == .a ? Array(s.memory[trailer][0..<6]) : Array(s.memory[trailer][10..<16])
            guard stored == key else {
                Self.halt(&s)
                return false
            }
            s.authenticated = (sector, keyType == .a ? .a : .b)
            return true
        }
    }

    public func receive(_ frame: [UInt8]) -> VirtualTagReply {
        state.withLock { s in
            guard s.active else { return .silent }
            if hasGen4GTU, s.pendingWrite == nil, let reply = VirtualGen4GTU.answer(frame) { return reply }
            if let block = s.pendingWrite {
                s.pendingWrite = nil
                guard frame.count == 16 else { return Self.refuse(&s) }
                return write(block: block, data: frame, state: &s)
            }
            guard let command = frame.first else { return Self.refuse(&s) }
            // Not in the datasheet's command overview, or listed but not modelled: no answer, and the
            // card leaves ACTIVE (``VirtualClassicCommandSet``).
            guard VirtualClassicCommandSet.handling(of: command) == .simulated else {
                Self.halt(&s)
                return .silent
            }
            switch command {
            case 0x30 where frame.count == 2:
                return read(block: Int(frame[1]), state: &s)
            case 0xA0 where frame.count == 2:
                guard permissions(block: Int(frame[1]), state: s).map({ $0.write || $0.writesAnyTrailerPart }) == true
                else { return Self.refuse(&s) }
                s.pendingWrite = Int(frame[1])
                return .ack
            case 0xA0 where frame.count == 18:
                return write(block: Int(frame[1]), data: Array(frame[2...]), state: &s)
            default:
                // READ / WRITE of the wrong length.
                return Self.refuse(&s)
            }
        }
    }

    private static func halt(_ s: inout State) {
        s.resetSession(active: false)
    }

    private static func refuse(_ s: inout State) -> VirtualTagReply {
        halt(&s)
        return .nak(VirtualClassicCommandSet.NAK.invalidOperation)
    }

    /// What the current authentication allows on `block`; nil when the block is outside the
    /// authenticated sector or the trailer is corrupt.
    private func permissions(block: Int, state s: State) -> VirtualClassicAccess.Rights? {
        guard let auth = s.authenticated, layout.sector(ofBlock: block) == auth.sector,
            let trailer = layout.trailerBlock(ofSector: auth.sector), let group = layout.accessGroup(ofBlock: block),
            let conditions = VirtualClassicAccess.conditions(s.memory[trailer][6..<9])
        else { return nil }
        return VirtualClassicAccess.rights(conditions: conditions, group: group, key: auth.keyType)
    }

    private func read(block: Int, state s: inout State) -> VirtualTagReply {
        guard let allowed = permissions(block: block, state: s), allowed.read else { return Self.refuse(&s) }
        let stored = s.memory[block]
        guard layout.isTrailer(block) else { return .data(stored) }
        // Key A never reads back; the other parts only where the trailer table allows (MF1S50yyX §8.7.2).
        let zeros = [UInt8](repeating: 0, count: 6)
        let bits = allowed.readAccessBits ? Array(stored[6..<10]) : [0, 0, 0, 0]
        let keyB = allowed.readKeyB ? Array(stored[10..<16]) : zeros
        return .data(zeros + bits + keyB)
    }

    private func write(block: Int, data: [UInt8], state s: inout State) -> VirtualTagReply {
        guard data.count == 16, block != 0, let allowed = permissions(block: block, state: s) else {
            // Block 0 (manufacturer block) is read-only on genuine cards (MF1S50yyX §8.6.1).
            return Self.refuse(&s)
        }
        if layout.isTrailer(block) {
            guard allowed.writesAnyTrailerPart else { return Self.refuse(&s) }
            var trailer = s.memory[block]
            if allowed.writeKeyA { trailer.replaceSubrange(0..<6, with: data[0..<6]) }
            if allowed.writeAccessBits { trailer.replaceSubrange(6..<10, with: data[6..<10]) }
            if allowed.writeKeyB { trailer.replaceSubrange(10..<16, with: data[10..<16]) }
            s.memory[block] = trailer
            return .ack
        }
        guard allowed.write else { return Self.refuse(&s) }
        s.memory[block] = data
        return .ack
    }
}
