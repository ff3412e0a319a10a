/// What each virtual DESFire-family chip ACCEPTS: per model, every command code its datasheet lists,
/// and what the simulator does with it. Written from the datasheets for the simulator alone (it
/// shares nothing with NFCCore's `DESFireCommandSet`, which says what the agent sends), so that a
/// code the agent sends wrongly is refused here as the chip refuses it.
///
/// - A code not in the model's set answers ILLEGAL_COMMAND_CODE (`91 1C`), as every one of these
///   datasheets says a chip does ("command code not supported": MF3ICD(Q)81 §9.3, NT4H2421Gx §10.3
///   Table 23).
/// - A code in the set that the simulator does not model (writes, transactions, key changes)
///   answers PERMISSION_DENIED (`91 9D`, "current configuration / status does not allow the
///   requested command"): what a chip answers when the state it needs — here, a session the
///   simulator cannot open — is missing. Documented in docs/simulator.md.
///
/// Sources per model:
/// - EV1: MIFARE DESFire EV1 MF3ICD(Q)21/41/81 §9 command set (security, PICC, application, data
///   manipulation commands). EV2 (MF3D(H)x2) and EV3 (MF3D(H)x3) add the EV2 secure messaging and
///   the ISO-chaining codes (ReadData ADh, WriteData 8Dh, ReadRecords ABh, WriteRecord 8Bh,
///   UpdateRecord DBh/BAh) besides every EV1 code; those additions are taken from NXP's NFC Reader
///   Library `phalMfdfEVx` and Proxmark3 `desfirecore.c` / `protocols.h` (MFDES_READ_DATA2 0xAD …),
///   UNVERIFIED against the EV2/EV3 datasheets' own tables.
/// - Light: MIFARE DESFire Light MF2DL(H)x0 command set chapter, as NXP's Light API `phalMfdfLight.h`
///   exposes it (ReadData / ReadRecords / WriteData / WriteRecord with "ISO 14443-4 chaining … always
///   set", i.e. ADh / ABh / 8Dh / 8Bh, UpdateRecord BAh; no SelectApplication, GetApplicationIDs,
///   GetKeySettings, Create*File but CreateTransactionMACFile) and Proxmark3 `doc/desfire.md`
///   "DESFire Light". The datasheet table itself was not at hand: rows marked (u) below are UNVERIFIED.
/// - NTAG 424 DNA: NT4H2421Gx Rev. 3.0 §10.2 Table 22 "APDUs" (verified, every row).
enum VirtualDESFireCommandSets {
    /// What the simulator does with an accepted code.
    enum Handling: Sendable, Equatable {
        /// Answered by ``VirtualDESFireTag`` (GetVersion, the directory, settings, reads).
        case simulated
        /// In the chip's set but not modelled: `91 9D`.
        case notSimulated
    }

    /// One row: a command code, its datasheet name, and how it is handled.
    struct Row: Sendable {
        var code: UInt8
        var name: String
        var handling: Handling
    }

    private static func s(_ code: UInt8, _ name: String) -> Row { Row(code: code, name: name, handling: .simulated) }
    private static func n(_ code: UInt8, _ name: String) -> Row { Row(code: code, name: name, handling: .notSimulated) }

    /// The first DESFire, MF3ICD40: the EV1 set without what EV1 added (AuthenticateISO 1Ah,
    /// AuthenticateAES AAh, SetConfiguration 5Ch, GetCardUID 51h, FreeMemory 6Eh, GetDFNames 6Dh,
    /// GetISOFileIDs 61h: MF3ICD(Q)81 §9 marks them new in EV1). UNVERIFIED against the MF3ICD40
    /// datasheet's own table, which was not at hand: its functional specification (Philips M075031) is a
    /// confidential document, and no public NXP text lists the MF3ICD40 command set.
    static let d40: [Row] = ev1.filter { ![0x1A, 0xAA, 0x5C, 0x51, 0x6E, 0x6D, 0x61].contains($0.code) }

