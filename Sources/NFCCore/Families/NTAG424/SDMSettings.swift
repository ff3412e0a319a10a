/// The Secure Dynamic Messaging part of an NTAG 424 DNA file's settings: what the chip mirrors into
/// the file when it is read without authentication, and where (NT4H2421Gx Rev. 3.0 §10.7.1 Table 69,
/// returned by GetFileSettings §10.7.2 Table 73; SDM itself §9.3). Every offset is a position in the
/// file (the NDEF file's 2-byte NLEN counts), every mirror is ASCII hex (§9.3.3: "With NT4H2421Gx,
/// PICCData is always ASCII encoded").
public struct SDMSettings: Sendable, Hashable {
    /// SDMOptions (Table 69).
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Bit 7: the UID is mirrored.
        public static let uid = Options(rawValue: 0x80)
        /// Bit 6: SDMReadCtr is mirrored.
        public static let readCounter = Options(rawValue: 0x40)
        /// Bit 5: SDMReadCtrLimit is enabled.
        public static let readCounterLimit = Options(rawValue: 0x20)
        /// Bit 4: part of the file is mirrored encrypted (SDMENCFileData).
        public static let encryptedFileData = Options(rawValue: 0x10)
        /// Bit 0: ASCII encoding (the only one NT4H2421Gx has).
        public static let ascii = Options(rawValue: 0x01)
    }

    /// One SDM access right nibble (Table 69): 0h–4h an application key, Eh free (plain), Fh none.
    public enum AccessRight: Sendable, Hashable, CustomStringConvertible {
        case key(UInt8)
        case free
        case never

        public init(nibble: UInt8) {
            switch nibble & 0x0F {
            case 0x0E: self = .free
            case 0x0F: self = .never
            case let number: self = .key(number)
            }
        }

        public var nibble: UInt8 {
            switch self {
            case let .key(number): number & 0x0F
            case .free: 0x0E
            case .never: 0x0F
            }
        }

        /// The key number, for a key.
        public var keyNumber: UInt8? {
            if case let .key(number) = self { return number }
            return nil
        }

        public var description: String {
            switch self {
            case let .key(number): "key \(number)"
            case .free: "free"
            case .never: "never"
            }
        }
    }

    /// Mirror lengths in the file, ASCII hex (§9.3.3 Table 20, §9.3.4, §9.3.7).
    public enum Length {
        /// A 7-byte UID: 14 characters.
        public static let uid = 14
        /// SDMReadCtr: 6 characters (MSB first in ASCII, §9.3.1).
        public static let readCounter = 6
        /// Encrypted PICCData (AES mode): one block, 32 characters.
        public static let piccData = 32
        /// SDMMAC: 8 bytes, 16 characters.
        public static let mac = 16
    }

    public var options: Options
    /// SDMMetaRead: who may see PICCData — a key (PICCData encrypted with it), free (UID and counter
    /// in plain) or never (none mirrored).
    public var metaRead: AccessRight
    /// SDMFileRead: the key the SDMMAC (and SDMENCFileData) session keys come from; never = no SDM MAC.
    public var fileRead: AccessRight
    /// SDMCtrRet: who may read the counter with GetFileCounters.
    public var counterRetrieval: AccessRight
    /// Plain UID mirror (metaRead free only).
    public var uidOffset: Int?
    /// Plain SDMReadCtr mirror (metaRead free only; FFFFFFh on the wire = not mirrored, nil here).
    public var readCounterOffset: Int?
    /// Encrypted PICCData mirror (metaRead a key).
    public var piccDataOffset: Int?
    /// Where the SDMMAC input starts (fileRead a key).
    public var macInputOffset: Int?
    /// SDMENCFileData mirror and its length in characters (a multiple of 32).
    public var encryptedDataOffset: Int?
    public var encryptedDataLength: Int?
    /// SDMMAC mirror (fileRead a key).
    public var macOffset: Int?
    public var readCounterLimit: Int?

    /// Settings given field by field (configured offsets, a virtual tag's own table in tests).
    public init(options: Options, metaRead: AccessRight, fileRead: AccessRight, counterRetrieval: AccessRight = .never,
                uidOffset: Int? = nil, readCounterOffset: Int? = nil, piccDataOffset: Int? = nil,
                macInputOffset: Int? = nil, encryptedDataOffset: Int? = nil, encryptedDataLength: Int? = nil,
                macOffset: Int? = nil, readCounterLimit: Int? = nil) {
        self.options = options
        self.metaRead = metaRead
        self.fileRead = fileRead
        self.counterRetrieval = counterRetrieval
        self.uidOffset = uidOffset
        self.readCounterOffset = readCounterOffset
        self.piccDataOffset = piccDataOffset
        self.macInputOffset = macInputOffset
        self.encryptedDataOffset = encryptedDataOffset
        self.encryptedDataLength = encryptedDataLength
        self.macOffset = macOffset
        self.readCounterLimit = readCounterLimit
    }

    /// Decodes the SDM fields of a GetFileSettings answer, `bytes` starting at SDMOptions, each field
    /// present by the condition Table 73 gives. Returns the settings and the bytes they took. Throws
    /// ``NFCError/invalidResponse(_:)`` when a field the options call for is missing.
    public static func decode(_ bytes: ArraySlice<UInt8>) throws(NFCError) -> (settings: SDMSettings, count: Int) {
        var reader = FieldReader(bytes: Array(bytes))
        let options = Options(rawValue: try reader.byte())
        // SDMAccessRights, LSB first: bits 15-12 SDMMetaRead, 11-8 SDMFileRead, 7-4 RFU, 3-0 SDMCtrRet.
        let low = try reader.byte()
        let high = try reader.byte()
        var settings = SDMSettings(options: options, metaRead: AccessRight(nibble: high >> 4),
                                   fileRead: AccessRight(nibble: high), counterRetrieval: AccessRight(nibble: low))
        if options.contains(.uid) && settings.metaRead == .free { settings.uidOffset = try reader.offset() }
        if options.contains(.readCounter) && settings.metaRead == .free {
            let offset = try reader.offset()
            settings.readCounterOffset = offset == 0xFF_FFFF ? nil : offset
        }
        if settings.metaRead.keyNumber != nil { settings.piccDataOffset = try reader.offset() }
        if settings.fileRead != .never {
            settings.macInputOffset = try reader.offset()
            if options.contains(.encryptedFileData) {
                settings.encryptedDataOffset = try reader.offset()
                settings.encryptedDataLength = try reader.offset()
            }
            settings.macOffset = try reader.offset()
        }
        if options.contains(.readCounterLimit) { settings.readCounterLimit = try reader.offset() }
        return (settings, reader.position)
    }

    /// The wire form again (what ChangeFileSettings takes after AccessRights, and GetFileSettings
    /// answers after FileSize).
    public var bytes: [UInt8] {
        func le(_ value: Int?) -> [UInt8] {
            let value = value ?? 0xFF_FFFF
            return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16)]
        }
        var out = [options.rawValue, 0xF0 | counterRetrieval.nibble, metaRead.nibble << 4 | fileRead.nibble]
        if options.contains(.uid) && metaRead == .free { out += le(uidOffset) }
        if options.contains(.readCounter) && metaRead == .free { out += le(readCounterOffset) }
        if metaRead.keyNumber != nil { out += le(piccDataOffset) }
        if fileRead != .never {
            out += le(macInputOffset)
            if options.contains(.encryptedFileData) { out += le(encryptedDataOffset) + le(encryptedDataLength) }
            out += le(macOffset)
        }
        if options.contains(.readCounterLimit) { out += le(readCounterLimit) }
        return out
    }

    /// One line for a dump's facts.
    public var summary: String {
        var parts: [String] = []
        if options.contains(.uid) { parts.append("UID") }
        if options.contains(.readCounter) { parts.append("read counter") }
        let mirrored = parts.isEmpty ? "nothing" : parts.joined(separator: " + ")
        var text = "mirrors \(mirrored), PICCData \(metaRead == .never ? "none" : metaRead == .free ? "plain" : "encrypted with \(metaRead)")"
        text += fileRead == .never ? ", no SDMMAC" : ", SDMMAC with \(fileRead)"
        if options.contains(.encryptedFileData) { text += ", encrypted file data" }
        if let limit = readCounterLimit { text += ", read limit \(limit)" }
        return text
    }

    /// Reads the 1-byte and 3-byte (LSB first) fields in order.
    private struct FieldReader {
        var bytes: [UInt8]
        var position = 0

        mutating func byte() throws(NFCError) -> UInt8 {
            guard position < bytes.count else { throw .invalidResponse(bytes) }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func offset() throws(NFCError) -> Int {
            let b0 = try byte(), b1 = try byte(), b2 = try byte()
            return Int(b0) | Int(b1) << 8 | Int(b2) << 16
        }
    }
}
