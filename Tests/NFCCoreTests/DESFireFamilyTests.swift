import NFCCore
import PN532Sim
import Testing

/// The DESFire row of the registry: identification, dump, NDEF through the Type 4 application, exports.
@Suite struct DESFireFamilyTests {
    typealias V = VirtualDESFireTag
    static let uid: [UInt8] = [0x04, 0x2F, 0x19, 0x0A, 0xCD, 0x66, 0x80]

    /// App 123456 (card order 56 34 12): a free standard file, a free value file, a protected cyclic
    /// record file; app 000002: directory list needs a key.
    static func card(_ model: V.Model = .ev1, ndef: VirtualType4Tag? = nil) throws -> (V, VirtualTagTransport) {
        let apps = [
            V.Application(aid: [0x56, 0x34, 0x12], files: [
                V.File(id: 0x01, read: V.free, contents: .standard([0x13, 0x37])),
                V.File(id: 0x02, communication: 0x01, read: V.free, contents: .value(-2, lower: -10, upper: 500)),
                V.File(id: 0x03, read: 0x01, readWrite: 0x01, contents: .cyclic(recordSize: 4, maxRecords: 3, records: [[1, 2, 3, 4]])),
            ]),
            V.Application(aid: [0x02, 0x00, 0x00], listRequiresAuthentication: true, files: []),
        ]
        let tag = try V(uid: uid, model: model, applications: model == .light ? [apps[0]] : apps, ndefApplication: ndef)
        return (tag, VirtualTagTransport(tag: tag))
    }

    @Test func theRegistryHasADESFireRow() {
        for type in [CardType.mifareDesfire, .mifareDesfireEV1, .mifareDesfireEV2, .mifareDesfireEV3] {
            #expect(TagFamilies.family(for: type)?.name == "MIFARE DESFire")
        }
        #expect(TagFamilies.family(for: .type4NDEF)?.name == "ISO-DEP (NFC Forum Type 4)")
        #expect(TagFamilies.family(for: .smartMX)?.name == "ISO-DEP (NFC Forum Type 4)")
        #expect(NDEFMapping.forType(.mifareDesfireEV2) == .type4)
    }

