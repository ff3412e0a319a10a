import Foundation
import NFCCore

/// The real executor: identifies the tag (NFCCore's `TagIdentifier`), then runs NFCCore's
/// `TagOperations` (write, format, lock) or `TagDumper` plus an export (dump), and turns the reports
/// into the response's `data`:
///
/// - write / format: `uid`, `cardType`, `bytes_written`, `pages_written` (Type 2 pages / Type 3
///   blocks, in write order), `message_length`, `capability_container` (hex);
/// - lock: `uid`, `cardType`, `pages_written`, `capability_container`, `lock_bytes` (hex);
/// - dump: `uid`, `cardType`, `format`, and `dump` (the JSON export as an object) or `file` (base64)
///   with `file_name` and `content_type`.
///
/// Failures keep NFCCore's facts: a tag pulled mid-write is `tag_removed` with `data.pages_written`.
public struct TagCommandExecutor: CommandExecuting {
    /// Creates the executor.
    public init() {}

    public func execute(_ action: CommandAction, on transport: any TagTransport) async throws(CommandError) -> [String: JSONValue] {
        let changesTag: Bool
        switch action {
        case .write, .format, .lock: changesTag = true
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
        case let .dump(format):
            return try await dump(info: info, transport: transport, format: format)
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

    private func dump(info: CardInfo, transport: any TagTransport, format: DumpFileFormat) async throws(CommandError)
        -> [String: JSONValue]
    {
        let dump: TagDump
        do {
            dump = try await TagDumper.dump(info: info, transport: transport)
        } catch {
            throw Self.failure(error, changesTag: false)
        }
        var data: [String: JSONValue] = [
            "uid": .string(info.uid.hexString), "cardType": .string(info.type.description),
            "format": .string(format.rawValue),
        ]
        let bytes: [UInt8]
        do {
            bytes = try format.export(dump)
        } catch {
            let reason = (error as? NFCError)?.message ?? "\(error)"
            throw CommandError(.unsupported, "a \(info.type) dump cannot be exported as \(format.rawValue): \(reason)")
        }
        if format == .json {
            guard let json = try? JSONValue(parsing: Data(bytes)) else {
                throw CommandError(.readFailed, "the JSON export of the dump could not be read back")
            }
            data["dump"] = json
        } else {
            data["file"] = .string(Data(bytes).base64EncodedString())
            data["file_name"] = .string(dump.exportBaseName + format.file.suffix)
            data["content_type"] = .string(format.file.contentType)
        }
        return data
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
        [
            "uid": .string(report.uid.hexString), "cardType": .string(report.cardType.description),
            "bytes_written": .int(Int64(report.bytesWritten)),
            "pages_written": .array(report.pagesWritten.map { .int(Int64($0)) }),
            "message_length": .int(Int64(report.messageLength)),
            "capability_container": .string(report.capabilityContainer.hexString),
        ]
    }

    static func data(_ report: LockReport) -> [String: JSONValue] {
        [
            "uid": .string(report.uid.hexString), "cardType": .string(report.cardType.description),
            "pages_written": .array(report.pagesWritten.map { .int(Int64($0)) }),
            "capability_container": .string(report.capabilityContainer.hexString),
            "lock_bytes": .string(report.lockBytes.hexString),
        ]
    }
}
