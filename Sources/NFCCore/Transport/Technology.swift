/// One row of the technology table: what NFCCore knows of a radio technology (``Modulation``), so that
/// identification, the PC/SC ATR and the backends look it up instead of switching over the modulation.
/// A backend keeps its own row table keyed by ``Modulation`` (LibNFCReader's `LibNFCModulation`: the
/// libnfc modulation and select data); a technology it has no row for, it cannot poll.
///
/// Adding a modulation: its case in ``Modulation``, its row here, the backends' rows (LibNFCReader's
/// `LibNFCModulation.rows` and its target decoding), and the card types of the family that owns its
/// tags (`Model/CardType.swift`, a `Families/` folder).
public struct Technology: Sendable {
    /// The table's key; its raw value is the configuration name.
    public let modulation: Modulation
    /// The technology in words ("ISO/IEC 14443 type A, 106 kbit/s").
    public let name: String
    /// The standard bytes `SS` of a PC/SC part 3 storage-card ATR that name this technology (PC/SC
    /// Specifications Part 3 §3.1.3.2.3, "Standard" table), the one a reader writes (part 3 of the
    /// standard) first. A code names the first row that lists it (FeliCa's 11h, written for either
    /// rate, reads as FeliCa 212). Empty when no standard byte names it (Jewel is ISO 14443 A part 3
    /// on the wire; only its card name, 002Fh, tells it).
    public let atrStandards: [UInt8]
    /// The coarse card type the classifier gives every tag of this technology; nil when the ATQA/SAK
    /// rules (``CardClassifier/rules``) decide (ISO 14443-A).
    public let coarseType: CardType?
    /// What anticollision gives that identification keeps in ``CardInfo``.
    let anticollision: Anticollision
    /// True when frames carry a LEN byte on the air that NFCCore's commands leave out (FeliCa).
    public let framesCarryLength: Bool

    /// The parts of a ``Target`` a technology's anticollision fills.
    enum Anticollision {
        /// ATQA, SAK and ATS (ISO/IEC 14443-3 type A, -4).
        case typeA
        /// The ATQB's application data and protocol info (ISO/IEC 14443-3 §7.9).
        case typeB
        /// PMm and system code (JIS X 6319-4 POL_RES).
        case felica
        /// SENS_RES, kept as the ATQA (NFC Forum Digital §8.6.2; a Topaz answers `0C 00`).
        case senseResponse
        /// The UID alone (ISO/IEC 15693 INVENTORY).
        case uidOnly
    }

    /// The table, in ``Modulation`` order.
    public static let all: [Technology] = Modulation.allCases.map(\.technology)

    static let iso14443a = Technology(
        modulation: .iso14443a, name: "ISO/IEC 14443 type A, 106 kbit/s", atrStandards: [0x03, 0x01, 0x02],
        coarseType: nil, anticollision: .typeA, framesCarryLength: false)
    static let iso14443b = Technology(
        modulation: .iso14443b, name: "ISO/IEC 14443 type B, 106 kbit/s", atrStandards: [0x07, 0x05, 0x06],
        coarseType: .iso14443B_generic, anticollision: .typeB, framesCarryLength: false)
    // FeliCa Lite / Lite-S are told apart from Standard by probing (FeliCaRefinement).
    static let felica212 = Technology(
        modulation: .felica212, name: "FeliCa, 212 kbit/s", atrStandards: [0x11],
        coarseType: .felicaStandard, anticollision: .felica, framesCarryLength: true)
    static let felica424 = Technology(
        modulation: .felica424, name: "FeliCa, 424 kbit/s", atrStandards: [0x11],
        coarseType: .felicaStandard, anticollision: .felica, framesCarryLength: true)
    static let iso15693 = Technology(
        modulation: .iso15693, name: "ISO/IEC 15693", atrStandards: [0x0B, 0x09, 0x0A, 0x0C],
        coarseType: .iso15693_generic, anticollision: .uidOnly, framesCarryLength: false)
    // The Type 1 row of the registry (TagFamilies) owns `.jewelTopaz`.
    static let jewel = Technology(
        modulation: .jewel, name: "Jewel / Topaz (NFC Forum Type 1), 106 kbit/s", atrStandards: [],
        coarseType: .jewelTopaz, anticollision: .senseResponse, framesCarryLength: false)

    /// The technology a PC/SC storage-card ATR's standard byte names; nil for none.
    public static func forATRStandard(_ code: UInt8) -> Technology? {
        all.first { $0.atrStandards.contains(code) }
    }

    /// Copies what anticollision gave (``anticollision``) from `target` into `info`.
    func keepAnticollision(of target: Target, in info: inout CardInfo) {
        switch anticollision {
        case .typeA:
            info.atqa = target.atqa.isEmpty ? nil : target.atqa
            info.sak = target.sak
            info.ats = target.ats.isEmpty ? nil : target.ats
        case .typeB:
            info.applicationData = target.applicationData.isEmpty ? nil : target.applicationData
            info.protocolInfo = target.protocolInfo.isEmpty ? nil : target.protocolInfo
        case .felica:
            info.pmm = target.pmm.isEmpty ? nil : target.pmm
            info.systemCode = target.systemCode.isEmpty ? nil : target.systemCode
        case .senseResponse:
            info.atqa = target.atqa.isEmpty ? nil : target.atqa
        case .uidOnly:
            break
        }
    }
}

extension Modulation {
    /// The row of the technology table for this modulation.
    public var technology: Technology {
        switch self {
        case .iso14443a: .iso14443a
        case .iso14443b: .iso14443b
        case .felica212: .felica212
        case .felica424: .felica424
        case .iso15693: .iso15693
        case .jewel: .jewel
        }
    }

    /// True for the FeliCa modulations, whose frames carry a LEN byte on the wire
    /// (``Technology/framesCarryLength``).
    public var isFeliCa: Bool { technology.framesCarryLength }
}
