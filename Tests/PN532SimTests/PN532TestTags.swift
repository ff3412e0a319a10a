import NFCCore
import Synchronization
@testable import PN532Sim

/// Tiny test-only virtual tags for the emulator's own tests. The real models (NTAG21x, Classic,
/// Type 4, FeliCa) live in Sources/PN532Sim/VirtualTags/; these only do what the tests need.

/// A Type 2 tag with 16-byte-aligned memory: READ (30h, wraps), WRITE (A2h), COMPATIBILITY WRITE
/// (A0h, two frames), GET_VERSION (60h), HLTA; NAK for anything else, then silent until activated.
final class TestType2Tag: VirtualTag, Sendable {
    private struct State {
        var memory: [UInt8]
        var isActive = false
        var pendingCompatibilityWrite: UInt8?
        var received: [[UInt8]] = []
    }

    let target: Target
    let version: [UInt8]
    private let state: Mutex<State>

    init(uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6], pages: Int = 45,
         version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]) {
        target = Target(uid: uid, atqa: [0x00, 0x44], sak: 0x00)
        self.version = version
        var memory = [UInt8](repeating: 0, count: pages * 4)
        memory.replaceSubrange(0..<uid.count, with: uid)
        for page in 4..<pages { memory[page * 4] = UInt8(page) }
        state = Mutex(State(memory: memory))
    }

    var memory: [UInt8] { state.withLock { $0.memory } }
    var receivedFrames: [[UInt8]] { state.withLock { $0.received } }

    func activate() -> Bool {
        state.withLock { $0.isActive = true; $0.pendingCompatibilityWrite = nil }
        return true
    }

    func powerOff() { state.withLock { $0.isActive = false; $0.pendingCompatibilityWrite = nil } }

    func receive(_ frame: [UInt8]) -> VirtualTagReply {
        state.withLock { s in
            s.received.append(frame)
            guard s.isActive, let command = frame.first else { return .silent }
            let pageCount = s.memory.count / 4
            if let page = s.pendingCompatibilityWrite {
                s.pendingCompatibilityWrite = nil
                guard frame.count == 16 else { s.isActive = false; return .nak(0) }
                s.memory.replaceSubrange(Int(page) * 4..<Int(page) * 4 + 4, with: frame[0..<4])
                return .ack
            }
            switch command {
            case 0x30 where frame.count == 2 && Int(frame[1]) < pageCount:
                return .data((0..<16).map { s.memory[(Int(frame[1]) * 4 + $0) % s.memory.count] })
            case 0xA2 where frame.count == 6 && (2..<pageCount).contains(Int(frame[1])):
                s.memory.replaceSubrange(Int(frame[1]) * 4..<Int(frame[1]) * 4 + 4, with: frame[2..<6])
                return .ack
            case 0xA0 where frame.count == 2 && (2..<pageCount).contains(Int(frame[1])):
                s.pendingCompatibilityWrite = frame[1]
                return .ack
            case 0x60 where frame.count == 1:
                return .data(version)
            case 0x50:
                s.isActive = false
                return .silent
            default:
                s.isActive = false
                return .nak(0)
            }
        }
    }
}

/// A MIFARE Classic 1K whose sector trailers hold key A = key B = `key`; READ/WRITE work in the
/// authenticated sector only.
final class TestClassicTag: ClassicVirtualTag, Sendable {
    private struct State {
        var blocks: [[UInt8]]
        var isActive = false
        var authenticatedSector: Int?
        var pendingWrite: Int?
    }

    let target: Target
    let key: [UInt8]
    private let state: Mutex<State>

    init(uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF], key: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) {
        target = Target(uid: uid, atqa: [0x00, 0x04], sak: 0x08)
        self.key = key
        var blocks = (0..<64).map { block in [UInt8](repeating: UInt8(block), count: 16) }
        blocks[0] = uid + [ISO14443.bcc(uid), 0x08, 0x04, 0x00] + [UInt8](repeating: 0x62, count: 8)
        for sector in 0..<16 { blocks[sector * 4 + 3] = key + [0xFF, 0x07, 0x80, 0x69] + key }
        state = Mutex(State(blocks: blocks))
    }

    var blocks: [[UInt8]] { state.withLock { $0.blocks } }

    func activate() -> Bool {
        state.withLock { $0.isActive = true; $0.authenticatedSector = nil; $0.pendingWrite = nil }
        return true
    }

    func powerOff() { state.withLock { $0.isActive = false; $0.authenticatedSector = nil } }

    func authenticate(block: Int, keyType: ClassicKeyType, key: [UInt8], uid: [UInt8]) -> Bool {
        state.withLock { s in
            guard s.isActive, block < 64, key == self.key, uid == Array(target.uid.suffix(4)) else {
                s.isActive = false
                s.authenticatedSector = nil
                return false
            }
            s.authenticatedSector = block / 4
            return true
        }
    }

    func receive(_ frame: [UInt8]) -> VirtualTagReply {
        state.withLock { s in
            guard s.isActive, let sector = s.authenticatedSector else { return .silent }
            if let block = s.pendingWrite {
                s.pendingWrite = nil
                guard frame.count == 16 else { return .nak(0) }
                s.blocks[block] = frame
                return .ack
            }
            guard frame.count == 2, Int(frame[1]) / 4 == sector else { return .nak(0) }
            switch frame[0] {
            case 0x30:
                var block = s.blocks[Int(frame[1])]
                if frame[1] % 4 == 3 { block.replaceSubrange(0..<6, with: [UInt8](repeating: 0, count: 6)) }
                return .data(block)
            case 0xA0:
                s.pendingWrite = Int(frame[1])
                return .ack
            default:
                return .nak(0)
            }
        }
    }
}

