/// What a DESFire dump read: the applications, each file's settings and the data of every
/// free-access file, keyed `AID/fileID` (AID as its 3 bytes in card order, LSB first, in hex:
/// `"563412/01"` for AID 123456h), with the facts to show people. Built by ``DESFireDumper``;
/// ready to become issue 8's typed DESFire dump payload.
public struct DESFireDump: FamilyDumpPayload {
    /// What was read from one file.
    public enum Content: Sendable, Hashable {
        /// Standard and backup data files: the whole file (ReadData: BDh, or ADh on Light / NTAG 4xx DNA).
        case data([UInt8])
        /// Value files: the value (GetValue, 6Ch).
        case value(Int32)
        /// Linear and cyclic record files: the records, oldest first (ReadRecords: BBh, or ABh on Light). Empty for
        /// a record file that holds no record yet.
        case records([[UInt8]])

        /// The bytes as the card sent them (a value as 4 bytes LSB first; records joined).
        public var bytes: [UInt8] {
            switch self {
            case let .data(bytes): bytes
            case let .value(value): withUnsafeBytes(of: value.littleEndian) { Array($0) }
            case let .records(records): records.flatMap { $0 }
            }
        }
    }

    /// One file of an application.
    public struct File: Sendable, Hashable {
        public var id: UInt8
        /// Nil when GetFileSettings itself was refused.
        public var settings: DESFireFileSettings?
        /// Nil when the file was skipped.
        public var content: Content?
        /// Why the file was not read ("read needs key 1", "AUTHENTICATION_ERROR (91AE)"), or nil.
        public var skipReason: String?
    }

    /// One application.
    public struct Application: Sendable, Hashable {
        /// The AID in card order (LSB first), as GetApplicationIDs lists it.
        public var aid: [UInt8]
        public var files: [File]
        /// Why the application's files were not listed, or nil.
        public var skipReason: String?
        /// GetKeySettings of the application, nil when the card refused it.
        public var keySettings: DESFireKeySettings?
        /// GetKeyVersion of each key (0 ..< key count), nil when refused.
        public var keyVersions: [UInt8]?

        /// The AID hex in card order ("563412").
        public var aidHex: String { aid.hexString }
    }

    /// The GET_VERSION answer the framing was chosen from.
    public var version: DESFireVersion
    public var framing: DESFireFraming
    public var applications: [Application]
    /// Why the application directory itself could not be listed (PICC master key settings), or nil.
    public var directorySkipReason: String?
    /// GetKeySettings at the PICC level, nil when the card refused it.
    public var piccKeySettings: DESFireKeySettings?
    /// GetKeyVersion of each PICC key, nil when refused.
    public var piccKeyVersions: [UInt8]?
    public var facts: [Fact]

    /// Why the NDEF application's message could not be read (the dump's files stand), or nil.
    public var ndefSkipReason: String?

    /// What each key of the keys file did (by name, never the key), in the order they were tried.
    public var authentications: [DESFireAuthentication] = []

    /// False when the walk did not ask for key data (``dump(transport:version:keys:keyData:random:)``
    /// with `keyData` false, for an output that holds none): the key settings and versions are then nil
    /// because nobody asked, not because the card refused them.
    public var keyDataAsked = true

    /// Data of every file read, keyed `AID/fileID` ("563412/01").
    public var files: [String: Content] {
        var out: [String: Content] = [:]
        for app in applications {
            for file in app.files { if let content = file.content { out[Self.key(aid: app.aid, file: file.id)] = content } }
        }
        return out
    }

    /// `AID/fileID` keys of the applications skipped (named by AID alone) and the files skipped.
    public var skipped: [String] {
        var out: [String] = directorySkipReason == nil ? [] : ["PICC"]
        if ndefSkipReason != nil { out.append("NDEF") }
        for app in applications {
            if app.skipReason != nil { out.append(app.aidHex) }
            for file in app.files where file.skipReason != nil { out.append(Self.key(aid: app.aid, file: file.id)) }
        }
        return out
    }

    /// Applications whose files could not be listed.
    public var skippedApplicationCount: Int { applications.count { $0.skipReason != nil } }
    /// Files that were listed but not read.
    public var skippedFileCount: Int { applications.reduce(0) { $0 + $1.files.count { $0.skipReason != nil } } }

