import enum NFCCore.NFCError
import struct NFCCore.Target
import Synchronization

/// A FeliCa card in the emulated field: FeliCa Lite (RC-S965), Lite-S (RC-S966) or a Standard card
/// with plain (unencrypted) services.
///
/// Commands (JIS X 6319-4 / FeliCa Lite-S user's manual §4), without the LEN byte:
/// POLLING 00 → 01, REQUEST SERVICE 02 → 03, REQUEST RESPONSE 04 → 05, READ WITHOUT ENCRYPTION 06 → 07,
/// WRITE WITHOUT ENCRYPTION 08 → 09, REQUEST SYSTEM CODE 0C → 0D — each only where the product's command
/// list has it (``Model/commands``). A command for another IDm, or one the product lacks, gets no answer.
///
/// Memory: Lite and Lite-S expose every block through service 000B (read) and 0009 (read/write):
/// S_PAD 00h–0Dh, REG 0Eh, RC 80h, MAC 81h, ID 82h, D_ID 83h, SER_C 84h, SYS_C 85h, CKV 86h, CK 87h,
/// MC 88h, and on Lite-S only WCNT 90h, MAC_A 91h, STATE 92h. RC, MAC, CK and MAC_A cannot be read
/// alone; S_PAD/REG writes obey MC bytes 0–1, system-block writes MC byte 2; every Lite-S write counts
/// up WCNT. MAC-protected access and authentication are not modelled. A Standard card has the NDEF area
/// (when given) behind 000B/0009 plus the plain services passed in.
///
/// Errors answer status flags (SF1 = FFh for command-level errors, else a bit per failing block-list
/// element; SF2 from JIS X 6319-4: A1 service count, A2 block count, A3 block list, A5 access, A6
/// service code, A8 block number).
public final class VirtualFeliCaTag: FeliCaVirtualTag {
    /// Which product.
    public enum Model: String, Sendable, CaseIterable {
        case lite, liteS, standard

        /// Blocks per READ and per WRITE, the Nbr/Nbw the attribute block announces.
        var limits: (read: Int, write: Int) {
            switch self {
            case .lite, .liteS: (4, 1)
            case .standard: (12, 8)
            }
        }

        /// The command codes the product's manual lists; the card does not answer any other.
        /// - Lite: FeliCa Lite user's manual §4 (command list): Polling, Read Without Encryption, Write
        ///   Without Encryption — no Request Service, Request Response or Request System Code (libnfc's
        ///   Request Response presence check fails on a Lite for that reason).
        /// - Lite-S: FeliCa Lite-S user's manual §4 (command list): the same three; its mutual
        ///   authentication goes through blocks (MAC_A), not through commands of its own.
        /// - Standard: FeliCa card user's manual (excerpted edition) ch. 4 (commands): of its plain
        ///   commands Polling, Request Service, Request Response, Read Without Encryption, Write Without
        ///   Encryption and Request System Code are modelled; Search Service Code (0Ah), Request Service v2
        ///   (32h), Get System Status (38h), Request Specification Version (3Ch), Reset Mode (3Eh) and the
        ///   authentication and encrypted commands are listed too and not modelled (no answer).
        var commands: Set<UInt8> {
            switch self {
            case .lite, .liteS: [0x00, 0x06, 0x08]
            case .standard: [0x00, 0x02, 0x04, 0x06, 0x08, 0x0C]
            }
        }

        /// Data blocks available to NDEF (the attribute block's Nmaxb).
        var ndefBlocks: Int { self == .standard ? 32 : 13 }

