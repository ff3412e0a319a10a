import protocol NFCCore.APDUTransport
import protocol NFCCore.ClassicAuthenticating
import enum NFCCore.ClassicKeyType
import enum NFCCore.Framing
import enum NFCCore.NFCError
import protocol NFCCore.TagTransport
import struct NFCCore.Target
import Synchronization

/// An in-process ``TagTransport`` straight onto a ``VirtualTag`` — no pty, no libnfc — so NFCCore
/// tests run against tags that behave like the datasheets say.
///
/// Replies map as the libnfc backend maps them: NAK → ``NFCError/commandRefused(command:nak:)``,
/// silence → ``NFCError/timeout``, 4-bit ACK → `[0x0A]`. ``remove()`` takes the tag out of the
/// field: every later command throws ``NFCError/tagRemoved``.
public final class VirtualTagTransport: APDUTransport, ClassicAuthenticating, Sendable {
    public let tag: any VirtualTag
    private let state = Mutex(State())

    private struct State {
        var removed = false
        /// When set, the tag leaves the field after this many more commands.
        var commandsLeft: Int?
        /// Every command sent, for transcript assertions.
        var log: [[UInt8]] = []
    }

    /// Wraps `tag` and activates it (as a reader's select would).
    public init(tag: any VirtualTag) {
        self.tag = tag
        _ = tag.activate()
    }

    public var target: Target { tag.target }

    /// Commands sent so far, in order.
    public var sentCommands: [[UInt8]] { state.withLock { $0.log } }

    /// Takes the tag out of the field now.
    public func remove() { state.withLock { $0.removed = true } }

    /// Takes the tag out of the field after `count` more commands have been answered.
    public func remove(afterCommands count: Int) { state.withLock { $0.commandsLeft = count } }

    private func step(_ command: [UInt8]) throws(NFCError) {
        let removed: Bool = state.withLock { s in
            s.log.append(command)
            if let left = s.commandsLeft {
                if left <= 0 { s.removed = true } else { s.commandsLeft = left - 1 }
            }
            return s.removed
        }
        if removed { throw .tagRemoved }
    }

    public func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        try step(command)
        if let felica = tag as? FeliCaVirtualTag, target.modulation == .felica212 || target.modulation == .felica424 {
            guard let answer = felica.process(felica: command) else { throw NFCError.timeout }
            return answer
        }
        switch tag.receive(command) {
        case let .data(bytes): return bytes
        case .ack: return [0x0A]
        case let .nak(code): throw NFCError.commandRefused(command: command.first ?? 0, nak: code)
        case .silent: throw NFCError.timeout
        }
    }

    public func reselect() async throws {
        try step([])
        tag.powerOff()
        guard tag.activate() else { throw NFCError.tagRemoved }
    }

    public func sendAPDU(_ apdu: [UInt8]) async throws -> [UInt8] {
        try step(apdu)
        guard let isoTag = tag as? ISODEPVirtualTag else {
            throw NFCError.unsupportedOperation("This tag does not speak ISO-DEP")
        }
        return isoTag.process(apdu: apdu)
    }

    public func authenticate(block: Int, keyType: ClassicKeyType, key: [UInt8]) async throws {
        try step([keyType == .a ? 0x60 : 0x61, UInt8(truncatingIfNeeded: block)] + key)
        guard let classic = tag as? ClassicVirtualTag else {
            throw NFCError.unsupportedOperation("This tag is not a MIFARE Classic")
        }
        guard classic.authenticate(block: block, keyType: keyType, key: key, uid: Array(target.uid.suffix(4))) else {
            throw NFCError.authenticationFailed
        }
    }
}
