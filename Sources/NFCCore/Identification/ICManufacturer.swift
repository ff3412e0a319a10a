/// IC manufacturer codes of the ISO/IEC 7816-6 register, as a tag carries them: the first byte of an
/// ISO/IEC 14443-3 double-size UID, the byte after `E0` in an ISO/IEC 15693-3 UID, the manufacturer
/// byte of an NXP custom ISO 15693 command, the vendor byte of a GET_VERSION answer. The one copy of
/// each code NFCCore checks against.
public enum ICManufacturer {
    /// NXP Semiconductors (ISO/IEC 7816-6).
    public static let nxp: UInt8 = 0x04
}
