/// The access conditions of one MIFARE Classic sector, as stored in trailer bytes 6–8.
///
/// Source: MF1S50yyX §8.7.1 (Figure 10): byte 6 = ¬C2 (high nibble) | ¬C1 (low nibble), byte 7 = C1 | ¬C3,
/// byte 8 = C3 | C2, bit n of each nibble belonging to group n (0–2 data blocks, 3 the trailer). Every
/// bit is stored twice, once inverted; a trailer whose copies disagree blocks the sector for good.
public struct AccessBits: Sendable, Hashable {
    /// Conditions of groups 0, 1, 2 (data) and 3 (trailer).
    public var conditions: [AccessCondition]

    /// Creates access bits from four conditions (data groups 0–2, then the trailer).
    public init(conditions: [AccessCondition]) {
        self.conditions = conditions
    }

    /// Creates access bits from the same condition for all three data groups plus a trailer condition.
    public init(data: AccessCondition, trailer: AccessCondition) {
        self.conditions = [data, data, data, trailer]
    }

    /// Factory ("transport") setting `FF 07 80`: data blocks 000, trailer 001 (MF1S50yyX §8.7.2 and §8.7.3).
    public static let transport = AccessBits(data: AccessCondition(0b000), trailer: AccessCondition(0b001))

    /// Decodes trailer bytes 6–8 (a 4th byte, the general-purpose byte, is ignored).
    /// Throws ``NFCError/invalidResponse(_:)`` when fewer than 3 bytes are given or the inverted copies
    /// do not match.
    public static func decode(_ bytes: [UInt8]) throws(NFCError) -> AccessBits {
        guard bytes.count >= 3 else { throw .invalidResponse(bytes) }
        let notC1 = bytes[0] & 0x0F, notC2 = bytes[0] >> 4
        let c1 = bytes[1] >> 4, notC3 = bytes[1] & 0x0F
        let c3 = bytes[2] >> 4, c2 = bytes[2] & 0x0F
        let consistent: Bool = (c1 ^ notC1) == 0x0F && (c2 ^ notC2) == 0x0F && (c3 ^ notC3) == 0x0F
        guard consistent else { throw .invalidResponse(Array(bytes.prefix(3))) }
        var conditions: [AccessCondition] = []
        for group in 0..<4 {
            let bit: (UInt8) -> Bool = { ($0 >> UInt8(group)) & 1 == 1 }
            conditions.append(AccessCondition(c1: bit(c1), c2: bit(c2), c3: bit(c3)))
        }
        return AccessBits(conditions: conditions)
    }

    /// The 3 encoded bytes (trailer bytes 6–8). Groups beyond the first four are ignored; missing
    /// groups count as condition 000.
    public var bytes: [UInt8] {
        var c1: UInt8 = 0, c2: UInt8 = 0, c3: UInt8 = 0
        for (group, condition) in conditions.prefix(4).enumerated() {
            if condition.c1 { c1 |= 1 << group }
            if condition.c2 { c2 |= 1 << group }
            if condition.c3 { c3 |= 1 << group }
        }
        let byte6: UInt8 = ((~c2 & 0x0F) << 4) | (~c1 & 0x0F)
        let byte7: UInt8 = (c1 << 4) | (~c3 & 0x0F)
        let byte8: UInt8 = (c3 << 4) | c2
        return [byte6, byte7, byte8]
    }

    /// The trailer's condition (group 3).
    public var trailer: AccessCondition { conditions.count > 3 ? conditions[3] : AccessCondition(0) }

    /// The condition of data group `group` (0–2).
    public func data(_ group: Int) -> AccessCondition {
        group >= 0 && group < 3 && group < conditions.count ? conditions[group] : AccessCondition(0)
    }

    /// True when the trailer lets key A read key B. Such a key B is data, not a key: the sector
    /// refuses every access after an authentication with it (MF1S50yyX §8.7.2, note under Table 7).
    public var isKeyBReadable: Bool { ClassicAccessTables.trailer[Int(trailer.value)].keyBRead == .keyA }

