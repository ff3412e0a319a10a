/// A short command APDU (ISO/IEC 7816-4 §5.1): header, optional data (Lc), optional Le.
public struct CommandAPDU: Sendable, Hashable, CustomStringConvertible {
    public var cla: UInt8
    public var ins: UInt8
    public var p1: UInt8
    public var p2: UInt8
    /// Command data (1…255 bytes) or empty.
    public var data: [UInt8]
    /// Expected response length Ne: nil = no Le field, 1…256 (256 is encoded as Le = 00).
    public var le: Int?

    /// Creates an APDU. Data longer than 255 bytes or Ne outside 1…256 are not representable as a
    /// short APDU: ``bytes()`` then throws.
    public init(cla: UInt8 = 0x00, ins: UInt8, p1: UInt8 = 0, p2: UInt8 = 0, data: [UInt8] = [], le: Int? = nil) {
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.data = data
        self.le = le
    }

    /// The encoded APDU. Throws ``NFCError/invalidArgument(_:)`` when data or Le do not fit a short APDU.
    public func bytes() throws(NFCError) -> [UInt8] {
        var out = [cla, ins, p1, p2]
        if !data.isEmpty {
            guard data.count <= 255 else { throw .invalidArgument("APDU data of \(data.count) bytes exceeds 255") }
            out.append(UInt8(data.count))
            out += data
        }
        if let le {
            guard (1...256).contains(le) else { throw .invalidArgument("APDU Le \(le) is outside 1…256") }
            out.append(UInt8(le & 0xFF))
        }
        return out
    }

    public var description: String { ((try? bytes()) ?? [cla, ins, p1, p2]).spacedHexString }

    // MARK: Builders (ISO/IEC 7816-4 §11)

    /// SELECT by DF name / AID (P1 04, P2 00 "first or only occurrence", Le 00), as T4T v2.0 §5.4.2 asks
    /// for the NDEF Tag Application.
    public static func select(aid: [UInt8]) -> CommandAPDU {
        CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x00, data: aid, le: 256)
    }

    /// SELECT by file identifier (P1 00, P2 0C "no response data"), T4T v2.0 §5.4.3.
    public static func selectFile(id: [UInt8]) -> CommandAPDU {
        CommandAPDU(ins: 0xA4, p1: 0x00, p2: 0x0C, data: id)
    }

    /// READ BINARY at `offset` (15 bits: P1 bit 8 must stay 0, it would select a short EF id) for `length`
    /// bytes (1…256). Throws ``NFCError/invalidArgument(_:)`` for an offset above 7FFFh.
    public static func readBinary(offset: Int, length: Int) throws(NFCError) -> CommandAPDU {
        guard (0...0x7FFF).contains(offset) else { throw .invalidArgument("READ BINARY offset \(offset) exceeds 7FFFh") }
        return CommandAPDU(ins: 0xB0, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), le: length)
    }

    /// UPDATE BINARY of `data` at `offset` (15 bits). Throws ``NFCError/invalidArgument(_:)`` for an
    /// offset above 7FFFh.
    public static func updateBinary(offset: Int, data: [UInt8]) throws(NFCError) -> CommandAPDU {
        guard (0...0x7FFF).contains(offset) else { throw .invalidArgument("UPDATE BINARY offset \(offset) exceeds 7FFFh") }
        return CommandAPDU(ins: 0xD6, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), data: data)
    }

    /// GET RESPONSE for `length` bytes (SW2 of a 61xx; 00 means 256).
    public static func getResponse(length: Int) -> CommandAPDU {
        CommandAPDU(ins: 0xC0, le: length == 0 ? 256 : length)
    }

    /// A DESFire native command wrapped in ISO 7816 (CLA 90, P1 P2 00, Le 00): MIFARE DESFire EV1
    /// datasheet §9.2 "ISO/IEC 7816-4 APDU wrapping".
    public static func desfire(command: UInt8, data: [UInt8] = []) -> CommandAPDU {
        CommandAPDU(cla: 0x90, ins: command, data: data, le: 256)
    }
}
