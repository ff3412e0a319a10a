/// MIFARE DESFire Light (GetVersion hardware type 08h): one preinstalled application that the native
/// SelectApplication does not reach (MF2DLHX0 §8.2 "application", AN12343 §3 "ISOSelectFile"): it is
/// selected with ISO/IEC 7816-4 SELECT by its DF name, then walked with the wrapped DESFire commands
/// with its own command set (``DESFireCommandSet/light``: ReadData ADh, ReadRecords ABh). Its files are keyed by the DF name (`A00000039656434103F015400000000B/00`)
/// since the chip has no DESFire AID to key them by.
public enum DESFireLight {
    /// GetVersion hardware type of DESFire Light (MF2DLHX0 §10.5.2 GetVersion).
    public static let hardwareType: UInt8 = 0x08

    /// DF names the application answers to, in the order they are tried: the factory name
    /// (MF2DLHX0 §8.2.1, ISO file id DF01), then the NDEF Tag Application name that
    /// SetConfiguration may give it once (AN12343 "AuthenticateEV2NonFirst", ISO file id E110).
    public static let dfNames: [[UInt8]] = [
        [0xA0, 0x00, 0x00, 0x03, 0x96, 0x56, 0x43, 0x41, 0x03, 0xF0, 0x15, 0x40, 0x00, 0x00, 0x00, 0x0B],
        [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01],
    ]

    /// The outcome of selecting the application.
    enum Selection {
        /// Selected by this DF name.
        case selected([UInt8])
        /// No name was accepted; the status words, for the facts.
        case notFound(String)
    }

    /// ISO SELECT by DF name, P2 0Ch (no FCI), each of `names` (the Light's ``dfNames`` unless the
    /// product's ``DESFireCommandSet`` names others) until one answers 9000. A refusal (6A82) is not
    /// an error: the dump names it. Transport errors are thrown.
    static func select(_ names: [[UInt8]] = dfNames, transport: any APDUTransport) async throws -> Selection {
        var refusals: [String] = []
        for name in names {
            let response = try await transport.send(CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: name, le: 256))
            if response.sw1 == 0x90 && response.sw2 == 0x00 { return .selected(name) }
            refusals.append("SELECT \(name.hexString): \([response.sw1, response.sw2].hexString)")
        }
        return .notFound(refusals.joined(separator: ", "))
    }
}

extension DESFireDump {
    /// True for a DESFire Light dump (its one application keyed by DF name).
    public var isLight: Bool { version.hardware.type == DESFireLight.hardwareType }
    /// The command set the walk used (``DESFireCommandSet/forVersion(_:)``).
    public var commandSet: DESFireCommandSet { .forVersion(version) }
    /// True when the application was entered by ISO SELECT of its DF name (Light, NTAG 4xx DNA).
    public var selectsByDFName: Bool {
        if case .isoSelect = commandSet.entry { return true }
        return false
    }
}
