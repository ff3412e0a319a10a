import NFCCore

/// The channel to one tag a ``LibNFCDevice`` selected: Type 2 commands, ISO-DEP APDUs, FeliCa
/// commands and MIFARE Classic authentication, all run on the device's libnfc thread.
///
/// * ``Framing/standard``: easy framing (`InDataExchange`, CRC added and checked by the chip).
///   A 4-bit ACK comes back as `[0x0A]`. A NAK is hidden by the chip; when an exchange fails and a
///   re-select finds the tag, the failure is reported as ``NFCError/commandRefused(command:nak:)``
///   with `nak == nil` (the tag is then selected again, as after any NAK).
/// * ``Framing/raw`` (ISO 14443-A): easy framing and chip CRC off (`InCommunicateThru`); CRC_A is
///   appended and checked here, and a NAK is reported with its 4-bit value. Use it for
///   GET_VERSION (60h) and PWD_AUTH (1Bh), which `InDataExchange` would take for Classic AUTH.
/// * FeliCa: commands and answers carry no LEN byte; it is added and checked here.
///
/// A transport from an earlier session of its device (closed and opened again) throws
/// ``NFCError/tagRemoved``. Cancelling the awaiting task interrupts the exchange
/// (``NFCError/userCanceled``).
public final class LibNFCTransport: APDUTransport, ClassicAuthenticating, ShortFrameTransport, Sendable {
    /// The tag as it was selected.
    public let target: Target
    /// The device the tag was found on.
    let device: LibNFCDevice
    /// The device session the tag was found in.
    let generation: Int

    init(device: LibNFCDevice, target: Target, generation: Int) {
        self.device = device
        self.target = target
        self.generation = generation
    }

    /// Sends one command. Wraps `nfc_initiator_transceive_bytes`.
    public func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        let target = self.target
        return try await run { session throws(NFCError) in try session.transceive(command, framing: framing, to: target) }
    }

    /// Selects the tag again by its UID (IDm for FeliCa). Wraps `nfc_initiator_select_passive_target`.
    public func reselect() async throws {
        let target = self.target
        try await run { session throws(NFCError) in try session.reselect(target) }
    }

    /// Sends a frame of `bitCount` bits without CRC (``ShortFrameTransport``). Wraps
    /// `nfc_initiator_transceive_bits`.
    public func transceiveBits(_ frame: [UInt8], bitCount: Int) async throws -> [UInt8] {
        let target = self.target
        return try await run { session throws(NFCError) in try session.transceiveBits(frame, bitCount: bitCount, to: target) }
    }

    /// Exchanges an APDU over ISO-DEP. Wraps `nfc_initiator_transceive_bytes`.
    public func sendAPDU(_ apdu: [UInt8]) async throws -> [UInt8] {
        let target = self.target
        return try await run { session throws(NFCError) in try session.sendAPDU(apdu, to: target) }
    }

    /// MIFARE Classic authentication by the reader's firmware (`InDataExchange` 60h/61h).
    /// Wraps `nfc_initiator_transceive_bytes`.
    public func authenticate(block: Int, keyType: ClassicKeyType, key: [UInt8]) async throws {
        let target = self.target
        try await run { session throws(NFCError) in
            try session.authenticate(block: block, keyType: keyType, key: key, target: target)
        }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable (LibNFCSession) throws(NFCError) -> T) async throws -> T {
        let generation = self.generation
        return try await device.perform { session throws(NFCError) in
            guard session.generation == generation else { throw .tagRemoved }
            return try body(session)
        }
    }
}
