import NFCCore
import Synchronization

/// An in-process ISO/IEC 15693-3 tag (VICC) for the ISO 15693 / Type 5 tests, with its own tables taken
/// from the datasheets (never NFCCore's): it parses request frames as they go on the air (flags,
/// command, UID LSB first when addressed, parameters) and answers as the chip would, error responses
/// included (ISO/IEC 15693-3 "Response error code definition": 01h not supported, 03h option not
/// supported, 10h block not available, 11h already locked, 12h locked).
final class VirtualISO15693Tag: ISO15693Transport {
    /// What the modelled chip does.
    struct Model: Sendable {
        var name: String
        /// UID MSB first (`E0 <manufacturer> …`).
        var uid: [UInt8]
        var blockCount: Int
        var blockSize = 4
        var dsfid: UInt8 = 0x00
        var afi: UInt8 = 0x00
        var icReference: UInt8?
        /// GET SYSTEM INFORMATION answers at all.
        var answersSystemInfo = true
        /// Its information flags include the memory size.
        var systemInfoHasSize = true
        /// EXTENDED GET SYSTEM INFORMATION answers.
        var answersExtendedSystemInfo = false
        /// EXTENDED READ / WRITE / LOCK (30h–32h) answer.
        var extendedCommands = false
        /// Unsupported commands are ignored (no answer) instead of answered with error 01h.
        var silentOnUnsupported = false
        var lockBlock = true
        /// WRITE / LOCK refuse (error 02h) without the option flag (TI Tag-it HF-I).
        var writesNeedOptionFlag = false
        /// READ with the option flag answers 03h "option not supported".
        var refusesReadOption = false
    }

    struct State {
        var memory: [UInt8]
        var locked: Set<Int> = []
        var requests: [[UInt8]] = []
        var failWritesFrom: Int?
    }

    let model: Model
    let target: Target
    private let state: Mutex<State>

    init(_ model: Model, memory: [UInt8]? = nil) {
        self.model = model
        target = Target(modulation: .iso15693, uid: model.uid)
        let size = model.blockCount * model.blockSize
        state = Mutex(State(memory: (memory ?? []) + [UInt8](repeating: 0, count: max(0, size - (memory?.count ?? 0)))))
    }

    /// The memory now.
    var memory: [UInt8] { state.withLock { $0.memory } }
    /// Block `n` now.
    func block(_ number: Int) -> [UInt8] {
        let size = model.blockSize
        return Array(memory[number * size..<(number + 1) * size])
    }
    /// Every request frame received, in order.
    var requests: [[UInt8]] { state.withLock { $0.requests } }
    /// The command codes received, in order.
    var commands: [UInt8] { requests.map { $0[1] } }
    /// The locked blocks.
    var lockedBlocks: Set<Int> { state.withLock { $0.locked } }