    /// What `keyType` may do with a block of access group `group` (0–2 data, 3 trailer).
    public func permissions(group: Int, keyType: ClassicKeyType) -> ClassicBlockPermissions {
        if keyType == .b && isKeyBReadable { return ClassicBlockPermissions() }
        if group == 3 {
            let row = ClassicAccessTables.trailer[Int(trailer.value)]
            return ClassicBlockPermissions(
                read: row.accessBitsRead.allows(keyType), write: false,
                writeKeyA: row.keyAWrite.allows(keyType), readAccessBits: row.accessBitsRead.allows(keyType),
                writeAccessBits: row.accessBitsWrite.allows(keyType), readKeyB: row.keyBRead.allows(keyType),
                writeKeyB: row.keyBWrite.allows(keyType))
        }
        let row = ClassicAccessTables.data[Int(data(group).value)]
        return ClassicBlockPermissions(
            read: row.read.allows(keyType), write: row.write.allows(keyType),
            increment: row.increment.allows(keyType), decrement: row.decrementTransferRestore.allows(keyType))
    }
}

/// One access condition: the bits C1 C2 C3 of one group.
public struct AccessCondition: Sendable, Hashable, CustomStringConvertible {
    public var c1: Bool
    public var c2: Bool
    public var c3: Bool

    public init(c1: Bool, c2: Bool, c3: Bool) {
        self.c1 = c1
        self.c2 = c2
        self.c3 = c3
    }

    /// From the datasheet notation read as a binary number: `0b001` is C1 = 0, C2 = 0, C3 = 1.
    public init(_ value: UInt8) {
        self.init(c1: value & 0b100 != 0, c2: value & 0b010 != 0, c3: value & 0b001 != 0)
    }

    /// The datasheet notation "C1 C2 C3" as a number 0–7 (C1 is the high bit): the row of the tables.
    public var value: UInt8 { (c1 ? 4 : 0) | (c2 ? 2 : 0) | (c3 ? 1 : 0) }

    /// "001" style, as the datasheet writes it.
    public var description: String { "\(c1 ? 1 : 0)\(c2 ? 1 : 0)\(c3 ? 1 : 0)" }
}

/// What one key may do with one block, after the access tables and the readable-key-B rule.
public struct ClassicBlockPermissions: Sendable, Hashable {
    /// READ of the block (for a trailer: the bytes come back with the unreadable parts as zeros).
    public var read = false
    /// WRITE of a data block.
    public var write = false
    /// INCREMENT of a value block.
    public var increment = false
    /// DECREMENT, TRANSFER, RESTORE of a value block.
    public var decrement = false
    /// Trailer only: may write key A.
    public var writeKeyA = false
    /// Trailer only: may read the access bits.
    public var readAccessBits = false
    /// Trailer only: may write the access bits.
    public var writeAccessBits = false
    /// Trailer only: may read key B.
    public var readKeyB = false
    /// Trailer only: may write key B.
    public var writeKeyB = false

    public init(read: Bool = false, write: Bool = false, increment: Bool = false, decrement: Bool = false,
                writeKeyA: Bool = false, readAccessBits: Bool = false, writeAccessBits: Bool = false,
                readKeyB: Bool = false, writeKeyB: Bool = false) {
        self.read = read
        self.write = write
        self.increment = increment
        self.decrement = decrement
        self.writeKeyA = writeKeyA
        self.readAccessBits = readAccessBits
        self.writeAccessBits = writeAccessBits
        self.readKeyB = readKeyB
        self.writeKeyB = writeKeyB
    }

    /// True when any part of a trailer may be written.
    public var writesAnyTrailerPart: Bool { writeKeyA || writeAccessBits || writeKeyB }
}

/// Which key an access table entry needs.
public enum ClassicKeyRequirement: Sendable, Hashable {
    case never, keyA, keyB, keyAOrB

