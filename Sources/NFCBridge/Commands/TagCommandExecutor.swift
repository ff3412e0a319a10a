import FoundationEssentials
import Glibc
import NFCCore

/// The real executor: identifies the tag (NFCCore's `TagIdentifier`), then runs NFCCore's
/// `TagOperations` (write, format, lock) or `TagDumper` plus an export (dump), and turns the reports
/// into the response's `data`:
///
/// - write / format: `uid`, `cardType`, `bytes_written`, `pages_written` (Type 2 pages / Type 3
///   blocks, in write order), `message_length`, `capability_container` (hex);
/// - lock: `uid`, `cardType`, `pages_written`, `capability_container`, `lock_bytes` (hex);
/// - write_blocks: `uid`, `cardType`, `bytes_written`, `pages_written` (the Classic blocks, in write order);
/// - dump: `uid`, `cardType`, `format`, and `dump` (the JSON export as an object) or `file` (base64)
///   with `file_name` and `content_type`.
///
/// Failures keep NFCCore's facts: a tag pulled mid-write is `tag_removed` with `data.pages_written`.
public struct TagCommandExecutor: CommandExecuting {
    /// The keys a MIFARE Classic dump tries (`dump.keys_file`, plus the default dictionary).
    public let classicKeys: ClassicKeyDictionary

    /// Creates the executor; `classicKeys` are the keys a Classic dump tries (the agent passes
    /// `dump.keys_file`'s dictionary, as its scans use).
    public init(classicKeys: ClassicKeyDictionary = .standard) {
        self.classicKeys = classicKeys
    }

    public func execute(_ action: CommandAction, on transport: any TagTransport) async throws(CommandError) -> [String: JSONValue] {
        let changesTag: Bool
        switch action {
        case .write, .format, .lock, .writeBlocks: changesTag = true
        case .dump: changesTag = false
        case .cancel: throw CommandError(.invalidRequest, "cancel does not act on a tag")
        }
        let info: CardInfo
        do {
            info = try await TagIdentifier.identify(transport)
        } catch {
            throw Self.failure(error, changesTag: changesTag)
        }
        switch action {
        case let .write(message, password):
            return try await run { () throws(TagOperationError) in
                Self.data(try await TagOperations.write(ndef: message, to: transport, info: info, password: password))
            }
        case let .format(password):
            return try await run { () throws(TagOperationError) in
                Self.data(try await TagOperations.format(transport, info: info, password: password))
            }
        case let .lock(uid, password):
            return try await run { () throws(TagOperationError) in
                Self.data(try await TagOperations.lock(transport, info: info, expectedUID: uid, password: password))
            }
        case let .dump(format, partial):
            return try await dump(info: info, transport: transport, format: format, partial: partial)
        case let .writeBlocks(blocks, key, keyType, allowTrailer):
            return try await run { () throws(TagOperationError) in
                Self.data(try await ClassicBlockWriter.write(
                    blocks, key: key, keyType: keyType, allowTrailer: allowTrailer, to: transport, info: info))
            }
        case .cancel:
            throw CommandError(.invalidRequest, "cancel does not act on a tag")
        }
    }

    private func run(_ operation: () async throws(TagOperationError) -> [String: JSONValue]) async throws(CommandError)
        -> [String: JSONValue]
    {
        do {
            return try await operation()
        } catch {
            throw CommandError(error.error, pagesWritten: error.pagesWritten)
        }
    }

    private func dump(info: CardInfo, transport: any TagTransport, format: ExportFormat, partial: Bool)
        async throws(CommandError) -> [String: JSONValue]
    {
        let dump: TagDump
        do {
            var options = DumpOptions()
            options.target = format.dumpTarget
            options.classicKeys = classicKeys
            dump = try await TagDumper.dump(info: info, transport: transport, options: options)
        } catch {
            throw Self.failure(error, changesTag: false)
        }
        var data = DumpResult(uid: info.uid, cardType: info.type.description, format: format)
        if format == .json {
            do {
                data.dump = try JSONValueEncoder().encode(dump.jsonExportDocument)
            } catch {
                throw CommandError(.readFailed, "the JSON export of the dump could not be built: \(error)")
            }
        } else {
            let bytes: [UInt8]
            do {
                bytes = try format.render(dump, partial: partial)
            } catch let error as NFCError where error.errorCode == .partialDump {
                // A tag read only in part (AUTH0), without `partial`: pm3, mfd, … cannot mark the pages not read.
                throw CommandError(.partialDump, "a \(info.type) dump cannot be exported as \(format.rawValue): \(error.message)")
            } catch {
                let reason = (error as? NFCError)?.message ?? "\(error)"
                throw CommandError(.unsupported, "a \(info.type) dump cannot be exported as \(format.rawValue): \(reason)")
            }
            data.file = Data(bytes).base64EncodedString()
            data.fileName = dump.exportBaseName + format.fileSuffix
            data.contentType = format.contentType
        }
        return JSONValueEncoder.members(of: data)
    }

    /// An error before the operation proper (identification, dump): nothing was written.
    static func failure(_ error: any Error, changesTag: Bool) -> CommandError {
        if let error = error as? TagOperationError { return CommandError(error.error, pagesWritten: error.pagesWritten) }
        if let error = error as? NFCError {
            return CommandError(error, pagesWritten: changesTag ? [] : nil, reading: !changesTag)
        }
        if error.isNFCCancellation { return CommandError(.userCanceled) }
        return CommandError(changesTag ? .writeFailed : .readFailed, "\(error)")
    }

    static func data(_ report: WriteReport) -> [String: JSONValue] {
        JSONValueEncoder.members(of: WriteResult(report))
    }

    static func data(_ report: ClassicBlockWriteReport) -> [String: JSONValue] {
        JSONValueEncoder.members(of: BlocksResult(report))
    }

    /// `data` of a `write_blocks`: the blocks written (as `pages_written`, the key failures use too) and
    /// their bytes.
    struct BlocksResult: Encodable {
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

    static func data(_ report: LockReport) -> [String: JSONValue] {
        JSONValueEncoder.members(of: LockResult(report))
    }

    /// `data` of a write or format.
    struct WriteResult: Encodable {
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

    /// `data` of a lock.
    struct LockResult: Encodable {
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

    /// `data` of a dump: the JSON export as an object, or a file in base64.
    struct DumpResult: Encodable {
        var uid: [UInt8]
        var cardType: String
        var format: ExportFormat
        var dump: JSONValue?
        var file: String?
        var fileName: String?
        var contentType: String?

        enum CodingKeys: String, CodingKey {
            case uid, cardType, format, dump, file, fileName = "file_name", contentType = "content_type"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(uid.hexString, forKey: .uid)
            try container.encode(cardType, forKey: .cardType)
            try container.encode(format.rawValue, forKey: .format)
            try container.encodeIfPresent(dump, forKey: .dump)
            try container.encodeIfPresent(file, forKey: .file)
            try container.encodeIfPresent(fileName, forKey: .fileName)
            try container.encodeIfPresent(contentType, forKey: .contentType)
        }
    }
}
