import enum NFCCore.NFCError
import struct NFCCore.Target
import Synchronization

/// An ISO/IEC 15693 tag in the emulated field (``VirtualISO15693Model``: ST25DV64K, ICODE SLIX).
///
/// Answers, per ISO/IEC 15693-3: INVENTORY (01h, zero-length mask), STAY QUIET (02h), READ SINGLE
/// BLOCK (20h; the option flag adds the block security status), WRITE SINGLE BLOCK (21h), LOCK BLOCK
/// (22h, where the product has it), READ MULTIPLE BLOCKS (23h), SELECT (25h), RESET TO READY (26h), GET
/// SYSTEM INFORMATION (2Bh) and, on products with them, EXTENDED READ/WRITE SINGLE BLOCK (30h/31h) and
/// EXTENDED GET SYSTEM INFORMATION (3Bh), and READ SIGNATURE (BDh, NXP custom) on the ICODE SLIX2; a
/// custom command whose manufacturer code is not the tag's is not supported. Errors: 01h command not
/// supported (the datasheet does not list it), 0Fh no information given (listed, not modelled:
/// ``VirtualISO15693Command/modelled``), 02h not recognised (a malformed request), 10h block not
/// available, 11h block already locked, 12h block locked. Requests
/// addressed to another UID, and non-addressed ones while quiet, get no answer.
public final class VirtualISO15693Tag: ISO15693VirtualTag {
    public let model: VirtualISO15693Model
    public let target: Target
    public var blockSize: Int { model.blockSize }
    public var blockCount: Int { model.blockCount }
    public var pcscCardName: [UInt8] { model.pcscCardName }
    private let state: Mutex<State>

    private struct State {
        var memory: [UInt8]
        var locked: Set<Int> = []
        var dsfid: UInt8 = 0x00
        var afi: UInt8 = 0x00
        var powered = false
        var quiet = false
        var selected = false
        var signature: [UInt8]
    }

    /// A tag of `model` with `uid` (8 bytes MSB first, starting with the model's prefix) and
    /// zeroed memory. Throws ``NFCError/invalidArgument(_:)`` for another UID.
    public init(model: VirtualISO15693Model, uid: [UInt8]) throws(NFCError) {
        guard uid.count == 8, uid.starts(with: model.uidPrefix) else {
            throw .invalidArgument("A \(model.name) UID has 8 bytes starting \(model.uidPrefix.hexString), not \(uid.hexString)")
        }
        self.model = model
        target = Target(modulation: .iso15693, uid: uid)
        // A made-up signature from the UID, which verifies against no key; a scenario's `signature` sets a real one.
        let signature = (0..<VirtualISO15693Command.signatureLength).map { uid[$0 % uid.count] ^ UInt8($0) }
        state = Mutex(State(memory: [UInt8](repeating: 0, count: model.blockCount * model.blockSize), signature: signature))
    }

    /// The 32 bytes READ SIGNATURE answers (products with it; factory data, never changed by a command).
    public var signature: [UInt8] {
        get { state.withLock { $0.signature } }
        set { state.withLock { $0.signature = newValue } }
    }

    /// The model's UID prefix followed by serial bytes from `serial` (cut or zero-padded).
    public static func uid(for model: VirtualISO15693Model, serial: [UInt8]) -> [UInt8] {
        Array((model.uidPrefix + serial + [UInt8](repeating: 0, count: 8)).prefix(8))
    }

    /// All blocks, concatenated.
    public var memory: [UInt8] {
        get { state.withLock { $0.memory } }
        set { state.withLock { s in s.memory.replaceSubrange(0..<min(newValue.count, s.memory.count), with: newValue.prefix(s.memory.count)) } }
    }

    /// The DSFID that INVENTORY and GET SYSTEM INFORMATION report (00h until set). A reader sets it
    /// with WRITE DSFID (ISO/IEC 15693-3), which this tag does not answer: whoever makes the tag sets it.
    public var dsfid: UInt8 {
        get { state.withLock { $0.dsfid } }
        set { state.withLock { $0.dsfid = newValue } }
    }

    /// The AFI that GET SYSTEM INFORMATION reports (00h until set; WRITE AFI is not answered either).
    public var afi: UInt8 {
        get { state.withLock { $0.afi } }
        set { state.withLock { $0.afi = newValue } }
    }

    /// Numbers of the locked blocks.
    public var lockedBlocks: Set<Int> { state.withLock { $0.locked } }

