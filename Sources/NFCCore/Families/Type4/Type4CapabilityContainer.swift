/// The Capability Container file (E103h) of an NFC Forum Type 4 Tag.
///
/// Mapping version 2.0 (T4T v2.0 §5.1.2.1, Table 4): CCLEN(2) · mapping version(1) · MLe(2) · MLc(2) ·
/// NDEF File Control TLV `04 06` { file id(2), maximum NDEF file size(2), read access(1), write access(1) }
/// — 15 bytes; the NDEF file starts with a 2-byte NLEN.
///
/// Mapping version 3.0 (T4T v3.0 §5, "ENDEF-File_Ctrl_TLV"): the same header, then either the
/// TLV above or the extended NDEF File Control TLV `06 08` { file id(2), maximum ENDEF file size(4), read
/// access(1), write access(1) } — 17 bytes (CCLEN 0011h); an ENDEF file starts with a 4-byte ENLEN and may
/// be larger than 32 KiB, its far offsets reached with the odd-INS READ / UPDATE BINARY (``Type4NDEF``).
public struct Type4CapabilityContainer: Sendable, Hashable {
    /// Tag of the NDEF File Control TLV (T4T v2.0 §5.1.2.1).
    public static let ndefFileControlTag: UInt8 = 0x04
    /// Tag of the extended NDEF File Control TLV (T4T v3.0 §5).
    public static let extendedNDEFFileControlTag: UInt8 = 0x06

    /// CCLEN as read (000Fh for a plain tag, 0011h with the extended TLV).
    public var length: Int
    /// Mapping version byte: major in the high nibble (20h = 2.0, 30h = 3.0).
    public var mappingVersion: UInt8
    /// Maximum R-APDU data size (bytes one READ BINARY may return).
    public var mle: Int
    /// Maximum C-APDU data size (bytes one UPDATE BINARY may carry).
    public var mlc: Int
    /// NDEF file identifier.
    public var ndefFileID: [UInt8]
    /// Size of the NDEF file in bytes, NLEN / ENLEN included.
    public var maxNDEFFileSize: Int
    /// NDEF file read access (00 = free).
    public var readAccess: UInt8
    /// NDEF file write access (00 = free, FF = none).
    public var writeAccess: UInt8
    /// True when the CC holds the extended NDEF File Control TLV (`06 08`): the file starts with ENLEN.
    public var isExtended: Bool

    public init(length: Int? = nil, mappingVersion: UInt8 = 0x20, mle: Int, mlc: Int, ndefFileID: [UInt8],
                maxNDEFFileSize: Int, readAccess: UInt8 = 0x00, writeAccess: UInt8 = 0x00, isExtended: Bool = false) {
        self.length = length ?? (isExtended ? 0x11 : 0x0F)
        self.mappingVersion = mappingVersion
        self.mle = mle
        self.mlc = mlc
        self.ndefFileID = ndefFileID
        self.maxNDEFFileSize = maxNDEFFileSize
        self.readAccess = readAccess
        self.writeAccess = writeAccess
        self.isExtended = isExtended
    }

    /// Bytes the CC takes for `tlvTag` at bytes 7–8: 17 for the extended TLV `06 08`, else 15.
    static func encodedLength(tlvTag: UInt8) -> Int { tlvTag == extendedNDEFFileControlTag ? 17 : 15 }

    /// Parses CC bytes. Throws ``NFCError/unsupportedOperation(_:)`` for a mapping major other than 1, 2
    /// or 3; ``NFCError/invalidResponse(_:)`` when fewer bytes arrive than the TLV needs, the TLV is neither
    /// `04 06` nor (mapping 3.0 only) `06 08`, MLe/MLc are 0 or the file size cannot hold NLEN / ENLEN.
    public init(bytes: [UInt8]) throws(NFCError) {
        guard bytes.count >= 15 else { throw .invalidResponse(bytes) }
        let major = bytes[2] >> 4
        guard (1...3).contains(major) else {
            throw .unsupportedOperation("Type 4 mapping version \(major).\(bytes[2] & 0x0F) is not supported")
        }
        length = Int(bytes[0]) << 8 | Int(bytes[1])
        mappingVersion = bytes[2]
        mle = Int(bytes[3]) << 8 | Int(bytes[4])
        mlc = Int(bytes[5]) << 8 | Int(bytes[6])
        switch (bytes[7], bytes[8]) {
        case (Self.ndefFileControlTag, 0x06):
            isExtended = false
            ndefFileID = [bytes[9], bytes[10]]
            maxNDEFFileSize = Int(bytes[11]) << 8 | Int(bytes[12])
            readAccess = bytes[13]
            writeAccess = bytes[14]
        case (Self.extendedNDEFFileControlTag, 0x08) where major == 3 && bytes.count >= 17:
            isExtended = true
            ndefFileID = [bytes[9], bytes[10]]
            maxNDEFFileSize = bytes[11...14].reduce(0) { $0 << 8 | Int($1) }
            readAccess = bytes[15]
            writeAccess = bytes[16]
        default:
            throw .invalidResponse(bytes)
        }
        guard mle > 0, mlc > 0, maxNDEFFileSize >= nlenSize else { throw .invalidResponse(bytes) }
    }

    /// The CC bytes, re-encoded from the fields (TLV `04 06`, or `06 08` when ``isExtended``).
    public var bytes: [UInt8] {
        let header = [UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF), mappingVersion, UInt8((mle >> 8) & 0xFF),
                      UInt8(mle & 0xFF), UInt8((mlc >> 8) & 0xFF), UInt8(mlc & 0xFF)]
        let size = isExtended ? bigEndian(maxNDEFFileSize, count: 4) : bigEndian(maxNDEFFileSize, count: 2)
        let tlv = isExtended ? [Self.extendedNDEFFileControlTag, 0x08] : [Self.ndefFileControlTag, 0x06]
        return header + tlv + ndefFileID + size + [readAccess, writeAccess]
    }

    /// True when the NDEF file may be written without a vendor-specific condition (write access 00).
    public var isWritable: Bool { writeAccess == 0x00 }

    /// Bytes of the length field at the start of the NDEF file: 2 (NLEN) or 4 (ENLEN, T4T v3.0 §5).
    public var nlenSize: Int { isExtended ? 4 : 2 }

    /// Bytes one READ BINARY asks for: MLe, capped at 255 so a short Le never reads 00 = 256 (upstream
    /// does the same; the PN532's 262-byte frame would take 256, but many readers do not).
    public var readChunk: Int { min(mle, 255) }

    /// Bytes one UPDATE BINARY carries: MLc, capped at 255 (short Lc).
    public var writeChunk: Int { min(mlc, 255) }

    /// Largest NDEF message the file holds: the file size minus NLEN / ENLEN. A 2.0 file is read with the
    /// 15-bit offsets of READ / UPDATE BINARY (B0 / D6); an ENDEF file up to the 3-byte offset data object of
    /// the odd-INS forms (B1 / D7, ISO/IEC 7816-4 §11.3.3).
    public var maxMessageSize: Int {
        isExtended ? min(maxNDEFFileSize, Type4NDEF.maxExtendedOffset + 1) - 4 : min(maxNDEFFileSize, 0x7FFF) - 2
    }

    /// The length field for a message of `count` bytes (NLEN or ENLEN, big-endian).
    func lengthField(_ count: Int) -> [UInt8] { bigEndian(count, count: nlenSize) }

    private func bigEndian(_ value: Int, count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) }
    }
}
