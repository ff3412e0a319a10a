
/// The simulator's own ISO/IEC 14443-3 type B tables (§7: REQB/WUPB, ATQB, ATTRIB, HLTB) and the
/// frame size codes of ISO/IEC 14443-4 Table 1, for ``VirtualTypeBTag`` and the chip's type B side.
public enum TypeBTables {
    /// REQB/WUPB command byte, APf (§7.7.1): `05 AFI PARAM`.
    public static let requestCommand: UInt8 = 0x05
    /// PARAM bit 4 (b4): 1 = WUPB (HALTed cards answer too), 0 = REQB (§7.7.4). Bits b3–b1 are N (slots).
    public static let wakeUpBit: UInt8 = 0x08
    /// ATTRIB command byte (§7.10.1): `1D PUPI(4) param1 param2 param3 param4 [higher layer INF]`.
    public static let attribCommand: UInt8 = 0x1D
    /// HLTB command byte (§7.12): `50 PUPI(4)`; the card answers `00`.
    public static let haltCommand: UInt8 = 0x50
    /// First byte of an ATQB (§7.9.1).
    public static let atqbHeader: UInt8 = 0x50

    /// ATTRIB param 1 the PN532 sends: TR0/TR1 defaults, SOF and EOF required (§7.10.3).
    public static let attribParameter1: UInt8 = 0x00
    /// ATTRIB param 2: 106 kbit/s both ways (b8–b5 = 0) and FSDI 8, 256 bytes (§7.10.4).
    public static let attribParameter2: UInt8 = 0x08
    /// ATTRIB param 3: the PCD speaks ISO/IEC 14443-4 (Protocol_Type b1, §7.10.5).
    public static let attribParameter3: UInt8 = 0x01

    /// The frame size of FSCI/FSDI `code` (ISO/IEC 14443-4 Table 1, ``ISODEPSession/frameSizes``;
    /// codes 9–F are RFU, read as 256).
    static func frameSize(code: UInt8) -> Int {
        ISODEPSession.frameSizes[min(Int(code), ISODEPSession.frameSizes.count - 1)]
    }

    /// The NFC Forum Type 4 NDEF Tag Application name, whose CRC_B the default application data carries.
    static let ndefApplicationID: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]

    /// Application Data (§7.9.3): AFI 00h (no family given), CRC_B of the application's AID, and one
    /// application.
    public static let defaultApplicationData: [UInt8] = [0x00] + AirChecksum.crcB(ndefApplicationID) + [0x01]

    /// Protocol Info (§7.9.4): 106 kbit/s only (00h); Max_Frame_Size 8 (256 bytes) with Protocol_Type 1
    /// (ISO/IEC 14443-4 compliant) (81h); FWI 7, ADC 01 (application data coded as §7.9.3) and FO
    /// CID supported, NAD not (75h).
    public static let defaultProtocolInfo: [UInt8] = [0x00, 0x81, 0x75]

    /// True when a card with AFI `card` answers a REQB/WUPB for AFI `requested` (§7.7.2, Table 13):
    /// 00h reaches every card; `X0h` every card of family X; any other value only that exact AFI.
    public static func afiMatches(requested: UInt8, card: UInt8) -> Bool {
        if requested == 0x00 { return true }
        if requested & 0x0F == 0 { return requested & 0xF0 == card & 0xF0 }
        return requested == card
    }
}
