import CPCSCLite
import NFCCore

/// The channel to the card a ``PCSCDevice`` connected to: Type 2 and Classic commands as PC/SC part 3
/// pseudo-APDUs, ISO-DEP APDUs straight through, ISO 15693 requests, all on the device's PC/SC thread
/// (``PCSCCommandMapping`` says which command becomes which APDU). A transport of a card that has since
/// been disconnected (removed, or another card polled) throws ``NFCError/tagRemoved``.
public final class PCSCTransport: APDUTransport, ClassicAuthenticating, ISO15693Transport, Sendable {
    /// The card as it was identified.
    public let target: Target
    let device: PCSCDevice
    /// The connection this transport belongs to.
    let generation: Int
    let readerName: String

    init(device: PCSCDevice, target: Target, generation: Int, readerName: String) {
        self.device = device
        self.target = target
        self.generation = generation
        self.readerName = readerName
    }

    /// Sends one command (see ``PCSCCommandMapping/transceive(_:framing:pendingWrite:)``). Wraps `SCardTransmit`.
    public func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        try await run { session, mapping throws(NFCError) in
            var pending = session.pendingWrite
            defer { session.pendingWrite = pending }
            return try mapping.transceive(command, framing: framing, pendingWrite: &pending)
        }
    }

    /// Resets the card (`SCardReconnect` with `SCARD_RESET_CARD`: the reader activates it again) and checks
    /// that the same UID answers. Throws ``NFCError/tagRemoved`` when it left or another card is there.
    public func reselect() async throws {
        let target = self.target
        try await run { session, _ throws(NFCError) in
            session.pendingWrite = nil
            guard try session.reconnect(disposition: DWORD(SCARD_RESET_CARD)) else { throw .tagRemoved }
            guard let now = try session.currentUID(), Self.isSameCard(answering: now, as: target) else { throw .tagRemoved }
        }
    }

    /// Whether GET DATA's UID `now` is `target`'s: the same bytes, or for an ISO 15693 tag the same bytes
    /// in the order some readers give them (least significant first, as ``Target/init(contactlessATR:uid:atqa:sak:ats:)``
    /// turns them). A type A card whose UID is another's reversed is another card.
    static func isSameCard(answering now: [UInt8], as target: Target) -> Bool {
        now == target.uid || (target.modulation == .iso15693 && now.reversed() == target.uid)
    }

    /// Exchanges an APDU (or a DESFire native frame) with an ISO-DEP card. Wraps `SCardTransmit`.
    public func sendAPDU(_ apdu: [UInt8]) async throws -> [UInt8] {
        try await run { _, mapping throws(NFCError) in try mapping.passThrough(apdu) }
    }

    /// False: a PC/SC reader (or its driver: vsmartcard's vpcd, some readers' firmware) may refuse a DESFire
    /// native frame as a malformed APDU, so DESFire commands travel ISO 7816-4 wrapped (DESFire EV1
    /// datasheet §9.2), which every DESFire-family chip accepts.
    public var carriesNativeDESFireFrames: Bool { false }

    /// MIFARE Classic authentication: LOAD KEYS + GENERAL AUTHENTICATE. Wraps `SCardTransmit`.
    public func authenticate(block: Int, keyType: ClassicKeyType, key: [UInt8]) async throws {
        try await run { _, mapping throws(NFCError) in try mapping.authenticate(block: block, keyType: keyType, key: key) }
    }

    /// One ISO 15693 request (see ``PCSCCommandMapping/send(_:)``). Wraps `SCardTransmit`.
    public func send(_ request: ISO15693Request) async throws -> [UInt8] {
        guard target.modulation == .iso15693 else {
            throw NFCError.unsupportedOperation("\(readerName): the card is not an ISO 15693 tag")
        }
        return try await run { _, mapping throws(NFCError) in try mapping.send(request) }
    }

    private func run<T: Sendable>(
        _ body: @escaping @Sendable (PCSCSession, PCSCCommandMapping) throws(NFCError) -> T
    ) async throws -> T {
        let generation = self.generation, target = self.target
        return try await device.perform { session throws(NFCError) in
            guard session.card?.generation == generation else { throw .tagRemoved }
            let mapping = PCSCCommandMapping(reader: session.label, target: target, profile: session.currentProfile) { apdu throws(NFCError) in
                try session.transmitRaw(apdu)
            }
            return try body(session, mapping)
        }
    }
}