    /// True when anything was skipped: the directory, an application or a file.
    public var partiallyReadable: Bool { !skipped.isEmpty }

    /// `readable`, plus `authenticationRequired` and `partiallyReadable` when something was skipped.
    public var capabilities: [CardCapability] {
        partiallyReadable ? [.readable, .authenticationRequired, .partiallyReadable] : [.readable]
    }

    /// The `AID/fileID` key.
    public static func key(aid: [UInt8], file: UInt8) -> String { "\(aid.hexString)/\(file.hexString)" }
}

/// Dumps a MIFARE DESFire (EV1/EV2/EV3/Light) or NTAG 424 DNA by the spec, with the product's own
/// command codes (``DESFireCommandSet``, chosen by the GetVersion hardware type). A product with an
/// application directory: GetApplicationIDs (6Ah, AF chaining), then per application
/// SelectApplication (5Ah), GetFileIDs (6Fh) and GetFileSettings (F5h) for each file. A DESFire
/// Light or NTAG 4xx DNA: ISO SELECT of its one application's DF name, then GetFileIDs where the
/// product has it, else its fixed file numbers, each with GetFileSettings. Every file whose read or
/// read&write right is free (Eh) is read — ReadData / ReadRecords with the product's code (BDh / BBh,
/// or ADh / ABh on Light and NTAG 4xx DNA) — whatever its communication mode (EV1 datasheet §6.5:
/// with a free right the data travels plain). Protected applications and files are skipped,
/// counted and named.
public enum DESFireDumper {
    /// Runs the walk. `version` is the GET_VERSION answer when the caller has it (identification
    /// already read it); otherwise it is read here, always wrapped, which every DESFire-family chip
    /// accepts. The framing for the rest comes from ``DESFireFraming/framing(for:)``.
    ///
    /// Throws transport errors (``NFCError/tagRemoved``, ``NFCError/timeout``), `CancellationError`
    /// (checked before each application and file), and the errors of answers the walk cannot read
    /// (``NFCError/unexpectedStatusWord(_:_:)``, ``NFCError/invalidResponse(_:)``). A DESFire status refusing the directory, an application or
    /// a file (authentication, permission, unknown command) is not an error: it is skipped and named.
    ///
    /// `keys` (the keys file's DESFire keys) open protected files after each application's free ones
    /// were read (``DESFireDumper/Walk/openProtected(_:context:selected:)``); `random` gives each
    /// authentication's RndA (16 bytes; the system's random generator unless a test pins it).
    ///
    /// `keyData` false: no GetKeySettings and no GetKeyVersion, for an output that holds neither (the
    /// raw binary and the hex listing: ``DumpTarget/holdsDESFireKeyData``); the walk is then GetApplicationIDs,
    /// and per application SelectApplication, GetFileIDs and per file GetFileSettings and the read
    /// (issue 25: the data-only walk).
    public static func dump(transport: any APDUTransport, version knownVersion: DESFireVersion? = nil,
                            keys: DESFireKeys = .standard, keyData: Bool = true,
                            random: @escaping @Sendable () -> [UInt8] = DESFireDumper.randomChallenge) async throws -> DESFireDump {
        let version: DESFireVersion
        if let known = knownVersion { version = known } else { version = try await DESFireVersion.read(transport: transport) }
        // A reader that cannot carry native frames (PC/SC) gets every command wrapped.
        let framing = transport.carriesNativeDESFireFrames ? DESFireFraming.framing(for: version) : .wrapped
        let walk = Walk(channel: DESFireChannel(transport: transport, framing: framing), set: .forVersion(version),
                        memory: version.storageBytes, keyData: keyData)
        var dump = DESFireDump(version: version, framing: framing, applications: [], directorySkipReason: nil,
                                piccKeySettings: nil, piccKeyVersions: nil, facts: [], keyDataAsked: keyData)
        let context = DESFireAuthenticationContext(keys: keys, version: version, random: random)

        if case let .isoSelect(dfNames) = walk.set.entry {
            // DESFire Light, NTAG 4xx DNA: no application directory; the one application is selected
            // by ISO SELECT only (``DESFireLight/select(_:transport:)``), then walked.
            switch try await DESFireLight.select(dfNames, transport: transport) {
            case let .selected(dfName):
                var app = try await walk.files(of: dfName, selected: true)
                dump.authentications = try await walk.openProtected(&app, context: context, selected: true)
                dump.applications = [app]
            case let .notFound(reason):
                dump.directorySkipReason = reason
            }
            dump.facts = facts(of: dump)
            return dump
        }

        // PICC level: AID 000000 (EV1 datasheet §9.2.2 SelectApplication).
        do {
            _ = try await walk.send(.selectApplication, [0x00, 0x00, 0x00])
            dump.piccKeySettings = try await walk.keySettings()
            dump.piccKeyVersions = try await walk.keyVersions(count: dump.piccKeySettings?.keyCount)
            let ids = try await walk.send(.getApplicationIDs)
            guard ids.count % 3 == 0 else { throw NFCError.invalidResponse(ids) }
            for start in stride(from: 0, to: ids.count, by: 3) {
                try Task.checkCancellation()
                var app = try await walk.files(of: Array(ids[start..<start + 3]), selected: false)
                if app.skipReason == nil { dump.authentications += try await walk.openProtected(&app, context: context, selected: false) }
                dump.applications.append(app)
            }
        } catch let error as NFCError {
            guard let reason = skipReason(error) else { throw error }
            dump.directorySkipReason = reason
        }
        dump.facts = facts(of: dump)
        return dump
    }