    /// Identify (GetVersion once) and dump through the registry: files keyed AID/fileID, the skips named,
    /// the typed walk kept for the exports, and no second GetVersion.
    @Test(arguments: [(V.Model.ev1, CardType.mifareDesfireEV1), (.ev2, .mifareDesfireEV2), (.ev3, .mifareDesfireEV3),
                      (.light, .mifareDesfire)])
    func identifyThenDumpThroughTheRegistry(model: V.Model, type: CardType) async throws {
        let (_, transport) = try Self.card(model)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == type)
        let dump = try await TagDumper.dump(info: info, transport: transport)
        #expect(transport.sentCommands.filter { $0 == [0x90, 0x60, 0x00, 0x00, 0x00] }.count == 1)
        let app = model == .light ? V.lightDFName : [0x56, 0x34, 0x12]
        let key = app.hexString
        #expect(dump.files == [
            FileData(identifier: app + [0x01], data: [0x13, 0x37], name: key + "/01"),
            FileData(identifier: app + [0x02], data: [0xFE, 0xFF, 0xFF, 0xFF], name: key + "/02"),
        ])
        #expect(dump.capabilities == [.readable, .authenticationRequired, .partiallyReadable])
        #expect(dump.fact("Skipped") == (model == .light ? key + "/03" : key + "/03, 020000"))
        #expect(dump.fact("Files Read") == "2")
        guard let walk = dump.desfire else {
            Issue.record("no DESFire walk in the dump")
            return
        }
        #expect(walk.files[key + "/02"] == .value(-2))
        #expect(dump.summary.userSummary.hasPrefix("Enumerated DESFire applications and captured 2 files"))
        // The JSON export keeps the upstream schema: files with hex identifier, data and the AID/fileID name.
        let json = try dump.exportJSON()
        #expect(json.contains("\"identifier\" : \"\(key)01\""))
        #expect(json.contains("\"name\" : \"\(key)\\/01\"")) // JSONEncoder escapes "/", as upstream's does
        #expect(json.contains("\"cardFamily\" : \"MIFARE DESFire\""))
    }

    /// NDEF read and write on DESFire go through the Type 4 mapping of its NDEF application.
    @Test func ndefGoesThroughTheType4Application() async throws {
        let t4 = try VirtualType4Tag(uid: Self.uid, ndef: [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x48, 0x69])
        let (_, transport) = try Self.card(.ev2, ndef: t4)
        let info = try await TagIdentifier.identify(transport)
        #expect(try await NDEFReader.read(info: info, transport: transport).message == [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x48, 0x69])
        let message = NDEFMessage(records: [.uri("https://example.com/desfire")])
        _ = try await TagOperations.write(message, to: transport, info: info)
        let bytes = try message.bytes
        #expect(t4.ndefMessage == bytes)
        let dump = try await TagDumper.dump(info: info, transport: transport)
        #expect(dump.ndefMessage == bytes)
    }

    @Test func formatsThatCannotHoldDESFireSayUnsupportedNamingTheFamily() async throws {
        let (_, transport) = try Self.card(.ev1)
        let dump = try await TagDumper.dump(info: try await TagIdentifier.identify(transport), transport: transport)
        #expect(throws: NFCError.unsupportedOperation(
            "libnfc MFD files hold page images; they cannot hold a MIFARE DESFire dump (applications and files): use json or flipper")) {
            try dump.exportLibNFCMFD()
        }
        #expect(throws: NFCError.unsupportedOperation(
            "Proxmark3 MFU files hold page images; they cannot hold a MIFARE DESFire dump (applications and files): use json or flipper")) {
            try dump.exportProxmark3MFU()
        }
        #expect(try dump.exportAll().map(\.fileName) == ["mifare-desfire-042f190acd6680.txt", "mifare-desfire-042f190acd6680.json",
                                                          "mifare-desfire-042f190acd6680.bin", "mifare-desfire-042f190acd6680.nfc"])
    }

    /// The Flipper `.nfc` DESFire layout (flipperzero-firmware `mf_desfire.c` / `mf_desfire_i.c` save order).
    @Test func flipperExportFollowsFlippersLayout() async throws {
        let (_, transport) = try Self.card(.ev1)
        let dump = try await TagDumper.dump(info: try await TagIdentifier.identify(transport), transport: transport)
        let expected = """
            Filetype: Flipper NFC device
            Version: 4
            Device type: Mifare DESFire
            UID: 04 2F 19 0A CD 66 80
            ATQA: 03 44
            SAK: 20
            # ISO14443-4A specific data
            T0: 75
            TA(1): 77
            TB(1): 81
            TC(1): 02
            T1...Tk: 80
            # Mifare DESFire specific data
            PICC Version: 04 01 01 01 00 18 05 04 01 01 01 04 18 05 04 2F 19 0A CD 66 80 00 11 22 33 44 10 21
            PICC Change Key ID: 00
            PICC Config Changeable: true
            PICC Free Create Delete: true
            PICC Free Directory List: true
            PICC Key Changeable: true
            PICC Flags: 00
            PICC Max Keys: 01
            PICC Key 0 Version: 00
            Application Count: 2
            Application IDs: 56 34 12 02 00 00
            Application 563412 Change Key ID: 00
            Application 563412 Config Changeable: true
            Application 563412 Free Create Delete: false
            Application 563412 Free Directory List: true
            Application 563412 Key Changeable: true
            Application 563412 Flags: 08
            Application 563412 Max Keys: 02
            Application 563412 Key 0 Version: 10
            Application 563412 Key 1 Version: 11
            Application 563412 File IDs: 01 02 03
            Application 563412 File 1 Type: 00
            Application 563412 File 1 Communication Settings: 00
            Application 563412 File 1 Access Rights: 00 E0
            Application 563412 File 1 Size: 2
            Application 563412 File 1: 13 37
            Application 563412 File 2 Type: 02
            Application 563412 File 2 Communication Settings: 01
            Application 563412 File 2 Access Rights: 00 E0
            Application 563412 File 2 Hi Limit: 500
            Application 563412 File 2 Lo Limit: 4294967286
            Application 563412 File 2 Limited Credit Value: 0
            Application 563412 File 2 Limited Credit Enabled: false
            Application 563412 File 2: FE FF FF FF
            Application 563412 File 3 Type: 04
            Application 563412 File 3 Communication Settings: 00
            Application 563412 File 3 Access Rights: 10 10
            Application 563412 File 3 Size: 4
            Application 563412 File 3 Max: 3
            Application 563412 File 3 Cur: 1
            Application 020000 Change Key ID: 00
            Application 020000 Config Changeable: true
            Application 020000 Free Create Delete: false
            Application 020000 Free Directory List: false
            Application 020000 Key Changeable: true
            Application 020000 Flags: 08
            Application 020000 Max Keys: 02
            Application 020000 Key 0 Version: 10
            Application 020000 Key 1 Version: 11

            """
        #expect(try dump.exportFlipperNFC() == expected)
    }

    /// Flipper's loader (flipperzero-firmware `mf_desfire.c` `mf_desfire_load`; `mf_desfire_i.c`
    /// `mf_desfire_key_settings_load`, `mf_desfire_application_load`) fails on a file without the PICC
    /// key settings, or without the `Key <n> Version` of each of `Max Keys` keys of the PICC or of a
    /// listed application. The export wrote both kinds of file. Now a dump without the PICC key data is
    /// refused as a file Flipper cannot hold (`unsupported`), and an application without its key versions
    /// is left out, as one without its key settings already was.
    @Test func flipperNeverWritesAFileItsLoaderRefuses() async throws {
        let (_, transport) = try Self.card(.ev1)
        let dump = try await TagDumper.dump(info: try await TagIdentifier.identify(transport), transport: transport)
        let walk = try #require(dump.desfire)
        func with(_ change: (inout DESFireDump) -> Void) -> TagDump {
            var changed = walk
            change(&changed)
            var copy = dump
            copy.family = .desfire(changed)
            return copy
        }
        let changes: [(String, (inout DESFireDump) -> Void)] = [
            ("no PICC key settings", { $0.piccKeySettings = nil }),
            ("no PICC key versions", { $0.piccKeyVersions = nil }),
            ("fewer PICC key versions than Max Keys", { $0.piccKeyVersions = [] }),
        ]
        for (name, change) in changes {
            let refused = with(change)
            let error = #expect(throws: NFCError.self, "\(name)") { try refused.exportFlipperNFC() }
            #expect(error?.code == "unsupported", "\(name)")
            #expect(error?.message.contains("PICC key settings and the version of each PICC key") == true, "\(error?.message ?? "")")
            #expect(!ExportFormat.flipper.holds(refused), "\(name)")
        }

        // A walk that did not ask for key data (read for bin or hex) cannot tell: the hints still name
        // Flipper, as a dump read for Flipper asks; the file itself is refused all the same.
        let notAsked = with {
            $0.keyDataAsked = false
            $0.piccKeySettings = nil
            $0.piccKeyVersions = nil
        }
        #expect(ExportFormat.flipper.holds(notAsked))
        #expect(throws: NFCError.self) { try notAsked.exportFlipperNFC() }

        // A Transaction MAC file (EV2+, type 05; settings as MF3D(H)x2 GetFileSettings answers them):
        // not listed, as one Flipper's loader cannot read fails the whole file.
        let tmacSettings = try DESFireFileSettings(bytes: [0x05, 0x00, 0x00, 0xE0, 0x02, 0x01])
        let withTMAC = try with {
            var tmac = $0.applications[0].files[0]
            (tmac.id, tmac.settings, tmac.content, tmac.skipReason) = (0x0F, tmacSettings, nil, nil)
            $0.applications[0].files.append(tmac)
        }.exportFlipperNFC()
        #expect(withTMAC == (try dump.exportFlipperNFC()), "the TMAC file leaves the file as it was")

        let withoutVersions = try with { $0.applications[0].keyVersions = nil }.exportFlipperNFC()
        #expect(withoutVersions.contains("Application Count: 1\nApplication IDs: 02 00 00\n"))
        #expect(!withoutVersions.contains("Application 563412"))
        for text in [try dump.exportFlipperNFC(), withoutVersions] { Self.expectEveryKeyVersion(text) }
    }

    /// Every `<prefix> Max Keys: N` line of a Flipper file is followed by `<prefix> Key 0 Version` …
    /// `Key N−1 Version`, as `mf_desfire_load` / `mf_desfire_application_load` read them.
    static func expectEveryKeyVersion(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = text.split(separator: "\n").map(String.init)
        for (index, line) in lines.enumerated() {
            guard let range = line.range(of: " Max Keys: "), let count = Int(line[range.upperBound...], radix: 16) else { continue }
            let prefix = line[..<range.lowerBound]
            let expected = (0..<count).map { "\(prefix) Key \($0) Version:" }
            let following = lines.dropFirst(index + 1).prefix(count).map { String($0.prefix { $0 != ":" }) + ":" }
            #expect(Array(following) == expected, "\(line)", sourceLocation: sourceLocation)
        }
    }

    @Test func flipperRefusesLightAndDumpsWithoutTheWalk() async throws {
        let (_, transport) = try Self.card(.light)
        let light = try await TagDumper.dump(info: try await TagIdentifier.identify(transport), transport: transport)
        #expect(throws: NFCError.unsupportedOperation(
            "Flipper's Mifare DESFire file keys applications by a 3-byte AID; MIFARE DESFire Light's one application has none")) {
            try light.exportFlipperNFC()
        }
        var imported = light
        imported.family = .none
        #expect(throws: NFCError.self) { try imported.exportFlipperNFC() }
    }
}
