import FoundationEssentials
import Glibc
import NFCCore

/// The real executor: starts from the reader loop's identification of the tag (or identifies it
/// with NFCCore's `TagIdentifier` when there is none), then runs NFCCore's `TagOperations` (write,
/// format, lock), `ClassicBlockWriter` (write_blocks) or `TagDumper` plus an export (dump), and
/// returns the report as a ``CommandOutcome``: ``WriteOutcome`` (write, format), ``LockOutcome``,
/// ``BlocksOutcome``, ``DumpOutcome``.
///
/// Failures keep NFCCore's facts: a tag pulled mid-write is `tag_removed` with `data.pages_written`.
package struct TagCommandExecutor: CommandExecuting {
    /// The families' dump settings every dump gets (the configuration's, as the scans use).
    package let familyOptions: FamilyDumpOptions

    /// Creates the executor; `familyOptions` are the families' dump settings (the agent passes
    /// ``AgentConfiguration/DumpSettings/families``, as its scans use).
    package init(familyOptions: FamilyDumpOptions = FamilyDumpOptions()) {
        self.familyOptions = familyOptions
    }

    package func execute(_ action: CommandAction, on transport: any TagTransport, identified: CardInfo?)
        async throws(CommandError) -> any CommandOutcome
    {
        switch action {
        case .cancel, .job, .feedback:
            throw CommandError(.invalidRequest, "cancel, job and feedback do not act on a tag")
        case let .write(message, password):
            let info = try await Self.cardInfo(transport, identified: identified, changesTag: true)
            return try await run { () throws(TagOperationError) in
                WriteOutcome(try await TagOperations.write(ndef: message, to: transport, info: info, password: password))
            }
        case let .format(password):
            let info = try await Self.cardInfo(transport, identified: identified, changesTag: true)
            return try await run { () throws(TagOperationError) in
                WriteOutcome(try await TagOperations.format(transport, info: info, password: password))
            }
        case let .lock(uid, password):
            let info = try await Self.cardInfo(transport, identified: identified, changesTag: true)
            return try await run { () throws(TagOperationError) in
                LockOutcome(try await TagOperations.lock(transport, info: info, expectedUID: uid, password: password))
            }
        case let .protect(uid, settings):
            let info = try await Self.cardInfo(transport, identified: identified, changesTag: true)
            return try await run { () throws(TagOperationError) in
                ProtectOutcome(try await TagOperations.protect(transport, info: info, expectedUID: uid, settings: settings))
            }
        case let .writeBlocks(blocks, key, keyType, allowTrailer):
            let info = try await Self.cardInfo(transport, identified: identified, changesTag: true)
            return try await run { () throws(TagOperationError) in
                BlocksOutcome(try await ClassicBlockWriter.write(
                    blocks, key: key, keyType: keyType, allowTrailer: allowTrailer, to: transport, info: info))
            }
        case let .dump(format, partial):
            let info = try await Self.cardInfo(transport, identified: identified, changesTag: false)
            return try await dump(info: info, transport: transport, format: format, partial: partial)
        }
    }

    /// What the tag behind `transport` is: the reader loop's identification when it is of this tag
    /// (same UID), else NFCCore's `TagIdentifier` now. The operations need nothing else that
    /// identification leaves behind: Type 4 operations SELECT the NDEF application themselves, and a
    /// FeliCa system code is in the ``CardInfo`` (as the dump on scan, which starts from the scan's).
    static func cardInfo(_ transport: any TagTransport, identified: CardInfo?, changesTag: Bool)
        async throws(CommandError) -> CardInfo
    {
        if let identified, identified.uid == transport.target.uid { return identified }
        do {
            return try await TagIdentifier.identify(transport)
        } catch {
            throw failure(error, changesTag: changesTag)
        }
    }

    private func run<Outcome: CommandOutcome>(_ operation: () async throws(TagOperationError) -> Outcome)
        async throws(CommandError) -> Outcome
    {
        do {
            return try await operation()
        } catch {
            throw CommandError(error.error, pagesWritten: error.pagesWritten, detail: error.detail)
        }
    }

    private func dump(info: CardInfo, transport: any TagTransport, format: ExportFormat, partial: Bool)
        async throws(CommandError) -> DumpOutcome
    {
        let dump: TagDump
        do {
            let options = DumpOptions(target: format.dumpTarget, families: familyOptions)
            dump = try await TagDumper.dump(info: info, transport: transport, options: options)
        } catch {
            throw Self.failure(error, changesTag: false)
        }
        var outcome = DumpOutcome(uid: info.uid, cardType: info.type.description, format: format)
        if format == .json {
            outcome.dump = dump
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
            outcome.file = DumpOutcome.File(
                bytes: bytes, name: dump.exportBaseName + format.fileSuffix, contentType: format.contentType)
        }
        return outcome
    }

    /// An error before the operation proper (identification, dump): nothing was written.
    static func failure(_ error: any Error, changesTag: Bool) -> CommandError {
        if let error = error as? TagOperationError {
            return CommandError(error.error, pagesWritten: error.pagesWritten, detail: error.detail)
        }
        if let error = error as? NFCError {
            return CommandError(error, pagesWritten: changesTag ? [] : nil, reading: !changesTag)
        }
        if error.isNFCCancellation { return CommandError(.userCanceled) }
        return CommandError(changesTag ? .writeFailed : .readFailed, "\(error)")
    }
}