    /// A refusal or an answer the walk steps past, as a short reason; nil for errors that end the dump.
    /// A DESFire status (authentication, permission, unknown command) and an answer the walk cannot
    /// read (a length that disagrees with the file's settings, an ISO status word where a DESFire one
    /// belongs) skip the directory, application or file they came from: the rest of the card is still
    /// read and the bad part is named. Transport errors (the tag left, silence, a CRC or RF error, the
    /// reader gone) end the walk: nothing after them would be answered either.
    static func skipReason(_ error: NFCError) -> String? {
        if let status = error.desfireStatus { return status.name + " (91\(status.rawValue.hexString))" }
        switch error {
        case let .invalidResponse(bytes):
            return "answer not understood (\(bytes.count) bytes\(bytes.isEmpty ? "" : ": " + bytes.prefix(16).hexString))"
        case let .unexpectedStatusWord(sw1, sw2):
            return "answered \(sw1.hexString)\(sw2.hexString), not a DESFire status"
        default:
            return nil
        }
    }

    /// Offset 0, length 0 = "the whole file / all records" (EV1 datasheet §9.2.3 ReadData, §9.2.7
    /// ReadRecords; the same parameters for ADh / ABh, NT4H2421Gx §10.8).
    static let wholeFile: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x00, 0x00]

    /// The channel and the product's command set: every command goes out with the set's code.
    struct Walk {
        let channel: DESFireChannel
        let set: DESFireCommandSet
        /// The card's memory in bytes (GetVersion's storage size byte), when it says so exactly: a
        /// file whose settings claim more cannot be real and is not read.
        let memory: Int?
        /// False: GetKeySettings and GetKeyVersion are not sent (the output holds neither).
        var keyData = true

        /// A command the set does not hold was never meant to be sent: a programming error of the walk.
        struct NotInCommandSet: Error { var operation: DESFireCommandSet.Operation }

        func send(_ operation: DESFireCommandSet.Operation, _ data: [UInt8] = []) async throws -> [UInt8] {
            guard let code = set.code(operation) else { throw NotInCommandSet(operation: operation) }
            return try await channel.command(code, data)
        }

        /// Selects the application `aid` (SelectApplication, unless `selected` says ISO SELECT already
        /// did) and walks its files: GetFileIDs where the set has it, else (or when the card refuses it
        /// as ILLEGAL_COMMAND_CODE) the set's fixed file numbers, a probed number the card does not have
        /// (FILE_NOT_FOUND) left out.
        func files(of aid: [UInt8], selected: Bool) async throws -> DESFireDump.Application {
            var app = DESFireDump.Application(aid: aid, files: [], skipReason: nil, keySettings: nil, keyVersions: nil)
            var ids = set.fixedFiles
            var probing = true
            do {
                if !selected { _ = try await send(.selectApplication, aid) }
                app.keySettings = try await keySettings()
                app.keyVersions = try await keyVersions(count: set.code(.getKeySettings) == nil ? set.fixedKeyCount : app.keySettings?.keyCount)
                if set.code(.getFileIDs) != nil {
                    do {
                        ids = try await send(.getFileIDs)
                        probing = false
                    } catch let error as NFCError where error.desfireStatus == .illegalCommand && !set.fixedFiles.isEmpty {}
                }
            } catch let error as NFCError {
                guard let reason = skipReason(error) else { throw error }
                app.skipReason = reason
                return app
            }
            for id in ids {
                try Task.checkCancellation()
                if let file = try await file(id, probing: probing) { app.files.append(file) }
            }
            return app
        }

        /// GetKeySettings of the selected PICC or application; nil when the card refuses it (its
        /// master key settings may ask for authentication) or the set has none, which is not a skip.
        func keySettings() async throws -> DESFireKeySettings? {
            guard keyData, set.code(.getKeySettings) != nil else { return nil }
            do {
                return try DESFireKeySettings(bytes: try await send(.getKeySettings))
            } catch let error as NFCError where error.desfireStatus != nil {
                return nil
            }
        }

        /// GetKeyVersion (64h, EV1 datasheet §9.2.1) of keys 0 ..< `count`; nil without a count, without
        /// the command, or when the card refuses one.
        func keyVersions(count: Int?) async throws -> [UInt8]? {
            guard keyData, let count, set.code(.getKeyVersion) != nil else { return nil }
            var versions: [UInt8] = []
            for key in 0..<UInt8(count) {
                do {
                    let answer = try await send(.getKeyVersion, [key])
                    guard answer.count == 1 else { throw NFCError.invalidResponse(answer) }
                    versions.append(answer[0])
                } catch let error as NFCError where error.desfireStatus != nil {
                    return nil
                }
            }
            return versions
        }

        /// GetFileSettings, then the read; nil for a probed number the card answers FILE_NOT_FOUND to.
        func file(_ id: UInt8, probing: Bool) async throws -> DESFireDump.File? {
            var file = DESFireDump.File(id: id, settings: nil, content: nil, skipReason: nil)
            do {
                let answer = try await send(.getFileSettings, [id])
                if let type = answer.first, DESFireFileSettings.FileType(rawValue: type) == nil {
                    // A file type newer than this table: named and skipped, the rest of the card still read.
                    file.skipReason = "file type \(type.hexString)h is not known"
                    return file
                }
                let settings = try DESFireFileSettings(bytes: answer)
                file.settings = settings
                let rights = settings.accessRights
                guard rights.freeRead else {
                    file.skipReason = "read needs \(rights.read), read&write needs \(rights.readWrite)"
                    return file
                }
                if let memory, let declared = settings.declaredBytes, declared > memory {
                    file.skipReason = "its settings claim \(declared) bytes, more than the card's \(memory)-byte memory"
                    return file
                }
                let operation = Self.readOperation(settings)
                guard set.code(operation) != nil else {
                    file.skipReason = "\(set.name) has no \(operation.rawValue) command"
                    return file
                }
                file.content = try await read(id, settings)
            } catch let error as NFCError {
                if probing && error.desfireStatus == .fileNotFound { return nil }
                guard let reason = skipReason(error) else { throw error }
                file.skipReason = reason
            }
            return file
        }

        /// The operation that reads a file of these settings.
        static func readOperation(_ settings: DESFireFileSettings) -> DESFireCommandSet.Operation {
            switch settings.details {
            case .data, .transactionMAC: .readData
            case .value: .getValue
            case .records: .readRecords
            }
        }

        func read(_ id: UInt8, _ settings: DESFireFileSettings) async throws -> DESFireDump.Content {
            switch settings.details {
            case let .data(size):
                guard size > 0 else { return .data([]) }
                let bytes = try await send(.readData, [id] + wholeFile)
                guard bytes.count == size else { throw NFCError.invalidResponse(Array(bytes.prefix(16))) }
                return .data(bytes)
            case .transactionMAC:
                // TMC (4) and TMV (8) through ReadData (MF2DLHX0 §10.8.7); the length is the card's.
                return .data(try await send(.readData, [id] + wholeFile))
            case .value:
                let bytes = try await send(.getValue, [id])
                guard bytes.count == 4 else { throw NFCError.invalidResponse(bytes) }
                return .value(Int32(bitPattern: UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24))
            case let .records(recordSize, _, current):
                // An empty record file answers ReadRecords with BOUNDARY_ERROR (EV1 datasheet §9.2.7):
                // it holds no record, which is not an error, so it is not asked at all.
                guard current > 0 else { return .records([]) }
                guard recordSize > 0 else { throw NFCError.invalidResponse(settings.raw) }
                let bytes = try await send(.readRecords, [id] + wholeFile)
                guard bytes.count == recordSize * current else { throw NFCError.invalidResponse(Array(bytes.prefix(16))) }
                return .records(stride(from: 0, to: bytes.count, by: recordSize).map { Array(bytes[$0..<$0 + recordSize]) })
            }
        }
    }

    static func facts(of dump: DESFireDump) -> [Fact] {
        var facts = [
            Fact(key: "Framing", value: dump.framing == .native ? "Native" : "ISO 7816 wrapped"),
            Fact(key: "Applications", value: "\(dump.applications.count)"),
        ]
        if let keys = dump.piccKeySettings { facts.append(Fact(key: "PICC Key Settings", value: keys.summary)) }
        if let reason = dump.directorySkipReason {
            facts.append(Fact(key: "Application Directory",
                              value: (dump.selectsByDFName ? "Application not selected: " : "Not listed: ") + reason))
        }
        for app in dump.applications {
            if let reason = app.skipReason {
                facts.append(Fact(key: "Application \(app.aidHex)", value: "Skipped: \(reason)", monospaced: false))
                continue
            }
            facts.append(Fact(key: "Application \(app.aidHex)",
                              value: "\(app.files.count) files" + (app.keySettings.map { "; \($0.summary)" } ?? "")))
            for file in app.files {
                var value = file.settings?.summary ?? "Settings not read"
                if let reason = file.skipReason { value += "; skipped: \(reason)" }
                if case let .value(v) = file.content { value += "; value \(v)" }
                facts.append(Fact(key: "File \(DESFireDump.key(aid: app.aid, file: file.id))", value: value))
            }
        }
        for authentication in dump.authentications {
            facts.append(Fact(key: "Authentication \(authentication.application.hexString)", value: authentication.summary, monospaced: false))
        }
        facts.append(Fact(key: "Files Read", value: "\(dump.files.count)"))
        if let reason = dump.ndefSkipReason { facts.append(Fact(key: "NDEF", value: "Not read: \(reason)", monospaced: false)) }
        if dump.partiallyReadable {
            facts.append(Fact(key: "Skipped Applications", value: "\(dump.skippedApplicationCount)"))
            facts.append(Fact(key: "Skipped Files", value: "\(dump.skippedFileCount)"))
            facts.append(Fact(key: "Skipped", value: dump.skipped.joined(separator: ", "), monospaced: true))
        }
        return facts
    }
}

extension DESFireDump {
    enum JSONKeys: String, CodingKey { case desfireAuthentications }

    /// A DESFire JSON dump is the upstream schema (its `files`, keyed `AID/fileID`, and facts); one
    /// additive key, `desfireAuthentications`, when keys were tried: which key NAME opened what.
    public func encode(to encoder: any Encoder) throws {
        guard !authentications.isEmpty else { return }
        var container = encoder.container(keyedBy: JSONKeys.self)
        try container.encode(authentications, forKey: .desfireAuthentications)
    }
}

extension FamilyDumpData {
    /// MIFARE DESFire: the walk of applications and files (settings, contents, what was skipped).
    public static func desfire(_ walk: DESFireDump) -> FamilyDumpData { FamilyDumpData(walk) }
}

extension TagDump {
    /// The DESFire walk (applications, files, what was skipped); nil for other families. The DESFire
    /// family's view of ``family``.
    public var desfire: DESFireDump? { family.payload(as: DESFireDump.self) }
}
