import NFCCore
import Testing
@testable import PN532Sim

/// DESFire scenario kinds: every variant builds, `applications:` reads every file type, bad definitions
/// name the line, and the built card answers with its own tables.
@Suite struct DESFireScenarioTests {
    func parse(_ yaml: String) throws(SimulatorError) -> Scenario { try Scenario.parse(yaml, file: "test.yaml") }

    @Test(arguments: [("desfire_ev1", VirtualDESFireTag.Model.ev1), ("desfire_ev2", .ev2), ("desfire_ev3", .ev3),
                      ("desfire_light", .light), ("ntag424_dna", .ntag424), ("DESFire-EV2", .ev2)])
    func everyVariantBuildsWithTheDemoLayout(name: String, model: VirtualDESFireTag.Model) throws {
        let scenario = try parse("tags:\n  - id: card\n    type: \(name)\n")
        let tag = try #require(try TagCatalog().define(scenario.tags[0]) as? VirtualDESFireTag)
        #expect(tag.model == model)
        #expect(tag.target.uid.count == 7 && tag.target.sak == 0x20)
        // GetVersion, wrapped: first frame the hardware part, status AF.
        #expect(tag.process(apdu: [0x90, 0x60, 0x00, 0x00, 0x00]).suffix(2) == [0x91, 0xAF])
        let apps = DESFireScenario.demoApplications(model: model)
        // DESFire Light and NTAG 424 DNA hold one application (MF2DL(H)x0 §8.2, NT4H2421Gx §8.2).
        #expect(apps.count == (model == .light || model == .ntag424 ? 1 : 3))
    }

    @Test func applicationsReadEveryFileType() throws {
        let scenario = try parse("""
            tags:
              - id: badge
                type: desfire_ev2
                uid: 04 2F 19 0A CD 66 80
                directory_protected: false
                ndef: {uri: "https://example.com"}
                applications:
                  - aid: "563412"
                    df_name: "A1A2A3"
                    files:
                      - {id: 1, type: standard, read: free, data: "1337"}
                      - {id: 2, type: backup, comm: mac, read: free, write: 3, data: "0102"}
                      - {id: 3, type: value, comm: full, read: 2, read_write: free, value: -5, lower: -10, upper: 10, limited_credit: 1, limited_credit_enabled: true}
                      - {id: 4, type: linear_record, read: free, record_size: 2, max_records: 4, records: ["0A0B", "0C0D"]}
                      - {id: 5, type: cyclic_record, read: never, read_write: never, change: never, record_size: 4}
                  - aid: "020000"
                    list_protected: true
            """)
        let spec = scenario.tags[0]
        let apps = try #require(spec.applications)
        #expect(apps.map(\.aid) == [[0x56, 0x34, 0x12], [0x02, 0x00, 0x00]])
        #expect(apps[0].dfName == [0xA1, 0xA2, 0xA3])
        #expect(apps[1].listRequiresAuthentication && apps[1].files.isEmpty)
        let files = apps[0].files
        #expect(files[0] == VirtualDESFireTag.File(id: 1, read: 0x0E, contents: .standard([0x13, 0x37])))
        #expect(files[1] == VirtualDESFireTag.File(id: 2, communication: 0x01, read: 0x0E, write: 3, contents: .backup([1, 2])))
        #expect(files[2] == VirtualDESFireTag.File(id: 3, communication: 0x03, read: 2, readWrite: 0x0E,
                                                    contents: .value(-5, lower: -10, upper: 10, limitedCredit: 1, limitedCreditEnabled: true)))
        #expect(files[3].contents == .linear(recordSize: 2, maxRecords: 4, records: [[0x0A, 0x0B], [0x0C, 0x0D]]))
        #expect(files[4] == VirtualDESFireTag.File(id: 5, read: 0x0F, readWrite: 0x0F, change: 0x0F,
                                                    contents: .cyclic(recordSize: 4, maxRecords: 1, records: [])))
        let tag = try #require(try TagCatalog().define(spec) as? VirtualDESFireTag)
        #expect(tag.ndefApplication?.ndefMessage.isEmpty == false)
        // ISO SELECT by the application's DF name, then a wrapped ReadData of file 1.
        #expect(tag.process(apdu: [0x00, 0xA4, 0x04, 0x0C, 0x03, 0xA1, 0xA2, 0xA3, 0x00]) == [0x90, 0x00])
        #expect(tag.process(apdu: [0x90, 0xBD, 0x00, 0x00, 0x07, 0x01, 0, 0, 0, 0, 0, 0, 0x00]) == [0x13, 0x37, 0x91, 0x00])
        // The NDEF application answers the Type 4 SELECT.
        #expect(tag.process(apdu: [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]) == [0x90, 0x00])
    }

    @Test func badDefinitionsNameTheLine() {
        func failure(_ yaml: String) -> String? {
            do {
                let scenario = try parse(yaml)
                for spec in scenario.tags { try TagCatalog().define(spec) }
                return nil
            } catch {
                return error.message
            }
        }
        #expect(failure("tags:\n  - id: a\n    type: desfire_ev1\n    applications:\n      - files: []\n")?
            .contains("test.yaml:5") == true)
        #expect(failure("tags:\n  - id: a\n    type: desfire_ev1\n    applications:\n      - aid: \"01\"\n")?
            .contains("aid must have 3 bytes") == true)
        #expect(failure("tags:\n  - id: a\n    type: desfire_ev1\n    applications:\n      - aid: \"010000\"\n        files:\n          - {id: 1, type: purse}\n")?
            .contains("unknown DESFire file type 'purse'") == true)
        #expect(failure("tags:\n  - id: a\n    type: desfire_ev1\n    applications:\n      - aid: \"010000\"\n        files:\n          - {id: 1, type: standard, comm: secret}\n")?
            .contains("comm must be plain, mac or full") == true)
        #expect(failure("tags:\n  - id: a\n    type: desfire_light\n    applications:\n      - aid: \"010000\"\n      - aid: \"020000\"\n")?
            .contains("exactly one application") == true)
        #expect(failure("tags:\n  - id: a\n    type: desfire_ev1\n    uid: 01020304\n")?.contains("uid must have 7 bytes") == true)
    }
}
