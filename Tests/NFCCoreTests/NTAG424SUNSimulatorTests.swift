import NFCCore
import PN532Sim
import Testing

/// NFCCore's SUN verification against the simulator's NTAG 424 DNA with SDM (``VirtualSDMTag``), whose
/// mirrors, counter and MAC are its own implementation of NT4H2421Gx §9.3 (libcrypto's EVP CMAC, not
/// NFCCore's): the two agree, the counter lives, and the family reads the SDM settings.
@Suite struct NTAG424SUNSimulatorTests {
    static let uid: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]
    static let metaKey: [UInt8] = (0..<16).map { UInt8($0) }
    static let fileKey: [UInt8] = (0..<16).map { UInt8(0xF0 - $0) }
    static let keys = NTAG424SUNOptions(keySets: [SUNKeys(name: "door", metaRead: metaKey, fileRead: fileKey)])

    /// "door.example/t?e=<32>&c=<16>" as a URI record (https:// abbreviated): record header 4 bytes +
    /// prefix code, so the URL text starts at file offset 2 + 5.
    static func tag(frozen: Bool = false, plain: Bool = false, counter: Int = 0) throws -> VirtualSDMTag {
        let url = plain ? "door.example/t?u=" + String(repeating: "0", count: 14) + "x" + String(repeating: "0", count: 6) + "&c="
            : "door.example/t?e=" + String(repeating: "0", count: 32) + "&c="
        let text = url + String(repeating: "0", count: 16)
        let message = try NDEFMessage(records: [.uri("https://" + text)]).bytes
        let base = 2 + message.count - text.utf8.count
        let mac = base + url.utf8.count
        let mirror = VirtualSDMTag.Mirror(
            metaReadKey: plain ? nil : metaKey, fileReadKey: fileKey, piccOffset: base + 17, uidOffset: base + 17,
            counterOffset: base + 17 + 15, macInputOffset: plain ? base : mac, macOffset: mac)
        return try VirtualSDMTag(uid: uid, ndef: message, mirror: mirror, counter: counter, frozen: frozen)
    }

    @Test func theSimulatorsSUNMessagesVerifyAndTheCounterGrows() async throws {
        let tag = try Self.tag()
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .ntag424DNA && info.product?.name == "NTAG 424 DNA")
        for expected in 1...3 {
            let message = try #require(try await NDEFReader.read(info: info, transport: transport).message)
            let check = try #require(try await NTAG424SUN.check(ndefMessage: message, transport: transport, options: Self.keys))
            #expect(check.result.verdict == .valid, "\(check)")
            #expect(check.result.uid == Self.uid && check.result.counter == expected && check.keySet == "door")
        }
        // Without keys, or with the wrong ones.
        let message = try #require(try await NDEFReader.read(info: info, transport: transport).message)
        let none = try #require(try await NTAG424SUN.check(ndefMessage: message, transport: transport, options: NTAG424SUNOptions()))
        #expect(none.result.verdict == .noKey)
        let wrong = NTAG424SUNOptions(keySets: [SUNKeys(name: "old", metaRead: Self.metaKey, fileRead: Self.metaKey)])
        #expect(try await NTAG424SUN.check(ndefMessage: message, transport: transport, options: wrong)?.result.verdict == .invalidMAC)
    }

    /// Plain mirroring (SDMMetaRead Eh): the UID and the counter in clear, the MAC over the URL from its start.
    @Test func plainMirroringVerifiesToo() async throws {
        let transport = VirtualTagTransport(tag: try Self.tag(plain: true, counter: 41))
        let info = try await TagIdentifier.identify(transport)
        let message = try #require(try await NDEFReader.read(info: info, transport: transport).message)
        let check = try #require(try await NTAG424SUN.check(ndefMessage: message, transport: transport, options: Self.keys))
        #expect(check.result.verdict == .valid && check.result.counter == 42 && check.result.uid == Self.uid, "\(check)")
    }

    /// A frozen tag gives the same message at every tap: valid each time for NFCCore (the replay is
    /// the agent's to see).
    @Test func aFrozenCounterRepeatsItsMessage() async throws {
        let tag = try Self.tag(frozen: true, counter: 7)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        let first = try await NDEFReader.read(info: info, transport: transport).message
        let second = try await NDEFReader.read(info: info, transport: transport).message
        #expect(first != nil && first == second)
        #expect(tag.counter == 7)
    }

    /// The dump: files walked, SDM settings read, SUN verified (facts, never a key).
    @Test func theDumpNamesTheSDMSettingsAndTheVerdict() async throws {
        let transport = VirtualTagTransport(tag: try Self.tag())
        let info = try await TagIdentifier.identify(transport)
        let dump = try await TagDumper.dump(info: info, transport: transport, options: DumpOptions(families: FamilyDumpOptions(Self.keys)))
        #expect(dump.fact("SDM") == "mirrors UID + read counter, PICCData encrypted with key 0, SDMMAC with key 0", "\(dump.facts)")
        #expect(dump.fact("SUN")?.hasPrefix("valid, counter ") == true, "\(dump.facts)")
        #expect(dump.fact("SUN")?.hasSuffix("keys 'door'") == true)
        #expect(!dump.facts.contains { $0.value.contains(Self.fileKey.hexString) || $0.value.contains(Self.metaKey.hexString) })
    }

    /// The chip's own table: what Table 22 lacks is illegal, what the simulator does not model is refused.
    @Test func theSimulatorRefusesWhatTheChipRefuses() throws {
        let tag = try Self.tag()
        #expect(tag.process(apdu: [0x90, 0x6F, 0x00, 0x00, 0x00]) == [0x91, 0x1C])  // GetFileIDs: not on a 424
        #expect(tag.process(apdu: [0x90, 0xBD, 0x00, 0x00, 0x07, 0x02, 0, 0, 0, 0, 0, 0, 0x00]) == [0x91, 0x1C])  // ReadData BDh
        #expect(tag.process(apdu: [0x90, 0x71, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]) == [0x91, 0x9D])  // not simulated
        #expect(tag.process(apdu: [0x60]) == [0x6E, 0x00])  // no native frames
        #expect(tag.process(apdu: [0x90, 0xAD, 0x00, 0x00, 0x07, 0x03, 0, 0, 0, 0, 0, 0, 0x00]) == [0x91, 0xAE])  // file 03h: key 2
    }
}
