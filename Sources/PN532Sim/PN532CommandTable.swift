/// One PN532 command the emulator implements.
struct PN532Command: Sendable {
    /// Command code (the byte after TFI `D4`).
    let code: UInt8
    /// Name as in UM0701-02 §7 (used in traces).
    let name: String
    /// The handler: the chip and the parameters after the code.
    let handle: @Sendable (PN532Chip, [UInt8]) -> PN532Outcome
}

/// The commands of UM0701-02 §7 the emulator answers — every one libnfc 1.8.0's tools send,
/// plus InSelect and GetGeneralStatus. Anything else gets the syntax-error frame, as a PN532 does
/// for an unknown command.
enum PN532CommandTable {
    static let commands: [PN532Command] = [
        // §7.2 Miscellaneous
        PN532Command(code: 0x00, name: "Diagnose") { $0.diagnose($1) },
        PN532Command(code: 0x02, name: "GetFirmwareVersion") { chip, _ in chip.getFirmwareVersion() },
        PN532Command(code: 0x04, name: "GetGeneralStatus") { chip, _ in chip.getGeneralStatus() },
        PN532Command(code: 0x06, name: "ReadRegister") { $0.readRegister($1) },
        PN532Command(code: 0x08, name: "WriteRegister") { $0.writeRegister($1) },
        PN532Command(code: 0x12, name: "SetParameters") { $0.setParameters($1) },
        PN532Command(code: 0x14, name: "SAMConfiguration") { $0.samConfiguration($1) },
        PN532Command(code: 0x16, name: "PowerDown") { $0.powerDown($1) },
        // §7.3 RF communication
        PN532Command(code: 0x32, name: "RFConfiguration") { $0.rfConfiguration($1) },
        // §7.3 Initiator
        PN532Command(code: 0x40, name: "InDataExchange") { $0.inDataExchange($1) },
        PN532Command(code: 0x42, name: "InCommunicateThru") { $0.inCommunicateThru($1) },
        PN532Command(code: 0x44, name: "InDeselect") { $0.inDeselect($1) },
        PN532Command(code: 0x4A, name: "InListPassiveTarget") { $0.inListPassiveTarget($1) },
        PN532Command(code: 0x52, name: "InRelease") { $0.inRelease($1) },
        PN532Command(code: 0x54, name: "InSelect") { $0.inSelect($1) },
        PN532Command(code: 0x60, name: "InAutoPoll") { $0.inAutoPoll($1) },
    ]

    /// Commands by code.
    static let byCode: [UInt8: PN532Command] = Dictionary(uniqueKeysWithValues: commands.map { ($0.code, $0) })

    /// The command's name for traces, "Unknown" for codes the table lacks.
    static func name(of code: UInt8) -> String { byCode[code]?.name ?? "Unknown" }
}
