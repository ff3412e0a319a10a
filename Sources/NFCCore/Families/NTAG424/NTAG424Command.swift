/// NTAG 424 DNA's files and the commands NFCCore sends it beyond the Type 4 mapping, from NT4H2421Gx
/// Rev. 3.0. Every command goes wrapped (`90 INS 00 00 Lc data 00`, §8.4 / §10.1: the chip takes no
/// native frames); the application is the one NFC Forum Type 4 application (§8.2.1, DF name
/// D2760000850101), selected by ISO SELECT.
public enum NTAG424Command {
    /// One of the three files the chip is delivered with (§8.2.2 Table 8 "Files"; the chip cannot
    /// create others): its number for DESFire-style commands, its ISO file id for ISO SELECT + READ BINARY.
    public struct File: Sendable, Hashable {
        public var number: UInt8
        public var isoFileID: [UInt8]
        public var name: String
        /// Size as delivered, bytes.
        public var size: Int
    }

    /// §8.2.2: 01h the Capability Container (E103h, 32 bytes), 02h the NDEF file (E104h, 256 bytes, the
    /// only one SDM may be enabled on — ChangeFileSettings answers PERMISSION_DENIED otherwise,
    /// §10.7.1 Table 71), 03h the proprietary file (E105h, 128 bytes, CommMode.Full, read key 2).
    public static let files: [File] = [
        File(number: 0x01, isoFileID: [0xE1, 0x03], name: "Capability Container", size: 32),
        File(number: 0x02, isoFileID: [0xE1, 0x04], name: "NDEF File", size: 256),
        File(number: 0x03, isoFileID: [0xE1, 0x05], name: "Proprietary File", size: 128),
    ]

    /// The file SDM may be enabled on (§10.7.1 Table 71, PERMISSION_DENIED row).
    public static let sdmFile: UInt8 = 0x02

    /// Command codes used (§10.2 Table 22 "APDUs").
    public enum Code {
        public static let getFileSettings: UInt8 = 0xF5
        public static let readData: UInt8 = 0xAD
        public static let getVersion: UInt8 = 0x60
    }

    /// GetFileSettings (F5h, §10.7.2): plain in the not-authenticated state. Throws
    /// ``NFCError/desfireError(status:)`` for a refusal (91 F0 no such file), ``NFCError/invalidResponse(_:)``
    /// for an answer Table 73 does not describe.
    public static func fileSettings(of file: UInt8, transport: any APDUTransport) async throws -> NTAG424FileSettings {
        let channel = DESFireChannel(transport: transport, framing: .wrapped)
        return try NTAG424FileSettings(bytes: try await channel.command(Code.getFileSettings, [file]))
    }
}
