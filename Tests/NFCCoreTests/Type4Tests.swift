import NFCCore
import PN532Sim
import Testing

@Suite struct Type4Tests {
    static let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    /// Upstream test vector: CC of a tag with MLe 3Bh, MLc 34h, NDEF file E104 of FEh bytes.
    static let ccVector = "000F20003B00340406E10400FE0000"
    /// Text "Hi" (upstream vector).
    static let hi: [UInt8] = [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x48, 0x69]
    /// Text "Hello" repeated, longer than MLe so the read takes several chunks.
    static let hello: [UInt8] = {
        let text = Array(String(repeating: "Hello", count: 30).utf8)
        return [0xD1, 0x01, UInt8(text.count + 3), 0x54, 0x02, 0x65, 0x6E] + text
    }()

    func tag(ndef: [UInt8], writable: Bool = true) throws -> VirtualType4Tag {
        try VirtualType4Tag(uid: Self.uid, ndef: ndef, capacity: 0xFE, writable: writable, mle: 0x3B, mlc: 0x34)
    }

    @Test func parsesTheCapabilityContainerVector() throws {
        let cc = try Type4CapabilityContainer(bytes: try #require([UInt8](hex: Self.ccVector)))
        #expect(cc.length == 15)
        #expect(cc.mappingVersion == 0x20)
        #expect(cc.mle == 0x3B)
        #expect(cc.mlc == 0x34)
        #expect(cc.ndefFileID == [0xE1, 0x04])
        #expect(cc.maxNDEFFileSize == 0xFE)
        #expect(cc.isWritable)
        #expect(cc.maxMessageSize == 0xFC)
        #expect(cc.bytes.hexString == Self.ccVector)
    }

    @Test func rejectsBadCapabilityContainers() throws {
        let good = try #require([UInt8](hex: Self.ccVector))
        var badTLV = good
        badTLV[7] = 0x05
        #expect(throws: NFCError.invalidResponse(badTLV)) { try Type4CapabilityContainer(bytes: badTLV) }
        #expect(throws: NFCError.self) { try Type4CapabilityContainer(bytes: Array(good.prefix(14))) }
        // Mapping 3.0 is read since issue 9 (Type4MappingV3Tests); 4.0 and later are not.
        var v4 = good
        v4[2] = 0x40
        #expect(throws: NFCError.unsupportedOperation("Type 4 mapping version 4.0 is not supported")) {
            try Type4CapabilityContainer(bytes: v4)
        }
        var zeroMLe = good
        zeroMLe[3] = 0
        zeroMLe[4] = 0
        #expect(throws: NFCError.self) { try Type4CapabilityContainer(bytes: zeroMLe) }
        // Arbitrary bytes never trap.
        var generator = NDEFFuzzTests.SeededGenerator(state: 4)
        for _ in 0..<2000 {
            let bytes = (0..<Int(generator.next() % 20)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = try? Type4CapabilityContainer(bytes: bytes)
        }
    }

    @Test func readsHiWithTheUpstreamSequence() async throws {
        let transport = VirtualTagTransport(tag: try tag(ndef: Self.hi))
        #expect(try await Type4NDEF.read(transport: transport) == Self.hi)
        #expect(transport.sentCommands.map(\.hexString) == [
            "00A4040007D276000085010100", "00A4000C02E103", "00B000000F", "00A4000C02E104", "00B0000002",
            "00B0000209",
        ])
    }

    @Test func readsInMLeChunks() async throws {
        let transport = VirtualTagTransport(tag: try tag(ndef: Self.hello))
        #expect(Self.hello.count == 157)
        #expect(try await Type4NDEF.read(transport: transport) == Self.hello)
        let reads = transport.sentCommands.suffix(3).map(\.hexString)
        #expect(reads == ["00B000023B", "00B0003D3B", "00B0007827"])
    }

    @Test func writesNLENZeroDataThenNLEN() async throws {
        let virtual = try tag(ndef: Self.hi)
        let transport = VirtualTagTransport(tag: virtual)
        try await Type4NDEF.write(Self.hello, transport: transport)
        #expect(virtual.ndefMessage == Self.hello)
        let updates = transport.sentCommands.filter { $0[1] == 0xD6 }
        #expect(updates.map { Array($0.prefix(5)).hexString } == [
            "00D6000002", "00D6000234", "00D6003634", "00D6006A34", "00D6009E01", "00D6000002",
        ])
        #expect(updates.first?.suffix(2) == [0x00, 0x00])
        #expect(updates.last?.suffix(2) == [0x00, 0x9D])
        #expect(try await Type4NDEF.read(transport: transport) == Self.hello)
    }

    @Test func refusesReadOnlyAndOversizedWrites() async throws {
        let locked = VirtualTagTransport(tag: try tag(ndef: Self.hi, writable: false))
        await #expect(throws: NFCError.tagLocked) { try await Type4NDEF.write(Self.hello, transport: locked) }
        #expect(!locked.sentCommands.contains { $0[1] == 0xD6 })
        let small = VirtualTagTransport(tag: try tag(ndef: []))
        await #expect(throws: NFCError.capacityExceeded(needed: 300, available: 0xFC)) {
            try await Type4NDEF.write([UInt8](repeating: 0, count: 300), transport: small)
        }
    }

    @Test func dumpsFilesAndFacts() async throws {
        let transport = VirtualTagTransport(tag: try tag(ndef: Self.hi))
        let info = CardInfo(type: .type4NDEF, uid: Self.uid)
        let dump = try await Type4Dump.dump(info: info, transport: transport)
        #expect(dump.files.map(\.identifier) == [[0xE1, 0x03], [0xE1, 0x04]])
        #expect(dump.files[0].data.hexString == Self.ccVector)
        #expect(dump.files[0].name == "Capability Container")
        #expect(dump.files[1].data == [0x00, 0x09] + Self.hi)
        #expect(dump.ndefMessage == Self.hi)
        #expect(dump.facts.map(\.key) == ["Mapping Version", "MLe", "MLc", "NDEF File ID", "NDEF Bytes", "Write Access"])
        #expect(dump.fact("Mapping Version") == "0x20")
        #expect(dump.fact("MLe") == "59 bytes")
        #expect(dump.fact("MLc") == "52 bytes")
        #expect(dump.fact("NDEF File ID") == "E104")
        #expect(dump.fact("NDEF Bytes") == "9")
        #expect(dump.fact("Write Access") == "Writable")
        #expect(dump.capabilities == [.readable, .writable])
        let readOnly = try await Type4Dump.dump(
            info: info, transport: VirtualTagTransport(tag: try tag(ndef: [], writable: false)))
        #expect(readOnly.fact("Write Access") == "Read-only")
        #expect(readOnly.capabilities == [.readable])
        #expect(readOnly.ndefMessage == nil)
    }

    /// The write access a JSON dump carries is its `ndefWritable` key (the typed data), never the
    /// `Write Access` fact; a file without the key (written before it existed) gives the CC file's.
    @Test func jsonWriteAccessComesFromTheKeyNotTheFact() async throws {
        let info = CardInfo(type: .type4NDEF, uid: Self.uid)
        let dump = try await Type4Dump.dump(info: info, transport: VirtualTagTransport(tag: try tag(ndef: Self.hi)))
        let json = try dump.exportJSON(prettyPrinted: false)
        #expect(json.contains(#""ndefWritable":true"#))
        #expect(try TagDump.importJSON(Array(json.utf8)) == dump)
        let editedFact = json.replacingOccurrences(of: #""value":"Writable""#, with: #""value":"Read-only""#)
        #expect(editedFact != json)
        let imported = try TagDump.importJSON(Array(editedFact.utf8))
        #expect(imported.fact("Write Access") == "Read-only")
        #expect(imported.family == .type4(ndefWritable: true))
        let editedKey = json.replacingOccurrences(of: #""ndefWritable":true"#, with: #""ndefWritable":false"#)
        #expect(try TagDump.importJSON(Array(editedKey.utf8)).family == .type4(ndefWritable: false))
        // An old file: no key, and a fact that lies; the CC file says writable.
        let old = editedFact.replacingOccurrences(of: #","ndefWritable":true"#, with: "")
        #expect(!old.contains("ndefWritable"))
        #expect(try TagDump.importJSON(Array(old.utf8)).family == .type4(ndefWritable: true))
        let readOnly = try await Type4Dump.dump(
            info: info, transport: VirtualTagTransport(tag: try tag(ndef: Self.hi, writable: false)))
        let oldReadOnly = try readOnly.exportJSON(prettyPrinted: false)
            .replacingOccurrences(of: #","ndefWritable":false"#, with: "")
            .replacingOccurrences(of: #""value":"Read-only""#, with: #""value":"Writable""#)
        #expect(try TagDump.importJSON(Array(oldReadOnly.utf8)).family == .type4(ndefWritable: false))
    }

    @Test func refusedStepsSurfaceTheStatusWord() async throws {
        let transport = ScriptedAPDUTransport([("00A4040007D276000085010100", .bytes("6A82"))])
        await #expect(throws: NFCError.unexpectedStatusWord(0x6A, 0x82)) { try await Type4NDEF.read(transport: transport) }
        transport.verifyAllConsumed()
    }
}

@Suite struct Type4LockTests {
    @Test func lockIsOnlyANoOpOnReadOnlyTags() async throws {
        let writable = VirtualTagTransport(tag: try VirtualType4Tag(uid: Type4Tests.uid, ndef: Type4Tests.hi))
        await #expect(throws: NFCError.self) { try await Type4NDEF.lock(transport: writable) }
        #expect(!writable.sentCommands.contains { $0[1] == 0xD6 })
        let readOnly = VirtualTagTransport(tag: try VirtualType4Tag(uid: Type4Tests.uid, ndef: Type4Tests.hi, writable: false))
        try await Type4NDEF.lock(transport: readOnly)
    }
}
