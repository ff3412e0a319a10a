import NFCCore
import Synchronization
import Testing

/// An ISO-DEP transport that plays a script: each APDU must be the next expected one (hex), and gets
/// the scripted answer or error. An unexpected APDU fails the test; ``verifyAllConsumed()`` fails on
/// leftovers.
final class ScriptedAPDUTransport: APDUTransport, Sendable {
    enum Reply: Sendable {
        case bytes(String)
        case error(NFCError)
    }

    let target: Target
    private let steps: Mutex<[(expected: [UInt8], reply: Reply)]>
    private let log = Mutex<[[UInt8]]>([])

    init(target: Target = Target(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], atqa: [0x00, 0x04], sak: 0x20,
                                 ats: [0x75, 0x77, 0x81, 0x02, 0x80]),
         _ script: [(String, Reply)]) {
        self.target = target
        self.steps = Mutex(script.map { ([UInt8](hex: $0.0) ?? [], $0.1) })
    }

    var sentAPDUs: [[UInt8]] { log.withLock { $0 } }

    func sendAPDU(_ apdu: [UInt8]) async throws -> [UInt8] {
        log.withLock { $0.append(apdu) }
        let step: (expected: [UInt8], reply: Reply)? = steps.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let step else {
            Issue.record("unexpected APDU \(apdu.hexString) after the script ended")
            throw NFCError.timeout
        }
        #expect(apdu.hexString == step.expected.hexString)
        switch step.reply {
        case let .bytes(hex): return [UInt8](hex: hex) ?? []
        case let .error(error): throw error
        }
    }

    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        try await sendAPDU(command)
    }

    func reselect() async throws {}

    func verifyAllConsumed() {
        let left = steps.withLock { $0.map { $0.expected.hexString } }
        #expect(left.isEmpty, "script steps left: \(left)")
    }
}