    /// Locks `block` for good (as LOCK BLOCK would).
    public func lock(block: Int) { state.withLock { _ = $0.locked.insert(block) } }

    /// Writes a Type 5 CC and an NDEF message TLV (`03 len message FE`) from block 0. Throws
    /// ``NFCError/capacityExceeded(needed:available:)`` when it does not fit.
    public func writeNDEF(_ message: [UInt8]) throws(NFCError) {
        let cc = VirtualType5CapabilityContainer.make(model)
        let length: [UInt8] = message.count < 0xFF ? [UInt8(message.count)] : [0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        let area = cc + [0x03] + length + message + [0xFE]
        let size = model.blockCount * model.blockSize
        guard area.count <= size else { throw .capacityExceeded(needed: area.count, available: size) }
        memory = area
    }

    public func activate() -> Bool {
        state.withLock { s in
            s.powered = true
            s.quiet = false
            s.selected = false
        }
        return true
    }

    public func powerOff() {
        state.withLock { s in
            s.powered = false
            s.quiet = false
            s.selected = false
        }
    }

    public func receive(_ frame: [UInt8]) -> VirtualTagReply {
        state.withLock { s in
            guard s.powered, frame.count >= 2 else { return .silent }
            let flags = frame[0], command = frame[1]
            if flags & VirtualISO15693Command.inventoryFlag != 0 {
                return inventory(frame, &s)
            }
            var parameters = Array(frame.dropFirst(2))
            var manufacturer: UInt8?
            if VirtualISO15693Command.customCommands.contains(command) {
                guard !parameters.isEmpty else { return error(VirtualISO15693Command.errorNotRecognised) }
                manufacturer = parameters.removeFirst()
            }
            if flags & VirtualISO15693Command.addressFlag != 0 {
                guard parameters.count >= 8, Array(parameters.prefix(8)) == target.uid.reversed() else { return .silent }
                parameters.removeFirst(8)
            } else if flags & VirtualISO15693Command.selectFlag != 0 {
                guard s.selected else { return .silent }
            } else if s.quiet {
                return .silent
            }
            if let manufacturer, manufacturer != model.uidPrefix[1] {
                return error(VirtualISO15693Command.errorNotSupported)
            }
            return handle(command, parameters, option: flags & VirtualISO15693Command.optionFlag != 0, &s)
        }
    }

    // MARK: Commands

    private func inventory(_ frame: [UInt8], _ s: inout State) -> VirtualTagReply {
        // `flags 01 [AFI] mask-length mask`: only a zero-length mask is modelled (every tag answers).
        guard frame[1] == VirtualISO15693Command.inventory, !s.quiet, let maskLength = frame.last, maskLength == 0 else {
            return .silent
        }
        return .data([0x00, s.dsfid] + target.uid.reversed())
    }

    private func handle(_ command: UInt8, _ parameters: [UInt8], option: Bool, _ s: inout State) -> VirtualTagReply {
        typealias C = VirtualISO15693Command
        // A code the datasheet does not list is not supported (01h); one it lists but the simulator does
        // not model is the error "with no information given" (0Fh), never 01h, which would say the chip
        // lacks it, nor silence (ISO/IEC 15693-3 §7.4, response error codes).
        guard model.commands.contains(command) else { return error(C.errorNotSupported) }
        guard C.modelled.contains(command) else { return error(C.errorUnknown) }
        switch command {
        case C.stayQuiet:
            s.quiet = true
            s.selected = false
            return .silent
        case C.select:
            s.selected = true
            s.quiet = false
            return ok()
        case C.resetToReady:
            s.selected = false
            s.quiet = false
            return ok()
        case C.readSingleBlock:
            guard parameters.count == 1 else { return error(C.errorNotRecognised) }
            return read(Int(parameters[0]), option: option, s)
        case C.extendedReadSingleBlock:
            guard parameters.count == 2 else { return error(C.errorNotRecognised) }
            return read(Int(parameters[0]) | Int(parameters[1]) << 8, option: option, s)
        case C.writeSingleBlock:
            guard parameters.count == 1 + model.blockSize else { return error(C.errorNotRecognised) }
            return write(Int(parameters[0]), Array(parameters.dropFirst()), &s)
        case C.extendedWriteSingleBlock:
            guard parameters.count == 2 + model.blockSize else { return error(C.errorNotRecognised) }
            return write(Int(parameters[0]) | Int(parameters[1]) << 8, Array(parameters.dropFirst(2)), &s)
        case C.lockBlock:
            guard parameters.count == 1 else { return error(C.errorNotRecognised) }
            let block = Int(parameters[0])
            guard block < model.blockCount else { return error(C.errorBlockNotAvailable) }
            guard !s.locked.contains(block) else { return error(C.errorAlreadyLocked) }
            s.locked.insert(block)
            return ok()
        case C.readMultipleBlocks:
            guard parameters.count == 2 else { return error(C.errorNotRecognised) }
            return readMultiple(first: Int(parameters[0]), count: Int(parameters[1]) + 1, option: option, s)
        case C.extendedReadMultipleBlocks:
            // First block and number of blocks − 1, two bytes each, LSB first (ISO/IEC 15693-3:2019).
            guard parameters.count == 4 else { return error(C.errorNotRecognised) }
            return readMultiple(first: Int(parameters[0]) | Int(parameters[1]) << 8,
                                count: (Int(parameters[2]) | Int(parameters[3]) << 8) + 1, option: option, s)
        case C.getSystemInformation:
            guard parameters.isEmpty else { return error(C.errorNotRecognised) }
            return .data([0x00] + systemInformation(flags: model.systemInfoFlags, sizeBytes: 1, s))
        case C.extendedGetSystemInformation:
            guard parameters.count == 1 else { return error(C.errorNotRecognised) }
            // The parameter request field: bits 1–4 as GET SYSTEM INFORMATION's flags; later fields
            // (MOI, command list, CSI) are not modelled and not sent.
            return .data([0x00] + systemInformation(flags: parameters[0] & 0x0F, sizeBytes: 2, s))
        case C.readSignature:
            guard parameters.isEmpty else { return error(C.errorNotRecognised) }
            return .data([0x00] + s.signature)
        default:
            return error(C.errorNotSupported)
        }
    }

    private func ok() -> VirtualTagReply { .data([0x00]) }

    private func error(_ code: UInt8) -> VirtualTagReply { .data([0x01, code]) }

    private func blockData(_ block: Int, _ s: State) -> [UInt8] {
        Array(s.memory[block * model.blockSize..<(block + 1) * model.blockSize])
    }

    private func read(_ block: Int, option: Bool, _ s: State) -> VirtualTagReply {
        guard block < model.blockCount else { return error(VirtualISO15693Command.errorBlockNotAvailable) }
        return .data([0x00] + (option ? [s.locked.contains(block) ? 0x01 : 0x00] : []) + blockData(block, s))
    }

    /// `count` blocks from `first`, each with its security status when `option`; more than the
    /// datasheet's number per command is an error (0Fh), a range past the memory "block not available".
    private func readMultiple(first: Int, count: Int, option: Bool, _ s: State) -> VirtualTagReply {
        guard count <= model.readMultipleBlocks ?? 0 else { return error(VirtualISO15693Command.errorUnknown) }
        guard first + count <= model.blockCount else { return error(VirtualISO15693Command.errorBlockNotAvailable) }
        var answer: [UInt8] = [0x00]
        for block in first..<first + count {
            if option { answer.append(s.locked.contains(block) ? 0x01 : 0x00) }
            answer += blockData(block, s)
        }
        return .data(answer)
    }

    private func write(_ block: Int, _ data: [UInt8], _ s: inout State) -> VirtualTagReply {
        guard block < model.blockCount else { return error(VirtualISO15693Command.errorBlockNotAvailable) }
        guard !s.locked.contains(block) else { return error(VirtualISO15693Command.errorLocked) }
        s.memory.replaceSubrange(block * model.blockSize..<(block + 1) * model.blockSize, with: data)
        return ok()
    }

    /// Information flags, UID (LSB first), then the fields the flags name; the block count − 1 in
    /// `sizeBytes` bytes LSB first, then the block size − 1.
    private func systemInformation(flags: UInt8, sizeBytes: Int, _ s: State) -> [UInt8] {
        var answer: [UInt8] = [flags] + target.uid.reversed()
        if flags & 0x01 != 0 { answer.append(s.dsfid) }
        if flags & 0x02 != 0 { answer.append(s.afi) }
        if flags & 0x04 != 0 {
            let count = model.blockCount - 1
            answer += (0..<sizeBytes).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) }
            answer.append(UInt8(model.blockSize - 1))
        }
        if flags & 0x08 != 0 { answer.append(model.icReference) }
        return answer
    }
}
