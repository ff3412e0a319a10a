/// The "magic" Gen1a unlock as a card in the field answers it, and as no genuine NXP card does.
///
/// Gen1a cards (Chinese MIFARE Classic and Ultralight clones with a writable block 0 / page 0) open a
/// backdoor when, out of the ACTIVE state (after HLTA), they receive the 7-bit short frame 40h and then
/// the 8-bit frame 43h, each without CRC: both are answered by a 4-bit ACK (0Ah). That is the sequence
/// libnfc's `nfc-mfsetuid` sends before it rewrites block 0 and that Proxmark3's `hf mf csetblk`
/// documents. A genuine card stays silent: 40h and 43h are neither REQA (26h) nor WUPA (52h)
/// (ISO/IEC 14443-3 §6.3.1, Table 2) nor a command with CRC. Only the unlock answers are modelled:
/// the commands a real Gen1a card then takes (READ / WRITE of block 0 without authentication) are not.
extension PN532Chip {
    /// The 7-bit short frame 40h: a Gen1a card that is not ACTIVE answers ACK and waits for 43h.
    func gen1aUnlockFirstStep() -> AirReply {
        let magic = field.placedTags.first { placed in
            placed.tag.target.modulation == .iso14443a && (placed.tag as? Gen1aVirtualTag)?.hasGen1aBackdoor == true
                && activeTypeA?.placement != placed.placement && reaches(placed)
        }
        gen1aUnlocking = magic
        return magic == nil ? .silent : .fourBits(Self.gen1aAck)
    }

    /// The 8-bit frame 43h without CRC right after an answered 40h: ACK. Nil when the frame is not that
    /// step (it then goes on as any frame).
    func gen1aUnlockSecondStep(_ frame: [UInt8], bitCount: Int) -> AirReply? {
        guard let unlocking = gen1aUnlocking else { return nil }
        gen1aUnlocking = nil
        guard bitCount == 8, frame == [0x43], reaches(unlocking) else { return nil }
        return .fourBits(Self.gen1aAck)
    }

    /// The ACK of both steps.
    static let gen1aAck: UInt8 = 0x0A
}

/// A virtual tag that may be a "magic" Gen1a card (scenario `magic: gen1a`): MIFARE Classic and
/// Ultralight clones.
protocol Gen1aVirtualTag: VirtualTag {
    /// True when the card answers the Gen1a unlock.
    var hasGen1aBackdoor: Bool { get }
}

extension VirtualClassicTag: Gen1aVirtualTag {}
extension VirtualType2Tag: Gen1aVirtualTag {}
