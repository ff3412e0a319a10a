import NFCCore
import PN532Sim
import Testing

@Suite struct FeliCaTests {
    /// The NDEF write access a JSON dump carries is its `ndefWritable` key, never the `Read / Write` fact;
    /// a file without the key gives the attribute block's RWFlag.
    @Test func jsonWriteAccessComesFromTheKeyNotTheFact() async throws {
        let tag = try VirtualFeliCaTag(model: .standard, idm: Self.idm, ndef: Self.message)
        let info = CardInfo(type: .felicaStandard, uid: Self.idm, systemCode: [0x12, 0xFC])
        let dump = try await FeliCaDump.dump(info: info, transport: VirtualTagTransport(tag: tag))
        #expect(dump.family == .felica(ndefWritable: true))
        let json = try dump.exportJSON(prettyPrinted: false)
        #expect(json.contains(#""ndefWritable":true"#))
        #expect(try TagDump.importJSON(Array(json.utf8)) == dump)
        let editedFact = json.replacingOccurrences(of: #""value":"Read-write""#, with: #""value":"Read-only""#)
        #expect(editedFact != json)
        let imported = try TagDump.importJSON(Array(editedFact.utf8))
        #expect(imported.fact("Read / Write") == "Read-only")
        #expect(imported.summary.capabilities == [.readable, .writable])
        #expect(imported.family == .felica(ndefWritable: true))
        // An old file: no key, a fact that lies; the attribute block (block 0) says read-write.
        let old = editedFact.replacingOccurrences(of: #","ndefWritable":true"#, with: "")
        #expect(!old.contains("ndefWritable"))
        #expect(try TagDump.importJSON(Array(old.utf8)).family == .felica(ndefWritable: true))
    }

    static let idm: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
    /// Text "CoreExtendedNFC" (22 bytes: attribute block + 2 data blocks). Upstream's vector has payload
    /// length 0Eh; 12h is the length of status byte + "en" + 15 characters.
    static let message: [UInt8] = [0xD1, 0x01, 0x12, 0x54, 0x02, 0x65, 0x6E] + Array("CoreExtendedNFC".utf8)

    @Test func attributeBlockVector() throws {
        let attribute = FeliCaAttributeInfo(version: 0x10, nbr: 4, nbw: 1, nmaxb: 0x0D, rwFlag: 0x01, length: 0x42)
        #expect(attribute.bytes.hexString == "100401000D0000000000010000420065")
        let parsed = try FeliCaAttributeInfo(bytes: attribute.bytes)
        #expect(parsed == attribute)
        #expect(parsed.capacity == 208)
        #expect(parsed.isWritable)
        var broken = attribute.bytes
        broken[15] ^= 0x01
        #expect(throws: NFCError.crcMismatch) { try FeliCaAttributeInfo(bytes: broken) }
        #expect(throws: NFCError.invalidResponse([0x10])) { try FeliCaAttributeInfo(bytes: [0x10]) }
    }

    @Test func blockListAndCommandEncodings() throws {
        #expect(try FeliCaBlockListElement(block: 0).bytes() == [0x80, 0x00])
        #expect(try FeliCaBlockListElement(block: 0x90).bytes() == [0x80, 0x90])
        #expect(try FeliCaBlockListElement(block: 5, serviceIndex: 1).bytes() == [0x81, 0x05])
        #expect(try FeliCaBlockListElement(block: 0x1234).bytes() == [0x00, 0x34, 0x12])
        #expect(try FeliCaBlockListElement(block: 2, serviceIndex: 3, accessMode: 1).bytes() == [0x93, 0x02])
        #expect(throws: NFCError.self) { try FeliCaBlockListElement(block: 0x10000).bytes() }
        #expect(throws: NFCError.self) { try FeliCaBlockListElement(block: 1, serviceIndex: 16).bytes() }
        // The check libnfc's nfc-read-forum-tag3 sends first (without LEN): block 0 of service 000B.
        let read = try FeliCaCommand.read(idm: Self.idm, serviceCodes: [0x000B], blocks: [FeliCaBlockListElement(block: 0)])
        #expect(read.hexString == "06" + Self.idm.hexString + "010B00018000")
        #expect(FeliCaCommand.polling(systemCode: [0x12, 0xFC]).hexString == "0012FC0100")
        #expect(FeliCaCommand.requestResponse(idm: Self.idm).hexString == "04" + Self.idm.hexString)
        #expect(FeliCaCommand.requestService(idm: Self.idm, serviceCodes: [0x000B, 0x008B]).hexString
                == "02" + Self.idm.hexString + "020B008B00")
        #expect(throws: NFCError.self) {
            try FeliCaCommand.write(idm: Self.idm, serviceCodes: [0x0009], blocks: [FeliCaBlockListElement(block: 1)], data: [1])
        }
    }

