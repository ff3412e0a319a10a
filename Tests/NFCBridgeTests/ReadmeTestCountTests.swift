import Foundation
import TestSupport
import Testing

/// Issue 23, "the first hour": README said 799 tests when there were twice as many. Its "about N tests"
/// stays within 15 % of the `@Test` functions under Tests/ (a drift check, not a census).
@Suite struct ReadmeTestCountTests {
    @Test func theReadmeTestCountIsCloseToTheTestsThere() throws {
        let root = Binaries.packageRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let match = try #require(readme.firstMatch(of: /about ([0-9,]+) tests/), "README states no test count")
        let stated = try #require(Int(match.1.replacingOccurrences(of: ",", with: "")))
        var counted = 0
        let files = try #require(FileManager.default.enumerator(atPath: root.appendingPathComponent("Tests").path))
        for case let path as String in files where path.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent("Tests").appendingPathComponent(path), encoding: .utf8)
            counted += text.components(separatedBy: "@Test").count - 1
        }
        #expect(counted > 0)
        #expect(abs(stated - counted) * 100 <= counted * 15, "README says about \(stated) tests; Tests/ has \(counted) @Test")
    }
}
