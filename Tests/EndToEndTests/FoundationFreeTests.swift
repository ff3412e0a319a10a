import Testing
import TestSupport

/// Issue 13 (RSS): the `nfcbridge` executable links FoundationEssentials but not Foundation, its ICU or
/// FoundationInternationalization (about 6 MB of the agent's RSS). One `import Foundation` in any
/// module it links brings them back, and this test says so.
@Suite struct FoundationFreeTests {
    @Test func nfcbridgeLinksNoFoundationOrICU() throws {
        let result = try runProcess("/usr/bin/ldd", [Binaries.path("nfcbridge")])
        #expect(result.status == 0)
        let libraries = result.out.split(separator: "\n").map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? "" }
        #expect(libraries.contains("libFoundationEssentials.so"), "ldd listed: \(libraries)")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!libraries.contains(library), "\(library) is linked: some module imports Foundation")
        }
    }
}
