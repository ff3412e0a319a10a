import NFCCore
import PN532Sim
import Synchronization
import Testing

/// A virtual DESFire card (PN532Sim) whose answers the test rewrites on the way back, as a card with
/// one damaged or lying file would give them.
private final class TamperedAPDUTransport: APDUTransport, Sendable {
    /// Rewrites the answer to `command`; `application` is the last AID SelectApplication (5Ah) chose,
    /// `chainStart` the command (INS) the current AF chain began with.
    typealias Rewrite = @Sendable (_ command: [UInt8], _ answer: [UInt8], _ application: [UInt8], _ chainStart: UInt8?) -> [UInt8]

    let base: VirtualTagTransport
    private let rewrite: Rewrite
    private let state = Mutex<(application: [UInt8], chainStart: UInt8?)>(([], nil))

    init(_ base: VirtualTagTransport, rewrite: @escaping Rewrite) {
        self.base = base
        self.rewrite = rewrite
    }

    var target: Target { base.target }
    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] { try await base.transceive(command, framing: framing) }
    func reselect() async throws { try await base.reselect() }

    func sendAPDU(_ apdu: [UInt8]) async throws -> [UInt8] {
        let answer = try await base.sendAPDU(apdu)
        let (application, chainStart) = state.withLock { state in
            // A native command is INS + data; a wrapped one 90 INS 00 00 Lc data 00.
            let wrapped = apdu.first == 0x90 && apdu.count >= 5
            let ins = wrapped ? apdu[1] : apdu.first
            let data = wrapped ? Array(apdu.dropFirst(5).dropLast()) : Array(apdu.dropFirst())
            if ins == 0x5A { state.application = data }
            if let ins, ins != 0xAF { state.chainStart = ins }
            return (state.application, state.chainStart)
        }
        return rewrite(apdu, answer, application, chainStart)
    }
}

/// One bad file does not fail a DESFire dump (issue 20): the file is named with its error in the
/// facts, the others are dumped, and the dump is partially readable.
@Suite private struct DESFireBadFileTests {
    typealias V = VirtualDESFireTag
    static let uid: [UInt8] = [0x04, 0x52, 0x61, 0x7A, 0x3B, 0x40, 0x81]
    static let appA: [UInt8] = [0x01, 0x00, 0x00]

    /// App 000001 with three free standard files (10, 20 and 30 bytes), app 000002 with one more.
    static func card(ndef: VirtualType4Tag? = nil, rewrite: @escaping TamperedAPDUTransport.Rewrite) throws -> TamperedAPDUTransport {
        let data = { (n: Int) in [UInt8]((0..<n).map { UInt8($0) }) }
        let tag = try V(uid: uid, model: .ev1, applications: [
            V.Application(aid: appA, files: [
                V.File(id: 0x00, read: V.free, contents: .standard(data(10))),
                V.File(id: 0x01, read: V.free, contents: .standard(data(20))),
                V.File(id: 0x02, read: V.free, contents: .standard(data(30))),
            ]),
            V.Application(aid: [0x02, 0x00, 0x00], files: [V.File(id: 0x00, read: V.free, contents: .standard(data(5)))]),
        ], ndefApplication: ndef)
        return TamperedAPDUTransport(VirtualTagTransport(tag: tag), rewrite: rewrite)
    }

    /// Native GetFileSettings of file 01 in app 000001 answers with its 3-byte size replaced.
    static func fileOneClaims(_ size: Int) -> TamperedAPDUTransport.Rewrite {
        { command, answer, application, _ in
            guard command == [0xF5, 0x01], application == appA, answer.count >= 8 else { return answer }
            var out = answer
            out[5] = UInt8(size & 0xFF)
            out[6] = UInt8(size >> 8 & 0xFF)
            out[7] = UInt8(size >> 16 & 0xFF)
            return out
        }
    }

    static func dump(_ transport: TamperedAPDUTransport) async throws -> TagDump {
        try await TagDumper.dump(info: try await TagIdentifier.identify(transport), transport: transport)
    }