    @Test func readsTheThreeBlockNDEF() async throws {
        let tag = try VirtualFeliCaTag(model: .standard, idm: Self.idm, systemCode: [0x12, 0xFC], ndef: Self.message)
        let transport = VirtualTagTransport(tag: tag)
        #expect(try await FeliCaType3.readNDEF(transport: transport) == Self.message)
        #expect(transport.sentCommands.map(\.hexString) == [
            "06" + Self.idm.hexString + "010B00018000",
            "06" + Self.idm.hexString + "010B000280018002",
        ])
    }

    @Test func writeFollowsTheThreeStepProcedure() async throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: Self.idm, ndef: [0xD0, 0x00, 0x00])
        let transport = VirtualTagTransport(tag: tag)
        let long = [UInt8](repeating: 0x41, count: 40)
        try await FeliCaType3.writeNDEF(long, transport: transport)
        #expect(tag.ndefMessage == long)
        let writes = transport.sentCommands.filter { $0.first == 0x08 }
        // Lite-S Nbw is 1: attribute (WriteFlag 0F, old Ln 3), three data blocks, attribute (00, Ln 40).
        #expect(writes.count == 5)
        let first = try FeliCaAttributeInfo(bytes: Array(writes[0].suffix(16)))
        let last = try FeliCaAttributeInfo(bytes: Array(writes[4].suffix(16)))
        #expect(first.writeFlag == 0x0F)
        #expect(first.length == 3)
        #expect(last.writeFlag == 0x00)
        #expect(last.length == 40)
        #expect(writes[1...3].map { $0[14] } == [1, 2, 3], "block numbers in the block list")
        #expect(Array(writes[3].suffix(16)) == [UInt8](repeating: 0x41, count: 8) + [UInt8](repeating: 0, count: 8))
        #expect(try await FeliCaType3.readNDEF(transport: transport) == long)
        #expect(tag.writeCount == 5)
    }

    @Test func refusesLockedAndOversizedWrites() async throws {
        let locked = VirtualTagTransport(tag: try VirtualFeliCaTag(model: .lite, idm: Self.idm, ndef: Self.message, writable: false))
        await #expect(throws: NFCError.tagLocked) { try await FeliCaType3.writeNDEF([0xD0, 0, 0], transport: locked) }
        #expect(!locked.sentCommands.contains { $0.first == 0x08 })
        let small = VirtualTagTransport(tag: try VirtualFeliCaTag(model: .lite, idm: Self.idm, ndef: []))
        await #expect(throws: NFCError.capacityExceeded(needed: 209, available: 208)) {
            try await FeliCaType3.writeNDEF([UInt8](repeating: 0, count: 209), transport: small)
        }
    }

    @Test func readErrorsCarryTheStatusFlag() async throws {
        let transport = VirtualTagTransport(tag: try VirtualFeliCaTag(model: .lite, idm: Self.idm))
        await #expect(throws: NFCError.felicaBlockReadFailed(statusFlag: 0x01)) {
            try await FeliCaCommand.read(blocks: [0x90], service: 0x000B, transport: transport)
        }
        // Unformatted Lite: block 0 is all zeros, so its checksum 0000 matches but the version does not.
        await #expect(throws: NFCError.invalidNDEF("Type 3 mapping version 0.0 is not supported")) {
            try await FeliCaType3.readNDEF(transport: transport)
        }
    }

    @Test(arguments: [
        (VirtualFeliCaTag.Model.lite, CardType.felicaLite, "FeliCa Lite (RC-S965)", "READ 90: felica_read_failed"),
        (.liteS, .felicaLiteS, "FeliCa Lite-S (RC-S966)", "READ 90: ok"),
    ])
    func splitsLiteFromLiteS(model: VirtualFeliCaTag.Model, type: CardType, product: String, probe: String) async throws {
        let transport = VirtualTagTransport(tag: try VirtualFeliCaTag(model: model, idm: Self.idm))
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == type)
        #expect(info.product?.name == product)
        #expect(info.systemCode == [0x88, 0xB4])
        #expect(info.probes == [probe])
        // One READ WITHOUT ENCRYPTION of blocks 90h (the probe), 00h, 01h and 02h (FeliCaScanFrameTests).
        #expect(transport.sentCommands.map(\.hexString) == ["06" + Self.idm.hexString + "010B0004" + "8090800080018002"])
    }

    @Test func standardFeliCaIsNotProbed() async throws {
        let transport = VirtualTagTransport(tag: try VirtualFeliCaTag(model: .standard, idm: Self.idm, ndef: Self.message))
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .felicaStandard)
        #expect(info.product?.name == "FeliCa Standard (RC-S915)")
        #expect(info.probes.isEmpty)
        #expect(transport.sentCommands.isEmpty)
    }

    @Test func dumpsNDEFAndPlainServices() async throws {
        let blocks = [[UInt8](repeating: 0xA1, count: 16), [UInt8](repeating: 0xA2, count: 16)]
        let tag = try VirtualFeliCaTag(model: .standard, idm: Self.idm, ndef: Self.message, services: [0x008B: blocks])
        let transport = VirtualTagTransport(tag: tag)
        let info = CardInfo(type: .felicaStandard, uid: Self.idm, systemCode: [0x12, 0xFC])
        let dump = try await FeliCaDump.dump(info: info, transport: transport)
        #expect(dump.ndefMessage == Self.message)
        #expect(dump.blocks.map(\.number) == [0, 1, 2])
        #expect(dump.blocks.allSatisfy { $0.data.count == 16 })
        #expect(dump.files.count == 1)
        #expect(dump.files.first?.identifier == [0x8B, 0x00])
        #expect(dump.files.first?.data == blocks.flatMap { $0 })
        #expect(dump.files.first?.name == "Random Read-Only Service #2 (2 blocks)")
        #expect(dump.facts.map(\.key) == ["System Code", "Common Services", "Detected Services", "NDEF Bytes",
                                          "Max Read Blocks", "Max Write Blocks", "Read / Write", "Plain Service Snapshots"])
        #expect(dump.fact("System Code") == "12FC")
        #expect(dump.fact("Common Services") == "3")
        #expect(dump.fact("Detected Services")
                == "NDEF Read Service [0B00], NDEF Write Service [0900], Random Read-Only Service #2 [8B00]")
        #expect(dump.fact("NDEF Bytes") == "22")
        #expect(dump.fact("Max Read Blocks") == "12")
        #expect(dump.fact("Max Write Blocks") == "8")
        #expect(dump.fact("Read / Write") == "Read-write")
        #expect(dump.fact("Plain Service Snapshots") == "1")
        #expect(dump.capabilities == [.readable, .writable])
        // Two REQUEST SERVICE commands cover the 64 candidates.
        #expect(transport.sentCommands.filter { $0.first == 0x02 }.map { $0[9] } == [32, 32])
    }

    @Test func catalogueHasCyclicServices() {
        let candidates = FeliCaServiceCatalog.candidates()
        #expect(candidates.count == 64)
        #expect(Set(candidates.map(\.code)).count == 64)
        #expect(candidates.contains { $0.code == 0x008D && $0.label == "Cyclic Read/Write Service #2" })
        #expect(candidates.contains { $0.code == 0x008F && $0.label == "Cyclic Read-Only Service #2" })
        #expect(candidates.prefix(3).map(\.label) == ["NDEF Read Service", "NDEF Write Service", "Cyclic Read/Write Service #0"])
    }

    @Test func dumpsTheLiteSMemoryMap() async throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: Self.idm, ndef: Self.message)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        let dump = try await FeliCaDump.dump(info: info, transport: transport)
        #expect(dump.ndefMessage == Self.message)
        // 15 user/REG blocks + ID, D_ID, SER_C, SYS_C, CKV, MC + WCNT, STATE (RC, MAC, CK, MAC_A skipped).
        #expect(dump.blocks.map(\.number) == Array(0x00...0x0E) + [0x82, 0x83, 0x84, 0x85, 0x86, 0x88, 0x90, 0x92])
        #expect(dump.blocks.first { $0.number == 0x83 }?.data == Self.idm + tag.target.pmm)
        #expect(dump.files.isEmpty)
        #expect(dump.fact("Common Services") == "2")
        #expect(dump.fact("Max Read Blocks") == "4")
        #expect(dump.capabilities == [.readable, .writable])
        #expect(!transport.sentCommands.contains { $0.first == 0x02 }, "no REQUEST SERVICE for the Lite family")
    }

    @Test func dumpStopsWhenTheTagLeaves() async throws {
        let transport = VirtualTagTransport(tag: try VirtualFeliCaTag(model: .standard, idm: Self.idm, ndef: Self.message))
        transport.remove(afterCommands: 3)
        let info = CardInfo(type: .felicaStandard, uid: Self.idm)
        await #expect(throws: NFCError.tagRemoved) { try await FeliCaDump.dump(info: info, transport: transport) }
    }
}

