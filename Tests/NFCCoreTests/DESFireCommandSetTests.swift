import NFCCore
import PN532Sim
import Testing

/// What NFCCore sends per product (``DESFireCommandSet``): the table itself, a DESFire Light dumped
/// with its own ReadData ADh / ReadRecords ABh, and an NTAG 424 DNA dumped through ISO SELECT of its
/// DF name and its fixed files. The Light and 424 cards are the simulator's, which refuses a code
/// outside the product's datasheet set (91 1C), and a scripted Light that is not the simulator.
@Suite struct DESFireCommandSetTests {
    typealias V = VirtualDESFireTag
    static let uid: [UInt8] = [0x04, 0x52, 0x61, 0x7A, 0x3B, 0x40, 0x80]

    // MARK: The table

    @Test func theHardwareTypeChoosesTheSet() {
        #expect(DESFireCommandSet.forHardwareType(0x01) == .desfire)
        #expect(DESFireCommandSet.forHardwareType(0x81) == .desfire)
        #expect(DESFireCommandSet.forHardwareType(0x08) == .light)
        #expect(DESFireCommandSet.forHardwareType(0x04) == .ntag4xxDNA)
        #expect(DESFireCommandSet.forHardwareType(0x02) == .desfire, "an unknown type gets the codes every DESFire takes")
    }

    /// EV1 datasheet MF3ICD(Q)81 §9: ReadData BDh, ReadRecords BBh, the directory commands.
    @Test func desfireSendsTheEV1Codes() {
        let set = DESFireCommandSet.desfire
        #expect(set.entry == .directory)
        #expect(set.code(.readData) == 0xBD && set.code(.readRecords) == 0xBB)
        #expect(set.code(.selectApplication) == 0x5A && set.code(.getApplicationIDs) == 0x6A)
        #expect(set.code(.getKeySettings) == 0x45 && set.code(.getFileIDs) == 0x6F)
        #expect(DESFireCommandSet.Operation.allCases.allSatisfy { set.code($0) != nil })
    }

    /// MF2DL(H)x0 command set: ReadData ADh, ReadRecords ABh; no directory, no SelectApplication.
    @Test func lightSendsItsOwnCodes() {
        let set = DESFireCommandSet.light
        #expect(set.code(.readData) == 0xAD && set.code(.readRecords) == 0xAB)
        #expect(set.code(.selectApplication) == nil && set.code(.getApplicationIDs) == nil && set.code(.getKeySettings) == nil)
        #expect(set.code(.getFileIDs) == 0x6F && set.code(.getFileSettings) == 0xF5 && set.code(.getValue) == 0x6C)
        #expect(set.entry == .isoSelect(dfNames: DESFireLight.dfNames))
        #expect(set.fixedFiles == [0x00, 0x01, 0x03, 0x04, 0x0F, 0x1F])
    }

    /// NT4H2421Gx §10.2 Table 22: ReadData ADh, GetFileSettings F5h, GetKeyVersion 64h, GetVersion;
    /// no GetFileIDs, so the files 01h, 02h, 03h (§8.2.2) are probed.
    @Test func ntag424SendsTable22() {
        let set = DESFireCommandSet.ntag4xxDNA
        #expect(set.code(.readData) == 0xAD && set.code(.getFileSettings) == 0xF5 && set.code(.getKeyVersion) == 0x64)
        for missing: DESFireCommandSet.Operation in [.getFileIDs, .selectApplication, .getApplicationIDs, .getKeySettings,
                                                     .getValue, .readRecords] {
            #expect(set.code(missing) == nil, "\(missing)")
        }
        #expect(set.entry == .isoSelect(dfNames: [[0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]]))
        #expect(set.fixedFiles == [0x01, 0x02, 0x03] && set.fixedKeyCount == 5)
    }

    // MARK: DESFire Light