    @Test func aFileWhoseDataDisagreesWithItsSettingsIsSkippedAndTheOthersDumped() async throws {
        let transport = try Self.card(rewrite: Self.fileOneClaims(21))
        let dump = try await Self.dump(transport)
        #expect(dump.files.map(\.name) == ["010000/00", "010000/02", "020000/00"])
        #expect(dump.fact("Skipped") == "010000/01")
        #expect(dump.fact("File 010000/01")?.contains("skipped: answer not understood (16 bytes: ") == true)
        #expect(dump.capabilities.contains(.partiallyReadable))
    }

    @Test func aFileClaimingMoreThanTheCardsMemoryIsNotRead() async throws {
        let transport = try Self.card(rewrite: Self.fileOneClaims(1 << 20))
        let dump = try await Self.dump(transport)
        #expect(dump.files.map(\.name) == ["010000/00", "010000/02", "020000/00"])
        #expect(dump.fact("File 010000/01")?.contains("skipped: its settings claim 1048576 bytes, more than the card's 4096-byte memory") == true)
        // No ReadData of file 01 went out.
        #expect(!transport.base.sentCommands.contains([0xBD, 0x01, 0, 0, 0, 0, 0, 0]))
    }

    @Test func aGetVersionOf29BytesIsKeptAndTheCardDumped() async throws {
        // The last GetVersion frame gets one byte more (identification reads it wrapped:
        // 90 60 00 00 00, then 90 AF 00 00 00 until 91 00).
        let transport = try Self.card { command, answer, _, chainStart in
            guard chainStart == 0x60, command == [0x90, 0xAF, 0x00, 0x00, 0x00], answer.suffix(2) == [0x91, 0x00] else { return answer }
            return answer.dropLast(2) + [0x1F, 0x91, 0x00]
        }
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .mifareDesfireEV1)
        let dump = try await TagDumper.dump(info: info, transport: transport)
        #expect(dump.files.count == 4)
        #expect(dump.cardInfo.version?.count == 29)
        #expect(dump.desfire?.version.trailing == [0x1F])
    }

    @Test func anNDEFFileWhoseNLENPassesItsEndIsNamedAndTheFilesStand() async throws {
        let t4 = try VirtualType4Tag(uid: Self.uid, ndef: [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x48, 0x69])
        let transport = try Self.card(ndef: t4) { command, answer, _, _ in
            // READ BINARY of NLEN (offset 0, 2 bytes) answers FFFF.
            command == [0x00, 0xB0, 0x00, 0x00, 0x02] && answer.suffix(2) == [0x90, 0x00] ? [0xFF, 0xFF, 0x90, 0x00] : answer
        }
        let dump = try await Self.dump(transport)
        #expect(dump.ndefMessage == nil)
        #expect(dump.files.count == 4)
        #expect(dump.fact("NDEF")?.hasPrefix("Not read: ") == true)
        #expect(dump.fact("Skipped") == "NDEF")
        #expect(dump.capabilities.contains(.partiallyReadable))
    }

    @Test func anApplicationListOfTheWrongLengthIsADirectorySkip() async throws {
        let transport = try Self.card { command, answer, _, _ in
            command == [0x6A] && answer.first == 0x00 ? answer + [0x07] : answer
        }
        let dump = try await Self.dump(transport)
        #expect(dump.fact("Application Directory")?.hasPrefix("Not listed: answer not understood (7 bytes") == true)
        #expect(dump.fact("Skipped") == "PICC")
    }

    @Test func aTagPulledMidDumpStillEndsIt() async throws {
        let transport = try Self.card { _, answer, _, _ in answer }
        let info = try await TagIdentifier.identify(transport)
        transport.base.remove(afterCommands: 4)
        await #expect(throws: NFCError.tagRemoved) { try await TagDumper.dump(info: info, transport: transport) }
    }
}
