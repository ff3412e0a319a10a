import Testing
@testable import NFCBridge

@Suite struct AgentVersionTests {
    @Test func versionIsSemantic() {
        #expect(NFCBridgeAgent.version.split(separator: ".").count == 3)
    }
}
