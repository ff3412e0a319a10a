/// IC manufacturers of ISO 15693 tags: the code in UID bits 56–49 (ISO/IEC 15693-3 "Unique identifier":
/// `E0`, then the manufacturer code of ISO/IEC 7816-6's register, then the manufacturer's serial number).
/// In the MSB-first UID NFCCore keeps (`E0 04 …`) it is byte 1 — "byte 6" counting from the LSB as the
/// UID goes on the air.
public enum ISO15693Manufacturer {
    /// One registered manufacturer.
    public struct Row: Sendable {
        public var code: UInt8
        public var name: String
    }

    /// The manufacturers whose tags NFCCore names (ISO/IEC 7816-6 IC manufacturer register).
    public static let rows: [Row] = [
        Row(code: 0x02, name: "STMicroelectronics"),
        Row(code: ICManufacturer.nxp, name: "NXP Semiconductors"),
        Row(code: 0x05, name: "Infineon Technologies"),
        Row(code: 0x07, name: "Texas Instruments"),
        Row(code: 0x16, name: "EM Microelectronic-Marin"),
    ]

    /// The manufacturer code of an MSB-first UID; nil when the UID is not an ISO 15693 one (8 bytes, `E0` first).
    public static func code(ofUID uid: [UInt8]) -> UInt8? {
        uid.count == 8 && uid[0] == 0xE0 ? uid[1] : nil
    }

    /// The name of `code`, or "0x<hh>" for one not in the table.
    public static func name(of code: UInt8) -> String {
        rows.first { $0.code == code }?.name ?? "0x" + code.hexString
    }
}

