/// One DESFire file's settings, decoded from the GetFileSettings (F5h) answer
/// (MIFARE DESFire EV1 datasheet §9.2.5 "GetFileSettings"; file types §6.3, communication modes
/// §6.4, access rights §6.5).
public struct DESFireFileSettings: Sendable, Hashable {
    /// File type (first byte of the answer).
    public enum FileType: UInt8, Sendable, Hashable, CaseIterable {
        case standardData = 0x00
        case backupData = 0x01
        case value = 0x02
        case linearRecord = 0x03
        case cyclicRecord = 0x04
        /// Transaction MAC file (EV2/EV3, DESFire Light MF2DLHX0 §8.2.4.6).
        case transactionMAC = 0x05

        /// The datasheet's name.
        public var name: String {
            switch self {
            case .standardData: "Standard Data"
            case .backupData: "Backup Data"
            case .value: "Value"
            case .linearRecord: "Linear Record"
            case .cyclicRecord: "Cyclic Record"
            case .transactionMAC: "Transaction MAC"
            }
        }
    }

    /// Communication settings bits 1..0 (EV1 datasheet §6.4): x0 plain, 01 MACed, 11 fully enciphered.
    public enum CommunicationMode: String, Sendable, Hashable {
        case plain
        case mac
        case full

        init(bits: UInt8) {
            switch bits & 0x03 {
            case 0x01: self = .mac
            case 0x03: self = .full
            default: self = .plain
            }
        }

        public var name: String {
            switch self {
            case .plain: "Plain"
            case .mac: "MACed"
            case .full: "Fully Enciphered"
            }
        }
    }

    /// One access right nibble (EV1 datasheet §6.5): 0…D a key number, E free, F never.
    public struct AccessRight: Sendable, Hashable, CustomStringConvertible {
        public let nibble: UInt8
        public init(_ nibble: UInt8) { self.nibble = nibble & 0x0F }
        /// Eh: access without authentication.
        public var isFree: Bool { nibble == 0x0E }
        /// Fh: access denied.
        public var isNever: Bool { nibble == 0x0F }
        public var description: String {
            isFree ? "free" : isNever ? "never" : "key \(nibble)"
        }
    }

    /// The four access rights, from the 2-byte field sent LSB first: byte 0 = RW << 4 | Change,
    /// byte 1 = Read << 4 | Write (EV1 datasheet §9.2.5, "AccessRights").
    public struct AccessRights: Sendable, Hashable {
        public var read: AccessRight
        public var write: AccessRight
        public var readWrite: AccessRight
        public var change: AccessRight

        public init(bytes b0: UInt8, _ b1: UInt8) {
            readWrite = AccessRight(b0 >> 4)
            change = AccessRight(b0)
            read = AccessRight(b1 >> 4)
            write = AccessRight(b1)
        }

        /// The file's data can be read without authentication: the read or the read&write right is Eh.
        public var freeRead: Bool { read.isFree || readWrite.isFree }

        /// The raw 2 bytes again.
        public var bytes: [UInt8] {
            [readWrite.nibble << 4 | change.nibble, read.nibble << 4 | write.nibble]
        }
    }

    /// Type-specific part.
    public enum Details: Sendable, Hashable {
        /// Standard and backup data files: size in bytes.
        case data(size: Int)
        /// Value files: limits, the limited-credit value and whether limited credit is enabled.
        case value(lowerLimit: Int32, upperLimit: Int32, limitedCreditValue: Int32, limitedCreditEnabled: Bool)
        /// Linear and cyclic record files: record size, maximum and current number of records.
        case records(recordSize: Int, maxRecords: Int, currentRecords: Int)
        /// Transaction MAC file: the TMAC key option and key version (MF2DLHX0 §10.7.2 GetFileSettings).
        case transactionMAC(keyOption: UInt8, keyVersion: UInt8)
    }

    public var fileType: FileType
    /// The raw communication settings byte (EV2/EV3 use bit 7 for additional access rights).
    public var communicationSettings: UInt8
    public var accessRights: AccessRights
    public var details: Details
    /// The answer as received.
    public var raw: [UInt8]

    public var communicationMode: CommunicationMode { CommunicationMode(bits: communicationSettings) }

