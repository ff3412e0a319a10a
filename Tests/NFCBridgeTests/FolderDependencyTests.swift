import Foundation
import TestSupport
import Testing

/// The folders of `Sources/NFCBridge` use each other in one direction only (docs/architecture.md,
/// "Folders inside NFCBridge"; `scripts/folder-deps.py` prints the same graph with its edges).
/// A folder uses another when one of its files names a type declared at the top level of a file
/// there (comments and string literals left out).
@Suite struct FolderDependencyTests {
    /// Folder → the folders it uses.
    static func graph(of root: URL) throws -> [String: Set<String>] {
        let paths = try FileManager.default.subpathsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".swift") }
        var files: [(folder: String, text: String)] = []
        for path in paths {
            let folder = path.contains("/") ? String(path.prefix { $0 != "/" }) : "."
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            files.append((folder, text.replacing(#/"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|//[^\n]*|[/]\*[\s\S]*?\*[/]/#, with: "\"\"")))
        }
        let declaration =
            #/(?m)^(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect)\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)/#
        var owner: [Substring: String] = [:]
        for file in files {
            for match in file.text.matches(of: declaration) { owner[match.output.1] = file.folder }
        }
        var graph: [String: Set<String>] = [:]
        for file in files {
            // Whole identifiers (`\b` would not do: Unicode word boundaries keep `TopicMap.problem` one word).
            for match in file.text.matches(of: #/\w+/#) {
                if let used = owner[match.output], used != file.folder { graph[file.folder, default: []].insert(used) }
            }
        }
        return graph
    }

    /// A cycle of `graph` (its folders in order), or nil.
    static func cycle(in graph: [String: Set<String>]) -> [String]? {
        var done: Set<String> = []
        var path: [String] = []
        func visit(_ folder: String) -> [String]? {
            if let start = path.firstIndex(of: folder) { return Array(path[start...]) + [folder] }
            guard !done.contains(folder) else { return nil }
            path.append(folder)
            for used in (graph[folder] ?? []).sorted() {
                if let found = visit(used) { return found }
            }
            path.removeLast()
            done.insert(folder)
            return nil
        }
        for folder in graph.keys.sorted() {
            if let found = visit(folder) { return found }
        }
        return nil
    }

    @Test func theCheckFindsACycle() {
        #expect(Self.cycle(in: ["A": ["B"], "B": ["C"], "C": ["A"], "D": ["A"]]) == ["A", "B", "C", "A"])
        #expect(Self.cycle(in: ["A": ["B"], "B": ["C"], "D": ["A", "C"]]) == nil)
    }

    @Test func nfcbridgeFoldersHaveNoCycle() throws {
        let graph = try Self.graph(of: Binaries.packageRoot.appendingPathComponent("Sources/NFCBridge"))
        // The check sees the folders' uses at all (Agent/ wires everything).
        #expect(graph["Agent"]?.isSuperset(of: ["Config", "Publishing", "Commands", "Topics"]) == true)
        let cycle = Self.cycle(in: graph)
        #expect(cycle == nil, "Sources/NFCBridge folders use each other in a cycle: \(cycle?.joined(separator: " → ") ?? "")")
        // Topics/ takes values, not the configuration; Config/ knows no folder that reads it.
        #expect(graph["Topics"] == nil, "Topics/ uses \(graph["Topics"] ?? [])")
        #expect(graph["Config"]?.isDisjoint(with: ["Commands", "Publishing", "Events", "Agent"]) == true)
    }
}
