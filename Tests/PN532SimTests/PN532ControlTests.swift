import Foundation
import NFCCore
import Testing
@testable import PN532Sim

/// The control channel's JSON requests, handled directly (the socket is exercised by the
/// end-to-end tests through SimulatorProcess).
@Suite struct PN532ControlTests {
    let field = RFField()
    let catalog = TagCatalog()
    let monitor = PN532Monitor()
    var control: SimulatorControl { SimulatorControl(field: field, catalog: catalog, monitor: monitor) }

    init() throws {
        try catalog.define(TagSpec(id: "poster", kind: .ntag213, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]))
    }

    /// Sends a request and decodes the reply.
    func request(_ line: String) throws -> [String: Any] {
        let reply = control.handle(line: line)
        return try #require(try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])
    }

    func errorCode(_ reply: [String: Any]) -> String? {
        (reply["error"] as? [String: Any])?["code"] as? String
    }

    @Test func placeListAndRemove() throws {
        #expect(try request(#"{"cmd":"place","id":"poster"}"#)["uid"] as? String == "04112233445566")
        let listed = try request(#"{"cmd":"list"}"#)
        #expect(listed["field"] as? [String] == ["poster"])
        let tags = try #require(listed["tags"] as? [[String: Any]])
        #expect(tags.first?["type"] as? String == "ntag213")
        #expect(tags.first?["present"] as? Bool == true)
        #expect(try request(#"{"cmd":"remove","id":"poster"}"#)["removed"] as? Int == 1)
        #expect(try request(#"{"cmd":"remove","id":"poster"}"#)["removed"] as? Int == 0)
        #expect(field.placedTags.isEmpty)
    }

    @Test func inlineDefinitionIsDefinedAndPlaced() throws {
        let reply = try request(#"{"cmd":"place","tag":{"id":"card","type":"type4","uid":"04C1C2C3C4C5C6","ndef":[{"text":"hi"}]}}"#)
        #expect(reply["ok"] as? Bool == true)
        #expect(field.contains(id: "card"))
        #expect(catalog.tag(id: "card") is VirtualType4Tag)
        #expect(try request(#"{"cmd":"define","tag":{"id":"card","type":"ntag215"}}"#)["ok"] as? Bool == false)
        #expect(try request(#"{"cmd":"define","tag":{"id":"spare","type":"ntag215"}}"#)["ok"] as? Bool == true)
        #expect(!field.contains(id: "spare"))
    }

    @Test func dumpGivesTheMemoryInHex() throws {
        let reply = try request(#"{"cmd":"dump","id":"poster"}"#)
        let tag = try #require(catalog.tag(id: "poster") as? VirtualType2Tag)
        #expect(reply["memory"] as? String == tag.memory.hexString)
        #expect(reply["unit"] as? Int == 4)
        #expect(errorCode(try request(#"{"cmd":"dump","id":"ghost"}"#)) == "unknown_tag")
        // A FeliCa dump lists its block numbers; a Type 4 dump has the CC and the NDEF message.
        _ = try request(#"{"cmd":"define","tag":{"id":"f","type":"felica_lite_s","ndef":[{"uri":"https://a.b"}]}}"#)
        let felica = try request(#"{"cmd":"dump","id":"f"}"#)
        #expect((felica["blocks"] as? [Int])?.prefix(2) == [0, 1])
        #expect(felica["ndef"] as? String == NDEFMessage(records: [.uri("https://a.b")]).bytesOrEmpty.hexString)
        _ = try request(#"{"cmd":"define","tag":{"id":"t","type":"type4"}}"#)
        #expect((try request(#"{"cmd":"dump","id":"t"}"#)["cc"] as? String)?.hasPrefix("000F20") == true)
    }

    @Test func faultsAreArmed() throws {
        _ = try request(#"{"cmd":"place","id":"poster"}"#)
        #expect(try request(#"{"cmd":"fault","fault":"corrupt_next_write"}"#)["ok"] as? Bool == true)
        #expect(field.takeCorruptNextWrite())
        let reply = try request(#"{"cmd":"fault","fault":"remove_after_commands","count":0}"#)
        #expect(reply["id"] as? String == "poster")
        let placed = try #require(field.placedTags.first)
        #expect(!field.admitCommand(to: placed))
        #expect(!field.contains(id: "poster"))
        #expect(errorCode(try request(#"{"cmd":"fault","fault":"melt"}"#)) == "bad_request")
    }

    /// `garble_next_answer` with a `code` waits for an answer to that command; without, any answer takes it.
    @Test func aGarbleFaultWithACodeWaitsForThatCommandsAnswer() throws {
        #expect(try request(#"{"cmd":"fault","fault":"garble_next_answer","code":"02"}"#)["ok"] as? Bool == true)
        #expect(!field.takeGarbleNextAnswer(code: 0x14))
        #expect(!field.takeGarbleNextAnswer(code: nil))
        #expect(field.takeGarbleNextAnswer(code: 0x02))
        #expect(!field.takeGarbleNextAnswer(code: 0x02))
        #expect(try request(#"{"cmd":"fault","fault":"garble_next_answer"}"#)["ok"] as? Bool == true)
        #expect(field.takeGarbleNextAnswer(code: 0x4A))
        #expect(errorCode(try request(#"{"cmd":"fault","fault":"garble_next_answer","code":"0203"}"#)) != nil)
    }

    /// `cut_next_answers` cuts `count` answers (to `code`), then none.
    @Test func aCutFaultCutsCountAnswersToItsCommand() throws {
        #expect(try request(#"{"cmd":"fault","fault":"cut_next_answers","code":"40","count":2}"#)["ok"] as? Bool == true)
        #expect(!field.takeCutAnswer(code: 0x02))
        #expect(field.takeCutAnswer(code: 0x40))
        #expect(field.takeCutAnswer(code: 0x40))
        #expect(!field.takeCutAnswer(code: 0x40))
        #expect(errorCode(try request(#"{"cmd":"fault","fault":"cut_next_answers","count":0}"#)) != nil)
    }

    @Test func waitCommandTimesOut() throws {
        let reply = try request(#"{"cmd":"wait_command","code":"60","timeout_ms":0}"#)
        #expect(errorCode(reply) == "timeout")
        monitor.record(.command(code: 0x60, parameters: []))
        #expect(try request(#"{"cmd":"wait_command","code":"60","timeout_ms":0}"#)["count"] as? Int == 1)
    }

    @Test func badRequestsSayWhy() throws {
        #expect(errorCode(try request("not json")) == "bad_request")
        #expect(errorCode(try request(#"{"id":"poster"}"#)) == "bad_request")
        #expect(errorCode(try request(#"{"cmd":"explode"}"#)) == "bad_request")
        #expect(errorCode(try request(#"{"cmd":"place","id":"ghost"}"#)) == "unknown_tag")
        let typo = try request(#"{"cmd":"place","idd":"poster"}"#)
        #expect(errorCode(typo) == "bad_scenario")
        #expect(((typo["error"] as? [String: Any])?["message"] as? String)?.contains("unknown key 'idd'") == true)
        #expect(errorCode(try request(#"{"cmd":"place","tag":{"id":"x","type":"ntag215","uid":"12"}}"#)) == "bad_scenario")
    }
}

extension NDEFMessage {
    fileprivate var bytesOrEmpty: [UInt8] { (try? bytes) ?? [] }
}
