import NFCCore
import PN532Sim
import Testing

/// DESFire dump core against the virtual DESFire card (PN532Sim, its own tables).
@Suite struct DESFireDumpTests {
    typealias V = VirtualDESFireTag
    static let uid: [UInt8] = [0x04, 0x52, 0x61, 0x7A, 0x3B, 0x40, 0x80]
    static let free = V.free
    static let never = V.never

    /// 100 bytes: past one 59-byte frame, so ReadData needs AF chaining.
    static let longData: [UInt8] = (0..<100).map { UInt8($0) }
    static let macData: [UInt8] = (0..<32).map { UInt8(0xA0 &+ $0) }
    static let linearRecords: [[UInt8]] = (0..<3).map { r in (0..<16).map { UInt8(r * 16 + $0) } }
    /// 5 × 20 = 100 bytes: ReadRecords chains too.
    static let cyclicRecords: [[UInt8]] = (0..<5).map { r in [UInt8](repeating: UInt8(0x10 + r), count: 20) }

    /// App 000001 (card order 01 00 00): a free file of every type (plain, MACed, enciphered
    /// communication), an empty cyclic record file, and a key-protected file of every type.
    /// App 000002: directory list needs a key. App 000003: a never-readable file and a chained
    /// cyclic record file.
    static let applications: [V.Application] = [
        V.Application(aid: [0x01, 0x00, 0x00], files: [
            V.File(id: 0x00, read: free, contents: .standard(longData)),
            V.File(id: 0x01, communication: 0x01, read: free, contents: .backup(macData)),
            V.File(id: 0x02, communication: 0x03, read: free,
                   contents: .value(1234, lower: 0, upper: 10000, limitedCredit: 5, limitedCreditEnabled: true)),
            V.File(id: 0x03, read: 0x01, readWrite: free, contents: .linear(recordSize: 16, maxRecords: 10, records: linearRecords)),
            V.File(id: 0x04, read: free, contents: .cyclic(recordSize: 8, maxRecords: 4, records: [])),
            V.File(id: 0x05, read: 0x01, readWrite: 0x01, contents: .standard([1, 2, 3])),
            V.File(id: 0x06, communication: 0x01, read: 0x02, readWrite: 0x02, contents: .value(-7, lower: -100, upper: 100)),
            V.File(id: 0x07, read: 0x03, readWrite: 0x03, contents: .cyclic(recordSize: 4, maxRecords: 3, records: [[1, 2, 3, 4]])),
            V.File(id: 0x08, communication: 0x03, read: 0x00, readWrite: 0x00, contents: .backup([9, 9])),
            V.File(id: 0x09, read: 0x01, readWrite: 0x01, contents: .linear(recordSize: 2, maxRecords: 2, records: [[5, 5]])),
        ]),
        V.Application(aid: [0x02, 0x00, 0x00], listRequiresAuthentication: true, files: [
            V.File(id: 0x00, read: free, contents: .standard([0xFF])),
        ]),
        V.Application(aid: [0x03, 0x00, 0x00], files: [
            V.File(id: 0x01, read: never, write: never, readWrite: never, change: never, contents: .standard([0x42])),
            V.File(id: 0x02, read: free, contents: .cyclic(recordSize: 20, maxRecords: 6, records: cyclicRecords)),
        ]),
    ]

    /// A card of `model` with ``applications``; a DESFire Light or an NTAG 424 DNA (one application,
    /// no directory) holds only the first, which has a file of every type.
    static func card(_ model: V.Model, directoryRequiresAuthentication: Bool = false) throws -> (V, VirtualTagTransport) {
        let single = model == .light || model == .ntag424
        let tag = try V(uid: uid, model: model, applications: single ? [applications[0]] : applications,
                        directoryRequiresAuthentication: directoryRequiresAuthentication)
        return (tag, VirtualTagTransport(tag: tag))
    }

    // MARK: Framing

