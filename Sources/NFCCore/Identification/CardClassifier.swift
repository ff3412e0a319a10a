/// First identification step: the card type from what anticollision revealed (ATQA, SAK, modulation),
/// before any command is sent. ``TagIdentifier`` then refines it with family probes.
public enum CardClassifier {
    /// One row of the ATQA/SAK table: `(atqa & atqaMask)` must be one of `atqaValues` (an empty list
    /// accepts any ATQA) and the SAK one of `saks`.
    public struct Rule: Sendable, Hashable {
        public var atqaMask: UInt16
        public var atqaValues: [UInt16]
        public var saks: [UInt8]
        public var type: CardType

        /// True when the rule matches `atqa` (MSB first as a number) and `sak`.
        public func matches(atqa: UInt16, sak: UInt8) -> Bool {
            saks.contains(sak) && (atqaValues.isEmpty || atqaValues.contains(atqa & atqaMask))
        }
    }

    /// The ISO/IEC 14443-A rule table, first match wins, assembled from the families' rows
    /// (``TagFamily/classifierRules``, each beside its card types): every rule that names ATQA values,
    /// in registry order, then the SAK-only rules (any ATQA), in registry order — so a SAK-only rule
    /// never shadows one that names the ATQA. Upstream's table (libnfc target-subr.c / NXP AN10833 §2)
    /// with the spec's changes: ATQA 0304 + SAK 20 is also DESFire (random UID), and every other
    /// SAK 20/28/38 card starts as generic ISO 7816 (`.smartMX`) to be probed for DESFire, Type 4 and
    /// eMRTD — upstream's "SAK 20 ⇒ Plus SL3" rule is dropped because AN10833 §2.1 tells SL3 apart by
    /// its ATS, not by ATQA/SAK.
    public static let rules: [Rule] = {
        let all = TagFamilies.all.flatMap(\.classifierRules)
        return all.filter { !$0.atqaValues.isEmpty } + all.filter(\.atqaValues.isEmpty)
    }()

    /// The coarse card type of `target`: its technology's (``Technology/coarseType``: FeliCa is
    /// `.felicaStandard` — Lite / Lite-S are told apart by probing —, ISO 14443-B `.iso14443B_generic`,
    /// ISO 15693 `.iso15693_generic`, Jewel `.jewelTopaz`), else — ISO 14443-A — through ``rules`` (an
    /// empty ATQA with a SAK only through the rows that accept any ATQA; an ATQA of 1 byte or no rule
    /// match gives `.unknown(atqa:sak:)`).
    public static func classify(_ target: Target) -> CardType {
        if let type = target.modulation.technology.coarseType { return type }
        let sak = target.sak ?? 0
        // No ATQA at all: a PC/SC reader that does not answer `FF CA 03` (``ContactlessATR``). Only the
        // rows that accept any ATQA can match.
        if target.atqa.isEmpty, target.sak != nil {
            return rules.first { $0.atqaValues.isEmpty && $0.saks.contains(sak) }?.type ?? .unknown(atqa: [], sak: sak)
        }
        guard target.atqa.count >= 2 else { return .unknown(atqa: target.atqa, sak: sak) }
        let atqa = UInt16(target.atqa[0]) << 8 | UInt16(target.atqa[1])
        return rules.first { $0.matches(atqa: atqa, sak: sak) }?.type ?? .unknown(atqa: target.atqa, sak: sak)
    }
}