    /// A Light laid out as delivered (MF2DL(H)x0 §8.2: 00h and 04h standard, 01h cyclic record, 03h
    /// value, 1Fh standard 32 bytes), 04h behind key 1.
    static func light() throws -> (V, VirtualTagTransport) {
        let records: [[UInt8]] = (0..<2).map { r in [UInt8](repeating: UInt8(0x30 + r), count: 16) }
        let app = V.Application(aid: [0x01, 0x00, 0x00], files: [
            V.File(id: 0x00, read: V.free, contents: .standard((0..<256).map { UInt8(truncatingIfNeeded: $0) })),
            V.File(id: 0x01, read: V.free, contents: .cyclic(recordSize: 16, maxRecords: 5, records: records)),
            V.File(id: 0x03, read: V.free, contents: .value(100, lower: 0, upper: 1000)),
            V.File(id: 0x04, read: 0x01, readWrite: 0x01, contents: .standard([UInt8](repeating: 0x44, count: 256))),
            V.File(id: 0x1F, read: V.free, contents: .standard([UInt8](repeating: 0x1F, count: 32))),
        ])
        let tag = try V(uid: uid, model: .light, applications: [app])
        return (tag, VirtualTagTransport(tag: tag))
    }

    /// The virtual Light refuses the EV1 codes as a real one does (91 1C): ReadData BDh, ReadRecords
    /// BBh, GetKeySettings 45h. On main the simulator accepted BDh, and so did NFCCore send it.
    @Test func theVirtualLightRefusesBDhWith911C() async throws {
        let (tag, _) = try Self.light()
        #expect(tag.process(apdu: [0x00, 0xA4, 0x04, 0x0C, 0x10] + V.lightDFName + [0x00]) == [0x90, 0x00])
        #expect(tag.process(apdu: [0x90, 0xBD, 0x00, 0x00, 0x07, 0x00, 0, 0, 0, 0, 0, 0, 0x00]) == [0x91, 0x1C])
        #expect(tag.process(apdu: [0x90, 0xBB, 0x00, 0x00, 0x07, 0x01, 0, 0, 0, 0, 0, 0, 0x00]) == [0x91, 0x1C])
        #expect(tag.process(apdu: [0x90, 0x45, 0x00, 0x00, 0x00]) == [0x91, 0x1C])
        // Its own code reads the file.
        let answer = tag.process(apdu: [0x90, 0xAD, 0x00, 0x00, 0x07, 0x1F, 0, 0, 0, 0, 0, 0, 0x00])
        #expect(answer == [UInt8](repeating: 0x1F, count: 32) + [0x91, 0x00])
    }

    /// Every free file of a Light that refuses BDh / BBh is read, with ADh / ABh: "Files Read" counts
    /// them (on main it said 1: the value file, GetValue being the one code both sets share).
    @Test func aLightThatRefusesBDhStillHasAllItsFilesRead() async throws {
        let (_, transport) = try Self.light()
        let dump = try await DESFireDumper.dump(transport: transport)
        let name = V.lightDFName.hexString
        #expect(dump.applications.map(\.aidHex) == [name])
        let files = dump.files
        #expect(files[name + "/00"] == .data((0..<256).map { UInt8(truncatingIfNeeded: $0) }))
        #expect(files[name + "/01"] == .records((0..<2).map { r in [UInt8](repeating: UInt8(0x30 + r), count: 16) }))
        #expect(files[name + "/03"] == .value(100))
        #expect(files[name + "/1F"] == .data([UInt8](repeating: 0x1F, count: 32)))
        #expect(dump.facts.contains(Fact(key: "Files Read", value: "4")))
        #expect(dump.skipped == [name + "/04"])
        let sentCodes = Set(transport.sentCommands.compactMap { $0.first == 0x90 ? $0[1] : nil })
        #expect(sentCodes.isSuperset(of: [0xAD, 0xAB, 0x6C, 0xF5, 0x6F]))
        #expect(sentCodes.isDisjoint(with: [0xBD, 0xBB, 0x45, 0x5A, 0x6A]), "\(sentCodes)")
        // Key versions of the five application keys (no GetKeySettings on a Light to count them).
        #expect(dump.applications[0].keyVersions?.count == 5)
    }

