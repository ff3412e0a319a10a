import Testing
@testable import MQTTClient

@Suite struct LibraryTests {
    @Test func linkedAgainstLibmosquitto2() {
        #expect(MosquittoLibrary.version.major == 2)
    }
}
