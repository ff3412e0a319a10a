import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

/// The tag commands an encode job sends per tag (issue 22 item 2: ≤ 1.2× the line-rate floor of the
/// minimal sequence, bench/encode.sh), counted on an in-process virtual NTAG213 with the message
/// bench/encode.sh writes: a 40-byte TLV, pages 04h–0Dh. The floor is the 10 WRITEs and one read back;
/// the job adds GET_VERSION (when the reader loop did not identify the tag) and one FAST_READ before
/// writing (CC, lock bytes, TLV walk, the pages' old content). A command added or repeated fails here.
@Suite(.timeLimit(.minutes(1))) struct EncodeFrameCountTests {
    static let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]

    static func spec(policy: EncodePolicy, lock: Bool = false) throws -> EncodeJobSpec {
        try EncodeJobSpec(
            id: "frames", template: EncodeTemplate(records: [.uri(TemplateText(parsing: "https://example.com/tag/{serial:016d}"))]),
            serials: .range(start: 1000, count: 1), steps: EncodeSteps(lock: lock), policy: policy)
    }

    /// Hands one tag to the station once; asked for another, it throws (the test has its result by then).
    final class OneTagAccess: TagAccess {
        let tag: PresentTag
        let handedOut = Mutex(false)
        init(tag: PresentTag) { self.tag = tag }

        func presentTags() async throws -> [PresentTag] { [tag] }
        func nextTag() async throws -> PresentTag {
            guard !handedOut.withLock({ done in defer { done = true }; return done }) else { throw CancellationError() }
            return tag
        }
        func withExclusiveAccess<Result: Sendable>(
            to tag: PresentTag, _ body: @Sendable (any TagTransport) async throws -> Result
        ) async throws -> Result {
            try await body(tag.transport)
        }
        func waitForRemoval(of tag: PresentTag) async throws {}
    }

    /// Runs a one-serial job on `tag`; the result and the commands the tag received (re-selects as "").
    static func encode(_ tag: VirtualType2Tag, spec: EncodeJobSpec, identified: Bool = false) async throws
        -> (EncodeTagResult?, [String])
    {
        let transport = VirtualTagTransport(tag: tag)
        let info = identified ? try await TagIdentifier.identify(transport) : nil
        let before = transport.sentCommands.count
        let opened = try await JobJournal.open(stateDirectory: EncodeJobTests.stateDirectory(), job: spec.id, spec: spec)
        let results = Mutex<[EncodeTagResult]>([])
        let station = EncodeStation(access: OneTagAccess(tag: PresentTag(transport: transport, cardInfo: info)), journal: opened.journal)
        let reporting = EncodeStation.Reporting(tag: { result in results.withLock { $0.append(result) } }, state: { _ in })
        _ = try? await station.run(opened.ledger, reporting: reporting)
        return (results.withLock { $0.first }, transport.sentCommands.dropFirst(before).map(\.hexString))
    }

    /// `A2 pp` + the page's bytes, as hex, for pages 04h–0Dh of the message's TLV.
    static func writes(of tag: VirtualType2Tag, order: [Int]) -> [String] {
        order.map { page in "A2" + UInt8(page).hexString + Array(tag.memory[page * 4..<page * 4 + 4]).hexString }
    }

    /// The bench's case (policy `overwrite`, the CLI: no identification before the job): GET_VERSION,
    /// FAST_READ 00–0D, the 10 WRITEs (the highest page first: its ACK shows AUTH0 protects none of them,
    /// and the blank tag already shows an empty message, so the order is tear-safe; the length page 04h
    /// last), FAST_READ 04–0D: 13 commands (was 16: FAST_READ 00–03, 04–07, 08–0D and AUTH0's 29h).
    @Test func anOverwriteJobSendsThirteenCommandsPerTag() async throws {
        let tag = VirtualType2Tag(model: .ntag213, uid: Self.uid)
        let (result, sent) = try await Self.encode(tag, spec: try Self.spec(policy: EncodePolicy(tags: .overwrite)))
        #expect(result?.result == .ok, "\(String(describing: result))")
        let expected = ["60", "3A000D"] + Self.writes(of: tag, order: [13] + Array(5...12) + [4]) + ["3A040D"]
        #expect(sent == expected)
        #expect(sent.count == 13)
    }

    /// Under the agent the reader loop's scan identified the tag: the job sends 12 commands, one more
    /// than the floor's 11.
    @Test func aJobOnAnIdentifiedTagSendsTwelveCommands() async throws {
        let tag = VirtualType2Tag(model: .ntag213, uid: Self.uid)
        let (result, sent) = try await Self.encode(tag, spec: try Self.spec(policy: EncodePolicy(tags: .overwrite)), identified: true)
        #expect(result?.result == .ok)
        #expect(sent.count == 12, "\(sent)")
        #expect(sent.first == "3A000D" && sent.last == "3A040D")
    }

    /// Policy `blank` reads the NDEF message first (one READ 03: the CC and the TLV's first pages), then
    /// the write as above: 14.
    @Test func aBlankJobAddsTheNDEFReadOnly() async throws {
        let tag = VirtualType2Tag(model: .ntag213, uid: Self.uid)
        let (result, sent) = try await Self.encode(tag, spec: try Self.spec(policy: EncodePolicy(tags: .blank)))
        #expect(result?.result == .ok)
        #expect(sent.count == 14, "\(sent)")
        #expect(Array(sent.prefix(3)) == ["60", "3003", "3A000D"] && sent.last == "3A040D")
    }

    /// AUTH0 at page 08h (write protection, no password): the first WRITE (page 0Dh) is NAKed, nothing
    /// is written, the tag is re-selected and the AUTH0 page read: `refused` / `auth_required`, the
    /// serial not used, the tag as it was.
    @Test func aPageBehindAUTH0IsRefusedBeforeAnythingIsWritten() async throws {
        let tag = VirtualType2Tag(model: .ntag213, uid: Self.uid)
        tag.setAuth0(0x08)
        let memory = tag.memory
        let (result, sent) = try await Self.encode(tag, spec: try Self.spec(policy: EncodePolicy(tags: .overwrite)))
        #expect(result?.result == .refused && result?.code == "auth_required" && result?.serial == nil,
                "\(String(describing: result))")
        #expect(tag.memory == memory)
        #expect(sent.filter { $0.hasPrefix("A2") }.count == 1, "\(sent)")
    }
}
