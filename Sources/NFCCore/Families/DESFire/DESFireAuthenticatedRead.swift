/// What one key of the keys file did in one application: which files it opened, or why it did not.
/// Carries the key's NAME, never the key.
public struct DESFireAuthentication: Sendable, Hashable, Encodable {
    /// How it ended.
    public enum Outcome: Sendable, Hashable {
        /// Authenticated; these files were read (or named with why not).
        case opened
        /// The card refused the key: the stable error code (`auth_failed`, `desfire_error`…) and message.
        case failed(code: String, message: String)
    }

    /// The application (AID, card order).
    public var application: [UInt8]
    /// The key number.
    public var keyNumber: UInt8
    /// The key's name in the keys file.
    public var keyName: String
    /// The command used (``DESFireAuthenticationMethod/name``).
    public var method: String
    /// The outcome.
    public var outcome: Outcome
    /// The files read with the key (`AID/fileID` as the dump keys them).
    public var filesRead: [String]

    /// One line for the dump's facts: `door_read (key 1, AuthenticateEV2First): read 563412/01` or
    /// `door_read (key 1): auth_failed — …`.
    public var summary: String {
        switch outcome {
        case .opened:
            "\(keyName) (key \(keyNumber), \(method)): " + (filesRead.isEmpty ? "no file read" : "read " + filesRead.joined(separator: ", "))
        case let .failed(code, message):
            "\(keyName) (key \(keyNumber), \(method)): \(code) — \(message)"
        }
    }

    enum CodingKeys: String, CodingKey { case application, keyNumber, key, method, result, error, files }

    /// `{"application":"563412","keyNumber":1,"key":"door_read","method":"AuthenticateEV2First",
    /// "result":"opened","files":["563412/01"]}`; a failure has `"result":"failed","error":"auth_failed"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(application.hexString, forKey: .application)
        try container.encode(keyNumber, forKey: .keyNumber)
        try container.encode(keyName, forKey: .key)
        try container.encode(method, forKey: .method)
        switch outcome {
        case .opened: try container.encode("opened", forKey: .result)
        case let .failed(code, _):
            try container.encode("failed", forKey: .result)
            try container.encode(code, forKey: .error)
        }
        try container.encode(filesRead, forKey: .files)
    }
}

/// The authentication a product takes for an AES key, one row per product generation.
public enum DESFireAuthenticationMethod: String, Sendable, Hashable {
    /// AuthenticateAES AAh + EV1 secure messaging (MIFARE DESFire EV1 MF3ICD(Q)81 §9.5.2).
    case aesEV1 = "AuthenticateAES"
    /// AuthenticateEV2First 71h + EV2 secure messaging (MIFARE DESFire EV2 MF3D(H)x2 §10.4.1; EV3;
    /// DESFire Light MF2DL(H)x0 and NTAG 424 DNA NT4H2421Gx §10.4.1, which have no AAh).
    case ev2First = "AuthenticateEV2First"
    /// AuthenticateEV2NonFirst 77h: a further key of the application inside the session an
    /// AuthenticateEV2First opened (AN12343 "AuthenticateEV2NonFirst"), TI and command counter kept.
    case ev2NonFirst = "AuthenticateEV2NonFirst"
    /// AuthenticateISO 1Ah with a 2K3DES / 3K3DES key + EV1 secure messaging over 3DES (MF3ICD(Q)81
    /// §9.5.1; EV1, EV2, EV3 — not the Light or NTAG 4xx DNA, whose keys are AES only).
    case iso = "AuthenticateISO"
    /// The legacy Authenticate 0Ah with a DES / 2K3DES key + D40 secure messaging (MF3ICD40 §9.2, §8.5):
    /// the first DESFire's only authentication.
    case legacy = "Authenticate"

    /// The method for the chip `version` describes: EV2First on EV2 (major 12h), EV3 (33h) and later, on
    /// DESFire Light (type 08h) and NTAG 4xx DNA (04h); AuthenticateAES on EV1 (major 01h); nil for
    /// MF3ICD40 (major 00h), which has no AES keys (EV1 datasheet §1 "MF3ICD40 … DES/3DES only").
    public static func forVersion(_ version: DESFireVersion) -> DESFireAuthenticationMethod? {
        if version.hardware.type == DESFireLight.hardwareType || version.hardware.type == NTAG4xxDNA.hardwareType { return .ev2First }
        switch version.hardware.major {
        case 0x00: return nil
        case 0x01: return .aesEV1
        default: return .ev2First
        }
    }

