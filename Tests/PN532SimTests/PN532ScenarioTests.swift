import Dispatch
import Foundation
import NFCCore
import TestSupport
import Testing
@testable import PN532Sim

/// Scenario files: parsing with libyaml, errors with line numbers, tags built from definitions,
/// and the timeline.
@Suite struct PN532ScenarioTests {
    func parse(_ yaml: String) throws(SimulatorError) -> Scenario {
        try Scenario.parse(yaml, file: "test.yaml")
    }

    /// The error a scenario gives, as `file:line: message`.
    func failure(_ yaml: String) -> String? {
        do {
            _ = try parse(yaml)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func demoScenarioLoads() throws {
        let scenario = try Scenario.load(path: Binaries.packageRoot.appendingPathComponent("config/scenarios/demo.yaml").path)
        #expect(scenario.tags.map(\.id) == ["poster", "note", "badge", "card", "ticket"])
        #expect(scenario.tags.map(\.kind) == [.ntag215, .ntag213, .classic1K, .type4, .felicaLiteS])
        let timeline = try #require(scenario.timeline)
        #expect(timeline.loops)
        #expect(timeline.period == .seconds(20))
        #expect(timeline.events.map(\.at) == [1, 4, 6, 9, 11, 14, 17].map { Duration.seconds($0) })
        #expect(timeline.events[2].place == ["badge", "note"])
        #expect(timeline.events[3].removeAll)
        // Every tag of the demo builds.
        let catalog = TagCatalog()
        for spec in scenario.tags { try catalog.define(spec) }
        #expect(catalog.ids.count == 5)
    }

    @Test func tagDefinitionsReadEveryField() throws {
        let scenario = try parse("""
            tags:
              - id: locked
                type: ntag213
                uid: 04 11 22 33 44 55 66
                ndef: [{uri: "https://example.com"}, {text: Hallo, language: de}]
                pages: {0x10: DEADBEEF 01020304}
                password: 12345678
                pack: ABCD
                auth0: 0x10
              - id: badge
                type: classic1k
                uid: 01020304
                blocks: {4: 00112233445566778899AABBCCDDEEFF}
                keys: [{sector: 1, a: A0A1A2A3A4A5, b: B0B1B2B3B4B5, access: 08778F}]
            """)
        let locked = scenario.tags[0]
        #expect(locked.uid == [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        #expect(locked.pages == [16: [0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3, 4]])
        #expect(locked.password == [0x12, 0x34, 0x56, 0x78])
        #expect(locked.auth0 == 0x10)
        let message = try NDEFMessage(bytes: try #require(locked.ndef))
        #expect(message.records == [.uri("https://example.com"), .text("Hallo", language: "de")])
        #expect(scenario.tags[1].kind == .classic1K)
        #expect(scenario.tags[1].keys == [TagSpec.SectorKeys(sector: 1, keyA: [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5],
                                                              keyB: [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5], accessBits: [0x08, 0x77, 0x8F])])

        let tag = try #require(VirtualTagFactory.make(locked) as? VirtualType2Tag)
        let memory = tag.memory
        #expect(Array(memory[16..<18]) == [0x03, UInt8(locked.ndef?.count ?? 0)])  // NDEF TLV at page 4
        #expect(Array(memory[64..<72]) == [0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3, 4])  // raw pages win
        let map = try #require(Type2MemoryMap.forType(.ntag213))
        let auth0 = try #require(map.auth0Offset), password = try #require(map.passwordPage) * 4
        #expect(memory[auth0] == 0x10)
        #expect(Array(memory[password..<password + 4]) == [0x12, 0x34, 0x56, 0x78])

        let classic = try #require(VirtualTagFactory.make(scenario.tags[1]) as? VirtualClassicTag)
        #expect(classic.block(4) == [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])
        #expect(classic.block(7).map { Array($0[0..<9]) } == [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0x08, 0x77, 0x8F])
    }

