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

    /// The syntax error `text` is refused with, or nil when it parses.
    static func refusal(_ text: String) -> YAMLSyntaxError? {
        do {
            _ = try YAMLParser.parse(text)
            return nil
        } catch {
            return error
        }
    }

    /// Issue 20: a document nested 30,000 levels deep overflowed the reader's stack.
    @Test func aThirtyThousandDeepSequenceIsRefusedWithTheLimit() throws {
        let depth = 30_000
        let error = try #require(Self.refusal("x: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n"))
        #expect(error.line == 1)
        #expect(error.message.contains("nesting deeper than \(YAMLParser.maximumNestingDepth) levels at line 1"), "\(error.message)")
    }

    @Test func aThirtyThousandDeepFlowMappingIsRefusedWithTheLimit() throws {
        let depth = 30_000
        let error = try #require(Self.refusal(String(repeating: "{a: ", count: depth) + "1" + String(repeating: "}", count: depth) + "\n"))
        #expect(error.message.contains("nesting deeper than \(YAMLParser.maximumNestingDepth) levels"), "\(error.message)")
    }

    @Test func deepBlockNestingIsRefusedAtTheLineItGoesTooDeep() throws {
        // One block mapping per line, each indented one more: level n starts on line n.
        let levels = YAMLParser.maximumNestingDepth + 1
        let text = (0..<levels).map { String(repeating: " ", count: $0) + "k:" }.joined(separator: "\n") + " 1\n"
        let error = try #require(Self.refusal(text))
        #expect(error.line == levels)
        #expect(error.message.contains("nesting deeper than \(YAMLParser.maximumNestingDepth) levels at line \(levels)"), "\(error.message)")
    }

    @Test func nestingUpToTheLimitParses() throws {
        // The root mapping plus limit - 1 sequences: exactly the limit.
        let inner = YAMLParser.maximumNestingDepth - 1
        var node = try YAMLParser.parse("x: " + String(repeating: "[", count: inner) + "1" + String(repeating: "]", count: inner) + "\n")
        var depth = 0
        while true {
            depth += 1
            if case let .mapping(entries, _) = node, let first = entries.first {
                node = first.value
            } else if case let .sequence(items, _) = node, let first = items.first {
                node = first
            } else {
                break
            }
        }
        #expect(depth == YAMLParser.maximumNestingDepth + 1)  // the collections and the scalar 1
        #expect(node == .scalar("1", line: 1, plain: true))
        // One more level is refused.
        #expect(Self.refusal("x: " + String(repeating: "[", count: inner + 1) + String(repeating: "]", count: inner + 1)) != nil)
    }

    @Test func aHundredThousandDistinctKeysParse() throws {
        let count = 100_000
        let text = (0..<count).map { "key\($0): \($0)" }.joined(separator: "\n") + "\n"
        guard case let .mapping(entries, _) = try YAMLParser.parse(text) else {
            Issue.record("not a mapping")
            return
        }
        #expect(entries.count == count)
        #expect(entries.last?.key == "key\(count - 1)")
        #expect(entries.last?.line == count)
    }

    @Test func aDuplicateKeyNamesTheFirstLine() throws {
        let error = try #require(Self.refusal("a: 1\nb: 2\na: 3\n"))
        #expect(error.line == 3)
        #expect(error.message == "duplicate key 'a' (first on line 1)")
    }
}
