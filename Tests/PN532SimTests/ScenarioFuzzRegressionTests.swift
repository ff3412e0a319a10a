import Testing
@testable import PN532Sim

/// Inputs the scenario fuzz harness (fuzz/harnesses/scenario) found, kept as regression tests.
@Suite struct ScenarioFuzzRegressionTests {
    /// A time too large for the Int64 milliseconds of a `Duration` trapped ("Double value cannot be
    /// converted to Int64"); it is a scenario error with its line now. A year is the limit.
    @Test(arguments: ["1e300", "1e300ms", "9223372036854775807s", "31536001"])
    func hugeTimesAreScenarioErrors(time: String) {
        let yaml = """
            tags:
              - id: t
                type: ntag213
            timeline:
              - at: \(time)
                place: t
            """
        #expect(throws: SimulatorError.scenario(
            file: "fuzz.yaml", line: 5, message: "at '\(time)' is longer than a year (31536000 s)")) {
            try Scenario.parse(yaml, file: "fuzz.yaml")
        }
        let period = "tags: [{id: t, type: ntag213}]\ntimeline: {loop: true, period: \(time), events: [{at: 1, place: t}]}\n"
        #expect(throws: SimulatorError.self) { try Scenario.parse(period, file: "fuzz.yaml") }
        // A year still reads.
        #expect(throws: Never.self) {
            try Scenario.parse(yaml.replacingOccurrences(of: "at: \(time)", with: "at: 31536000"), file: "fuzz.yaml")
        }
    }

    /// Issue 20 ("a YAML config nested 30,000 levels deep kills `run` … The same reader loads
    /// scenarios"): a scenario nested 30,000 levels deep, in flow and in block style, is a scenario
    /// error naming the reader's depth limit, never a crash.
    @Test(arguments: [
        "tags: " + String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000) + "\n",
        "tags: " + String(repeating: "{a: ", count: 30_000) + "1" + String(repeating: "}", count: 30_000) + "\n",
    ])
    func aScenarioThirtyThousandLevelsDeepIsRefusedWithTheLimit(yaml: String) {
        do {
            _ = try Scenario.parse(yaml, file: "deep.yaml")
            Issue.record("a 30,000-deep scenario was read")
        } catch {
            guard case let .scenario(file, _, message) = error else {
                Issue.record("not a scenario error: \(error)")
                return
            }
            #expect(file == "deep.yaml")
            #expect(message.contains("nesting deeper than 256 levels"), "\(message)")
        }
    }
}
