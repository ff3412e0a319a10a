import Testing
@testable import LibNFCReader

@Suite struct LibNFCLinkTests {
    @Test func linkedAgainstLibnfc18() {
        #expect(LibNFC.version.hasPrefix("1.8"))
    }
}