    /// Decodes a GetFileSettings answer. Bytes past the type's fields (EV2/EV3 additional access
    /// rights, SDM settings on NTAG 424 DNA) are kept in ``raw`` and otherwise ignored. Throws
    /// ``NFCError/invalidResponse(_:)`` for an unknown type or an answer too short for its type.
    public init(bytes: [UInt8]) throws(NFCError) {
        guard bytes.count >= 4, let type = FileType(rawValue: bytes[0]) else { throw .invalidResponse(bytes) }
        fileType = type
        communicationSettings = bytes[1]
        accessRights = AccessRights(bytes: bytes[2], bytes[3])
        raw = bytes
        func le(_ at: Int, _ count: Int) -> Int {
            (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        switch type {
        case .standardData, .backupData:
            guard bytes.count >= 7 else { throw .invalidResponse(bytes) }
            details = .data(size: le(4, 3))
        case .value:
            guard bytes.count >= 17 else { throw .invalidResponse(bytes) }
            details = .value(lowerLimit: Int32(truncatingIfNeeded: le(4, 4)),
                             upperLimit: Int32(truncatingIfNeeded: le(8, 4)),
                             limitedCreditValue: Int32(truncatingIfNeeded: le(12, 4)),
                             limitedCreditEnabled: bytes[16] & 0x01 != 0)
        case .linearRecord, .cyclicRecord:
            guard bytes.count >= 13 else { throw .invalidResponse(bytes) }
            details = .records(recordSize: le(4, 3), maxRecords: le(7, 3), currentRecords: le(10, 3))
        case .transactionMAC:
            guard bytes.count >= 6 else { throw .invalidResponse(bytes) }
            details = .transactionMAC(keyOption: bytes[4], keyVersion: bytes[5])
        }
    }

    /// The bytes the file's data takes as its settings state them: a data file's size, a record
    /// file's current records × record size (each a 3-byte field, so the product fits any `Int`);
    /// nil for value and transaction MAC files, whose size is fixed.
    public var declaredBytes: Int? {
        switch details {
        case let .data(size): size
        case let .records(recordSize, _, current): recordSize * current
        case .value, .transactionMAC: nil
        }
    }

    /// One line for a dump's facts: "Standard Data, Plain, 32 bytes, read free / write key 0 /
    /// read&write key 0 / change key 0".
    public var summary: String {
        let size: String
        switch details {
        case let .data(bytes): size = "\(bytes) bytes"
        case let .value(lower, upper, credit, enabled):
            size = "limits \(lower)…\(upper), limited credit \(credit)\(enabled ? " (enabled)" : "")"
        case let .records(recordSize, maxRecords, current):
            size = "\(current) of \(maxRecords) records of \(recordSize) bytes"
        case let .transactionMAC(option, version):
            size = "TMAC key option \(option.hexString), key version \(version.hexString)"
        }
        let rights = accessRights
        return "\(fileType.name), \(communicationMode.name), \(size), read \(rights.read) / write \(rights.write)"
            + " / read&write \(rights.readWrite) / change \(rights.change)"
    }
}

/// The GetKeySettings (45h) answer of the PICC or an application: the key settings byte and the
/// max-keys byte (MIFARE DESFire EV1 datasheet §9.2.1 "GetKeySettings", key settings §6.6).
public struct DESFireKeySettings: Sendable, Hashable {
    /// Key settings: bit 0 master key changeable, bit 1 free directory list, bit 2 free
    /// create/delete, bit 3 configuration changeable, bits 7..4 the change key (applications only).
    public var settings: UInt8
    /// Bits 3..0 number of keys; bits 7..6 crypto (00 DES/2K3DES, 01 3K3DES, 10 AES).
    public var maxKeys: UInt8

    /// Decodes the 2-byte answer. Throws ``NFCError/invalidResponse(_:)`` for another length.
    public init(bytes: [UInt8]) throws(NFCError) {
        guard bytes.count == 2 else { throw .invalidResponse(bytes) }
        settings = bytes[0]
        maxKeys = bytes[1]
    }

    public var masterKeyChangeable: Bool { settings & 0x01 != 0 }
    /// GetApplicationIDs / GetFileIDs / GetFileSettings work without authentication.
    public var freeDirectoryList: Bool { settings & 0x02 != 0 }
    public var freeCreateDelete: Bool { settings & 0x04 != 0 }
    public var configurationChangeable: Bool { settings & 0x08 != 0 }
    /// Key number needed to change keys (Eh: the key itself, Fh: frozen).
    public var changeKeyID: UInt8 { settings >> 4 }
    public var keyCount: Int { Int(maxKeys & 0x0F) }

    /// "DES/2K3DES", "3K3DES", "AES".
    public var keyType: String {
        switch maxKeys >> 6 {
        case 0x01: "3K3DES"
        case 0x02: "AES"
        case 0x00: "DES/2K3DES"
        default: "unknown"
        }
    }

    /// "2 AES keys, free directory list, master key changeable, change key 0".
    public var summary: String {
        var parts = ["\(keyCount) \(keyType) key\(keyCount == 1 ? "" : "s")"]
        parts.append(freeDirectoryList ? "free directory list" : "directory list needs a key")
        if freeCreateDelete { parts.append("free create/delete") }
        if masterKeyChangeable { parts.append("master key changeable") }
        if !configurationChangeable { parts.append("configuration frozen") }
        return parts.joined(separator: ", ")
    }
}