    /// True when authenticating with `keyType` grants the access.
    public func allows(_ keyType: ClassicKeyType) -> Bool {
        switch self {
        case .never: false
        case .keyA: keyType == .a
        case .keyB: keyType == .b
        case .keyAOrB: true
        }
    }
}

/// The two access tables of MF1S50yyX §8.7.2 (Table 7, sector trailer) and §8.7.3 (Table 8, data
/// blocks), indexed by the condition value C1 C2 C3 (C1 high).
public enum ClassicAccessTables {
    /// One row of the sector-trailer table. Key A is never readable.
    public struct TrailerRow: Sendable, Hashable {
        public var keyAWrite: ClassicKeyRequirement
        public var accessBitsRead: ClassicKeyRequirement
        public var accessBitsWrite: ClassicKeyRequirement
        public var keyBRead: ClassicKeyRequirement
        public var keyBWrite: ClassicKeyRequirement
    }

    /// One row of the data-block table.
    public struct DataRow: Sendable, Hashable {
        public var read: ClassicKeyRequirement
        public var write: ClassicKeyRequirement
        public var increment: ClassicKeyRequirement
        public var decrementTransferRestore: ClassicKeyRequirement
    }

    /// MF1S50yyX Table 7. Rows 000, 010 and 001 leave key B readable (001 = transport configuration).
    public static let trailer: [TrailerRow] = [
        /* 000 */ TrailerRow(keyAWrite: .keyA, accessBitsRead: .keyA, accessBitsWrite: .never, keyBRead: .keyA, keyBWrite: .keyA),
        /* 001 */ TrailerRow(keyAWrite: .keyA, accessBitsRead: .keyA, accessBitsWrite: .keyA, keyBRead: .keyA, keyBWrite: .keyA),
        /* 010 */ TrailerRow(keyAWrite: .never, accessBitsRead: .keyA, accessBitsWrite: .never, keyBRead: .keyA, keyBWrite: .never),
        /* 011 */ TrailerRow(keyAWrite: .keyB, accessBitsRead: .keyAOrB, accessBitsWrite: .keyB, keyBRead: .never, keyBWrite: .keyB),
        /* 100 */ TrailerRow(keyAWrite: .keyB, accessBitsRead: .keyAOrB, accessBitsWrite: .never, keyBRead: .never, keyBWrite: .keyB),
        /* 101 */ TrailerRow(keyAWrite: .never, accessBitsRead: .keyAOrB, accessBitsWrite: .keyB, keyBRead: .never, keyBWrite: .never),
        /* 110 */ TrailerRow(keyAWrite: .never, accessBitsRead: .keyAOrB, accessBitsWrite: .never, keyBRead: .never, keyBWrite: .never),
        /* 111 */ TrailerRow(keyAWrite: .never, accessBitsRead: .keyAOrB, accessBitsWrite: .never, keyBRead: .never, keyBWrite: .never),
    ]

    /// MF1S50yyX Table 8. 000 is the transport configuration; 110 and 001 are value-block settings.
    public static let data: [DataRow] = [
        /* 000 */ DataRow(read: .keyAOrB, write: .keyAOrB, increment: .keyAOrB, decrementTransferRestore: .keyAOrB),
        /* 001 */ DataRow(read: .keyAOrB, write: .never, increment: .never, decrementTransferRestore: .keyAOrB),
        /* 010 */ DataRow(read: .keyAOrB, write: .never, increment: .never, decrementTransferRestore: .never),
        /* 011 */ DataRow(read: .keyB, write: .keyB, increment: .never, decrementTransferRestore: .never),
        /* 100 */ DataRow(read: .keyAOrB, write: .keyB, increment: .never, decrementTransferRestore: .never),
        /* 101 */ DataRow(read: .keyB, write: .never, increment: .never, decrementTransferRestore: .never),
        /* 110 */ DataRow(read: .keyAOrB, write: .keyB, increment: .keyB, decrementTransferRestore: .keyAOrB),
        /* 111 */ DataRow(read: .never, write: .never, increment: .never, decrementTransferRestore: .never),
    ]
}