    func setLocked(_ block: Int) { state.withLock { _ = $0.locked.insert(block) } }
    func forgetRequests() { state.withLock { $0.requests = [] } }

    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        throw NFCError.unsupportedOperation("an ISO 15693 tag takes ISO 15693 requests")
    }

    func reselect() async throws {}

    func send(_ request: ISO15693Request) async throws -> [UInt8] {
        let frame = request.frame
        return try state.withLock { state throws(NFCError) in
            state.requests.append(frame)
            return try answer(frame, state: &state)
        }
    }

    private func error(_ code: UInt8) -> [UInt8] { [0x01, code] }

    private func unsupported() throws(NFCError) -> [UInt8] {
        if model.silentOnUnsupported { throw .timeout }
        return error(0x01)
    }

    private func answer(_ frame: [UInt8], state: inout State) throws(NFCError) -> [UInt8] {
        guard frame.count >= 2 else { throw .timeout }
        let flags = frame[0], command = frame[1]
        var parameters = Array(frame.dropFirst(2))
        if flags & 0x20 != 0 {
            guard parameters.count >= 8, Array(parameters.prefix(8)) == model.uid.reversed() else { throw .timeout }
            parameters.removeFirst(8)
        }
        let option = flags & 0x40 != 0
        let uidLSBFirst = Array(model.uid.reversed())
        switch command {
        case 0x2B:
            guard model.answersSystemInfo else { return try unsupported() }
            var info: UInt8 = 0x03 | (model.icReference != nil ? 0x08 : 0)
            if model.systemInfoHasSize { info |= 0x04 }
            var answer: [UInt8] = [0x00, info] + uidLSBFirst + [model.dsfid, model.afi]
            if model.systemInfoHasSize { answer += [UInt8(model.blockCount - 1), UInt8(model.blockSize - 1)] }
            if let reference = model.icReference { answer.append(reference) }
            return answer
        case 0x3B:
            guard model.answersExtendedSystemInfo, let wanted = parameters.first else { return try unsupported() }
            var info: UInt8 = wanted & 0x07
            if model.icReference != nil { info |= wanted & 0x08 }
            var answer: [UInt8] = [0x00, info] + uidLSBFirst
            if info & 0x01 != 0 { answer.append(model.dsfid) }
            if info & 0x02 != 0 { answer.append(model.afi) }
            if info & 0x04 != 0 {
                answer += [UInt8((model.blockCount - 1) & 0xFF), UInt8((model.blockCount - 1) >> 8), UInt8(model.blockSize - 1)]
            }
            if info & 0x08 != 0, let reference = model.icReference { answer.append(reference) }
            return answer
        case 0x20, 0x30, 0x21, 0x31, 0x22, 0x32:
            let extended = command >= 0x30
            if extended, !model.extendedCommands { return try unsupported() }
            let addressLength = extended ? 2 : 1
            guard parameters.count >= addressLength else { return error(0x02) }
            let block = extended ? Int(parameters[0]) | Int(parameters[1]) << 8 : Int(parameters[0])
            guard block < model.blockCount else { return error(0x10) }
            let data = Array(parameters.dropFirst(addressLength))
            let range = block * model.blockSize..<(block + 1) * model.blockSize
            switch command & 0x0F {
            case 0x00:
                if option {
                    if model.refusesReadOption { return error(0x03) }
                    return [0x00, state.locked.contains(block) ? 0x01 : 0x00] + state.memory[range]
                }
                return [0x00] + state.memory[range]
            case 0x01:
                if model.writesNeedOptionFlag, !option { return error(0x02) }
                guard data.count == model.blockSize else { return error(0x02) }
                guard !state.locked.contains(block) else { return error(0x12) }
                if let from = state.failWritesFrom, block >= from { throw .tagRemoved }
                state.memory.replaceSubrange(range, with: data)
                return [0x00]
            default:
                guard model.lockBlock else { return try unsupported() }
                if model.writesNeedOptionFlag, !option { return error(0x02) }
                guard !state.locked.contains(block) else { return error(0x11) }
                state.locked.insert(block)
                return [0x00]
            }
        default:
            return try unsupported()
        }
    }

    /// Pulls the tag (``NFCError/tagRemoved``) at the first WRITE of a block from `block` on.
    func removeOnWrite(from block: Int) { state.withLock { $0.failWritesFrom = block } }
}

extension VirtualISO15693Tag.Model {
    // ICODE SLIX SL2S2002 datasheet: UID E0 04 01, type indicator 10b in UID byte 3 bits 4–3; 28 blocks
    // of 4 bytes; GET SYSTEM INFORMATION info flags 0Fh, IC reference 01h; no EXTENDED commands.
    static let icodeSLIX = Self(name: "ICODE SLIX", uid: [0xE0, 0x04, 0x01, 0x50, 0x12, 0x34, 0x56, 0x78],
                                 blockCount: 28, icReference: 0x01)
    // ST25DV64K datasheet: UID E0 02 26 …; 2048 blocks of 4 bytes; GET SYSTEM INFORMATION answers info
    // flags 0Bh (no memory size: it does not fit one byte), EXTENDED GET SYSTEM INFORMATION gives 07FFh
    // blocks − 1; IC_REF 26h; no LOCK BLOCK.
    static let st25dv64k = Self(name: "ST25DV64K", uid: [0xE0, 0x02, 0x26, 0x00, 0x11, 0x22, 0x33, 0x44],
                                 blockCount: 2048, icReference: 0x26, systemInfoHasSize: false,
                                 answersExtendedSystemInfo: true, extendedCommands: true, lockBlock: false)
    /// A 2048-block tag whose system information says so but which has no EXTENDED READ (the spec's
    /// partial case).
    static let rejectsExtended = Self(name: "no extended read", uid: [0xE0, 0x16, 0x04, 0x00, 0x01, 0x02, 0x03, 0x04],
                                       blockCount: 2048, systemInfoHasSize: false, answersExtendedSystemInfo: true)
    // Tag-it HF-I Standard datasheet: 8 blocks; no GET SYSTEM INFORMATION at all.
    static let noSize = Self(name: "Tag-it HF-I Standard", uid: [0xE0, 0x07, 0xC0, 0x00, 0x01, 0x02, 0x03, 0x04],
                              blockCount: 8, answersSystemInfo: false, writesNeedOptionFlag: true)
    // Tag-it HF-I Plus datasheet: UID E0 07 00/80 …, 64 blocks of 4 bytes; writes need the option flag.
    static let tagItPlus = Self(name: "Tag-it HF-I Plus", uid: [0xE0, 0x07, 0x80, 0x00, 0x0A, 0x0B, 0x0C, 0x0D],
                                 blockCount: 64, writesNeedOptionFlag: true)
}

/// A transport that cannot send ISO 15693 requests (what libnfc gives).
struct FrameOnlyISO15693Transport: TagTransport {
    let target: Target
    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] { throw NFCError.timeout }
    func reselect() async throws {}
}