/// One ISO 15693 product: how to recognise it from the UID and the IC reference, its card type, the
/// memory its datasheet gives, and what it needs. ``ISO15693Product/table`` is the one list; the first
/// row that matches names the tag.
public struct ISO15693Product: ProductRow, Hashable {
    /// What a product needs beyond ISO/IEC 15693-3's defaults.
    public struct Features: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// WRITE and LOCK BLOCK must carry the option flag (the tag answers after the reader's EOF).
        public static let writeOptionFlag = Features(rawValue: 0x01)
        /// The tag has the EXTENDED commands (more than 256 blocks).
        public static let extendedCommands = Features(rawValue: 0x02)
        /// LOCK BLOCK is not implemented (block protection goes through the vendor's area passwords).
        public static let noLockBlock = Features(rawValue: 0x04)
        /// The NXP custom command READ SIGNATURE (BDh) gives an originality signature
        /// (``ISO15693Command/readSignature(uid:transport:)``).
        public static let readSignature = Features(rawValue: 0x08)
    }

    /// Product name ("ICODE SLIX", "ST25DV64K").
    public var name: String
    /// Card type.
    public var type: CardType
    /// IC manufacturer code (``ISO15693Manufacturer``).
    public var manufacturer: UInt8
    /// UID byte 2 (MSB first; UID bits 48–41) masked with `.mask` must equal `.value`; nil: any.
    public var uidByte2: (mask: UInt8, value: UInt8)?
    /// NXP ICODE type indicator, UID byte 3 bits 4–3 (MSB first; UID bits 37–36); nil: any.
    public var typeIndicator: UInt8?
    /// IC references the product answers with; empty: any.
    public var icReferences: Set<UInt8>
    /// Blocks the product has (from the datasheet); also a match criterion when ``matchesBlockCount``.
    public var blockCount: Int?
    /// Bytes per block.
    public var blockSize: Int?
    /// True when products that share the IC reference are told apart by the block count.
    public var matchesBlockCount: Bool
    /// What the product needs.
    public var features: Features
    /// The most blocks one READ MULTIPLE BLOCKS (23h; EXTENDED READ MULTIPLE BLOCKS 33h past block 255
    /// with ``Features/extendedCommands``) returns, from the datasheet; nil where the datasheet does
    /// not list the command (or it is not known here): the dump reads one block per command.
    public var readMultipleBlocks: Int?

    init(_ name: String, _ type: CardType, manufacturer: UInt8, uidByte2: (mask: UInt8, value: UInt8)? = nil,
         typeIndicator: UInt8? = nil, icReferences: Set<UInt8> = [], blocks: Int? = nil, blockSize: Int? = 4,
         matchesBlockCount: Bool = false, features: Features = [], readMultiple: Int? = nil) {
        self.name = name
        self.type = type
        self.manufacturer = manufacturer
        self.uidByte2 = uidByte2
        self.typeIndicator = typeIndicator
        self.icReferences = icReferences
        blockCount = blocks
        self.blockSize = blockSize
        self.matchesBlockCount = matchesBlockCount
        self.features = features
        readMultipleBlocks = readMultiple
    }

    public static func == (lhs: ISO15693Product, rhs: ISO15693Product) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The products, most specific first.
    public static let table: [ISO15693Product] = [
        // NXP: UID byte 2 is the ICODE type (01h SLI / SLIX / SLIX2 / DNA), UID byte 3 bits 4–3 the type
        // indicator (NXP AN10787 "ICODE UID format"; the SLIX / SLIX2 / DNA datasheets' UID figures:
        // 10b SLIX, 01b SLIX2, 11b DNA, 00b SLI).
        // ICODE SLIX SL2S2002: 28 user blocks of 4 bytes (datasheet "Memory organization").
        ISO15693Product("ICODE SLIX", .iso15693_ICODE_SLIX, manufacturer: ICManufacturer.nxp, uidByte2: (0xFF, 0x01),
                        typeIndicator: 0b10, blocks: 28),
        // ICODE SLIX2 SL2S2602: 80 blocks of 4 bytes, block 79 the counter (datasheet "Memory organization");
        // READ SIGNATURE BDh (datasheet §9.5.3.20).
        ISO15693Product("ICODE SLIX2", .iso15693_ICODE_SLIX2, manufacturer: ICManufacturer.nxp, uidByte2: (0xFF, 0x01),
                        typeIndicator: 0b01, blocks: 80, features: [.readSignature]),
        // ICODE DNA SL2S6002 (datasheet "UID" and "Memory organization"); the size comes from the tag.
        // READ SIGNATURE BDh as on the SLIX2 (its 32-byte originality signature, "customizable").
        ISO15693Product("ICODE DNA", .iso15693_ICODE_DNA, manufacturer: ICManufacturer.nxp, uidByte2: (0xFF, 0x01),
                        typeIndicator: 0b11, features: [.readSignature]),
        // ICODE SLI SL2ICS20: 28 blocks of 4 bytes (datasheet "Memory organization").
        ISO15693Product("ICODE SLI", .iso15693_generic, manufacturer: ICManufacturer.nxp, uidByte2: (0xFF, 0x01),
                        typeIndicator: 0b00, blocks: 28),

        // STMicroelectronics: the IC reference (IC_REF register; also UID byte 2). ST25DV04K/16K/64K
        // datasheet "IC_REF": 24h ST25DV04K-IE, 25h -JF, 26h ST25DV16K/64K-IE, 27h -JF; the 16K (512
        // blocks) and the 64K (2048 blocks) share it. ST25DVxxKC datasheet "IC_REF": 50h/52h 04KC,
        // 51h/53h 16KC/64KC. No LOCK BLOCK: ST25DV protects areas (datasheet "Data protection"); the
        // EXTENDED commands reach blocks from 256 on. READ MULTIPLE BLOCKS (23h) and EXTENDED READ
        // MULTIPLE BLOCKS (33h) are in the datasheet's command set ("Read Multiple Blocks", "Extended
        // Read Multiple Blocks"): up to 256 blocks in one 23h (its 8-bit number of blocks), the whole
        // memory in one 33h (ST: the ST25DV64K takes up to 2048).
        ISO15693Product("ST25DV04K", .iso15693_ST25DV, manufacturer: 0x02, icReferences: [0x24, 0x25], blocks: 128,
                        features: [.noLockBlock], readMultiple: 128),
        ISO15693Product("ST25DV16K", .iso15693_ST25DV, manufacturer: 0x02, icReferences: [0x26, 0x27], blocks: 512,
                        matchesBlockCount: true, features: [.extendedCommands, .noLockBlock], readMultiple: 512),
        ISO15693Product("ST25DV64K", .iso15693_ST25DV, manufacturer: 0x02, icReferences: [0x26, 0x27], blocks: 2048,
                        matchesBlockCount: true, features: [.extendedCommands, .noLockBlock], readMultiple: 2048),
        ISO15693Product("ST25DV04KC", .iso15693_ST25DV, manufacturer: 0x02, icReferences: [0x50, 0x52], blocks: 128,
                        features: [.noLockBlock], readMultiple: 128),
        ISO15693Product("ST25DV16KC", .iso15693_ST25DV, manufacturer: 0x02, icReferences: [0x51, 0x53], blocks: 512,
                        matchesBlockCount: true, features: [.extendedCommands, .noLockBlock], readMultiple: 512),
        ISO15693Product("ST25DV64KC", .iso15693_ST25DV, manufacturer: 0x02, icReferences: [0x51, 0x53], blocks: 2048,
                        matchesBlockCount: true, features: [.extendedCommands, .noLockBlock], readMultiple: 2048),
        // ST25TV02K (64 blocks) and ST25TV512 (16 blocks) share IC_REF 23h (ST25TV02K/512 datasheet
        // "IC_REF"); LOCK BLOCK is there (datasheet "Lock Block").
        ISO15693Product("ST25TV02K", .iso15693_ST25TV, manufacturer: 0x02, icReferences: [0x23], blocks: 64,
                        matchesBlockCount: true),
        ISO15693Product("ST25TV512", .iso15693_ST25TV, manufacturer: 0x02, icReferences: [0x23], blocks: 16,
                        matchesBlockCount: true),

        // Texas Instruments: UID byte 2 bits 8–2 give the Tag-it HF-I product (Tag-it HF-I Plus / Standard
        // / Pro datasheets, "UID"; the masks NFC stacks use: 00h Plus inlay, 80h Plus chip, C0h Standard,
        // C4h Pro). Writes and LOCK BLOCK need the option flag (Tag-it HF-I datasheets, "Write Single
        // Block": the transponder answers after the reader's EOF).
        ISO15693Product("Tag-it HF-I Plus", .iso15693_TagIt, manufacturer: 0x07, uidByte2: (0xFE, 0x00), blocks: 64,
                        features: [.writeOptionFlag]),
        ISO15693Product("Tag-it HF-I Plus", .iso15693_TagIt, manufacturer: 0x07, uidByte2: (0xFE, 0x80), blocks: 64,
                        features: [.writeOptionFlag]),
        ISO15693Product("Tag-it HF-I Standard", .iso15693_TagIt, manufacturer: 0x07, uidByte2: (0xFE, 0xC0), blocks: 8,
                        features: [.writeOptionFlag]),
        ISO15693Product("Tag-it HF-I Pro", .iso15693_TagIt, manufacturer: 0x07, uidByte2: (0xFE, 0xC4), blocks: 8,
                        features: [.writeOptionFlag]),
    ]

    /// The first row that matches the MSB-first `uid` and what the system information said (nil when
    /// the tag did not answer it: rows told apart by IC reference or size then match on the UID's own
    /// product byte, ST's copy of the IC reference, and never on a block count).
    public static func match(uid: [UInt8], info: ISO15693SystemInfo?) -> ISO15693Product? {
        guard let manufacturer = ISO15693Manufacturer.code(ofUID: uid) else { return nil }
        let icReference = info?.icReference ?? (manufacturer == 0x02 ? uid[2] : nil)
        return table.first { row in
            guard row.manufacturer == manufacturer else { return false }
            if let (mask, value) = row.uidByte2, uid[2] & mask != value { return false }
            if let indicator = row.typeIndicator, (uid[3] >> 3) & 0x03 != indicator { return false }
            if !row.icReferences.isEmpty {
                guard let icReference, row.icReferences.contains(icReference) else { return false }
            }
            if row.matchesBlockCount, info?.blockCount != row.blockCount { return false }
            return true
        }
    }

    /// The row named `name` (a file keeps only the name).
    public static func named(_ name: String) -> ISO15693Product? {
        table.first { $0.name == name }
    }
}

extension Product {
    /// The ISO 15693 product row identification found (or a file named); nil for another family's row or
    /// a bare name. The ISO 15693 family's view of the product.
    public var iso15693: ISO15693Product? { row(as: ISO15693Product.self) }
}