    /// The method for a 3DES key (`cipher`) on the chip `version` describes: AuthenticateISO on EV1 and
    /// later DESFire; the legacy Authenticate on MF3ICD40 (major 00h), which has no 3K3DES; nil on
    /// Light / NTAG 4xx DNA, whose keys are AES only.
    public static func forTripleDES(_ version: DESFireVersion, cipher: DESFireKey.Cipher = .tdes2k) -> DESFireAuthenticationMethod? {
        if version.hardware.type == DESFireLight.hardwareType || version.hardware.type == NTAG4xxDNA.hardwareType { return nil }
        guard version.hardware.major == 0x00 else { return .iso }
        return cipher == .tdes2k ? .legacy : nil
    }

    /// The name facts show.
    public var name: String { rawValue }
}

/// What an authenticated read of a DESFire application needs besides the walk: the keys, the card's
/// UID and version (diversification, method), and where RndA comes from.
struct DESFireAuthenticationContext: Sendable {
    var keys: DESFireKeys
    var version: DESFireVersion
    /// 16 random bytes a call (the reader's RndA).
    var random: @Sendable () -> [UInt8]
    /// For a credential read: the bytes of a data file to read (ReadData's offset and length) instead
    /// of the whole file; nil for a dump.
    var dataRange: Range<Int>? = nil
}

extension DESFireDumper {
    /// 16 bytes from the system's cryptographic random generator (getrandom): a reader's RndA.
    public static func randomChallenge() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}

extension DESFireDumper.Walk {
    /// The second pass over an application whose free files were read: for each protected file the keys
    /// file has a key for (its read right's key number, else its read&write one), authenticate once per
    /// key and read the key's files through the secure session. A refused key is an `auth_failed`
    /// outcome naming the key and its number, its files stay skipped with that reason, and the walk goes
    /// on; a MAC that does not match is an `integrity_error` for that file (its data is dropped) and ends
    /// that key's session. AES keys only; a 3DES key is named as not supported yet.
    func openProtected(_ app: inout DESFireDump.Application, context: DESFireAuthenticationContext, selected: Bool) async throws
        -> [DESFireAuthentication]
    {
        let keys = context.keys.keys(forApplication: app.aid)
        guard !keys.isEmpty else { return [] }
        // Files waiting for a key, grouped by the first key (file order) that opens them.
        var plan: [(key: DESFireKey, files: [Int])] = []
        for (index, file) in app.files.enumerated() where file.content == nil {
            guard let rights = file.settings?.accessRights, !rights.freeRead else { continue }
            let wanted = [rights.read, rights.readWrite].filter { !$0.isFree && !$0.isNever }.map(\.nibble)
            guard let key = wanted.lazy.compactMap({ number in keys.first { $0.keyNumber == number } }).first else { continue }
            if let slot = plan.firstIndex(where: { $0.key == key }) { plan[slot].files.append(index) } else { plan.append((key, [index])) }
        }
        var results: [DESFireAuthentication] = []
        // The open EV2 session a further AES key continues with AuthenticateEV2NonFirst.
        var transaction: DESFireSecureSession?
        for (key, files) in plan {
            try Task.checkCancellation()
            let chosen = key.cipher == .aes ? DESFireAuthenticationMethod.forVersion(context.version)
                : DESFireAuthenticationMethod.forTripleDES(context.version, cipher: key.cipher)
            guard var method = chosen else {
                let reason = "this chip has no authentication for a \(key.cipher.rawValue) key"
                results.append(DESFireAuthentication(application: app.aid, keyNumber: key.keyNumber, keyName: key.name, method: "-",
                                                     outcome: .failed(code: NFCError.Code.unsupported.rawValue, message: reason), filesRead: []))
                continue
            }
            if method == .ev2First, transaction != nil { method = .ev2NonFirst }
            var result = DESFireAuthentication(application: app.aid, keyNumber: key.keyNumber, keyName: key.name, method: method.name,
                                               outcome: .opened, filesRead: [])
            var session: DESFireSecureSession
            do {
                session = try await authenticate(key, application: app.aid, method: method, context: context, transaction: transaction)
                transaction = nil
            } catch let error as NFCError {
                transaction = nil
                guard error == .authenticationFailed || error.desfireStatus != nil || error.errorCode == .invalidResponse else { throw error }
                let message = error == .authenticationFailed
                    ? "application \(app.aid.hexString) key \(key.keyNumber) did not accept key '\(key.name)'" : error.message
                result.outcome = .failed(code: error.code, message: message)
                for index in files { app.files[index].skipReason = "\(error.code): key '\(key.name)' (key \(key.keyNumber)) was not accepted" }
                results.append(result)
                // A failed authentication leaves the application unauthenticated; select it again so the
                // next key starts clean (the ISO-selected Light/424 application stays selected).
                if !selected { _ = try? await send(.selectApplication, app.aid) }
                continue
            }
            for index in files {
                let file = app.files[index]
                guard let settings = file.settings else { continue }
                do {
                    app.files[index].content = try await readSecured(file.id, settings, range: context.dataRange, session: &session)
                    app.files[index].skipReason = nil
                    result.filesRead.append(DESFireDump.key(aid: app.aid, file: file.id))
                } catch let error as NFCError {
                    let reason = switch error.errorCode {
                    case .integrityError: "integrity_error: \(error.message)"
                    case .unsupported: error.message
                    default: DESFireDumper.skipReason(error)
                    }
                    guard let reason else { throw error }
                    app.files[index].skipReason = reason
                    // The session's IV or counter no longer matches the card's: the key's other files wait.
                    if error.errorCode == .integrityError { break }
                }
            }
            // A session whose every answer checked goes on for the next AES key (AuthenticateEV2NonFirst).
            if case .ev2 = session.kind, !app.files.contains(where: { $0.skipReason?.hasPrefix("integrity_error") == true }) {
                transaction = session
            }
            results.append(result)
        }
        return results
    }

