/// The answer to DESFire GET_VERSION (60h), 28 bytes over three frames: hardware (7), software (7),
/// then UID (7), batch number (5), production week and year (MIFARE DESFire EV1 datasheet §9.5.1).
/// An answer longer than those 28 bytes is accepted: what follows is kept in ``trailing``, not
/// interpreted (no datasheet checked here defines it).
public struct DESFireVersion: Sendable, Hashable {
    /// One 7-byte part: vendor, type, subtype, major, minor, storage size, protocol.
    public struct Part: Sendable, Hashable {
        public var vendor: UInt8
        public var type: UInt8
        public var subtype: UInt8
        public var major: UInt8
        public var minor: UInt8
        /// 2^(n >> 1) bytes; bit 0 set = "between that and twice that".
        public var storageSize: UInt8
        public var protocolType: UInt8

        init(_ b: ArraySlice<UInt8>) {
            let s = Array(b)
            vendor = s[0]
            type = s[1]
            subtype = s[2]
            major = s[3]
            minor = s[4]
            storageSize = s[5]
            protocolType = s[6]
        }

        var bytes: [UInt8] { [vendor, type, subtype, major, minor, storageSize, protocolType] }
    }

    public var hardware: Part
    public var software: Part
    public var uid: [UInt8]
    public var batch: [UInt8]
    public var productionWeek: UInt8
    public var productionYear: UInt8
    /// What followed the 28 bytes the EV1 datasheet gives, as received (usually empty).
    public var trailing: [UInt8]

    /// At most this many bytes past the 28 are taken: more is not a GET_VERSION answer.
    public static let maxTrailingBytes = 16

    /// Parses the joined frames. Throws ``NFCError/invalidResponse(_:)`` for fewer than 28 bytes or
    /// more than 28 + ``maxTrailingBytes``.
    public init(bytes: [UInt8]) throws(NFCError) {
        guard bytes.count >= 28, bytes.count <= 28 + Self.maxTrailingBytes else { throw .invalidResponse(bytes) }
        hardware = Part(bytes[0..<7])
        software = Part(bytes[7..<14])
        uid = Array(bytes[14..<21])
        batch = Array(bytes[21..<26])
        productionWeek = bytes[26]
        productionYear = bytes[27]
        trailing = Array(bytes[28...])
    }

    /// The answer again, as received.
    public var bytes: [UInt8] { hardware.bytes + software.bytes + uid + batch + [productionWeek, productionYear] + trailing }

    /// Memory size in bytes when the storage byte gives it exactly (bit 0 clear), else nil.
    public var storageBytes: Int? {
        let size = hardware.storageSize
        guard size & 1 == 0, size >> 1 < 31 else { return nil }
        return 1 << Int(size >> 1)
    }

    /// The product this hardware version names, or nil for an unknown hardware type.
    public var product: DESFireProduct? { DESFireProductTable.product(for: self) }

    /// Sends GET_VERSION (`90 60 00 00 00`) and follows `91 AF` with `90 AF 00 00 00` (at most 8 frames).
    /// Throws ``NFCError/desfireError(status:)`` for another `91 xx`, ``NFCError/unexpectedStatusWord(_:_:)``
    /// for a non-DESFire status, ``NFCError/invalidResponse(_:)`` when the frames do not add up to a GET_VERSION answer (see ``init(bytes:)``).
    public static func read(transport: any APDUTransport) async throws -> DESFireVersion {
        var response = try ResponseAPDU(raw: try await transport.sendAPDU(try CommandAPDU.desfire(command: 0x60).bytes()))
        var data = response.data
        var frames = 1
        while response.sw1 == 0x91 && response.sw2 == 0xAF {
            frames += 1
            guard frames <= 8 else { throw NFCError.invalidResponse(data) }
            response = try ResponseAPDU(raw: try await transport.sendAPDU(try CommandAPDU.desfire(command: 0xAF).bytes()))
            data += response.data
        }
        guard response.sw1 == 0x91 else { throw NFCError.unexpectedStatusWord(response.sw1, response.sw2) }
        guard response.sw2 == 0x00 else { throw NFCError.desfireError(status: response.sw2) }
        return try DESFireVersion(bytes: data)
    }
}

