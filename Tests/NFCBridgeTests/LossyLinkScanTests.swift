import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

/// A link to a virtual tag that loses the answers to chosen commands, as a byte dropped between libnfc
/// and the reader does: the tag gets the command and answers, the answer never arrives, and the reader
/// reports what libnfc reports for it (a refusal, a timeout).
final class LossyLinkTransport: TagTransport {
    let base: VirtualTagTransport
    /// Answers still to lose: the first byte of the command, the error reported instead of the answer.
    private let losses: Mutex<[(command: UInt8, error: NFCError)]>

    init(tag: any VirtualTag, losing losses: [(command: UInt8, error: NFCError)]) {
        base = VirtualTagTransport(tag: tag)
        self.losses = Mutex(losses)
    }

    var target: Target { base.target }

    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        let answer = try await base.transceive(command, framing: framing)
        let lost = losses.withLock { losses -> NFCError? in
            guard let index = losses.firstIndex(where: { $0.command == command.first }) else { return nil }
            return losses.remove(at: index).error
        }
        if let lost { throw lost }
        return answer
    }

    func reselect() async throws { try await base.reselect() }
}

/// Issue 20, target 4 ("A scan is checked before it is final"): one answer lost on the reader link no
/// longer makes a wrong scan.
@Suite(.timeLimit(.minutes(1))) struct LossyLinkScanTests {
    static let uri = "https://example.com/lossy"

    func tag() throws -> VirtualType2Tag {
        let tag = makeTag()
        try tag.writeNDEF(NDEFMessage(records: [NDEFRecord.uri(Self.uri)]).bytes)
        return tag
    }

    @Test func lostGetVersionAnswerStillTypesTheNTAG215() async throws {
        // libnfc reports a lost answer to a present tag as a refusal (NFC_ERFTRANS, settled by a re-select):
        // the tag then looks like an Ultralight C, which NAKs GET_VERSION.
        let transport = try LossyLinkTransport(tag: tag(), losing: [(0x60, .commandRefused(command: 0x60, nak: nil))])
        let scan = try await NFCCoreScanner().scan(transport)
        #expect(scan.cardType == "NTAG215")
        #expect(scan.report.ndef?.records.first?.uri == Self.uri)
    }

    @Test func lostGetVersionAnswerAsSilenceStillTypesTheNTAG215() async throws {
        let transport = try LossyLinkTransport(tag: tag(), losing: [(0x60, .timeout)])
        let scan = try await NFCCoreScanner().scan(transport)
        #expect(scan.cardType == "NTAG215")
    }

    @Test func lostReadAnswerIsNotAuthRequired() async throws {
        // READ 3 (the CC) lost: on an NTAG215, which has a password feature, a refused page reads as
        // `auth_required`; its AUTH0 says no protection.
        let transport = try LossyLinkTransport(tag: tag(), losing: [(0x30, .commandRefused(command: 0x30, nak: nil))])
        let scan = try await NFCCoreScanner().scan(transport)
        #expect(scan.cardType == "NTAG215")
        #expect(scan.report.ndefError?.code != "auth_required")
        #expect(scan.report.ndef?.records.first?.uri == Self.uri)
    }

    @Test func lostConfigPageReadAnswerIsNotAuthRequired() async throws {
        // The CC's READ lost, then the check's READ of the AUTH0 page lost too: still re-read, not published.
        let transport = try LossyLinkTransport(
            tag: tag(),
            losing: [(0x30, .commandRefused(command: 0x30, nak: nil)), (0x30, .commandRefused(command: 0x30, nak: nil))])
        let scan = try await NFCCoreScanner().scan(transport)
        #expect(scan.report.ndefError?.code != "auth_required")
        #expect(scan.report.ndef?.records.first?.uri == Self.uri)
    }

    @Test func lostAnswerDuringNDEFReadStillReadsTheNDEF() async throws {
        // The FAST_READ of the message garbled on the way (a CRC error).
        let transport = try LossyLinkTransport(tag: tag(), losing: [(0x3A, .crcMismatch)])
        let scan = try await NFCCoreScanner().scan(transport)
        #expect(scan.report.ndef?.records.first?.uri == Self.uri)
        #expect(scan.problems.isEmpty)
    }

    @Test func lostCapabilityContainerAnswerAsSilenceStillReadsTheNDEF() async throws {
        let transport = try LossyLinkTransport(tag: tag(), losing: [(0x30, .timeout)])
        let scan = try await NFCCoreScanner().scan(transport)
        #expect(scan.report.ndef?.records.first?.uri == Self.uri)
        #expect(scan.problems.isEmpty)
    }

    @Test func lostReselectAnswerIsNotARemoval() async throws {
        // GET_VERSION lost as silence, then the answer to the probe's re-select lost too: identification
        // throws `tag_removed` with the tag still in the field.
        let inner = try tag()
        let transport = FlakyReselectTransport(base: LossyLinkTransport(tag: inner, losing: [(0x60, .timeout)]))
        let scan = try await NFCCoreScanner().scan(transport)
        #expect(scan.cardType == "NTAG215")
        #expect(scan.problems.isEmpty)
    }

    @Test func aPasswordProtectedTagIsStillAuthRequired() async throws {
        let tag = try tag()
        tag.setPassword([1, 2, 3, 4], pack: [0, 0])
        tag.setAuth0(4)
        tag.setReadProtection(true)
        let transport = VirtualTagTransport(tag: tag)
        let scan = try await NFCCoreScanner().scan(transport)
        #expect(scan.cardType == "NTAG215")
        #expect(scan.report.ndefError?.code == "auth_required")
    }

    @Test func fiveLostGetVersionAnswersStillTypeTheNTAG215() async throws {
        // 150 taps on a 1-in-500 lossy link lost GET_VERSION three times in a row on 2 to 4 taps: with
        // three attempts those were published as Ultralight C. Five lost in a row leave the sixth attempt.
        let losses = Array(repeating: (UInt8(0x60), NFCError.commandRefused(command: 0x60, nak: nil)), count: 5)
        let transport = try LossyLinkTransport(tag: tag(), losing: losses)
        let scan = try await NFCCoreScanner().scan(transport)
        #expect(scan.cardType == "NTAG215")
        #expect(scan.report.ndef?.records.first?.uri == Self.uri)
    }

    @Test func aTagThatLeftStopsTheAttemptsAfterTwoFailedReselects() async throws {
        let transport = GoneTagTransport(target: VirtualTagTransport(tag: try tag()).target)
        await #expect(throws: NFCError.tagRemoved) { try await NFCCoreScanner().scan(transport) }
        #expect(transport.counts.exchanges == 3)
        #expect(transport.counts.reselects == 2)
    }

    @Test func anUnbrokenScanSendsNoExtraCommand() async throws {
        let transport = try VirtualTagTransport(tag: tag())
        _ = try await NFCCoreScanner().scan(transport)
        #expect(transport.sentCommands.map(\.first) == [0x60, 0x30, 0x3A])
    }
}

/// Loses the answer to the first re-select: ``NFCError/tagRemoved`` with the tag still there.
final class FlakyReselectTransport: TagTransport {
    let base: LossyLinkTransport
    private let failed = Mutex(false)

    init(base: LossyLinkTransport) { self.base = base }

    var target: Target { base.target }

    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        try await base.transceive(command, framing: framing)
    }

    func reselect() async throws {
        try await base.reselect()
        let first = failed.withLock { failed in
            defer { failed = true }
            return !failed
        }
        if first { throw NFCError.tagRemoved }
    }
}

/// A tag that left: every exchange and every re-select finds nothing; counts both.
final class GoneTagTransport: TagTransport {
    let target: Target
    private let tally = Mutex((exchanges: 0, reselects: 0))

    init(target: Target) { self.target = target }

    var counts: (exchanges: Int, reselects: Int) { tally.withLock { $0 } }

    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        tally.withLock { $0.exchanges += 1 }
        throw NFCError.tagRemoved
    }

    func reselect() async throws {
        tally.withLock { $0.reselects += 1 }
        throw NFCError.tagRemoved
    }
}