    @Test(arguments: [
        (V.Model.ev1, DESFireFraming.native, "MIFARE DESFire EV1 4K"),
        (.ev2, .native, "MIFARE DESFire EV2 8K"),
        (.ev3, .native, "MIFARE DESFire EV3 8K"),
        (.light, .wrapped, "MIFARE DESFire Light"),
        (.ntag424, .wrapped, "NTAG 424 DNA"),
    ])
    func framingComesFromTheHardwareType(model: V.Model, framing: DESFireFraming, product: String) async throws {
        let (_, transport) = try Self.card(model)
        let version = try await DESFireVersion.read(transport: transport)
        #expect(DESFireFraming.framing(for: version) == framing)
        // GetVersion typing is unchanged: majors 01/12/33, Light by type 08, 424 DNA by type 04.
        #expect(version.product?.name.hasPrefix(product) == true)
        // One GetVersion, three frames, no trial of the other framing.
        #expect(transport.sentCommands == [[0x90, 0x60, 0x00, 0x00, 0x00], [0x90, 0xAF, 0x00, 0x00, 0x00], [0x90, 0xAF, 0x00, 0x00, 0x00]])
    }

    @Test func unknownHardwareTypesGetWrappedFrames() throws {
        var bytes = [UInt8](repeating: 0, count: 28)
        bytes[1] = 0x02 // MIFARE Plus
        #expect(DESFireFraming.framing(for: try DESFireVersion(bytes: bytes)) == .wrapped)
        bytes[1] = 0x81
        #expect(DESFireFraming.framing(for: try DESFireVersion(bytes: bytes)) == .native)
    }

    @Test func lightAndNTAG424RefuseNativeFrames() async throws {
        for model in [V.Model.light, .ntag424] {
            let (tag, _) = try Self.card(model)
            #expect(tag.process(apdu: [0x60]) == [0x6E, 0x00])
        }
        let (ev1, _) = try Self.card(.ev1)
        #expect(ev1.process(apdu: [0x60]).first == 0xAF)
    }

    // MARK: The dump of each version

    /// Every model with a directory (DESFire Light and NTAG 424 DNA have none:
    /// ``lightIsSelectedByDFNameAndWalked()``, ``DESFireCommandSetTests``).
    @Test(arguments: [V.Model.ev1, .ev2, .ev3])
    func dumpReadsEveryFreeFileAndSkipsTheRest(model: V.Model) async throws {
        let (_, transport) = try Self.card(model)
        let dump = try await DESFireDumper.dump(transport: transport)
        let expectedFraming: DESFireFraming = .native
        #expect(dump.framing == expectedFraming)
        #expect(dump.applications.map(\.aidHex) == ["010000", "020000", "030000"])

        let files = dump.files
        #expect(files["010000/00"] == .data(Self.longData))
        #expect(files["010000/01"] == .data(Self.macData)) // MACed but free: read plain
        #expect(files["010000/02"] == .value(1234)) // enciphered but free
        #expect(files["010000/03"] == .records(Self.linearRecords)) // read&write right free
        #expect(files["010000/04"] == .records([])) // empty record file: not an error
        #expect(files["030000/02"] == .records(Self.cyclicRecords))
        #expect(files.count == 6)

        #expect(dump.skipped == ["010000/05", "010000/06", "010000/07", "010000/08", "010000/09", "020000", "030000/01"])
        #expect(dump.skippedApplicationCount == 1)
        #expect(dump.skippedFileCount == 6)
        #expect(dump.partiallyReadable)
        #expect(dump.capabilities == [.readable, .authenticationRequired, .partiallyReadable])
        #expect(dump.applications[1].skipReason == "AUTHENTICATION_ERROR (91AE)")
        #expect(dump.applications[0].files[5].skipReason == "read needs key 1, read&write needs key 1")
        #expect(dump.applications[2].files[0].skipReason == "read needs never, read&write needs never")

        #expect(dump.piccKeySettings?.freeDirectoryList == true)
        #expect(dump.applications[0].keySettings?.keyType == "AES")
        #expect(dump.applications[0].keySettings?.keyCount == 2)
        #expect(dump.applications[1].keySettings?.freeDirectoryList == false)
        #expect(dump.piccKeyVersions == [0x00])
        #expect(dump.applications[0].keyVersions == [0x10, 0x11])

        let facts = Dictionary(dump.facts.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(facts["Applications"] == "3")
        #expect(facts["Files Read"] == "6")
        #expect(facts["PICC Key Settings"] == "1 DES/2K3DES key, free directory list, free create/delete, master key changeable")
        #expect(facts["Application 010000"] == "10 files; 2 AES keys, free directory list, master key changeable")
        #expect(facts["Skipped Applications"] == "1")
        #expect(facts["Skipped Files"] == "6")
        #expect(facts["Application 020000"] == "Skipped: AUTHENTICATION_ERROR (91AE)")
        #expect(facts["File 010000/02"]
            == "Value, Fully Enciphered, limits 0…10000, limited credit 5 (enabled), read free / write key 0 / read&write key 0 / change key 0; value 1234")
        #expect(facts["File 010000/04"]
            == "Cyclic Record, Plain, 0 of 4 records of 8 bytes, read free / write key 0 / read&write key 0 / change key 0")
        #expect(facts["File 010000/01"]?.hasPrefix("Backup Data, MACed, 32 bytes") == true)
        #expect(facts["File 010000/06"]?.hasSuffix("; skipped: read needs key 2, read&write needs key 2") == true)

