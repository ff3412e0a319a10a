/// The radio technology a target was found with: the key of the technology table
/// (``Technology/all``, one row per case). Its raw value is the name configuration files use
/// (`reader.polling.modulations`).
public enum Modulation: String, Sendable, Codable, CaseIterable {
    /// ISO/IEC 14443 type A, 106 kbit/s (MIFARE, NTAG, ISO-DEP A).
    case iso14443a
    /// ISO/IEC 14443 type B, 106 kbit/s.
    case iso14443b
    /// FeliCa (JIS X 6319-4) at 212 kbit/s.
    case felica212
    /// FeliCa at 424 kbit/s.
    case felica424
    /// ISO/IEC 15693 (not reachable through a PN53x; kept for other backends).
    case iso15693
    /// Innovision Jewel / Topaz (NFC Forum Type 1), 106 kbit/s: type A framing with its own
    /// anticollision (SENS_RES, then RID: no SAK; NFC Forum Digital §8).
    case jewel
}

/// What the reader learnt about a tag while selecting it: the identification inputs.
public struct Target: Sendable, Hashable, Codable {
    /// How the tag was found.
    public var modulation: Modulation
    /// UID (ISO 14443 NFCID1 / PUPI), or IDm for FeliCa, in transmission order.
    public var uid: [UInt8]
    /// ATQA (SENS_RES), **MSB first** as libnfc's `abtAtqa` holds it: an Ultralight is `00 44`.
    public var atqa: [UInt8]
    /// SAK (SEL_RES); nil when not ISO 14443-A.
    public var sak: UInt8?
    /// ATS without the TL length byte (libnfc's `abtAts`); empty when the tag is not ISO-DEP.
    public var ats: [UInt8]
    /// FeliCa PMm (8 bytes); empty otherwise.
    public var pmm: [UInt8]
    /// FeliCa system code (2 bytes, big-endian as on the wire); empty otherwise.
    public var systemCode: [UInt8]
    /// ISO 14443-B: the ATQB's Application Data field (4 bytes: AFI, CRC_B(AID), number of
    /// applications; ISO/IEC 14443-3 §7.9.3); empty otherwise.
    public var applicationData: [UInt8] = []
    /// ISO 14443-B: the ATQB's Protocol Info field (3 bytes: bit rates, max frame size and
    /// protocol type, FWI/ADC/FO; ISO/IEC 14443-3 §7.9.4); empty otherwise.
    public var protocolInfo: [UInt8] = []

    /// Creates a target description.
    public init(
        modulation: Modulation = .iso14443a, uid: [UInt8], atqa: [UInt8] = [], sak: UInt8? = nil,
        ats: [UInt8] = [], pmm: [UInt8] = [], systemCode: [UInt8] = []
    ) {
        self.modulation = modulation
        self.uid = uid
        self.atqa = atqa
        self.sak = sak
        self.ats = ats
        self.pmm = pmm
        self.systemCode = systemCode
    }

    /// Creates an ISO 14443-B target: the PUPI as the UID, with the ATQB's application data and
    /// protocol info.
    public init(pupi: [UInt8], applicationData: [UInt8], protocolInfo: [UInt8]) {
        self.init(modulation: .iso14443b, uid: pupi)
        self.applicationData = applicationData
        self.protocolInfo = protocolInfo
    }

    /// True for a 4-byte UID that starts with 08h: a random ID (ISO/IEC 14443-3 §6.5.4).
    public var hasRandomUID: Bool { Self.isRandomUID(uid) }

    /// True when `uid` is a random ID: single size (4 bytes) with UID0 = 08h (ISO/IEC 14443-3
    /// §6.5.4), what a phone presents anew at every tap.
    public static func isRandomUID(_ uid: [UInt8]) -> Bool { uid.count == 4 && uid.first == 0x08 }

    /// True when the tag said it speaks ISO/IEC 14443-4 (SAK bit 6, 0x20).
    public var isISODEP: Bool { (sak ?? 0) & 0x20 != 0 }

    /// ISO 14443-B: true unless the ATQB's Protocol_Type says the PICC is not ISO/IEC 14443-4
    /// compliant (bit 1 of the protocol info's second byte, ISO/IEC 14443-3 §7.9.4.3). A target
    /// without protocol info (not from an ATQB) counts as ISO-DEP, as every PN53x-selected B tag is.
    public var speaksISODEPOverB: Bool {
        modulation == .iso14443b && (protocolInfo.count < 2 || protocolInfo[1] & 0x01 != 0)
    }
}