    @Test func errorsNameTheLine() {
        #expect(failure("tags:\n  - id: a\n    type: ntag215\n    colour: red\n") == "test.yaml:4: unknown key 'colour' in a tag (expected one of: applications, atqa, auth0, blocks, capacity, directory_protected, id, idm, keys, locked_blocks, magic, ndef, ndef_hex, pack, pages, password, pmm, read_protected, signature, sun, system_code, type, uid, writable)")
        #expect(failure("tags:\n  - id: a\n    type: ntag999\n")?.hasPrefix("test.yaml:3: unknown tag type 'ntag999'") == true)
        #expect(failure("tags:\n  - id: a\n    type: ntag215\n    atqa: '0344'\n") == "test.yaml:4: atqa is given for type4 tags only")
        #expect(failure("tags:\n  - id: a\n    type: type4\n    atqa: '03'\n")?.hasPrefix("test.yaml:4: atqa") == true)
        #expect(failure("tags:\n  - id: a\n    type: ntag215\n    uid: 04ZZ\n") == "test.yaml:4: uid '04ZZ' is not hex")
        #expect(failure("tags:\n  - id: a\n    type: ntag215\n    uid: 0401\n") == "test.yaml:4: uid must have 7 bytes, not 2")
        #expect(failure("tags:\n  - {id: a, type: ntag215}\n  - {id: a, type: ntag213}\n") == "test.yaml:3: tag id 'a' is defined twice")
        #expect(failure("tags: []\ntimeline:\n  - at: 1\n    place: ghost\n") == "test.yaml:4: place: no tag with id 'ghost' is defined")
        #expect(failure("timeline:\n  - at: soon\n    remove: all\n") == "test.yaml:2: at must be a time like 2, 1.5s or 250ms, not 'soon'")
        #expect(failure("tags:\n  - id: [a\n") != nil)
        #expect(failure("tags:\n  - id: a\n    type: ntag215\n   bad indent: 1\n")?.hasPrefix("test.yaml:4:") == true)
        #expect(failure("base: &x {a: 1}\nother: *x\n")?.contains("aliases") == true)
    }

    @Test func invalidDefinitionsAreRefusedByTheFactory() throws {
        let scenario = try parse("tags:\n  - {id: c, type: classic_1k, ndef: [{uri: x}]}\n  - {id: n, type: ntag213, pages: {44: 0000000000000000}}\n")
        #expect(throws: SimulatorError.invalidTag(id: "c", reason: "'ndef' is not supported for MIFARE Classic; give raw 'blocks'")) {
            try VirtualTagFactory.make(scenario.tags[0])
        }
        #expect(throws: SimulatorError.self) { try VirtualTagFactory.make(scenario.tags[1]) }
    }

    @Test func defaultUIDsAreStableAndWellFormed() throws {
        let scenario = try parse("tags: [{id: a, type: ntag215}, {id: b, type: classic_4k}, {id: c, type: felica_lite}]")
        let tags = try scenario.tags.map { spec throws(SimulatorError) in try VirtualTagFactory.make(spec) }
        #expect(tags[0].target.uid.count == 7 && tags[0].target.uid.first == 0x04)
        #expect(tags[1].target.uid.count == 4 && !tags[1].target.hasRandomUID)
        #expect(tags[2].target.uid.prefix(2) == [0x01, 0x2E])
        let again = try VirtualTagFactory.make(scenario.tags[0])
        #expect(again.target.uid == tags[0].target.uid)
    }

    @Test func timelinePlacesAndRemovesInOrder() throws {
        let scenario = try parse("""
            tags: [{id: a, type: ntag213}, {id: b, type: ntag215}]
            timeline:
              events:
                - {at: 0, place: [a]}
                - {at: 20ms, remove: a, place: [b]}
            """)
        let field = RFField(), catalog = TagCatalog()
        for spec in scenario.tags { try catalog.define(spec) }
        let changed = DispatchSemaphore(value: 0)
        field.addObserver { changed.signal() }
        let player = TimelinePlayer(timeline: try #require(scenario.timeline), field: field, catalog: catalog)
        player.start()
        defer { player.stop() }
        // place a, remove a, place b: three changes.
        for _ in 0..<3 { #expect(changed.wait(timeout: .now() + 10) == .success) }
        #expect(field.placedTags.map(\.id) == ["b"])
    }
}

extension PN532ScenarioTests {
    /// The example in docs/simulator.md parses and every tag in it builds.
    @Test func documentedExampleIsValid() throws {
        let docs = try String(contentsOfFile: Binaries.packageRoot.appendingPathComponent("docs/simulator.md").path, encoding: .utf8)
        let section = try #require(docs.range(of: "## Scenario files"))
        let start = try #require(docs.range(of: "```yaml\n", range: section.upperBound..<docs.endIndex))
        let end = try #require(docs.range(of: "```", range: start.upperBound..<docs.endIndex))
        let scenario = try Scenario.parse(String(docs[start.upperBound..<end.lowerBound]), file: "simulator.md")
        #expect(scenario.tags.map(\.id) == ["poster", "locked", "badge", "card", "ticket"])
        for spec in scenario.tags { _ = try VirtualTagFactory.make(spec) }
        #expect(scenario.tags[1].ndef == [UInt8](hex: "D1010C55046578616D706C652E636F6D"))
        #expect(scenario.timeline?.period == .seconds(12))
        #expect(scenario.timeline?.events.last?.at == .milliseconds(9500))
    }
}
