/// Runs the enabled rows of ``CloneProbeTable`` on one tag. Never writes (see the table).
public enum CloneProbes {
    /// A probe that fired, and what it saw (for logs and tests; the `trust` object carries the name).
    public struct Finding: Sendable, Equatable {
        /// The probe.
        public let name: CloneProbe.Name
        /// What it saw, for people.
        public let detail: String
    }

    /// The findings of the probes in `enabled`, in table order, for the tag `info` describes.
    /// `signature` is the originality check's outcome (nil when it did not run), which
    /// ``CloneProbe/Name/versionSignatureMismatch`` needs. Throws only what ends the scan (the tag left
    /// and cannot be re-selected, cancellation).
    public static func run(
        _ enabled: Set<CloneProbe.Name>, info: CardInfo, signature: OriginalityCheck.Outcome?, transport: any TagTransport
    ) async throws -> [Finding] {
        var findings: [Finding] = []
        for probe in CloneProbeTable.probes where enabled.contains(probe.name) {
            let detail: String?
            switch probe.name {
            case .uidStructure: detail = uidStructure(info)
            case .versionSignatureMismatch: detail = versionSignatureMismatch(info, signature: signature)
            case .gen1aBackdoor: detail = try await gen1aBackdoor(info, transport: transport)
            case .gen4GTU: detail = try await gen4GTU(info, transport: transport)
            }
            if let detail { findings.append(Finding(name: probe.name, detail: detail)) }
        }
        return findings
    }

    // MARK: uid_structure

    /// What is wrong with the UID's structure, or nil.
    static func uidStructure(_ info: CardInfo) -> String? {
        // ATQA b8b7 (of its low byte): 00 single (4 bytes), 01 double (7), 10 triple (10) —
        // ISO/IEC 14443-3 §6.3.2. The ATQA is kept MSB first.
        if let atqa = info.atqa, atqa.count == 2 {
            let sizeBits = (atqa[1] >> 6) & 0x03
            let expected: Int? = switch sizeBits {
            case 0: 4
            case 1: 7
            case 2: 10
            default: nil
            }
            if let expected, expected != info.uid.count {
                return "ATQA \(atqa.hexString) announces a \(expected)-byte UID, the UID has \(info.uid.count) bytes"
            }
        }
        let family = info.type.family
        if family == .mifareUltralight || family == .ntag, info.version != nil || info.product != nil {
            if info.uid.count != 7 {
                return "an NXP Ultralight / NTAG always has a 7-byte UID, this one has \(info.uid.count) bytes"
            }
        }
        if let version = info.version, version.count >= 2, version[1] == ICManufacturer.nxp, info.uid.count == 7,
            info.uid.first != ICManufacturer.nxp
        {
            return "the version answer names NXP (vendor 04h) but the UID starts with \(info.uid[0].hexString), not 04h"
        }
        return nil
    }

    // MARK: version_signature_mismatch

    /// The disagreement between the product and its signature, or nil.
    static func versionSignatureMismatch(_ info: CardInfo, signature: OriginalityCheck.Outcome?) -> String? {
        let product = info.product?.name ?? info.type.description
        switch signature {
        case .invalid:
            return "\(product) by its version, but its originality signature verifies against no NXP key"
        case let .unreadable(why):
            return "\(product) by its version, but it gave no originality signature (\(why))"
        case .valid, .unsupported, nil:
            return nil
        }
    }

    // MARK: gen1a_backdoor

    /// The Gen1a unlock: HLTA, then the 7-bit 40h and the 8-bit 43h, each answered by a 4-bit ACK
    /// (0Ah) on a magic card; a genuine card stays silent. The tag is re-selected after, whatever
    /// happened, so the scan goes on with it selected. Nothing is written: the unlocked card is only
    /// re-selected, which leaves the backdoor.
    static func gen1aBackdoor(_ info: CardInfo, transport: any TagTransport) async throws -> String? {
        let family = info.type.family
        guard transport.target.modulation == .iso14443a,
            family == .mifareClassic || family == .mifareUltralight || family == .ntag,
            let shortFrames = transport as? any ShortFrameTransport
        else { return nil }
        var fired = false
        do {
            let halt: [UInt8] = [0x50, 0x00]
            _ = try? await shortFrames.transceiveBits(halt + ISO14443.crcA(halt), bitCount: 32)
            let first = try await shortFrames.transceiveBits([0x40], bitCount: 7)
            if first.first.map({ $0 & 0x0F }) == 0x0A {
                let second = try await shortFrames.transceiveBits([0x43], bitCount: 8)
                fired = second.first.map { $0 & 0x0F } == 0x0A
            }
        } catch let error as NFCError where error != .tagRemoved {
            // Silence or a broken frame: not a Gen1a card.
        }
        try await transport.reselect()
        return fired ? "answered the Gen1a unlock (7-bit 40h, then 43h) with ACKs" : nil
    }

    // MARK: gen4_gtu

    /// The Gen4 GTU version read with the factory password: `CF 00 00 00 00 CC` (Proxmark3
    /// doc/magic_cards_notes.md, "UMC": CFh, the 4-byte password, then the sub-command; CCh answers
    /// the version, `00 00 00 03 A0` or `06 A0`). Not C6h (get config), which the same notes say
    /// changes the configuration of some cards. Sent with CRC as a raw frame (InCommunicateThru on a
    /// PN53x, so no reader takes CFh for one of its own MIFARE commands). Any answer of two bytes or
    /// more is a Gen4 GTU (a genuine card NAKs with 4 bits or stays silent). The tag is re-selected
    /// after, whatever happened. Read-only: no other Gen4 sub-command is ever sent.
    static func gen4GTU(_ info: CardInfo, transport: any TagTransport) async throws -> String? {
        let family = info.type.family
        guard transport.target.modulation == .iso14443a,
            family == .mifareClassic || family == .mifareUltralight || family == .ntag
        else { return nil }
        var answer: [UInt8] = []
        do {
            answer = try await transport.transceive(gen4Version, framing: .raw)
        } catch let error as NFCError where error != .tagRemoved {
            // A NAK, silence or a broken frame: not a Gen4 GTU card (or not with the factory password).
        }
        try await transport.reselect()
        guard answer.count >= 2 else { return nil }
        return "answered the Gen4 GTU version read (CF 00000000 CC) with \(answer.hexString)"
    }

    /// CFh, the factory password 00000000, CCh (version).
    static let gen4Version: [UInt8] = [0xCF, 0x00, 0x00, 0x00, 0x00, 0xCC]
}