    /// Authenticates with `key` (diversified for this card and application when the file says so).
    func authenticate(_ key: DESFireKey, application: [UInt8], method: DESFireAuthenticationMethod,
                      context: DESFireAuthenticationContext, transaction: DESFireSecureSession? = nil) async throws -> DESFireSecureSession {
        var bytes = key.key.revealed
        if let diversification = key.diversification {
            bytes = try DESFireKeyDiversification.aes128(
                masterKey: bytes,
                input: DESFireKeyDiversification.input(uid: context.version.uid, aid: application,
                                                       systemIdentifier: diversification.systemIdentifier))
        }
        switch method {
        case .aesEV1:
            return try await DESFireEV1Authentication.authenticate(keyNumber: key.keyNumber, key: bytes, rndA: context.random(),
                                                                   channel: channel)
        case .iso:
            return try await DESFireISOAuthentication.authenticate(keyNumber: key.keyNumber, key: bytes, rndA: context.random(),
                                                                   channel: channel)
        case .legacy:
            return try await DESFireLegacyAuthentication.authenticate(keyNumber: key.keyNumber, key: bytes, rndA: context.random(),
                                                                      channel: channel)
        case .ev2First:
            return .ev2(try await DESFireEV2Authentication.authenticate(keyNumber: key.keyNumber, key: bytes, rndA: context.random(),
                                                                         transport: channel.transport))
        case .ev2NonFirst:
            guard let transaction, case let .ev2(_, _, ti, _) = transaction.kind else {
                return .ev2(try await DESFireEV2Authentication.authenticate(keyNumber: key.keyNumber, key: bytes, rndA: context.random(),
                                                                             transport: channel.transport))
            }
            let next = try await DESFireEV2Authentication.authenticateNonFirst(
                keyNumber: key.keyNumber, key: bytes, rndA: context.random(), transactionIdentifier: ti, transport: channel.transport)
            return transaction.continued(with: next) ?? .ev2(next)
        }
    }

    /// Reads file `id` through `session` in the file's communication mode, with the product's command;
    /// of a data file only `range` when given (ReadData's 3-byte offset and length, LSB first, EV1
    /// datasheet §9.2.3), a range past the file's end being a BOUNDARY_ERROR the card is not asked for.
    func readSecured(_ id: UInt8, _ settings: DESFireFileSettings, range: Range<Int>? = nil,
                     session: inout DESFireSecureSession) async throws -> DESFireDump.Content {
        let operation = Self.readOperation(settings)
        guard let code = set.code(operation) else { throw NFCError.unsupportedOperation("\(set.name) has no \(operation.rawValue) command") }
        let mode = settings.communicationMode
        func exchange(_ header: [UInt8], length: Int) async throws -> [UInt8] {
            let wire = try session.command(code, header: header, mode: mode)
            let data = try session.response(try await channel.command(code, wire), mode: mode, expectedLength: length)
            guard data.count == length else { throw NFCError.invalidResponse(Array(data.prefix(16))) }
            return data
        }
        switch settings.details {
        case let .data(size):
            guard let range else { return .data(try await exchange([id] + DESFireDumper.wholeFile, length: size)) }
            guard range.lowerBound >= 0, range.upperBound <= size, !range.isEmpty else { throw NFCError.desfireError(status: DESFireStatus.boundaryError.rawValue) }
            return .data(try await exchange([id] + DESFireDumper.littleEndian24(range.lowerBound) + DESFireDumper.littleEndian24(range.count),
                                            length: range.count))
        case .value:
            let bytes = try await exchange([id], length: 4)
            return .value(Int32(bitPattern: UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24))
        case let .records(recordSize, _, current):
            guard current > 0 else { return .records([]) }
            guard recordSize > 0 else { throw NFCError.invalidResponse(settings.raw) }
            let bytes = try await exchange([id] + DESFireDumper.wholeFile, length: recordSize * current)
            return .records(stride(from: 0, to: bytes.count, by: recordSize).map { Array(bytes[$0..<$0 + recordSize]) })
        case .transactionMAC:
            throw NFCError.unsupportedOperation("a transaction MAC file is not read with a key")
        }
    }
}

