import enum NFCCore.NFCError
import struct NFCCore.Target
import struct NFCCore.TagDump
import Synchronization

/// A virtual MIFARE Ultralight / NTAG that answers like the datasheets say (MF0ICU1, MF0ICU2, MF0ULX1,
/// NTAG203, NTAG210/212, NTAG213/215/216; Ultralight AES in part, ``VirtualType2Product/ultralightAES``): READ with roll-over, FAST_READ, WRITE, two-frame
/// COMPATIBILITY_WRITE, GET_VERSION, READ_SIG, READ_CNT, INCR_CNT, CHECK_TEARING_EVENT, VCSL, PWD_AUTH,
/// Ultralight C 3DES AUTHENTICATE (1Ah/AFh, key from pages 2Ch–2Fh), HALT; AUTH0/PROT (or Ultralight C
/// AUTH0/AUTH1) protection, OTP CC page, static and dynamic lock bits, CFGLCK.
///
/// After a NAK the tag is IDLE and silent until ``activate()`` (a re-select), as real NXP tags are.
/// ``powerOff()`` drops authentication, a pending COMPATIBILITY_WRITE and a half-done AUTHENTICATE.
///
/// Not modelled: AUTHLIM attempt counting, the NTAG21x NFC counter incrementing on the first read, UID mirror, the dynamic block-locking bits.
public final class VirtualType2Tag: VirtualTag {
    private let state: Mutex<VirtualType2Machine>
    /// A "magic" Gen1a Ultralight clone (scenario `magic: gen1a`) that answers the backdoor unlock.
    public let hasGen1aBackdoor: Bool
    /// A "magic" Gen4 GTU clone (scenario `magic: gen4`) that answers the Gen4 version read (``VirtualGen4GTU``).
    public let hasGen4GTU: Bool

    /// A factory-fresh tag of `model` with `uid` (7 bytes for real NXP tags). ATQA and SAK default to
    /// the Type 2 values `00 44` / `00`; pass others to imitate Classic-looking clones. `gen1a`: a
    /// "magic" Gen1a clone; `gen4`: a "magic" Gen4 GTU clone.
    public init(
        model: VirtualType2Model, uid: [UInt8], atqa: [UInt8] = [0x00, 0x44], sak: UInt8 = 0x00, gen1a: Bool = false,
        gen4: Bool = false
    ) {
        state = Mutex(VirtualType2Machine(model: model, uid: uid, atqa: atqa, sak: sak))
        hasGen1aBackdoor = gen1a
        hasGen4GTU = gen4
    }

    /// A tag that answers like the one `dump` was read from (Flipper's listener-from-poller-data idea):
    /// the model from the card type (a GET_VERSION other than the model's own is kept as a custom model),
    /// UID/ATQA/SAK from the card info, memory from the dumped pages over a factory image (pages the dump
    /// lacks keep factory content; PWD/PACK read back as zeros, so the password becomes 00000000),
    /// signature, counters and tearing flags from the Type 2 extras. Nil when the dump is not Type 2.
    public convenience init?(dump: TagDump) {
        let info = dump.cardInfo
        guard var model = VirtualType2Model(cardType: info.type) else { return nil }
        if let version = info.version, version != model.version {
            model = .custom(version: version, totalPages: model.totalPages)
        }
        self.init(model: model, uid: info.uid, atqa: info.atqa ?? [0x00, 0x44], sak: info.sak ?? 0x00)
        state.withLock { machine in
            // Pages outside the model's memory are not the tag's (and page 2^62 would overflow the offset).
            for page in dump.pages where page.data.count == 4 && (0..<model.totalPages).contains(page.number) {
                machine.store(page.data, at: page.number * 4)
            }
            guard let extras = dump.type2 else { return }
            if let signature = extras.signature { machine.signature = signature }
            for (index, value) in extras.counters.prefix(3).enumerated() {
                if let value { machine.counters[index] = value & 0xFF_FFFF }
            }
            for (index, flag) in extras.tearing.prefix(3).enumerated() {
                if let flag { machine.tearingFlags[index] = flag }
            }
        }
    }

    // MARK: VirtualTag

    public var target: Target { state.withLock { $0.target } }

    public func activate() -> Bool {
        state.withLock { $0.activate() }
        return true
    }

    public func receive(_ frame: [UInt8]) -> VirtualTagReply {
        if hasGen4GTU, let reply = VirtualGen4GTU.answer(frame) { return reply }
        return state.withLock { $0.receive(frame) }
    }

    public func powerOff() {
        state.withLock { $0.powerOff() }
    }

    // MARK: Fixture access

    /// The model this tag was made as.
    public var model: VirtualType2Model { state.withLock { $0.model } }

    /// The whole memory, 4 bytes a page, as stored (PWD, PACK and Ultralight C key included). Setting it
    /// replaces the memory; the new value is padded or cut to the model's size.
    public var memory: [UInt8] {
        get { state.withLock { $0.memory } }
        set { state.withLock { $0.replaceMemory(newValue) } }
    }

    /// The READ_SIG answer, ``VirtualType2Product/signatureLength`` bytes (at first a fixed pattern from the
    /// UID, not a valid NXP signature).
    public var signature: [UInt8] {
        get { state.withLock { $0.signature } }
        set { state.withLock { $0.signature = newValue } }
    }