    /// "90 INS 00 00 [Lc data] 00" as hex.
    static func wrapped(_ ins: UInt8, _ data: [UInt8] = []) -> String {
        ([0x90, ins, 0x00, 0x00] + (data.isEmpty ? [] : [UInt8(data.count)] + data) + [0x00]).hexString
    }

    /// A Light that is not the simulator, refusing GetFileIDs: the dump probes the Light's fixed file
    /// numbers, leaves out the ones the chip does not have (91 F0) and reads with ADh.
    @Test func aLightRefusingGetFileIDsHasItsFixedFilesProbed() async throws {
        let whole: [UInt8] = [0, 0, 0, 0, 0, 0]
        var script: [(String, ScriptedAPDUTransport.Reply)] = [
            ("9060000000", .bytes("0408013000130591AF")),
            ("90AF000000", .bytes("0408013000130591AF")),
            ("90AF000000", .bytes("04526172A3408000112233441021" + "9100")),
            ("00A4040C10A00000039656434103F015400000000B00", .bytes("9000")),
        ]
        for key in UInt8(0)..<5 { script.append((Self.wrapped(0x64, [key]), .bytes("009100"))) }
        script += [
            (Self.wrapped(0x6F), .bytes("911C")),
            (Self.wrapped(0xF5, [0x00]), .bytes("0000E0EE040000" + "9100")), // standard, 4 bytes, read free
            (Self.wrapped(0xAD, [0x00] + whole), .bytes("01020304" + "9100")),
            (Self.wrapped(0xF5, [0x01]), .bytes("91F0")),
            (Self.wrapped(0xF5, [0x03]), .bytes("91F0")),
            (Self.wrapped(0xF5, [0x04]), .bytes("00000010040000" + "9100")), // read key 1
            (Self.wrapped(0xF5, [0x0F]), .bytes("91F0")),
            (Self.wrapped(0xF5, [0x1F]), .bytes("0000E0EE020000" + "9100")),
            (Self.wrapped(0xAD, [0x1F] + whole), .bytes("AABB" + "9100")),
        ]
        let transport = ScriptedAPDUTransport(script)
        let dump = try await DESFireDumper.dump(transport: transport)
        let name = V.lightDFName.hexString
        #expect(dump.applications.first?.files.map(\.id) == [0x00, 0x04, 0x1F])
        #expect(dump.files == [name + "/00": .data([1, 2, 3, 4]), name + "/1F": .data([0xAA, 0xBB])])
        #expect(dump.skipped == [name + "/04"])
        #expect(dump.applications.first?.keyVersions == [0, 0, 0, 0, 0])
        transport.verifyAllConsumed()
    }

    // MARK: NTAG 424 DNA

