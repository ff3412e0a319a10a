import Testing

@testable import NFCBridge
import YAMLDocument

@Suite struct YAMLParserTests {
    @Test func keepsLinesAndQuoting() throws {
        let root = try YAMLParser.parse("a: 1\nb:\n  c: \"2\"\n  d: [x, y]\n")
        guard case let .mapping(entries, _) = root else {
            Issue.record("not a mapping")
            return
        }
        #expect(entries.map(\.key) == ["a", "b"])
        #expect(entries[0].value == .scalar("1", line: 1, plain: true))
        guard case let .mapping(inner, line) = entries[1].value else {
            Issue.record("b is not a mapping")
            return
        }
        #expect(line == 3)
        #expect(inner[0].value == .scalar("2", line: 3, plain: false))
        #expect(inner[1].value == .sequence([.scalar("x", line: 4, plain: true), .scalar("y", line: 4, plain: true)], line: 4))
    }

    @Test func refusesAliasesAndSecondDocuments() {
        #expect(throws: YAMLSyntaxError.self) { try YAMLParser.parse("a: &x 1\nb: *x\n") }
        #expect(throws: YAMLSyntaxError.self) { try YAMLParser.parse("a: 1\n---\nb: 2\n") }
    }

    @Test func emptyDocumentIsAnEmptyMapping() throws {
        #expect(try YAMLParser.parse("") == .mapping([], line: 1))
        #expect(try YAMLParser.parse("# only a comment\n") == .mapping([], line: 1))
        #expect(try YAMLParser.parse("~\n").isNull)
    }
}
