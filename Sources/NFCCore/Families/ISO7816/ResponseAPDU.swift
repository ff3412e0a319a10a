/// A response APDU: data plus the status word SW1 SW2 (ISO/IEC 7816-4 §5.1.3).
public struct ResponseAPDU: Sendable, Hashable {
    public var data: [UInt8]
    public var sw1: UInt8
    public var sw2: UInt8

    public init(data: [UInt8] = [], sw1: UInt8, sw2: UInt8) {
        self.data = data
        self.sw1 = sw1
        self.sw2 = sw2
    }

    /// Splits raw response bytes. Throws ``NFCError/invalidResponse(_:)`` when there is no status word.
    public init(raw: [UInt8]) throws(NFCError) {
        guard raw.count >= 2 else { throw .invalidResponse(raw) }
        self.data = Array(raw.dropLast(2))
        self.sw1 = raw[raw.count - 2]
        self.sw2 = raw[raw.count - 1]
    }

    /// SW1 SW2 as one number (9000h = success).
    public var statusWord: UInt16 { UInt16(sw1) << 8 | UInt16(sw2) }

    /// True for 90 00.
    public var isSuccess: Bool { sw1 == 0x90 && sw2 == 0x00 }

    /// Throws ``NFCError/unexpectedStatusWord(_:_:)`` unless the status is 90 00; returns the data.
    @discardableResult
    public func requireSuccess() throws(NFCError) -> [UInt8] {
        guard isSuccess else { throw .unexpectedStatusWord(sw1, sw2) }
        return data
    }
}