    /// Counters 0, 1, 2 (24-bit values; the NTAG21x NFC counter is number 2).
    public var counters: [UInt32] {
        get { state.withLock { $0.counters } }
        set { state.withLock { $0.counters = Array((newValue + [0, 0, 0]).prefix(3)).map { $0 & 0xFF_FFFF } } }
    }

    /// Tearing flags of counters 0, 1, 2 (BDh = valid).
    public var tearingFlags: [UInt8] {
        get { state.withLock { $0.tearingFlags } }
        set { state.withLock { $0.tearingFlags = Array((newValue + [0xBD, 0xBD, 0xBD]).prefix(3)) } }
    }

    /// Whether PWD_AUTH or Ultralight C authentication succeeded since the last select.
    public var isAuthenticated: Bool { state.withLock { $0.authenticated } }

    /// Sets PWD (4 bytes) and PACK (2 bytes). No effect on products without PWD_AUTH.
    public func setPassword(_ password: [UInt8], pack: [UInt8]) {
        state.withLock { machine in
            guard let map = machine.map, let pwdPage = map.passwordPage, let packPage = map.packPage,
                password.count == 4, pack.count == 2
            else { return }
            machine.store(password, at: pwdPage * 4)
            machine.store(pack, at: packPage * 4)
        }
    }

    /// Sets AUTH0, the first protected page (CFG0 byte 3; Ultralight C page 42 byte 0). 0xFF (or ≥ 30h on
    /// Ultralight C) switches protection off. No effect on products without protection.
    public func setAuth0(_ page: UInt8) {
        state.withLock { machine in
            guard let offset = machine.map?.auth0Offset else { return }
            machine.store([page], at: offset)
        }
    }

    /// Protects reads too (PROT = 1 in ACCESS; Ultralight C: AUTH1 bit 0 = 0) or writes only.
    public func setReadProtection(_ on: Bool) {
        state.withLock { machine in
            guard let map = machine.map, let accessPage = map.accessPage else { return }
            let offset = accessPage * 4
            if case .tripleDES = map.protection {
                machine.memory[offset] = on ? machine.memory[offset] & ~0x01 : machine.memory[offset] | 0x01
            } else {
                machine.memory[offset] = on ? machine.memory[offset] | 0x80 : machine.memory[offset] & ~0x80
            }
        }
    }

    /// Sets the Ultralight C 3DES key: `key` is the 16-byte cipher key (Key1 ‖ Key2), stored in pages
    /// 2Ch–2Fh with each half reversed (MF0ICU2 §7.5.7). No effect on other products or other lengths.
    public func setUltralightCKey(_ key: [UInt8]) {
        state.withLock { machine in
            guard let keyPages = machine.map?.keyPages, let pages = VirtualType2Machine.swapKeyHalves(key) else { return }
            machine.store(pages, at: keyPages.lowerBound * 4)
        }
    }

    /// Fixture hook: the RndB (8 bytes) the next Ultralight C AUTHENTICATE uses instead of a random one,
    /// so a transcript can be compared byte for byte. Nil (or another length) goes back to random.
    public func pinUltralightCChallenge(_ rndB: [UInt8]?) {
        state.withLock { $0.pinnedChallenge = rndB?.count == 8 ? rndB : nil }
    }

    /// Sets NFC_CNT_EN (ACCESS bit 4) so an NTAG21x answers READ_CNT 02.
    public func setNFCCounterEnabled(_ on: Bool) {
        state.withLock { machine in
            guard case let .password(configPage, _, _) = machine.map?.protection else { return }
            let accessPage = configPage + 1
            let offset = accessPage * 4
            machine.memory[offset] = on ? machine.memory[offset] | 0x10 : machine.memory[offset] & ~0x10
        }
    }

    /// Fault hook: the next WRITE / COMPATIBILITY_WRITE is ACKed but stores different data (every bit of
    /// the first byte inverted), as a weak-field write can.
    public func corruptNextWrite() {
        state.withLock { $0.corruptNextWrite = true }
    }

    /// Fault hook: WRITEs to `page` and above are NAKed (EEPROM write error, NAK 5h). Nil heals the tag.
    public func failWrites(fromPage page: Int?) {
        state.withLock { $0.failWritesFromPage = page }
    }

    /// Fixture helper: puts `message` as an NDEF TLV (`03 L [FF hi lo] message FE`, zero padded; the
    /// terminator is left out when the TLV fills the area exactly — NFC Forum T2T §2.3) into the user
    /// area, bypassing lock bits and protection. Throws ``NFCError/capacityExceeded(needed:available:)``
    /// when it does not fit, ``NFCError/invalidArgument(_:)`` for a message longer than FFFEh bytes.
    public func writeNDEF(_ message: [UInt8]) throws {
        guard message.count <= 0xFFFE else {
            throw NFCError.invalidArgument("An NDEF message of \(message.count) bytes is too long for a TLV")
        }
        try state.withLock { machine throws(NFCError) in
            let userStart = machine.map?.userStart ?? 4
            let userEnd = machine.map?.userEnd ?? (machine.model.totalPages - 1)
            let capacity = (userEnd - userStart + 1) * 4
            let header: [UInt8] = message.count < 0xFF
                ? [0x03, UInt8(message.count)] : [0x03, 0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
            var area = header + message
            guard area.count <= capacity else { throw .capacityExceeded(needed: area.count + 1, available: capacity) }
            if area.count < capacity { area.append(0xFE) }
            area += [UInt8](repeating: 0, count: capacity - area.count)
            machine.store(area, at: userStart * 4)
        }
    }
}