        var defaultPMm: [UInt8] {
            switch self {
            case .lite: [0x00, 0xF0, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
            case .liteS: [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
            case .standard: [0x03, 0x01, 0x4B, 0x02, 0x4F, 0x49, 0x93, 0xFF]
            }
        }
    }

    /// NDEF system code (T3T §6.1) and the Lite family's own system code.
    public static let ndefSystemCode: [UInt8] = [0x12, 0xFC]
    public static let liteSystemCode: [UInt8] = [0x88, 0xB4]
    /// NDEF read service 000Bh and read/write service 0009h (values, not wire order).
    public static let ndefReadService: UInt16 = 0x000B
    public static let ndefWriteService: UInt16 = 0x0009

    public let model: Model
    public let target: Target
    private let state: Mutex<State>

    private struct State {
        var active = false
        /// Blocks behind the NDEF services (for Lite and Lite-S: the whole memory).
        var blocks: [Int: [UInt8]]
        /// Standard cards: further plain services, by service code.
        var services: [UInt16: [[UInt8]]]
        var hasNDEFServices: Bool
    }

    /// Creates a tag. `ndef` (a raw NDEF message) formats the tag for NFC Forum Type 3 (attribute block
    /// Ver 1.0, Nbr/Nbw per model, Nmaxb 13 for Lite/Lite-S or 32 for Standard, RW flag from `writable`);
    /// nil leaves it unformatted. `services` adds plain services to a Standard card (service code →
    /// 16-byte blocks). Defaults: PMm per model (IC code F0h Lite, F1h Lite-S, 01h Standard), system code
    /// 88B4 (Lite family) or 12FC (Standard).
    /// Throws ``NFCError/invalidArgument(_:)`` for an IDm/PMm that is not 8 bytes or a system code that
    /// is not 2, ``NFCError/capacityExceeded(needed:available:)`` when the message does not fit.
    public init(
        model: Model, idm: [UInt8], pmm: [UInt8]? = nil, systemCode: [UInt8]? = nil, ndef: [UInt8]? = nil,
        writable: Bool = true, services: [UInt16: [[UInt8]]] = [:]
    ) throws(NFCError) {
        let pmm = pmm ?? model.defaultPMm
        let systemCode = systemCode ?? (model == .standard ? Self.ndefSystemCode : Self.liteSystemCode)
        guard idm.count == 8, pmm.count == 8 else { throw .invalidArgument("IDm and PMm have 8 bytes each") }
        guard systemCode.count == 2 else { throw .invalidArgument("A system code has 2 bytes") }
        if let ndef, ndef.count > model.ndefBlocks * 16 {
            throw .capacityExceeded(needed: ndef.count, available: model.ndefBlocks * 16)
        }
        self.model = model
        self.target = Target(modulation: .felica212, uid: idm, pmm: pmm, systemCode: systemCode)

        var blocks: [Int: [UInt8]] = [:]
        if model != .standard {
            for number in Self.liteBlocks(model).keys { blocks[number] = Self.zeroBlock }
            blocks[0x82] = idm + Self.zeros(8)
            blocks[0x83] = idm + pmm
            blocks[0x84] = [0x0B, 0x00] + Self.zeros(14)
            blocks[0x85] = systemCode + Self.zeros(14)
            // MC (Lite-S manual §2.3.10): bytes 0–1 write permission of S_PAD0–13/REG, byte 2 system
            // blocks (FF = writable), byte 3 bit 0 = NDEF support (answers POLLING 12FC).
            blocks[0x88] = [0xFF, 0xFF, 0xFF, ndef == nil ? 0x00 : 0x01] + Self.zeros(12)
        }
        if let ndef {
            blocks[0] = Self.attributeBlock(model: model, length: ndef.count, writable: writable)
            let padded = ndef + Self.zeros((16 - ndef.count % 16) % 16)
            for index in 0..<model.ndefBlocks {
                let start = index * 16
                blocks[1 + index] = start < padded.count ? Array(padded[start..<(start + 16)]) : Self.zeroBlock
            }
        }
        self.state = Mutex(State(blocks: blocks, services: model == .standard ? services : [:],
                                 hasNDEFServices: model != .standard || ndef != nil))
    }

    private static let zeroBlock = [UInt8](repeating: 0, count: 16)
    private static func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }

