/// The Capability Container file (E103h) of an NFC Forum Type 4 Tag, mapping version 2.0
/// (T4T v2.0 §5.1.2.1, Table 4): CCLEN(2) · mapping version(1) · MLe(2) · MLc(2) · NDEF File Control
/// TLV `04 06` { file id(2), maximum NDEF file size(2), read access(1), write access(1) }.
public struct Type4CapabilityContainer: Sendable, Hashable {
    /// CCLEN as read (000Fh for a plain tag).
    public var length: Int
    /// Mapping version byte: major in the high nibble (20h = 2.0).
    public var mappingVersion: UInt8
    /// Maximum R-APDU data size (bytes one READ BINARY may return).
    public var mle: Int
    /// Maximum C-APDU data size (bytes one UPDATE BINARY may carry).
    public var mlc: Int
    /// NDEF file identifier.
    public var ndefFileID: [UInt8]
    /// Size of the NDEF file in bytes, NLEN included.
    public var maxNDEFFileSize: Int
    /// NDEF file read access (00 = free).
    public var readAccess: UInt8
    /// NDEF file write access (00 = free, FF = none).
    public var writeAccess: UInt8

    public init(length: Int = 0x0F, mappingVersion: UInt8 = 0x20, mle: Int, mlc: Int, ndefFileID: [UInt8],
                maxNDEFFileSize: Int, readAccess: UInt8 = 0x00, writeAccess: UInt8 = 0x00) {
        self.length = length
        self.mappingVersion = mappingVersion
        self.mle = mle
        self.mlc = mlc
        self.ndefFileID = ndefFileID
        self.maxNDEFFileSize = maxNDEFFileSize
        self.readAccess = readAccess
        self.writeAccess = writeAccess
    }

    /// Parses CC bytes. Throws ``NFCError/invalidResponse(_:)`` when fewer than 15 bytes arrive, the TLV
    /// is not `04 06`, MLe/MLc are 0 or the file size cannot hold NLEN; ``NFCError/unsupportedOperation(_:)``
    /// for mapping version 3.0 (extended NDEF TLV `06 08`) and other majors than 2 — or 1, whose CC has
    /// the same shape.
    public init(bytes: [UInt8]) throws(NFCError) {
        guard bytes.count >= 15 else { throw .invalidResponse(bytes) }
        let major = bytes[2] >> 4
        guard major == 2 || major == 1 else {
            throw .unsupportedOperation("Type 4 mapping version \(major).\(bytes[2] & 0x0F) is not supported")
        }
        guard bytes[7] == 0x04, bytes[8] == 0x06 else { throw .invalidResponse(bytes) }
        length = Int(bytes[0]) << 8 | Int(bytes[1])
        mappingVersion = bytes[2]
        mle = Int(bytes[3]) << 8 | Int(bytes[4])
        mlc = Int(bytes[5]) << 8 | Int(bytes[6])
        ndefFileID = [bytes[9], bytes[10]]
        maxNDEFFileSize = Int(bytes[11]) << 8 | Int(bytes[12])
        readAccess = bytes[13]
        writeAccess = bytes[14]
        guard mle > 0, mlc > 0, maxNDEFFileSize >= 2 else { throw .invalidResponse(bytes) }
    }

    /// The 15 bytes, with the TLV header written as `04 06` (re-encoded from the fields).
    public var bytes: [UInt8] {
        [UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF), mappingVersion, UInt8((mle >> 8) & 0xFF),
         UInt8(mle & 0xFF), UInt8((mlc >> 8) & 0xFF), UInt8(mlc & 0xFF), 0x04, 0x06] + ndefFileID
            + [UInt8((maxNDEFFileSize >> 8) & 0xFF), UInt8(maxNDEFFileSize & 0xFF), readAccess, writeAccess]
    }

    /// True when the NDEF file may be written without a vendor-specific condition (write access 00).
    public var isWritable: Bool { writeAccess == 0x00 }

    /// Bytes one READ BINARY asks for: MLe, capped at 255 so a short Le never reads 00 = 256 (upstream
    /// does the same; the PN532's 262-byte frame would take 256, but many readers do not).
    public var readChunk: Int { min(mle, 255) }

    /// Bytes one UPDATE BINARY carries: MLc, capped at 255 (short Lc).
    public var writeChunk: Int { min(mlc, 255) }

    /// Largest NDEF message the file holds: the file size minus NLEN, and never beyond the 15-bit
    /// offsets of READ/UPDATE BINARY.
    public var maxMessageSize: Int { min(maxNDEFFileSize, 0x7FFF) - 2 }
}
