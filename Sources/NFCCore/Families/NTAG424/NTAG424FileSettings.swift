/// One NTAG 424 DNA file's settings, the GetFileSettings (F5h) answer (NT4H2421Gx Rev. 3.0 §10.7.2
/// Table 73): FileType (00h StandardData, the only type the chip has), FileOption (bit 6 SDM, bits 1-0
/// the communication mode), AccessRights (2, §8.2.3.3), FileSize (3, LSB first), then the SDM fields
/// when SDM is enabled (``SDMSettings``).
public struct NTAG424FileSettings: Sendable, Hashable {
    /// FileOption bit 6 (Table 73).
    public static let sdmEnabledBit: UInt8 = 0x40

    public var fileOption: UInt8
    public var accessRights: DESFireFileSettings.AccessRights
    public var fileSize: Int
    /// The SDM fields, when FileOption bit 6 is set.
    public var sdm: SDMSettings?

    /// Communication mode, FileOption bits 1-0 (§8.2.3.2: 00/10 plain, 01 MAC, 11 full).
    public var communicationMode: DESFireFileSettings.CommunicationMode { DESFireFileSettings.CommunicationMode(bits: fileOption) }

    /// Settings given field by field.
    public init(fileOption: UInt8, accessRights: DESFireFileSettings.AccessRights, fileSize: Int, sdm: SDMSettings? = nil) {
        self.fileOption = fileOption
        self.accessRights = accessRights
        self.fileSize = fileSize
        self.sdm = sdm
    }

    /// Decodes an answer. Throws ``NFCError/invalidResponse(_:)`` for a file type other than 00h, an
    /// answer too short for the fields its options call for, or bytes past them.
    public init(bytes: [UInt8]) throws(NFCError) {
        guard bytes.count >= 7, bytes[0] == 0x00 else { throw .invalidResponse(bytes) }
        fileOption = bytes[1]
        accessRights = DESFireFileSettings.AccessRights(bytes: bytes[2], bytes[3])
        fileSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16
        if fileOption & Self.sdmEnabledBit != 0 {
            let (settings, count) = try SDMSettings.decode(bytes[7...])
            guard 7 + count == bytes.count else { throw .invalidResponse(bytes) }
            sdm = settings
        } else {
            guard bytes.count == 7 else { throw .invalidResponse(bytes) }
            sdm = nil
        }
    }

    /// The answer's bytes again.
    public var bytes: [UInt8] {
        [0x00, fileOption] + accessRights.bytes
            + [UInt8(truncatingIfNeeded: fileSize), UInt8(truncatingIfNeeded: fileSize >> 8), UInt8(truncatingIfNeeded: fileSize >> 16)]
            + (sdm?.bytes ?? [])
    }
}