        // After the three GetVersion frames every command uses the chosen framing.
        let after = transport.sentCommands.dropFirst(3)
        #expect(after.allSatisfy { ($0.first == 0x90) == (expectedFraming == .wrapped) })
        // The empty record file and the protected files were never read.
        let readCommands: Set<UInt8> = [0xBD, 0x6C, 0xBB]
        let reads = after.compactMap { command -> [UInt8]? in
            let (ins, data) = expectedFraming == .native ? (command[0], Array(command.dropFirst())) : (command[1], Array(command.dropFirst(5)))
            return readCommands.contains(ins) ? [ins, data.first ?? 0xFF] : nil
        }
        #expect(reads == [[0xBD, 0x00], [0xBD, 0x01], [0x6C, 0x02], [0xBB, 0x03], [0xBB, 0x02]])
    }

    /// DESFire Light: no SelectApplication, no GetApplicationIDs (the card answers 911C to both), so
    /// the hardware type 08h sends ISO SELECT by the factory DF name first, then walks the one
    /// application with wrapped frames. The same assertions as the directory walk, keyed by DF name.
    @Test func lightIsSelectedByDFNameAndWalked() async throws {
        let (tag, transport) = try Self.card(.light)
        #expect(tag.process(apdu: [0x90, 0x5A, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00]) == [0x91, 0x1C])
        #expect(tag.process(apdu: [0x90, 0x6A, 0x00, 0x00, 0x00]) == [0x91, 0x1C])
        let dump = try await DESFireDumper.dump(transport: transport)
        #expect(dump.framing == .wrapped)
        #expect(dump.isLight)
        let name = V.lightDFName.hexString
        #expect(name == "A00000039656434103F015400000000B")
        #expect(dump.applications.map(\.aidHex) == [name])
        let files = dump.files
        #expect(files[name + "/00"] == .data(Self.longData))
        #expect(files[name + "/01"] == .data(Self.macData)) // MACed but free: read plain
        #expect(files[name + "/02"] == .value(1234)) // enciphered but free
        #expect(files[name + "/03"] == .records(Self.linearRecords))
        #expect(files[name + "/04"] == .records([])) // empty record file: not an error
        #expect(files.count == 5)
        #expect(dump.skipped == ["05", "06", "07", "08", "09"].map { name + "/" + $0 })
        #expect(dump.skippedFileCount == 5 && dump.skippedApplicationCount == 0)
        #expect(dump.partiallyReadable)
        #expect(dump.capabilities == [.readable, .authenticationRequired, .partiallyReadable])
        // GetVersion ×3, then ISO SELECT by DF name, then only wrapped DESFire frames; no native frame,
        // no SelectApplication, no GetApplicationIDs.
        let sent = transport.sentCommands
        #expect(sent[3] == [0x00, 0xA4, 0x04, 0x0C, 0x10] + V.lightDFName + [0x00])
        #expect(sent.dropFirst(4).allSatisfy { $0.first == 0x90 })
        #expect(!sent.contains { $0.count > 1 && ($0[1] == 0x5A || $0[1] == 0x6A) })
    }

    /// A Light whose DF name no longer answers: the dump names the refusals, it does not fail.
    @Test func lightWithoutItsApplicationIsAnApplicationSkip() async throws {
        let transport = ScriptedAPDUTransport([
            ("9060000000", .bytes("0408013000130591AF")),
            ("90AF000000", .bytes("0408013000130591AF")),
            ("90AF000000", .bytes("04526172A3408000112233441021" + "9100")),
            ("00A4040C10A00000039656434103F015400000000B00", .bytes("6A82")),
            ("00A4040C07D276000085010100", .bytes("6A82")),
        ])
        let dump = try await DESFireDumper.dump(transport: transport)
        #expect(dump.isLight && dump.applications.isEmpty && dump.partiallyReadable)
        #expect(dump.directorySkipReason == "SELECT A00000039656434103F015400000000B: 6A82, SELECT D2760000850101: 6A82")
        #expect(dump.facts.contains { $0.key == "Application Directory" && $0.value.hasPrefix("Application not selected: ") })
        transport.verifyAllConsumed()
    }

    @Test func longAnswersAreChainedWithAdditionalFrame() async throws {
        let (_, transport) = try Self.card(.ev1)
        let channel = DESFireChannel(transport: transport, framing: .native)
        _ = try await channel.command(0x5A, [0x01, 0x00, 0x00])
        let data = try await channel.command(0xBD, [0x00, 0, 0, 0, 0, 0, 0])
        #expect(data == Self.longData)
        // 100 bytes = 59 + 41: one AF.
        #expect(transport.sentCommands.suffix(2) == [[0xBD, 0x00, 0, 0, 0, 0, 0, 0], [0xAF]])
        let wrapped = DESFireChannel(transport: transport, framing: .wrapped)
        #expect(try await wrapped.command(0xBD, [0x00, 10, 0, 0, 60, 0, 0]) == Array(Self.longData[10..<70]))
        #expect(transport.sentCommands.last == [0x90, 0xAF, 0x00, 0x00, 0x00])
    }

    @Test func applicationDirectoryPast19AIDsIsChained() async throws {
        let apps = (1...25).map { V.Application(aid: [UInt8($0), 0x00, 0x00], files: []) }
        let tag = try V(uid: Self.uid, model: .ev2, applications: apps)
        let transport = VirtualTagTransport(tag: tag)
        let dump = try await DESFireDumper.dump(transport: transport)
        #expect(dump.applications.map(\.aid) == apps.map(\.aid))
        #expect(!dump.partiallyReadable)
        #expect(dump.capabilities == [.readable])
        #expect(transport.sentCommands.contains([0xAF]))
    }

    @Test func protectedDirectoryIsSkippedAndNamed() async throws {
        let (_, transport) = try Self.card(.ev3, directoryRequiresAuthentication: true)
        let dump = try await DESFireDumper.dump(transport: transport)
        #expect(dump.applications.isEmpty)
        #expect(dump.directorySkipReason == "AUTHENTICATION_ERROR (91AE)")
        #expect(dump.skipped == ["PICC"])
        #expect(dump.piccKeySettings?.freeDirectoryList == false)
        #expect(dump.piccKeySettings?.summary.contains("directory list needs a key") == true)
        #expect(dump.partiallyReadable)
        #expect(dump.facts.contains(Fact(key: "Application Directory", value: "Not listed: AUTHENTICATION_ERROR (91AE)")))
    }

    /// A chip that refuses SelectApplication of the PICC level (ILLEGAL_COMMAND_CODE) gives a dump
    /// with the directory skipped, not an error. (An NTAG 424 DNA is never sent 5Ah: its command set
    /// has no SelectApplication, NT4H2421Gx §10.2 Table 22; this is an unknown hardware type 05h,
    /// which gets the DESFire set.)
    @Test func aChipWithoutTheDirectoryCommandsIsADirectorySkip() async throws {
        let transport = ScriptedAPDUTransport([
            ("9060000000", .bytes("0405023000110591AF")),
            ("90AF000000", .bytes("0405020102110591AF")),
            ("90AF000000", .bytes("04526172A3408000112233441021" + "9100")),
            ("905A00000300000000", .bytes("911C")),
        ])
        let dump = try await DESFireDumper.dump(transport: transport)
        #expect(dump.framing == .wrapped)
        #expect(dump.version.product == nil)
        #expect(dump.directorySkipReason == "ILLEGAL_COMMAND_CODE (911C)")
        #expect(dump.applications.isEmpty && dump.partiallyReadable)
        transport.verifyAllConsumed()
    }

    @Test func cancellationStopsBetweenApplications() async throws {
        let (_, transport) = try Self.card(.ev1)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await DESFireDumper.dump(transport: transport)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        // GetVersion, the PICC select and the directory were asked; no application was entered.
        #expect(!transport.sentCommands.contains([0x6F]))
        #expect(!transport.sentCommands.contains([0x5A, 0x01, 0x00, 0x00]))
    }

    @Test func tagRemovedMidDumpIsAnError() async throws {
        let (_, transport) = try Self.card(.ev1)
        transport.remove(afterCommands: 12)
        await #expect(throws: NFCError.tagRemoved) { try await DESFireDumper.dump(transport: transport) }
    }

    // MARK: Status codes

    /// Each status the issue names, provoked on the virtual card in both framings.
    @Test(arguments: [DESFireFraming.native, .wrapped])
    func statusCodesBecomeNamedErrors(framing: DESFireFraming) async throws {
        let (_, transport) = try Self.card(.ev1)
        let channel = DESFireChannel(transport: transport, framing: framing)
        func status(_ ins: UInt8, _ data: [UInt8] = []) async -> DESFireStatus? {
            do {
                _ = try await channel.command(ins, data)
                return .ok
            } catch let error as NFCError {
                #expect(error.code == "desfire_error")
                return error.desfireStatus
            } catch {
                return nil
            }
        }
        #expect(await status(0x5A, [0x09, 0x09, 0x09]) == .applicationNotFound)
        #expect(await status(0x5A, [0x01, 0x00]) == .lengthError)
        #expect(await status(0x12) == .illegalCommand)
        #expect(await status(0xAF) == .illegalCommand) // nothing pending
        #expect(await status(0x5A, [0x01, 0x00, 0x00]) == .ok)
        #expect(await status(0xF5, [0x33]) == .fileNotFound)
        #expect(await status(0xBD, [0x05, 0, 0, 0, 0, 0, 0]) == .authenticationError)
        #expect(await status(0xBB, [0x04, 0, 0, 0, 0, 0, 0]) == .boundaryError) // empty record file
        #expect(await status(0xBD, [0x00, 99, 0, 0, 2, 0, 0]) == .boundaryError)
        #expect(await status(0x6A) == .permissionDenied) // not at PICC level
        #expect(await status(0x64, [0x05]) == DESFireStatus(0x40)) // NO_SUCH_KEY
        #expect(await status(0x5A, [0x03, 0x00, 0x00]) == .ok)
        #expect(await status(0xBD, [0x01, 0, 0, 0, 0, 0, 0]) == .permissionDenied) // rights "never"
        #expect(await status(0x5A, [0x02, 0x00, 0x00]) == .ok)
        #expect(await status(0x6F) == .authenticationError)
    }

    @Test func statusTableNamesEveryDatasheetCode() {
        let expected: [(UInt8, String, String)] = [
            (0x00, "OPERATION_OK", "operation_ok"), (0x0C, "NO_CHANGES", "no_changes"),
            (0x0E, "OUT_OF_EEPROM_ERROR", "out_of_eeprom_error"), (0x1C, "ILLEGAL_COMMAND_CODE", "illegal_command_code"),
            (0x1E, "INTEGRITY_ERROR", "integrity_error"), (0x40, "NO_SUCH_KEY", "no_such_key"),
            (0x7E, "LENGTH_ERROR", "length_error"), (0x9D, "PERMISSION_DENIED", "permission_denied"),
            (0x9E, "PARAMETER_ERROR", "parameter_error"), (0xA0, "APPLICATION_NOT_FOUND", "application_not_found"),
            (0xA1, "APPL_INTEGRITY_ERROR", "application_integrity_error"),
            (0xAE, "AUTHENTICATION_ERROR", "authentication_error"), (0xAF, "ADDITIONAL_FRAME", "additional_frame"),
            (0xBE, "BOUNDARY_ERROR", "boundary_error"), (0xC1, "PICC_INTEGRITY_ERROR", "picc_integrity_error"),
            (0xCA, "COMMAND_ABORTED", "command_aborted"), (0xCD, "PICC_DISABLED_ERROR", "picc_disabled_error"),
            (0xCE, "COUNT_ERROR", "count_error"), (0xDE, "DUPLICATE_ERROR", "duplicate_error"),
            (0xEE, "EEPROM_ERROR", "eeprom_error"), (0xF0, "FILE_NOT_FOUND", "file_not_found"),
            (0xF1, "FILE_INTEGRITY_ERROR", "file_integrity_error"),
        ]
        for (byte, name, code) in expected {
            #expect(DESFireStatus(byte).name == name)
            #expect(DESFireStatus(byte).code == code)
        }
        #expect(DESFireStatus(0x55).name == "STATUS_55")
        #expect(DESFireStatus(0x55).code == "desfire_status_55")
        let error = NFCError.desfireError(status: 0xAE)
        #expect(error.code == "desfire_error")
        #expect(error.message.contains("AUTHENTICATION_ERROR (91AE)"))
        #expect(NFCError.timeout.desfireStatus == nil)
    }

    @Test func wrappedAnswerWithoutSW1_91IsUnexpected() async throws {
        let transport = ScriptedAPDUTransport([("905A000003010000" + "00", .bytes("6A82"))])
        let channel = DESFireChannel(transport: transport, framing: .wrapped)
        await #expect(throws: NFCError.unexpectedStatusWord(0x6A, 0x82)) { try await channel.command(0x5A, [0x01, 0x00, 0x00]) }
    }

    @Test func aCardThatNeverStopsChainingIsStopped() async throws {
        let script = [("BD00000000000000", ScriptedAPDUTransport.Reply.bytes("AF01"))]
            + Array(repeating: ("AF", ScriptedAPDUTransport.Reply.bytes("AF01")), count: DESFireChannel.maxFrames - 1)
        let transport = ScriptedAPDUTransport(script)
        let channel = DESFireChannel(transport: transport, framing: .native)
        await #expect(throws: NFCError.self) { try await channel.command(0xBD, [0, 0, 0, 0, 0, 0, 0]) }
        #expect(transport.sentAPDUs.count == DESFireChannel.maxFrames)
    }

    // MARK: File settings

    /// AN11004 (MIFARE DESFire as Type 4 Tag) creates the CC file as CreateStdDataFile
    /// `CD 01 E1 03 00 E0 EE 0F 00 00`: comm 00, rights E0 EE (read, write, read&write free; change
    /// key 0), 15 bytes. GetFileSettings answers type 00 and the same fields.
    @Test func standardFileSettingsFromAN11004() throws {
        let s = try DESFireFileSettings(bytes: [0x00, 0x00, 0xE0, 0xEE, 0x0F, 0x00, 0x00])
        #expect(s.fileType == .standardData)
        #expect(s.communicationMode == .plain)
        #expect(s.accessRights.read.isFree && s.accessRights.write.isFree && s.accessRights.readWrite.isFree)
        #expect(s.accessRights.change.nibble == 0)
        #expect(s.accessRights.bytes == [0xE0, 0xEE])
        #expect(s.details == .data(size: 15))
        #expect(s.accessRights.freeRead)
    }

    /// A published Proxmark3 `hf mfdes dump --no-auth` transcript shows file 00 "Backup data, MAC,
    /// 29 bytes, access rights e11f (r: free w: key 1 rw: key 1 change: disabled)" and file 01
    /// "Linear Record, MAC, 0 of 10 records of 1 byte, e31f": the 16-bit value Read|Write|RW|Change,
    /// sent LSB first as 1F E1 (EV1 datasheet §9.2.5).
    @Test func settingsMatchAProxmarkTranscript() throws {
        let backup = try DESFireFileSettings(bytes: [0x01, 0x01, 0x1F, 0xE1, 0x1D, 0x00, 0x00])
        #expect(backup.fileType == .backupData && backup.communicationMode == .mac)
        #expect(backup.details == .data(size: 29))
        #expect(backup.accessRights.read.isFree && backup.accessRights.freeRead)
        #expect(backup.accessRights.write.nibble == 1 && backup.accessRights.readWrite.nibble == 1)
        #expect(backup.accessRights.change.isNever)
        let record = try DESFireFileSettings(bytes: [0x03, 0x01, 0x1F, 0xE3, 0x01, 0, 0, 0x0A, 0, 0, 0x00, 0, 0])
        #expect(record.details == .records(recordSize: 1, maxRecords: 10, currentRecords: 0))
        #expect(record.accessRights.write.nibble == 3 && record.accessRights.freeRead)
        #expect(record.summary == "Linear Record, MACed, 0 of 10 records of 1 bytes, read free / write key 3 / read&write key 1 / change never")
    }

    @Test func keySettingsDecode() throws {
        let keys = try DESFireKeySettings(bytes: [0x0B, 0x82])
        #expect(keys.masterKeyChangeable && keys.freeDirectoryList && !keys.freeCreateDelete && keys.configurationChangeable)
        #expect(keys.keyCount == 2 && keys.keyType == "AES" && keys.changeKeyID == 0)
        #expect(throws: NFCError.invalidResponse([0x0B])) { try DESFireKeySettings(bytes: [0x0B]) }
    }

    @Test func valueAndRecordSettingsDecode() throws {
        let value = try DESFireFileSettings(bytes: [0x02, 0x01, 0x10, 0x23, 0x9C, 0xFF, 0xFF, 0xFF,
                                                    0x10, 0x27, 0, 0, 0x05, 0, 0, 0, 0x01])
        #expect(value.fileType == .value)
        #expect(value.communicationMode == .mac)
        #expect(value.details == .value(lowerLimit: -100, upperLimit: 10000, limitedCreditValue: 5, limitedCreditEnabled: true))
        #expect(value.accessRights.read.nibble == 2 && value.accessRights.write.nibble == 3)
        #expect(value.accessRights.readWrite.nibble == 1 && value.accessRights.change.nibble == 0)
        #expect(!value.accessRights.freeRead)
        // An EV2 file with bit 7 (additional access rights) and trailing bytes still decodes.
        let record = try DESFireFileSettings(bytes: [0x04, 0x83, 0x0E, 0xF1, 0x10, 0, 0, 0x08, 0, 0, 0x02, 0, 0, 0x01, 0x12, 0x34])
        #expect(record.fileType == .cyclicRecord)
        #expect(record.communicationMode == .full)
        #expect(record.details == .records(recordSize: 16, maxRecords: 8, currentRecords: 2))
        #expect(record.accessRights.readWrite.nibble == 0 && record.accessRights.change.isFree)
        #expect(record.accessRights.read.isNever && !record.accessRights.freeRead)
    }

    // 06h: a type the table does not know (05h is the Transaction MAC file, too short at 4 bytes).
    @Test(arguments: [[UInt8](), [0x00, 0x00, 0xE0], [0x06, 0x00, 0xE0, 0xEE, 0, 0, 0], [0x05, 0x00, 0xE0, 0xEE], [0x00, 0x00, 0xE0, 0xEE, 0x0F],
                      [0x02, 0x00, 0xE0, 0xEE, 0, 0, 0, 0], [0x03, 0x00, 0xE0, 0xEE, 1, 0, 0, 1, 0, 0]])
    func malformedSettingsAreInvalidResponses(bytes: [UInt8]) {
        #expect(throws: NFCError.invalidResponse(bytes)) { try DESFireFileSettings(bytes: bytes) }
    }
}
