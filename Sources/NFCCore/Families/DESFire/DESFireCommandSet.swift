/// What NFCCore SENDS to each DESFire-family product: one table per product, each row a command
/// code taken from that product's datasheet, `nil` where the product has no such command. Chosen by
/// the GetVersion hardware type (``DESFireCommandSet/forHardwareType(_:)``), never by trial: a Light
/// answers a code outside its set with ILLEGAL_COMMAND_CODE (91 1C) and the file is lost.
///
/// Sources, per table:
/// - ``desfire`` — MIFARE DESFire EV1 MF3ICD(Q)21/41/81 §9 "command set" (EV2 MF3D(H)x2 and EV3
///   MF3D(H)x3 keep these codes): the native codes BDh / BBh, which every EV1/EV2/EV3 accepts.
/// - ``light`` — MIFARE DESFire Light MF2DL(H)x0 command set chapter: ReadData ADh and ReadRecords ABh
///   (the "ISO chaining" codes; BDh / BBh are not in its set), no SelectApplication 5Ah, no
///   GetApplicationIDs 6Ah (its one application is entered by ISO SELECT of its DF name, §8.2.1 /
///   AN12343 §3). Cross-checked against NXP's NFC Reader Library `phalMfdfLight.h` (ReadData,
///   ReadRecords, WriteData, WriteRecord: "uses ISO 14443-4 chaining … should be always set", and
///   a GetFileIDs entry point) and Proxmark3 `doc/desfire.md` "DESFire Light". The datasheet's own
///   table was not at hand: GetFileIDs 6Fh and GetKeyVersion 64h on the Light, and the absence of
///   GetKeySettings 45h, are UNVERIFIED against MF2DL(H)x0 (taken from NXP's Light API), and so are
///   the MF2DL(H)x0 section numbers cited here (§8.2 as the code before this table cited it).
/// - ``ntag4xxDNA`` — NTAG 424 DNA NT4H2421Gx Rev. 3.0 §10.2 Table 22 "APDUs" (verified): GetVersion
///   60h, GetFileSettings F5h, GetKeyVersion 64h, ReadData ADh, ISOSelectFile A4h; no GetFileIDs,
///   GetKeySettings, GetValue, ReadRecords, SelectApplication or GetApplicationIDs. Key numbers 0h–4h
///   (Table 25). NTAG 413 DNA (hardware type 04h too) is given the same table: UNVERIFIED against
///   its own datasheet (NT4H1321).
public struct DESFireCommandSet: Sendable, Hashable, CustomStringConvertible {
    /// The operations the identification and the dump perform.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        case getVersion, additionalFrame, selectApplication, getApplicationIDs, getFileIDs, getFileSettings
        case readData, getValue, readRecords, getKeySettings, getKeyVersion
    }

    /// How the product's application is entered.
    public enum ApplicationEntry: Sendable, Hashable {
        /// PICC level SelectApplication 000000, GetApplicationIDs, then SelectApplication by AID.
        case directory
        /// ISO/IEC 7816-4 SELECT by DF name (`00 A4 04 0C`), each name in order until one answers 9000.
        case isoSelect(dfNames: [[UInt8]])
    }

    public let name: String
    /// Datasheet and section the table is taken from.
    public let source: String
    public let entry: ApplicationEntry
    /// The command code of each operation the product has.
    let codes: [Operation: UInt8]
    /// File numbers the product is delivered with (it cannot create others), probed one by one with
    /// GetFileSettings when it has no GetFileIDs or refuses it.
    public let fixedFiles: [UInt8]
    /// Keys of the application when the product has no GetKeySettings to count them.
    public let fixedKeyCount: Int?

    /// The code the product takes for `operation`, or nil when its datasheet lists none.
    public func code(_ operation: Operation) -> UInt8? { codes[operation] }

    public var description: String { name }

    /// MIFARE DESFire (MF3ICD40), EV1, EV2, EV3 (hardware types 01h, 81h, 91h).
    public static let desfire = DESFireCommandSet(
        name: "MIFARE DESFire EV1/EV2/EV3", source: "MF3ICD(Q)81 §9 command set (EV1); MF3D(H)x2, MF3D(H)x3 keep the codes",
        entry: .directory,
        codes: [.getVersion: 0x60, .additionalFrame: 0xAF, .selectApplication: 0x5A, .getApplicationIDs: 0x6A,
                .getFileIDs: 0x6F, .getFileSettings: 0xF5, .readData: 0xBD, .getValue: 0x6C, .readRecords: 0xBB,
                .getKeySettings: 0x45, .getKeyVersion: 0x64],
        fixedFiles: [], fixedKeyCount: nil)

    /// MIFARE DESFire Light (hardware type 08h).
    public static let light = DESFireCommandSet(
        name: "MIFARE DESFire Light", source: "MF2DL(H)x0 command set chapter; §8.2 application and files",
        entry: .isoSelect(dfNames: DESFireLight.dfNames),
        codes: [.getVersion: 0x60, .additionalFrame: 0xAF, .getFileIDs: 0x6F, .getFileSettings: 0xF5,
                .readData: 0xAD, .getValue: 0x6C, .readRecords: 0xAB, .getKeyVersion: 0x64],
        // 00h standard 256 B, 01h cyclic record, 03h value, 04h standard 256 B, 0Fh transaction MAC,
        // 1Fh standard 32 B (FCI) — Proxmark3 doc/desfire.md "DESFire Light" after MF2DL(H)x0 §8.2.
        fixedFiles: [0x00, 0x01, 0x03, 0x04, 0x0F, 0x1F],
        fixedKeyCount: 5)

    /// NTAG 413 DNA / NTAG 424 DNA (hardware type 04h): one application, the NFC Forum Type 4 one.
    public static let ntag4xxDNA = DESFireCommandSet(
        name: "NTAG 424 DNA", source: "NT4H2421Gx Rev. 3.0 §10.2 Table 22; §8.2 files 01h CC, 02h NDEF, 03h proprietary",
        entry: .isoSelect(dfNames: [NTAG4xxDNA.dfName]),
        codes: [.getVersion: 0x60, .additionalFrame: 0xAF, .getFileSettings: 0xF5, .readData: 0xAD, .getKeyVersion: 0x64],
        fixedFiles: [0x01, 0x02, 0x03],
        fixedKeyCount: 5)

    /// The set for a GetVersion hardware type: 08h Light, 04h NTAG 4xx DNA, anything else the
    /// DESFire set (the codes every DESFire since MF3ICD40 takes).
    public static func forHardwareType(_ type: UInt8) -> DESFireCommandSet {
        switch type {
        case DESFireLight.hardwareType: light
        case NTAG4xxDNA.hardwareType: ntag4xxDNA
        default: desfire
        }
    }

    /// The set for the chip `version` describes.
    public static func forVersion(_ version: DESFireVersion) -> DESFireCommandSet { forHardwareType(version.hardware.type) }
}

/// NTAG 413 DNA / 424 DNA constants (NT4H2421Gx Rev. 3.0).
public enum NTAG4xxDNA {
    /// GetVersion hardware type (NT4H2421Gx §10.5.2 GetVersion, HWType 04h).
    public static let hardwareType: UInt8 = 0x04
    /// The NFC Forum Type 4 application's DF name, its only application (§8.2.1).
    public static let dfName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
}
