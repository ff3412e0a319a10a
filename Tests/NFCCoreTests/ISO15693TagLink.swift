import NFCCore
@testable import PN532Sim
import Synchronization

/// PN532Sim's ISO 15693 tag (``VirtualISO15693Tag``: the simulator's own datasheet tables) on the
/// in-process ``VirtualTagTransport``, for the ISO 15693 / Type 5 tests. The link records every
/// request frame and can misbehave as a test asks — refuse a command (error 01h, or no answer), refuse
/// READ's option flag (error 03h), lose the tag at a WRITE — to reach the paths of NFCCore that the
/// modelled products never take. It answers nothing itself: every request that goes through is the
/// tag's to answer.
final class ISO15693TagLink: ISO15693Transport {
    /// How the link refuses a command.
    enum Refusal: Sendable {
        /// Error response 01h, "command not supported" (ISO/IEC 15693-3 "Response error code definition").
        case notSupported
        /// No answer at all.
        case silence
    }

    /// What the link does to requests on their way to the tag.
    struct Faults: Sendable {
        /// Command code → how it is refused.
        var refused: [UInt8: Refusal] = [:]
        /// READ SINGLE BLOCK with the option flag gets error 03h, "option not supported".
        var refusesReadOption = false
        /// The tag leaves the field at the first WRITE of a block from this one on.
        var removedAtWriteFrom: Int?
    }

    let tag: VirtualISO15693Tag
    private let transport: VirtualTagTransport
    private let state: Mutex<(faults: Faults, requests: [[UInt8]])>

    /// A tag of `model` with `uid`, its memory starting with `memory` (zero after), on a link with `faults`.
    init(_ model: VirtualISO15693Model, uid: [UInt8], memory: [UInt8] = [], faults: Faults = Faults()) throws {
        tag = try VirtualISO15693Tag(model: model, uid: uid)
        tag.memory = memory
        transport = VirtualTagTransport(tag: tag)
        state = Mutex((faults, []))
    }

    var target: Target { transport.target }

    /// Every request frame sent, in order.
    var requests: [[UInt8]] { state.withLock { $0.requests } }
    /// The command codes sent, in order.
    var commands: [UInt8] { requests.map { $0[1] } }
    func forgetRequests() { state.withLock { $0.requests = [] } }

    /// The tag's memory now.
    var memory: [UInt8] { tag.memory }
    /// Block `number` of the tag now.
    func block(_ number: Int) -> [UInt8] {
        Array(tag.memory[number * tag.blockSize..<(number + 1) * tag.blockSize])
    }
    /// The tag's locked blocks.
    var lockedBlocks: Set<Int> { tag.lockedBlocks }
    /// Locks `block` of the tag.
    func setLocked(_ block: Int) { tag.lock(block: block) }

    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        try await transport.transceive(command, framing: framing)
    }

    func reselect() async throws { try await transport.reselect() }

    func send(_ request: ISO15693Request) async throws -> [UInt8] {
        let frame = request.frame
        let faults = state.withLock { state in
            state.requests.append(frame)
            return state.faults
        }
        let command = frame[1], option = frame[0] & 0x40 != 0
        switch faults.refused[command] {
        case .notSupported: return [0x01, 0x01]
        case .silence: throw NFCError.timeout
        case nil: break
        }
        if command == 0x20, option, faults.refusesReadOption { return [0x01, 0x03] }
        if command == 0x21 || command == 0x31, let from = faults.removedAtWriteFrom, let block = request.blockNumber, block >= from {
            transport.remove()
            throw NFCError.tagRemoved
        }
        return try await transport.send(request)
    }
}

extension VirtualISO15693Model {
    /// A tag as plain as ISO/IEC 15693-3 allows a product to be: GET SYSTEM INFORMATION with DSFID,
    /// AFI and the memory size (and the IC reference when given), LOCK BLOCK, no EXTENDED commands; the
    /// UID's first three bytes are its prefix.
    static func plain(_ name: String, uid: [UInt8], blockCount: Int, icReference: UInt8? = nil) -> Self {
        Self(
            name: name, uidPrefix: Array(uid.prefix(3)), blockCount: blockCount, blockSize: 4, icReference: icReference ?? 0,
            systemInfoFlags: icReference == nil ? 0x07 : 0x0F, commands: [0x01, 0x02, 0x20, 0x21, 0x22, 0x25, 0x26, 0x2B],
            pcscCardName: PCSCAnswerToReset.CardName.unnamed)
    }
}

/// The tags the ISO 15693 tests use: PN532Sim's products and plain tags with the UIDs of others.
enum ISO15693TestTags {
    static let slixUID = VirtualISO15693Tag.uid(for: .icodeSLIX, serial: [0x12, 0x34, 0x56, 0x78])
    static let st25dvUID = VirtualISO15693Tag.uid(for: .st25dv64k, serial: [0x00, 0x11, 0x22, 0x33, 0x44])
    /// An ST25DV04K's UID (`E0 02 24`: ST, IC_REF 24h).
    static let st25dv04kUID: [UInt8] = [0xE0, 0x02, 0x24, 0x00, 0x55, 0x66, 0x77, 0x88]

    static func icodeSLIX(memory: [UInt8] = [], faults: ISO15693TagLink.Faults = .init()) throws -> ISO15693TagLink {
        try ISO15693TagLink(.icodeSLIX, uid: slixUID, memory: memory, faults: faults)
    }

    static func st25dv64k(memory: [UInt8] = [], faults: ISO15693TagLink.Faults = .init()) throws -> ISO15693TagLink {
        try ISO15693TagLink(.st25dv64k, uid: st25dvUID, memory: memory, faults: faults)
    }

    /// A Tag-it HF-I Standard's UID (`E0 07 C0`: TI, the Standard's product bits) on an 8-block tag
    /// that does not answer GET SYSTEM INFORMATION nor its EXTENDED form (error 01h).
    static func tagItStandard() throws -> ISO15693TagLink {
        let uid: [UInt8] = [0xE0, 0x07, 0xC0, 0x00, 0x01, 0x02, 0x03, 0x04]
        return try ISO15693TagLink(
            .plain("Tag-it HF-I Standard", uid: uid, blockCount: 8), uid: uid,
            faults: .init(refused: [0x2B: .notSupported, 0x3B: .notSupported]))
    }

    /// A Tag-it HF-I Plus's UID (`E0 07 80`) on a 64-block tag.
    static func tagItPlus() throws -> ISO15693TagLink {
        let uid: [UInt8] = [0xE0, 0x07, 0x80, 0x00, 0x0A, 0x0B, 0x0C, 0x0D]
        return try ISO15693TagLink(.plain("Tag-it HF-I Plus", uid: uid, blockCount: 64), uid: uid)
    }
}

/// A transport that cannot send ISO 15693 requests (what libnfc gives).
struct FrameOnlyISO15693Transport: TagTransport {
    let target: Target
    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] { throw NFCError.timeout }
    func reselect() async throws {}
}