/// What a DESFire-style GET_VERSION says the chip is.
public struct DESFireProduct: Sendable, Hashable, ProductRow {
    /// Product name, with the memory size when known ("MIFARE DESFire EV2 8K").
    public var name: String
    /// The card type to report.
    public var cardType: CardType
}

/// GET_VERSION hardware (type, major version) → product. Source: Proxmark3 `cmdhfmfdes.c` getCardType
/// (reference notes peers-nfc.md §4.5). Real EV2/EV3 chips report major 12h/33h; upstream
/// CoreExtendedNFC switched on 0/1/2/3 and so named every real EV2/EV3 plain "MIFARE DESFire" [BUG].
enum DESFireProductTable {
    enum Kind: Sendable {
        case fixed(CardType)
        /// MIFARE Plus in SL3: 2K or 4K by the storage byte.
        case plusBySize
    }

    struct Row: Sendable {
        var type: UInt8
        var major: UInt8
        var name: String
        var kind: Kind
    }

    static let rows: [Row] = [
        Row(type: 0x01, major: 0x00, name: "MIFARE DESFire (MF3ICD40)", kind: .fixed(.mifareDesfire)),
        Row(type: 0x01, major: 0x01, name: "MIFARE DESFire EV1", kind: .fixed(.mifareDesfireEV1)),
        Row(type: 0x01, major: 0x12, name: "MIFARE DESFire EV2", kind: .fixed(.mifareDesfireEV2)),
        Row(type: 0x01, major: 0x22, name: "MIFARE DESFire EV2 XL", kind: .fixed(.mifareDesfireEV2)),
        Row(type: 0x01, major: 0x33, name: "MIFARE DESFire EV3", kind: .fixed(.mifareDesfireEV3)),
        Row(type: 0x81, major: 0x43, name: "MIFARE DESFire EV3", kind: .fixed(.mifareDesfireEV3)),
        Row(type: 0x01, major: 0xA0, name: "MIFARE DESFire DUOX", kind: .fixed(.mifareDesfire)),
        Row(type: 0x81, major: 0x42, name: "MIFARE DESFire EV2 (EMV combo)", kind: .fixed(.mifareDesfireEV2)),
        Row(type: 0x91, major: 0x62, name: "MIFARE DESFire EV2 (Apple Wallet applet)", kind: .fixed(.mifareDesfireEV2)),
        Row(type: 0x08, major: 0x30, name: "MIFARE DESFire Light", kind: .fixed(.mifareDesfire)),
        Row(type: 0x02, major: 0x11, name: "MIFARE Plus EV1", kind: .plusBySize),
        Row(type: 0x02, major: 0x22, name: "MIFARE Plus EV2", kind: .plusBySize),
        Row(type: 0x04, major: 0x10, name: "NTAG 413 DNA", kind: .fixed(.type4NDEF)),
        Row(type: 0x04, major: 0x30, name: "NTAG 424 DNA", kind: .fixed(.ntag424DNA)),
    ]

    static func product(for version: DESFireVersion) -> DESFireProduct? {
        let hw = version.hardware
        let size = version.storageBytes.flatMap { $0 >= 1024 ? " \($0 / 1024)K" : nil } ?? ""
        guard let row = rows.first(where: { $0.type == hw.type && $0.major == hw.major }) else {
            // Hardware type 01 is DESFire whatever the version; the name says which version was seen.
            guard hw.type == 0x01 else { return nil }
            return DESFireProduct(name: "MIFARE DESFire (hardware \(hw.major.hexString)h.\(hw.minor.hexString)h)" + size,
                                  cardType: .mifareDesfire)
        }
        switch row.kind {
        case let .fixed(type):
            return DESFireProduct(name: row.name + size, cardType: type)
        case .plusBySize:
            return DESFireProduct(name: row.name + size,
                                  cardType: hw.storageSize >= 0x18 ? .mifarePlusSL3_4K : .mifarePlusSL3_2K)
        }
    }
}