@Suite struct FeliCaLockTests {
    @Test func softLockClearsRWFlag() async throws {
        let tag = try VirtualFeliCaTag(model: .standard, idm: FeliCaTests.idm, ndef: FeliCaTests.message)
        let transport = VirtualTagTransport(tag: tag)
        try await FeliCaType3.lock(transport: transport)
        #expect(try await FeliCaType3.readAttributeInfo(transport: transport).rwFlag == 0x00)
        await #expect(throws: NFCError.tagLocked) { try await FeliCaType3.writeNDEF([0xD0, 0, 0], transport: transport) }
        #expect(try await FeliCaType3.readNDEF(transport: transport) == FeliCaTests.message)
        await #expect(throws: NFCError.unsupportedOperation("Permanent locking needs a FeliCa Lite / Lite-S memory configuration block")) {
            try await FeliCaType3.lock(transport: transport, permanently: true)
        }
    }

    @Test func permanentLockWritesTheMemoryConfiguration() async throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: FeliCaTests.idm, ndef: FeliCaTests.message)
        let transport = VirtualTagTransport(tag: tag)
        try await FeliCaType3.lock(transport: transport, permanently: true)
        #expect(tag.block(0x88).map { Array($0.prefix(4)) } == [0x00, 0x40, 0x00, 0x01])
        // The attribute block itself can no longer be written back to read/write.
        var attribute = try await FeliCaType3.readAttributeInfo(transport: transport)
        attribute.rwFlag = 0x01
        await #expect(throws: NFCError.felicaBlockWriteFailed(statusFlag: 0x01)) {
            try await FeliCaCommand.write(blocks: [0], data: [attribute.bytes], service: 0x0009, transport: transport)
        }
    }
}
