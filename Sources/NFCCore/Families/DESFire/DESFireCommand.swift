/// How DESFire commands are framed on the ISO-DEP link.
public enum DESFireFraming: String, Sendable, Hashable {
    /// Native: the command byte then its data; the answer is the status byte then its data
    /// (MIFARE DESFire EV1 datasheet §9.1, "native command set").
    case native
    /// ISO/IEC 7816-4 wrapped: `90 INS 00 00 [Lc data] 00`; the answer is data then `91 status`
    /// (MIFARE DESFire EV1 datasheet §9.2 "ISO/IEC 7816-4 APDU wrapping").
    case wrapped

    /// GET_VERSION hardware types whose chips take native frames: 01h MIFARE DESFire (MF3ICD40,
    /// EV1, EV2, EV3) and 81h (the EV2/EV3 combo variants), per the product table in
    /// ``DESFireProductTable``. DESFire Light (08h, MF2DLHX0 §10.1 "ISO/IEC 7816-4 communication
    /// frames only") and NTAG 413/424 DNA (04h, NT4H2421Gx §10.1) take only wrapped and ISO frames;
    /// every other or unknown type gets wrapped frames too, which all of them accept.
    static let nativeHardwareTypes: Set<UInt8> = [0x01, 0x81]

    /// The framing for the chip `version` describes: chosen from the hardware type, never by trial
    /// (a native frame sent to a Light/424 leaves it answering an ISO error, with its state reset).
    public static func framing(for version: DESFireVersion) -> DESFireFraming {
        nativeHardwareTypes.contains(version.hardware.type) ? .native : .wrapped
    }
}

/// MIFARE DESFire EV1 command codes (EV1 datasheet §9.2, command set table). What each product takes
/// is ``DESFireCommandSet`` (the dump sends through it: a DESFire Light refuses ReadData BDh).
public enum DESFireInstruction {
    public static let getVersion: UInt8 = 0x60
    public static let additionalFrame: UInt8 = 0xAF
    public static let getApplicationIDs: UInt8 = 0x6A
    public static let selectApplication: UInt8 = 0x5A
    public static let getFileIDs: UInt8 = 0x6F
    public static let getFileSettings: UInt8 = 0xF5
    public static let readData: UInt8 = 0xBD
    public static let getValue: UInt8 = 0x6C
    public static let readRecords: UInt8 = 0xBB
    public static let getKeySettings: UInt8 = 0x45
    public static let getKeyVersion: UInt8 = 0x64
}

/// A DESFire command channel over an ``APDUTransport`` with one framing: sends a command, follows
/// ADDITIONAL_FRAME (AFh) answers with `AF` frames, and turns any other non-OK status into
/// ``NFCError/desfireError(status:)`` (see ``DESFireStatus`` for the names).
public struct DESFireChannel: Sendable {
    public let transport: any APDUTransport
    public let framing: DESFireFraming
    /// Upper bound on the frames one answer may take. ReadData answers at most 59 bytes a frame
    /// (EV1 datasheet §9.2.3 "… split into frames of 59 bytes"); 8 KB / 59 is under 140, so 256
    /// frames is far beyond any real file and still stops a card that keeps answering AF.
    public static let maxFrames = 256

    public init(transport: any APDUTransport, framing: DESFireFraming) {
        self.transport = transport
        self.framing = framing
    }

    /// Sends one frame and splits the answer into status and data. Throws
    /// ``NFCError/unexpectedStatusWord(_:_:)`` for a wrapped answer whose SW1 is not 91h,
    /// ``NFCError/invalidResponse(_:)`` for an empty native answer.
    public func frame(_ instruction: UInt8, _ data: [UInt8] = []) async throws -> (status: DESFireStatus, data: [UInt8]) {
        switch framing {
        case .native:
            let answer = try await transport.sendAPDU([instruction] + data)
            guard let status = answer.first else { throw NFCError.invalidResponse(answer) }
            return (DESFireStatus(status), Array(answer.dropFirst()))
        case .wrapped:
            let apdu = try CommandAPDU.desfire(command: instruction, data: data).bytes()
            let response = try ResponseAPDU(raw: try await transport.sendAPDU(apdu))
            guard response.sw1 == 0x91 else { throw NFCError.unexpectedStatusWord(response.sw1, response.sw2) }
            return (DESFireStatus(response.sw2), response.data)
        }
    }

    /// Sends `instruction` with `data` and returns the whole answer: while the card answers
    /// ADDITIONAL_FRAME, sends `AF` and appends the next frame's data (EV1 datasheet §9.1.4).
    /// Throws ``NFCError/desfireError(status:)`` for a status other than OPERATION_OK, and
    /// ``NFCError/invalidResponse(_:)`` after ``maxFrames`` frames.
    public func command(_ instruction: UInt8, _ data: [UInt8] = []) async throws -> [UInt8] {
        var (status, out) = try await frame(instruction, data)
        var frames = 1
        while status.isAdditionalFrame {
            frames += 1
            guard frames <= Self.maxFrames else { throw NFCError.invalidResponse(Array(out.suffix(16))) }
            let next = try await frame(DESFireInstruction.additionalFrame)
            status = next.status
            out += next.data
        }
        guard status.isOK else { throw NFCError.desfireError(status: status.rawValue) }
        return out
    }
}
