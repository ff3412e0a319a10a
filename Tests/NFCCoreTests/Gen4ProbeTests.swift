import NFCCore
@testable import PN532Sim
import Testing

/// The `gen4_gtu` clone probe (``CloneProbeTable``) against PN532Sim's own Gen4 GTU clones and genuine
/// cards on the in-process transport: the magic card answers `CF 00000000 CC` (Proxmark3
/// doc/magic_cards_notes.md, "UMC"), a genuine one refuses it, and either way the tag is selected
/// again and answers READ afterwards. The probe sends that one frame only (never a write).
@Suite struct Gen4ProbeTests {
    static func findings(_ tag: any VirtualTag) async throws -> (findings: [CloneProbes.Finding], transport: VirtualTagTransport) {
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        return (try await CloneProbes.run([.gen4GTU], info: info, signature: nil, transport: transport), transport)
    }

    @Test func aGen4UltralightAndClassicAreFlagged() async throws {
        let ultralight = VirtualType2Tag(model: .ntag215, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], gen4: true)
        let (found, transport) = try await Self.findings(ultralight)
        #expect(found.map(\.name) == [.gen4GTU])
        #expect(found.first?.detail.contains("00000006A0") == true, "\(found)")
        // Still selected: READ page 0 answers the UID's first bytes.
        #expect(try await transport.transceive([0x30, 0x00], framing: .standard).prefix(3) == [0x04, 0x11, 0x22])

        let classic = try VirtualClassicTag(model: .classic1K, uid: [0x9A, 0x1B, 0x2C, 0x3F], gen4: true)
        #expect(try await Self.findings(classic).findings.map(\.name) == [.gen4GTU])
    }

    @Test func genuineCardsRefuseItAndAreScannedOn() async throws {
        let ntag = VirtualType2Tag(model: .ntag215, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x67])
        let (found, transport) = try await Self.findings(ntag)
        #expect(found.isEmpty)
        #expect(try await transport.transceive([0x30, 0x00], framing: .standard).prefix(3) == [0x04, 0x11, 0x22])
        let classic = try VirtualClassicTag(model: .classic1K, uid: [0x9A, 0x1B, 0x2C, 0x3E])
        #expect(try await Self.findings(classic).findings.isEmpty)
    }

    /// The row: off by default (it costs a waited-out frame on a genuine tag), read-only.
    @Test func theRowIsOffByDefault() {
        let row = CloneProbeTable.probes.first { $0.name == .gen4GTU }
        #expect(row?.isDefault == false)
        #expect(!CloneProbeTable.defaultNames.contains(.gen4GTU))
        #expect(row?.source.contains("magic_cards_notes.md") == true)
    }
}
