/// What the virtual NTAG 424 DNA with SDM (``VirtualSDMTag``) ACCEPTS, written for the simulator alone
/// from NT4H2421Gx Rev. 3.0 §10.2 Table 22 "APDUs" (it shares nothing with NFCCore's command tables).
///
/// - A wrapped code (`90 INS …`) not in the table answers ILLEGAL_COMMAND_CODE `91 1C` (§10.3 Table 23).
/// - A wrapped code in the table the simulator does not model (authentication, key and settings
///   changes, writes by WriteData) answers PERMISSION_DENIED `91 9D`, as docs/simulator.md says of
///   every virtual DESFire-family chip.
/// - An ISO 7816 INS (`00 INS …`) not in the table answers `6D 00`; another CLA `6E 00`.
enum VirtualSDMTable {
    enum Handling: Sendable, Equatable { case simulated, notSimulated }

    struct Row: Sendable {
        var cla: UInt8
        var ins: UInt8
        var name: String
        var handling: Handling
    }

    /// Table 22, every row.
    static let rows: [Row] = [
        Row(cla: 0x90, ins: 0x71, name: "AuthenticateEV2First / AuthenticateLRPFirst", handling: .notSimulated),
        Row(cla: 0x90, ins: 0x77, name: "AuthenticateEV2NonFirst / AuthenticateLRPNonFirst", handling: .notSimulated),
        Row(cla: 0x90, ins: 0xAF, name: "Additional frame", handling: .simulated),
        Row(cla: 0x90, ins: 0x5F, name: "ChangeFileSettings", handling: .notSimulated),
        Row(cla: 0x90, ins: 0xC4, name: "ChangeKey", handling: .notSimulated),
        Row(cla: 0x90, ins: 0x51, name: "GetCardUID", handling: .notSimulated),
        Row(cla: 0x90, ins: 0xF6, name: "GetFileCounters", handling: .notSimulated),
        Row(cla: 0x90, ins: 0xF5, name: "GetFileSettings", handling: .simulated),
        Row(cla: 0x90, ins: 0x64, name: "GetKeyVersion", handling: .simulated),
        Row(cla: 0x90, ins: 0x60, name: "GetVersion", handling: .simulated),
        Row(cla: 0x90, ins: 0xAD, name: "ReadData", handling: .simulated),
        Row(cla: 0x90, ins: 0x3C, name: "Read_Sig", handling: .notSimulated),
        Row(cla: 0x90, ins: 0x5C, name: "SetConfiguration", handling: .notSimulated),
        Row(cla: 0x90, ins: 0x8D, name: "WriteData", handling: .notSimulated),
        Row(cla: 0x00, ins: 0xA4, name: "ISOSelectFile", handling: .simulated),
        Row(cla: 0x00, ins: 0xB0, name: "ISOReadBinary", handling: .simulated),
        Row(cla: 0x00, ins: 0xD6, name: "ISOUpdateBinary", handling: .simulated),
    ]

    static func handling(cla: UInt8, ins: UInt8) -> Handling? {
        rows.first { $0.cla == cla && $0.ins == ins }?.handling
    }

    /// Status bytes after 91h (§10.3 Table 23).
    enum Status {
        static let ok: UInt8 = 0x00
        static let illegalCommand: UInt8 = 0x1C
        static let noSuchKey: UInt8 = 0x40
        static let lengthError: UInt8 = 0x7E
        static let permissionDenied: UInt8 = 0x9D
        static let parameterError: UInt8 = 0x9E
        static let authenticationError: UInt8 = 0xAE
        static let additionalFrame: UInt8 = 0xAF
        static let boundaryError: UInt8 = 0xBE
        static let fileNotFound: UInt8 = 0xF0
    }

    /// ISO/IEC 7816-4 status words the chip answers (§10.9 ISO commands).
    enum StatusWord {
        static let ok: [UInt8] = [0x90, 0x00]
        static let wrongLength: [UInt8] = [0x67, 0x00]
        static let securityNotSatisfied: [UInt8] = [0x69, 0x82]
        static let noCurrentEF: [UInt8] = [0x69, 0x86]
        static let fileNotFound: [UInt8] = [0x6A, 0x82]
        static let wrongParameters: [UInt8] = [0x6B, 0x00]
        static let wrongP1P2: [UInt8] = [0x6A, 0x86]
        static let insNotSupported: [UInt8] = [0x6D, 0x00]
        static let claNotSupported: [UInt8] = [0x6E, 0x00]
    }
}