    /// The Type 3 attribute information block (T3T §7.1): Ver, Nbr, Nbw, Nmaxb (BE), 4 × RFU,
    /// WriteFlag, RWFlag, Ln (3 bytes BE), checksum (sum of bytes 0–13, BE).
    static func attributeBlock(model: Model, length: Int, writable: Bool) -> [UInt8] {
        let limits = model.limits
        var block: [UInt8] = [0x10, UInt8(limits.read), UInt8(limits.write), UInt8(model.ndefBlocks >> 8),
                              UInt8(model.ndefBlocks & 0xFF), 0, 0, 0, 0, 0x00, writable ? 0x01 : 0x00,
                              UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
        let sum = block.reduce(0) { $0 + Int($1) }
        block += [UInt8((sum >> 8) & 0xFF), UInt8(sum & 0xFF)]
        return block
    }

    /// How a Lite-family block may be written.
    enum LiteWrite: Equatable {
        case never, always, userBit(Int), system
        /// The MC block: writable while MC_ALL (byte 2) is FFh, and its permission bits (bytes 0–1) are
        /// write-once — a bit cleared to read-only is never set again (Lite-S user's manual §2.3.10).
        case memoryConfiguration
    }

    /// One block of the Lite / Lite-S memory: its name, whether it can be read on its own, how it may be
    /// written, and whether only Lite-S has it.
    struct LiteBlock: Equatable {
        var number: Int
        var name: String
        var readable: Bool
        var write: LiteWrite
        var liteSOnly = false
    }

    /// The Lite (RC-S965) and Lite-S (RC-S966) memory, all behind service 000Bh/0009h: FeliCa Lite-S
    /// user's manual §2.3 Table 2-1 and the FeliCa Lite user's manual §2.3 (the simulator's own table, not
    /// NFCCore's). S_PAD0–13 and REG (00h–0Eh) follow their MC write-permission bit (MC bytes 0–1, §2.3.10);
    /// RC and CK are write-only, MAC and MAC_A only come back behind other blocks in a MAC-checked read
    /// (not modelled, so never readable here); ID, CKV and CK are system blocks, writable while MC byte 2
    /// is FFh; D_ID, SER_C, SYS_C and WCNT are read-only; STATE is writable; MC is writable while its
    /// byte 2 is FFh, and clears its permission bits for good (``LiteWrite/memoryConfiguration``).
    static let liteMemory: [LiteBlock] = (0x00...0x0D).map {
        LiteBlock(number: $0, name: "S_PAD\($0)", readable: true, write: .userBit($0))
    } + [
        LiteBlock(number: 0x0E, name: "REG", readable: true, write: .userBit(0x0E)),
        LiteBlock(number: 0x80, name: "RC", readable: false, write: .always),
        LiteBlock(number: 0x81, name: "MAC", readable: false, write: .never),
        LiteBlock(number: 0x82, name: "ID", readable: true, write: .system),
        LiteBlock(number: 0x83, name: "D_ID", readable: true, write: .never),
        LiteBlock(number: 0x84, name: "SER_C", readable: true, write: .never),
        LiteBlock(number: 0x85, name: "SYS_C", readable: true, write: .never),
        LiteBlock(number: 0x86, name: "CKV", readable: true, write: .system),
        LiteBlock(number: 0x87, name: "CK", readable: false, write: .system),
        LiteBlock(number: 0x88, name: "MC", readable: true, write: .memoryConfiguration),
        LiteBlock(number: 0x90, name: "WCNT", readable: true, write: .never, liteSOnly: true),
        LiteBlock(number: 0x91, name: "MAC_A", readable: false, write: .never, liteSOnly: true),
        LiteBlock(number: 0x92, name: "STATE", readable: true, write: .always, liteSOnly: true),
    ]

    /// The MC block number (Lite-S user's manual §2.3.10).
    static let memoryConfigurationBlock = 0x88

    /// MC after a write of `new`: S_PAD / REG permission bits (bytes 0–1) only go from 1 (writable) to 0.
    static func mergedMemoryConfiguration(old: [UInt8]?, new: [UInt8]) -> [UInt8] {
        guard let old else { return new }
        var merged = new
        merged[0] = old[0] & new[0]
        merged[1] = old[1] & new[1]
        return merged
    }

    /// The blocks `model` has, by number (empty for a Standard card).
    private static func liteBlocks(_ model: Model) -> [Int: LiteBlock] {
        guard model != .standard else { return [:] }
        let blocks = liteMemory.filter { model == .liteS || !$0.liteSOnly }
        return Dictionary(uniqueKeysWithValues: blocks.map { ($0.number, $0) })
    }

    /// A block behind the NDEF services (for Lite/Lite-S any memory block), or nil.
    public func block(_ number: Int) -> [UInt8]? {
        state.withLock { $0.blocks[number] }
    }

    /// Overwrites a block behind the NDEF services (padded or cut to 16 bytes); for Lite/Lite-S only
    /// blocks of the memory map are accepted.
    public func setBlock(_ number: Int, _ data: [UInt8]) {
        let block = Array((data + Self.zeroBlock).prefix(16))
        state.withLock { s in
            if model == .standard || s.blocks[number] != nil { s.blocks[number] = block }
        }
    }

    /// The NDEF message as the attribute block delimits it; nil when block 0 is no valid attribute block.
    public var ndefMessage: [UInt8]? {
        state.withLock { s in
            guard let attribute = s.blocks[0], attribute.count == 16 else { return nil }
            let sum = attribute[0..<14].reduce(0) { $0 + Int($1) }
            guard sum == Int(attribute[14]) << 8 | Int(attribute[15]) else { return nil }
            let length = Int(attribute[11]) << 16 | Int(attribute[12]) << 8 | Int(attribute[13])
            var data: [UInt8] = []
            var number = 1
            while data.count < length, let block = s.blocks[number] {
                data += block
                number += 1
            }
            return data.count >= length ? Array(data.prefix(length)) : nil
        }
    }

    /// Lite-S write counter (WCNT, block 90h bytes 0–2, little-endian); 0 on other models.
    public var writeCount: Int {
        state.withLock { s in
            guard model == .liteS, let wcnt = s.blocks[0x90] else { return 0 }
            return Int(wcnt[0]) | Int(wcnt[1]) << 8 | Int(wcnt[2]) << 16
        }
    }

    /// True when NDEF is enabled: Lite family MC byte 3 bit 0, Standard when it has the NDEF services.
    private func ndefEnabled(_ s: State) -> Bool {
        if model == .standard { return s.hasNDEFServices }
        return (s.blocks[0x88]?[3] ?? 0) & 0x01 != 0
    }

    /// The system codes the card answers POLLING for, primary first.
    private func systemCodes(_ s: State) -> [[UInt8]] {
        var codes = [target.systemCode]
        if ndefEnabled(s) && target.systemCode != Self.ndefSystemCode { codes.append(Self.ndefSystemCode) }
        return codes
    }

    /// JIS X 6319-4 §7.5.1: FFh in either byte of the requested code is a wildcard for that byte.
    private func matchingSystemCode(_ requested: [UInt8], _ s: State) -> [UInt8]? {
        guard requested.count == 2 else { return nil }
        return systemCodes(s).first { code in
            (requested[0] == 0xFF || requested[0] == code[0]) && (requested[1] == 0xFF || requested[1] == code[1])
        }
    }

    public func answersPolling(systemCode: [UInt8]) -> Bool {
        state.withLock { s in matchingSystemCode(systemCode, s) != nil }
    }

    public func activate() -> Bool {
        state.withLock { $0.active = true }
        return true
    }

    public func powerOff() {
        state.withLock { $0.active = false }
    }

    /// FeliCa has no ISO 14443-3 framing; frames are handled as FeliCa commands.
    public func receive(_ frame: [UInt8]) -> VirtualTagReply {
        process(felica: frame).map { .data($0) } ?? .silent
    }

    public func process(felica command: [UInt8]) -> [UInt8]? {
        guard let code = command.first else { return nil }
        return state.withLock { s -> [UInt8]? in
            if code == 0x00 {
                guard command.count == 5, let matched = matchingSystemCode(Array(command[1...2]), s) else { return nil }
                s.active = true
                // Request code 01 asks for the system code, 02 for the communication performance.
                let extra: [UInt8] = switch command[3] {
                case 0x01: matched
                case 0x02: [0x00, 0x83]
                default: []
                }
                return [0x01] + target.uid + target.pmm + extra
            }
            guard command.count >= 9, Array(command[1...8]) == target.uid, model.commands.contains(code) else {
                return nil
            }
            let idm = target.uid
            let parameters = Array(command.dropFirst(9))
            switch code {
            case 0x02: return requestService(parameters, idm: idm, state: s)
            case 0x04: return [0x05] + idm + [0x00]
            case 0x06: return read(parameters, idm: idm, state: s)
            case 0x08: return write(parameters, idm: idm, state: &s)
            case 0x0C:
                let codes = systemCodes(s)
                return [0x0D] + idm + [UInt8(codes.count)] + codes.flatMap { $0 }
            default: return nil
            }
        }
    }

    private func serviceExists(_ code: UInt16, _ s: State) -> Bool {
        if code == Self.ndefReadService || code == Self.ndefWriteService { return s.hasNDEFServices }
        return s.services[code] != nil
    }

    private func requestService(_ p: [UInt8], idm: [UInt8], state s: State) -> [UInt8]? {
        guard let count = p.first, (1...32).contains(count), p.count == 1 + Int(count) * 2 else { return nil }
        var answer: [UInt8] = [0x03] + idm + [count]
        for index in 0..<Int(count) {
            let code = UInt16(p[1 + index * 2]) | UInt16(p[2 + index * 2]) << 8
            // Key version 0000 for a present service without key, FFFF for an absent one.
            answer += serviceExists(code, s) ? [0x00, 0x00] : [0xFF, 0xFF]
        }
        return answer
    }

    /// A parsed request: service codes and block-list elements (service index, block number).
    private struct BlockRequest {
        var services: [UInt16] = []
        var elements: [(service: Int, block: Int)] = []
        var rest: [UInt8] = []
    }

    private enum RequestError: Error { case status(UInt8, UInt8) }

    /// Parses `m svc… n element…` (JIS X 6319-4 §7.5.4: 2-byte element `1 am(3) idx(4) | block`,
    /// 3-byte element `0 am idx | block LSB | block MSB`).
    private func parseRequest(_ p: [UInt8], maxBlocks: Int) throws(RequestError) -> BlockRequest {
        var request = BlockRequest()
        guard let m = p.first, m >= 1, m <= 16, (model == .standard || m == 1) else { throw .status(0xFF, 0xA1) }
        var index = 1
        guard p.count >= index + Int(m) * 2 + 1 else { throw .status(0xFF, 0xA1) }
        for _ in 0..<Int(m) {
            request.services.append(UInt16(p[index]) | UInt16(p[index + 1]) << 8)
            index += 2
        }
        let n = Int(p[index])
        index += 1
        guard n >= 1, n <= maxBlocks else { throw .status(0xFF, 0xA2) }
        for element in 0..<n {
            guard index < p.count else { throw .status(0xFF, 0xA2) }
            let head = p[index]
            let serviceIndex = Int(head & 0x0F)
            guard serviceIndex < request.services.count, head & 0x70 == 0 else { throw .status(Self.flag(element), 0xA3) }
            if head & 0x80 != 0 {
                guard index + 1 < p.count else { throw .status(0xFF, 0xA2) }
                request.elements.append((serviceIndex, Int(p[index + 1])))
                index += 2
            } else {
                guard index + 2 < p.count else { throw .status(0xFF, 0xA2) }
                request.elements.append((serviceIndex, Int(p[index + 1]) | Int(p[index + 2]) << 8))
                index += 3
            }
        }
        request.rest = Array(p[index...])
        return request
    }

    /// SF1 for block-list element `index` (Lite-S manual §4.4: one bit per element).
    private static func flag(_ index: Int) -> UInt8 { index < 8 ? UInt8(1 << index) : 0xFF }

    private func readable(service: UInt16, block: Int, _ s: State) -> [UInt8]? {
        if service == Self.ndefReadService || service == Self.ndefWriteService {
            guard s.hasNDEFServices, let data = s.blocks[block] else { return nil }
            if model != .standard { return Self.liteBlocks(model)[block]?.readable == true ? data : nil }
            return data
        }
        // Bit 0 of the attribute set = no key needed (JIS X 6319-4 §7.3.3).
        guard service & 0x01 == 1, let blocks = s.services[service], block < blocks.count else { return nil }
        return blocks[block]
    }

    private func read(_ p: [UInt8], idm: [UInt8], state s: State) -> [UInt8]? {
        do {
            let request = try parseRequest(p, maxBlocks: model.limits.read)
            for service in request.services where !serviceExists(service, s) { throw RequestError.status(0x01, 0xA6) }
            var data: [UInt8] = []
            for (index, element) in request.elements.enumerated() {
                guard let block = readable(service: request.services[element.service], block: element.block, s) else {
                    throw RequestError.status(Self.flag(index), 0xA8)
                }
                data += block
            }
            return [0x07] + idm + [0x00, 0x00, UInt8(request.elements.count)] + data
        } catch let RequestError.status(sf1, sf2) {
            return [0x07] + idm + [sf1, sf2]
        } catch {
            return [0x07] + idm + [0xFF, 0xFF]
        }
    }

    private func writable(service: UInt16, block: Int, _ s: State) -> Bool {
        if service == Self.ndefWriteService {
            guard s.hasNDEFServices else { return false }
            if model == .standard { return s.blocks[block] != nil }
            guard let spec = Self.liteBlocks(model)[block], let mc = s.blocks[0x88] else { return false }
            switch spec.write {
            case .never: return false
            case .always: return true
            case let .userBit(bit): return (Int(mc[0]) | Int(mc[1]) << 8) >> bit & 1 == 1
            case .system, .memoryConfiguration: return mc[2] == 0xFF
            }
        }
        // Attribute 09h (random) / 0Dh (cyclic) are read/write without key.
        let attribute = service & 0x3F
        guard attribute == 0x09 || attribute == 0x0D, let blocks = s.services[service] else { return false }
        return block < blocks.count
    }

    private func write(_ p: [UInt8], idm: [UInt8], state s: inout State) -> [UInt8]? {
        do {
            let request = try parseRequest(p, maxBlocks: model.limits.write)
            for service in request.services where !serviceExists(service, s) { throw RequestError.status(0x01, 0xA6) }
            guard request.rest.count == request.elements.count * 16 else { throw RequestError.status(0xFF, 0xA2) }
            for (index, element) in request.elements.enumerated()
            where !writable(service: request.services[element.service], block: element.block, s) {
                throw RequestError.status(Self.flag(index), 0xA5)
            }
            for (index, element) in request.elements.enumerated() {
                let data = Array(request.rest[(index * 16)..<(index * 16 + 16)])
                let service = request.services[element.service]
                if service == Self.ndefWriteService {
                    s.blocks[element.block] = model != .standard && element.block == Self.memoryConfigurationBlock
                        ? Self.mergedMemoryConfiguration(old: s.blocks[element.block], new: data) : data
                } else {
                    s.services[service]?[element.block] = data
                }
            }
            if model == .liteS, var wcnt = s.blocks[0x90] {
                let count = (Int(wcnt[0]) | Int(wcnt[1]) << 8 | Int(wcnt[2]) << 16) + 1
                wcnt[0] = UInt8(count & 0xFF)
                wcnt[1] = UInt8((count >> 8) & 0xFF)
                wcnt[2] = UInt8((count >> 16) & 0xFF)
                s.blocks[0x90] = wcnt
            }
            return [0x09] + idm + [0x00, 0x00]
        } catch let RequestError.status(sf1, sf2) {
            return [0x09] + idm + [sf1, sf2]
        } catch {
            return [0x09] + idm + [0xFF, 0xFF]
        }
    }
}