    /// An NTAG 424 DNA as delivered (NT4H2421Gx §8.2): its one application by ISO SELECT of
    /// D2760000850101, files 01h (CC) and 02h (NDEF) read with ReadData ADh, 03h (read key 2) named.
    @Test func anNTAG424DNADumpReadsItsFilesThroughItsOwnCommands() async throws {
        let cc: [UInt8] = [0x00, 0x17, 0x20, 0x01, 0x00, 0x00, 0xFF, 0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00, 0x00,
                           0x05, 0x06, 0xE1, 0x05, 0x00, 0x80, 0x82, 0x83] + [UInt8](repeating: 0, count: 9)
        let ndef: [UInt8] = [0x00, 0x05, 0xD0, 0x00, 0x00] + [UInt8](repeating: 0, count: 251)
        let app = V.Application(aid: [0x01, 0x00, 0x00], files: [
            V.File(id: 0x01, read: V.free, contents: .standard(cc)),
            V.File(id: 0x02, read: V.free, write: V.free, readWrite: V.free, contents: .standard(ndef)),
            V.File(id: 0x03, communication: 0x03, read: 0x02, write: 0x03, readWrite: 0x03, contents: .standard([UInt8](repeating: 0, count: 128))),
        ])
        let tag = try V(uid: Self.uid, model: .ntag424, applications: [app])
        let transport = VirtualTagTransport(tag: tag)
        let dump = try await DESFireDumper.dump(transport: transport)
        #expect(dump.version.product?.name == "NTAG 424 DNA")
        #expect(dump.commandSet == .ntag4xxDNA && dump.selectsByDFName && dump.framing == .wrapped)
        #expect(dump.applications.map(\.aidHex) == ["D2760000850101"])
        #expect(dump.files == ["D2760000850101/01": .data(cc), "D2760000850101/02": .data(ndef)])
        #expect(dump.skipped == ["D2760000850101/03"])
        #expect(dump.applications[0].files[2].skipReason == "read needs key 2, read&write needs key 3")
        #expect(dump.facts.contains(Fact(key: "Files Read", value: "2")))
        #expect(dump.applications[0].keyVersions?.count == 5)
        let sent = transport.sentCommands
        #expect(sent[3] == [0x00, 0xA4, 0x04, 0x0C, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00])
        let codes = Set(sent.compactMap { $0.first == 0x90 ? $0[1] : nil })
        #expect(codes == [0x60, 0xAF, 0x64, 0xF5, 0xAD], "only Table 22 codes")
        // The simulator refuses what Table 22 does not list.
        for code: UInt8 in [0x6F, 0x5A, 0x6A, 0x45, 0xBD, 0x6C, 0xBB, 0xAB] {
            #expect(tag.process(apdu: [0x90, code, 0x00, 0x00, 0x00]) == [0x91, 0x1C], "\(code.hexString)")
        }
    }

    /// Through the registry: an NTAG 424 DNA (typed by GetVersion, its own Type 4 family) is dumped as a Type 4
    /// tag (CC, NDEF) and its fixed files walked with ADh; the Flipper export refuses it by name
    /// instead of writing it as a Mifare DESFire (Flipper's lib/nfc/protocols has no NTAG 4xx DNA).
    @Test func anNTAG424DNAThroughTheRegistryHasItsFilesAndNoFlipperFile() async throws {
        let app = V.Application(aid: [0x01, 0x00, 0x00], files: [
            V.File(id: 0x01, read: V.free, contents: .standard([0x00, 0x17, 0x20, 0x01, 0x00])),
            V.File(id: 0x02, read: V.free, write: V.free, readWrite: V.free, contents: .standard([0x00, 0x00])),
            V.File(id: 0x03, communication: 0x03, read: 0x02, write: 0x03, readWrite: 0x03, contents: .standard([0x00])),
        ])
        let ndef = try VirtualType4Tag(uid: Self.uid, ndef: [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x48, 0x69])
        let tag = try V(uid: Self.uid, model: .ntag424, applications: [app], ndefApplication: ndef)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .ntag424DNA && info.product?.name == "NTAG 424 DNA")
        let dump = try await TagDumper.dump(info: info, transport: transport)
        #expect(dump.ndefMessage == [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x48, 0x69])
        let names = dump.files.compactMap(\.name)
        #expect(names.contains("D2760000850101/01") && names.contains("D2760000850101/02") && !names.contains("D2760000850101/03"))
        #expect(dump.fact("Files Read") == "2")
        #expect(dump.fact("Skipped") == "D2760000850101/03")
        // Its own family: file 02h's settings read, SDM off as delivered (NT4H2421Gx §8.2.2).
        #expect(dump.fact("SDM") == "disabled")
        #expect(throws: NFCError.unsupportedOperation(
            "Flipper Zero has no NTAG 424 DNA format (its NFC files hold Mifare DESFire and page-based tags; written as Mifare DESFire, the NTAG 424 DNA would emulate an application directory the chip does not have): use json")) {
            try dump.exportFlipperNFC()
        }
    }
}