    /// MF3ICD(Q)81 §9 (EV1).
    static let ev1: [Row] = [
        s(0x0A, "Authenticate (legacy)"), s(0x1A, "AuthenticateISO"), s(0xAA, "AuthenticateAES"),
        n(0x54, "ChangeKeySettings"), n(0x5C, "SetConfiguration"), n(0xC4, "ChangeKey"),
        s(0x45, "GetKeySettings"), s(0x64, "GetKeyVersion"),
        n(0xCA, "CreateApplication"), n(0xDA, "DeleteApplication"), s(0x6A, "GetApplicationIDs"),
        n(0x6E, "FreeMemory"), n(0x6D, "GetDFNames"), s(0x5A, "SelectApplication"), n(0xFC, "FormatPICC"),
        s(0x60, "GetVersion"), n(0x51, "GetCardUID"),
        s(0x6F, "GetFileIDs"), n(0x61, "GetISOFileIDs"), s(0xF5, "GetFileSettings"), n(0x5F, "ChangeFileSettings"),
        n(0xCD, "CreateStdDataFile"), n(0xCB, "CreateBackupDataFile"), n(0xCC, "CreateValueFile"),
        n(0xC1, "CreateLinearRecordFile"), n(0xC0, "CreateCyclicRecordFile"), n(0xDF, "DeleteFile"),
        s(0xBD, "ReadData"), n(0x3D, "WriteData"), s(0x6C, "GetValue"), n(0x0C, "Credit"), n(0xDC, "Debit"),
        n(0x1C, "LimitedCredit"), n(0x3B, "WriteRecord"), s(0xBB, "ReadRecords"), n(0xEB, "ClearRecordFile"),
        n(0xC7, "CommitTransaction"), n(0xA7, "AbortTransaction"),
    ]

    /// EV2 and EV3: every EV1 code plus the EV2 additions (UNVERIFIED rows, see the type's comment).
    static let ev2: [Row] = ev1 + [
        s(0x71, "AuthenticateEV2First"), s(0x77, "AuthenticateEV2NonFirst"), n(0xC6, "ChangeKeyEV2"),
        n(0x56, "InitializeKeySet"), n(0x57, "FinalizeKeySet"), n(0x55, "RollKeySet"),
        n(0xC9, "CreateDelegatedApplication"), n(0x69, "GetDelegatedInfo"), n(0xCE, "CreateTransactionMACFile"),
        s(0xAD, "ReadData (ISO chaining)"), n(0x8D, "WriteData (ISO chaining)"),
        s(0xAB, "ReadRecords (ISO chaining)"), n(0x8B, "WriteRecord (ISO chaining)"),
        n(0xDB, "UpdateRecord"), n(0xBA, "UpdateRecord (ISO chaining)"),
        n(0xC8, "CommitReaderID"), n(0xF6, "GetFileCounters"), s(0x3C, "Read_Sig"),
    ]

    /// MF2DL(H)x0 command set (Light). (u) = UNVERIFIED against the datasheet's table.
    static let light: [Row] = [
        s(0x71, "AuthenticateEV2First / AuthenticateLRPFirst"), s(0x77, "AuthenticateEV2NonFirst / AuthenticateLRPNonFirst"),
        n(0xC4, "ChangeKey"), s(0x64, "GetKeyVersion"), n(0x5C, "SetConfiguration"),
        s(0x60, "GetVersion"), n(0x51, "GetCardUID"),
        s(0x6F, "GetFileIDs"), n(0x61, "GetISOFileIDs (u)"), s(0xF5, "GetFileSettings"), n(0x5F, "ChangeFileSettings"),
        n(0xCE, "CreateTransactionMACFile"), n(0xDF, "DeleteTransactionMACFile"), n(0xF6, "GetFileCounters (u)"),
        s(0xAD, "ReadData"), n(0x8D, "WriteData"), s(0x6C, "GetValue"), n(0x0C, "Credit"), n(0xDC, "Debit"),
        n(0x1C, "LimitedCredit"), s(0xAB, "ReadRecords"), n(0x8B, "WriteRecord"), n(0xBA, "UpdateRecord"),
        n(0xEB, "ClearRecordFile"), n(0xC7, "CommitTransaction"), n(0xA7, "AbortTransaction"),
        n(0xC8, "CommitReaderID"), s(0x3C, "Read_Sig"),
    ]

    /// NT4H2421Gx Rev. 3.0 §10.2 Table 22 (NTAG 424 DNA), every row verified.
    static let ntag424: [Row] = [
        s(0x71, "AuthenticateEV2First / AuthenticateLRPFirst"), s(0x77, "AuthenticateEV2NonFirst / AuthenticateLRPNonFirst"),
        n(0x5F, "ChangeFileSettings"), n(0xC4, "ChangeKey"), n(0x51, "GetCardUID"), n(0xF6, "GetFileCounters"),
        s(0xF5, "GetFileSettings"), s(0x64, "GetKeyVersion"), s(0x60, "GetVersion"), s(0xAD, "ReadData"),
        s(0x3C, "Read_Sig"), n(0x5C, "SetConfiguration"), n(0x8D, "WriteData"),
    ]

    /// The rows of `model`.
    static func rows(_ model: VirtualDESFireTag.Model) -> [Row] {
        switch model {
        case .d40: d40
        case .ev1: ev1
        case .ev2, .ev3: ev2
        case .light: light
        case .ntag424: ntag424
        }
    }

    /// How `model` takes `code`: nil when the code is not in its set (→ `91 1C`).
    static func handling(of code: UInt8, by model: VirtualDESFireTag.Model) -> Handling? {
        rows(model).first { $0.code == code }?.handling
    }
}
