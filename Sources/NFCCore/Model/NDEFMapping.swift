/// How a tag family holds NDEF: the NFC Forum tag type whose mapping its write, format and lock follow.
public enum NDEFMapping: String, Sendable, CaseIterable {
    /// Type 2: TLVs in pages from page 4, CC in page 3 (Ultralight, NTAG).
    case type2
    /// Type 3: attribute block and data blocks behind services 000Bh/0009h (FeliCa).
    case type3
    /// Type 4: NDEF Tag Application, CC file and NDEF file over ISO-DEP (DESFire, Type 4 tags, SmartMX).
    case type4
    /// Type 5: CC in the first 4 or 8 bytes, TLVs after it, in ISO 15693 blocks (ICODE, ST25, Tag-it).
    case type5
    /// MIFARE Classic (NXP AN1305): MAD in sector 0 (and 16), TLVs in the NDEF sectors (AID E103h).
    case mifareClassic = "mifare_classic"
}
