import NFCCore
import PN532Sim
import Testing

/// The frames a scan (identification, then the NDEF read — `nfcbridge scan`, the agent's `scanned`)
/// sends to each ISO-DEP family, counted on the in-process virtual tags (issue 25: never an APDU twice,
/// the minimal identification sequence). A probe added or repeated fails here.
@Suite struct ScanFrameCountTests {
    /// An NDEF message with one URI record, `https://example.com/frames` (prefix 04h): 23 bytes.
    static let message: [UInt8] = [0xD1, 0x01, 0x13, 0x55, 0x04] + Array("example.com/frames".utf8)

    /// Identification and NDEF read on `transport`, with the APDUs it sent.
    static func scan(_ transport: VirtualTagTransport) async throws -> (CardInfo, NDEFReadResult, [String]) {
        let info = try await TagIdentifier.identify(transport)
        let ndef = try await NDEFReader.read(info: info, transport: transport)
        return (info, ndef, transport.sentCommands.map(\.hexString))
    }

    /// The NFC Forum Type 4 detection and read (T4T v2.0 §5.4.2–5.4.4) for a 2.0 tag whose NDEF file is
    /// E104h: SELECT the NDEF Tag Application, SELECT the CC file, READ BINARY the CC (15 bytes),
    /// SELECT the NDEF file, READ BINARY NLEN, READ BINARY the message.
    static func type4Read(messageLength: Int) -> [String] {
        [
            "00A4040007D276000085010100", "00A4000C02E103", "00B000000F",
            "00A4000C02E104", "00B0000002", "00B00002" + UInt8(messageLength).hexString,
        ]
    }

    /// A Type 4 tag on ISO 14443-A (SAK 20, no DESFire ATQA): GET_VERSION (one APDU: the card answers
    /// an ISO status word), the detection procedure once, the NDEF file: 7 APDUs, none twice (was 11:
    /// an eMRTD SELECT, and the NDEF application, CC file and CC read a second time).
    @Test func aType4TagOnASendsEachAPDUOnce() async throws {
        let tag = try VirtualType4Tag(uid: [0x04, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC], ndef: Self.message)
        let (info, ndef, sent) = try await Self.scan(VirtualTagTransport(tag: tag))
        #expect(info.type == .type4NDEF)
        #expect(ndef.message == Self.message)
        #expect(sent == ["9060000000"] + Self.type4Read(messageLength: Self.message.count))
        #expect(Set(sent).count == sent.count, "an APDU went twice: \(sent)")
        #expect(info.probes == ["DESFire GET_VERSION: 6E00", "Type 4 CC: ok"])
    }

    /// The same application on an ISO 14443-B card: the same 7 APDUs (was 11).
    @Test func aType4TagOnBSendsEachAPDUOnce() async throws {
        let application = try VirtualType4Tag(uid: [0x04, 1, 2, 3, 4, 5, 6], ndef: Self.message)
        let card = try VirtualTypeBTag(pupi: [0x1A, 0x2B, 0x3C, 0x4D], application: application)
        let (info, ndef, sent) = try await Self.scan(VirtualTagTransport(tag: card))
        #expect(info.type == .type4NDEF)
        #expect(ndef.message == Self.message)
        #expect(sent == ["9060000000"] + Self.type4Read(messageLength: Self.message.count))
    }

    /// A DESFire EV2 with an NDEF application: GetVersion in its three parts (EV1 datasheet §9.5.1: the
    /// version comes in three frames, each but the last with status AFh), then the Type 4 read: 9 APDUs.
    /// The product (EV1/EV2/EV3, memory size) is in GetVersion alone: the ATQA/SAK and the ATS are the
    /// same on every DESFire generation.
    @Test func aDESFireWithNDEFIsVersionedOnceAndReadOnce() async throws {
        let ndef = try VirtualType4Tag(uid: [0x04, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6], ndef: Self.message)
        let tag = try VirtualDESFireTag(uid: [0x04, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6], model: .ev2, applications: [],
                                        ndefApplication: ndef)
        let transport = VirtualTagTransport(tag: tag)
        let (info, result, _) = try await Self.scan(transport)
        #expect(info.type == .mifareDesfireEV2)
        #expect(result.message == Self.message)
        let sent = transport.sentCommands
        #expect(sent.count == 3 + 6, "\(sent.map(\.hexString))")
        #expect(Array(sent.suffix(6).map(\.hexString)) == Self.type4Read(messageLength: Self.message.count))
    }

    /// An NDEF read after something else was selected (a dump's walk, a later command on the agent's
    /// kept identification): the refused NDEF file SELECT brings back the whole detection procedure.
    @Test func aLostSelectionFallsBackToTheWholeProcedure() async throws {
        let tag = try VirtualType4Tag(uid: [0x04, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC], ndef: Self.message)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        try await transport.reselect()
        #expect(try await NDEFReader.read(info: info, transport: transport).message == Self.message)
    }

    /// An eMRTD is asked the LDS SELECT only after GET_VERSION and the Type 4 CC both failed.
    @Test func theEMRTDSelectComesLastAndOnlyWhenNeeded() async throws {
        let transport = ScriptedAPDUTransport([
            ("9060000000", .bytes("6E00")),
            ("00A4040007D276000085010100", .bytes("6A82")),
            ("00A4040C07A0000002471001", .bytes("9000")),
        ])
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .ePassport)
        transport.verifyAllConsumed()
    }
}