/// One file of a DESFire application, read with the keys that open it: what a credential rule
/// (`access.credential` of kind `desfire`) needs, without the whole dump.
public struct DESFireFileRead: Sendable, Hashable {
    /// The file's content; nil when it could not be read (``skipReason`` says why).
    public var content: DESFireDump.Content?
    /// Why it was not read, or nil.
    public var skipReason: String?
    /// What each key tried did (names, never keys).
    public var authentications: [DESFireAuthentication]
    /// Whether the card proved ``content`` with a key: it came through a secure session a key of the
    /// keys file opened, in MAC or full communication mode, its MAC checked. False for a free file read
    /// in plain, and for a file the card calls plain: a plain answer carries no MAC, so a clone or a
    /// relay can put any bytes in it (the mode is the card's own GetFileSettings answer).
    public var isProven = false
    /// Whether the keys file has a key for the application read (a Light's or NTAG 4xx DNA's by its DF name).
    public var hasKeys = false

    /// Whether a secured answer for the file failed its MAC (or CRC) check: its data was dropped.
    public var failedIntegrity: Bool { skipReason?.hasPrefix(NFCError.Code.integrityError.rawValue + ":") == true }
}

extension DESFireDumper {
    /// Selects application `aid` (card order; SelectApplication, or a Light or NTAG 4xx DNA by ISO
    /// SELECT of its DF name, whatever `aid`), reads file `file`'s settings and the file: free, or with
    /// the first key of `keys` its read (else read&write) right names. With `range`, only those bytes
    /// of a data file: a protected one asks the card for just them (ReadData offset and length), a free
    /// one is cut from the whole file; a range past the file's end is a skip. Refusals are in the
    /// result; transport errors and cancellation are thrown.
    public static func readFile(transport: any APDUTransport, version: DESFireVersion, application aid: [UInt8], file id: UInt8,
                                keys: DESFireKeys, range: Range<Int>? = nil,
                                random: @escaping @Sendable () -> [UInt8] = DESFireDumper.randomChallenge) async throws -> DESFireFileRead {
        let framing = transport.carriesNativeDESFireFrames ? DESFireFraming.framing(for: version) : .wrapped
        let walk = Walk(channel: DESFireChannel(transport: transport, framing: framing), set: .forVersion(version), memory: version.storageBytes)
        var app = DESFireDump.Application(aid: aid, files: [], skipReason: nil, keySettings: nil, keyVersions: nil)
        let selected: Bool
        if case let .isoSelect(dfNames) = walk.set.entry {
            guard case let .selected(dfName) = try await DESFireLight.select(dfNames, transport: transport) else {
                return DESFireFileRead(content: nil, skipReason: "the application could not be selected", authentications: [])
            }
            app.aid = dfName
            selected = true
        } else {
            do {
                _ = try await walk.send(.selectApplication, aid)
            } catch let error as NFCError {
                guard let reason = skipReason(error) else { throw error }
                return DESFireFileRead(content: nil, skipReason: reason, authentications: [])
            }
            selected = false
        }
        guard var file = try await walk.file(id, probing: false) else {
            return DESFireFileRead(content: nil, skipReason: "file not found", authentications: [])
        }
        if let range, case let .data(bytes)? = file.content {
            // A free file was read whole: keep the range.
            if range.lowerBound >= 0, range.upperBound <= bytes.count {
                file.content = .data(Array(bytes[range]))
            } else {
                file.content = nil
                file.skipReason = "the file holds \(bytes.count) bytes, fewer than the range \(range.lowerBound)..<\(range.upperBound) needs"
            }
        }
        app.files = [file]
        let context = DESFireAuthenticationContext(keys: keys, version: version, random: random, dataRange: range)
        let authentications = try await walk.openProtected(&app, context: context, selected: selected)
        let read = app.files.first
        var result = DESFireFileRead(content: read?.content, skipReason: read?.skipReason, authentications: authentications)
        let name = DESFireDump.key(aid: app.aid, file: id)
        result.hasKeys = !keys.keys(forApplication: app.aid).isEmpty
        result.isProven = read?.content != nil && [.mac, .full].contains(read?.settings?.communicationMode)
            && authentications.contains { $0.outcome == .opened && $0.filesRead.contains(name) }
        return result
    }

    /// A 3-byte little-endian field (ReadData's offset and length, EV1 datasheet §9.2.3); the callers
    /// keep values within 0...FFFFFFh.
    public static func littleEndian24(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16)]
    }
}
