import Foundation
import TestSupport
import Testing

/// Issue 23, "the first hour": docs/mqtt.md's `mosquitto_rr` examples used a response topic the sample
/// ACL refuses. Each example's response topic (`-e`) must be one the agent may publish to under the
/// sample ACL (deploy/mosquitto/nfcbridge.acl: `pattern write nfc/%u/#`, the agent's id being its user)
/// and the operator may read (`user operator` … `topic read nfc/#`).
@Suite struct DocsResponseTopicACLTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: Binaries.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The value after `flag` in the command `line` (space-separated), nil without it.
    static func value(of flag: String, in line: String) -> String? {
        let words = line.split(separator: " ").map(String.init)
        guard let index = words.firstIndex(of: flag), index + 1 < words.count else { return nil }
        return words[index + 1]
    }

    @Test func everyMosquittoRRExampleAnswersOnATopicTheSampleACLAllows() throws {
        let acl = try Self.text("deploy/mosquitto/nfcbridge.acl").split(separator: "\n").map(String.init)
        #expect(acl.contains("pattern write nfc/%u/#"), "the agent writes below nfc/<its user>/")
        let operatorBlock = acl.drop { $0 != "user operator" }.prefix { !$0.hasPrefix("user ") || $0 == "user operator" }
        #expect(operatorBlock.contains("topic read nfc/#"), "the operator reads nfc/#")

        let lines = try Self.text("docs/mqtt.md").split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("mosquitto_rr ") }
        #expect(!lines.isEmpty, "docs/mqtt.md has a mosquitto_rr example")
        for line in lines {
            let request = try #require(Self.value(of: "-t", in: line), "\(line)")
            let response = try #require(Self.value(of: "-e", in: line), "\(line)")
            let parts = request.split(separator: "/")
            try #require(parts.count >= 3 && parts[0] == "nfc" && parts[2] == "request", "\(request)")
            let agent = parts[1]
            #expect(response.hasPrefix("nfc/\(agent)/") && !response.contains("+") && !response.contains("#"),
                    "\(response): the agent \(agent) may publish only below nfc/\(agent)/")
        }
    }
}
