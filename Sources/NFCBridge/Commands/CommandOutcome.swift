import FoundationEssentials
import NFCCore

/// What a command that acted on a tag found: a typed value per command, encoded once, where the
/// router builds the response (its `data`). ``TagCommandExecutor`` returns ``WriteOutcome``,
/// ``LockOutcome``, ``BlocksOutcome`` or ``DumpOutcome``; scripted executors in tests their own.
/// Equatable, so a response compares by its outcome (the result cache, tests).
package protocol CommandOutcome: Encodable, Sendable, Equatable {}

/// `data` of a write or format: `uid`, `cardType`, `bytes_written`, `pages_written` (Type 2 pages /
/// Type 3 blocks, in write order), `message_length`, `capability_container` (hex).
struct WriteOutcome: CommandOutcome, Equatable {
    var uid: String
    var cardType: String
    var bytesWritten: Int
    var pagesWritten: [Int]
    var messageLength: Int
    var capabilityContainer: String

    enum CodingKeys: String, CodingKey {
        case uid, cardType, bytesWritten = "bytes_written", pagesWritten = "pages_written",
            messageLength = "message_length", capabilityContainer = "capability_container"
    }

    init(_ report: WriteReport) {
        uid = report.uid.hexString
        cardType = report.cardType.description
        bytesWritten = report.bytesWritten
        pagesWritten = report.pagesWritten
        messageLength = report.messageLength
        capabilityContainer = report.capabilityContainer.hexString
    }
}

/// `data` of a lock: `uid`, `cardType`, `pages_written`, `capability_container`, `lock_bytes` (hex).
struct LockOutcome: CommandOutcome, Equatable {
    var uid: String
    var cardType: String
    var pagesWritten: [Int]
    var capabilityContainer: String
    var lockBytes: String

    enum CodingKeys: String, CodingKey {
        case uid, cardType, pagesWritten = "pages_written", capabilityContainer = "capability_container",
            lockBytes = "lock_bytes"
    }

    init(_ report: LockReport) {
        uid = report.uid.hexString
        cardType = report.cardType.description
        pagesWritten = report.pagesWritten
        capabilityContainer = report.capabilityContainer.hexString
        lockBytes = report.lockBytes.hexString
    }
}

/// What an encode job's `protect` step did: `uid`, `cardType`, `pages_written`, `auth0`,
/// `protect_reads` and the `key` name (never the password).
struct ProtectOutcome: CommandOutcome, Equatable {
    var uid: String
    var cardType: String
    var pagesWritten: [Int]
    var auth0: Int
    var protectReads: Bool
    var key: String

    enum CodingKeys: String, CodingKey {
        case uid, cardType, pagesWritten = "pages_written", auth0, protectReads = "protect_reads", key
    }

    init(_ report: Type2PasswordProtect.Report) {
        uid = report.uid.hexString
        cardType = report.cardType.description
        pagesWritten = report.pagesWritten
        auth0 = report.auth0
        protectReads = report.protectsReads
        key = report.keyName
    }
}

/// `data` of a `write_blocks`: the blocks written (as `pages_written`, the key failures use too) and
/// their bytes.
struct BlocksOutcome: CommandOutcome, Equatable {
    var uid: String
    var cardType: String
    var bytesWritten: Int
    var pagesWritten: [Int]

    enum CodingKeys: String, CodingKey {
        case uid, cardType, bytesWritten = "bytes_written", pagesWritten = "pages_written"
    }

    init(_ report: ClassicBlockWriteReport) {
        uid = report.uid.hexString
        cardType = report.cardType.description
        bytesWritten = report.blocksWritten.count * 16
        pagesWritten = report.blocksWritten
    }
}

/// `data` of a dump: `uid`, `cardType`, `format`, and `dump` (the JSON export as an object, kept as
/// the ``TagDump`` until it is encoded) or `file` (base64) with `file_name` and `content_type`.
struct DumpOutcome: CommandOutcome, Equatable {
    /// The file of a non-JSON export.
    struct File: Sendable, Equatable {
        var bytes: [UInt8]
        var name: String
        var contentType: String
    }

    var uid: [UInt8]
    var cardType: String
    var format: ExportFormat
    /// The dump whose JSON export is `dump` (format `json`).
    var dump: TagDump?
    /// The rendered file (other formats).
    var file: File?

    enum CodingKeys: String, CodingKey {
        case uid, cardType, format, dump, file, fileName = "file_name", contentType = "content_type"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uid.hexString, forKey: .uid)
        try container.encode(cardType, forKey: .cardType)
        try container.encode(format.rawValue, forKey: .format)
        if let dump { try container.encode(dump.jsonExportDocument, forKey: .dump) }
        if let file {
            try container.encode(Data(file.bytes).base64EncodedString(), forKey: .file)
            try container.encode(file.name, forKey: .fileName)
            try container.encode(file.contentType, forKey: .contentType)
        }
    }
}
