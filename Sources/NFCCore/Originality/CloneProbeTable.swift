/// The clone probes: one row per probe, with what it looks at, the source that describes it, what it
/// costs a tap and whether it runs by default (docs/access-control.md lists them).
///
/// No probe ever writes: no WRITE, no backdoor write, no HALT left in place (the Gen1a probe's HALT
/// and the Gen4 probe's unknown command are followed by a re-select before the scan goes on).
public enum CloneProbeTable {
    /// The probes, in the order they run.
    public static let probes: [CloneProbe] = [
        CloneProbe(
            name: .uidStructure,
            looksFor: "a UID / ATQA / GET_VERSION combination no NXP product has: the ATQA's UID size bits "
                + "disagree with the UID's length; an NXP version answer (vendor 04h) with a UID not starting "
                + "with NXP's manufacturer code 04h; an Ultralight / NTAG without a 7-byte UID",
            source: "ISO/IEC 14443-3 §6.3.2 (ATQA UID size), ISO/IEC 7816-6 (manufacturer 04h = NXP), "
                + "NTAG213/215/216 and MF0ULX1 datasheets (7-byte UID, UID0 = 04h)",
            cost: "none: uses what anticollision and identification already read",
            isDefault: true),
        CloneProbe(
            name: .versionSignatureMismatch,
            looksFor: "a tag whose GET_VERSION names an NXP product with an originality signature, whose "
                + "signature does not verify or cannot be read (an \"NTAG216\" whose signature fails)",
            source: "AN11350 / AN11341 / AN12196 §8.2 (every such product carries a signature NXP made)",
            cost: "none beyond the READ_SIG of the signature check (needs access.signature check or require)",
            isDefault: true),
        CloneProbe(
            name: .gen1aBackdoor,
            looksFor: "a \"magic\" Gen1a card: after HLTA it answers the 7-bit 40h and then 43h with an ACK "
                + "(genuine MIFARE Classic and Ultralight stay silent)",
            source: "libnfc nfc-mfsetuid (the unlock sequence); Proxmark3 hf mf cgetblk (magic Gen1a)",
            cost: "HLTA, one 7-bit and one 8-bit frame, then a re-select: about 140 ms on a PN532 "
                + "(two frames wait out their timeout on a genuine tag)",
            isDefault: false),
        CloneProbe(
            name: .gen4GTU,
            looksFor: "a \"magic\" Gen4 GTU card (\"Ultimate Magic Card\"): it answers its version command with the "
                + "factory password, CF 00 00 00 00 CC, with data (00 00 00 03 A0 / 06 A0); a genuine MIFARE Classic, "
                + "Ultralight or NTAG does not know CFh (NAK or silence). Only that read is sent: never C6h (get config, "
                + "which changes the configuration of some cards), nor a write, set-config or password command",
            source: "Proxmark3 doc/magic_cards_notes.md \"UMC\" (Gen4 GTU): CFh + 4-byte password + sub-command, default "
                + "password 00000000, CCh = version info, and the warning to use CCh rather than C6h to identify",
            cost: "one 8-byte frame, then a re-select (a genuine tag NAKs or stays silent and leaves the ACTIVE state): "
                + "see bench/README.md; above 10 ms, hence off by default",
            isDefault: false),
    ]

    /// The probes on by default (those costing under 10 ms a tap).
    public static var defaultNames: Set<CloneProbe.Name> { Set(probes.filter(\.isDefault).map(\.name)) }
}

/// One clone probe (a row of ``CloneProbeTable``).
public struct CloneProbe: Sendable, Hashable {
    /// The probe's stable name (configuration `access.probes.<name>`, the `trust` object's `clone_probes`).
    public enum Name: String, Sendable, Hashable, CaseIterable, Comparable {
        case uidStructure = "uid_structure"
        case versionSignatureMismatch = "version_signature_mismatch"
        case gen1aBackdoor = "gen1a_backdoor"
        case gen4GTU = "gen4_gtu"

        public static func < (lhs: Name, rhs: Name) -> Bool {
            (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
        }
    }

    /// The name.
    public let name: Name
    /// What fires it.
    public let looksFor: String
    /// Where the behaviour is described.
    public let source: String
    /// What it costs a tap.
    public let cost: String
    /// On unless configured off.
    public let isDefault: Bool
}