/// An ISO-DEP tag whose APDUs answer with `answer(apdu)`.
final class TestISODEPTag: ISODEPVirtualTag, Sendable {
    let target: Target
    private let answer: @Sendable ([UInt8]) -> [UInt8]
    private let apdus = Mutex<[[UInt8]]>([])

    init(uid: [UInt8] = [0x08, 0x11, 0x22, 0x33], ats: [UInt8] = [0x75, 0x77, 0x81, 0x02, 0x80],
         answer: @escaping @Sendable ([UInt8]) -> [UInt8] = { $0 + [0x90, 0x00] }) {
        target = Target(uid: uid, atqa: [0x03, 0x44], sak: 0x20, ats: ats)
        self.answer = answer
    }

    var receivedAPDUs: [[UInt8]] { apdus.withLock { $0 } }

    func activate() -> Bool { true }
    func powerOff() {}
    func receive(_ frame: [UInt8]) -> VirtualTagReply { .silent }

    func process(apdu: [UInt8]) -> [UInt8] {
        apdus.withLock { $0.append(apdu) }
        return answer(apdu)
    }
}

/// A FeliCa tag for system code 12FC: Request Response (04h) and Read Without Encryption (06h) of
/// 16-byte blocks.
final class TestFeliCaTag: FeliCaVirtualTag, Sendable {
    let target: Target
    private let blocks: Mutex<[[UInt8]]>

    init(idm: [UInt8] = [0x01, 0x2E, 0x4C, 0xD1, 0x11, 0x22, 0x33, 0x44], blocks: [[UInt8]] = []) {
        target = Target(modulation: .felica212, uid: idm,
                        pmm: [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00], systemCode: [0x12, 0xFC])
        self.blocks = Mutex(blocks)
    }

    func activate() -> Bool { true }
    func powerOff() {}
    func receive(_ frame: [UInt8]) -> VirtualTagReply { .silent }

    func answersPolling(systemCode: [UInt8]) -> Bool {
        systemCode == [0xFF, 0xFF] || systemCode == target.systemCode
    }

    func process(felica command: [UInt8]) -> [UInt8]? {
        guard command.count >= 9, Array(command[1..<9]) == target.uid else { return nil }
        switch command[0] {
        case 0x04:
            return [0x05] + target.uid + [0x00]
        case 0x06:
            // 06 IDm n services… m blocks (2-byte elements 80 bb)
            let serviceCount = Int(command[9])
            let blockCountIndex = 10 + serviceCount * 2
            guard command.count > blockCountIndex else { return nil }
            let count = Int(command[blockCountIndex])
            var data: [UInt8] = []
            let stored = blocks.withLock { $0 }
            for i in 0..<count {
                let element = blockCountIndex + 1 + i * 2
                guard command.count > element + 1 else { return nil }
                let number = Int(command[element + 1])
                data += number < stored.count ? stored[number] : [UInt8](repeating: 0, count: 16)
            }
            return [0x07] + target.uid + [0x00, 0x00, UInt8(count)] + data
        default:
            return nil
        }
    }
}

/// A type A tag whose answers come from a closure (for answers no real model gives).
final class ScriptedTypeATag: VirtualTag, Sendable {
    let target: Target
    private let reply: @Sendable ([UInt8]) -> VirtualTagReply

    init(uid: [UInt8] = [0x11, 0x22, 0x33, 0x44], sak: UInt8 = 0x00, reply: @escaping @Sendable ([UInt8]) -> VirtualTagReply) {
        target = Target(uid: uid, atqa: [0x00, 0x04], sak: sak)
        self.reply = reply
    }

    func activate() -> Bool { true }
    func powerOff() {}
    func receive(_ frame: [UInt8]) -> VirtualTagReply { reply(frame) }
}
