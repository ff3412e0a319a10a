/// Request flags of an ISO/IEC 15693-3 request (ISO/IEC 15693-3, "Request flags" tables, with the
/// inventory flag clear: bits 5–8 then mean select / address / option / RFU).
public struct ISO15693RequestFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 1: two sub-carriers (one when clear).
    public static let subCarrier = ISO15693RequestFlags(rawValue: 0x01)
    /// Bit 2: high data rate (26.48 kbit/s); every request NFCCore builds sets it.
    public static let highDataRate = ISO15693RequestFlags(rawValue: 0x02)
    /// Bit 3: inventory request.
    public static let inventory = ISO15693RequestFlags(rawValue: 0x04)
    /// Bit 4: protocol format extension.
    public static let protocolExtension = ISO15693RequestFlags(rawValue: 0x08)
    /// Bit 5: only the VICC in the selected state answers.
    public static let select = ISO15693RequestFlags(rawValue: 0x10)
    /// Bit 6: addressed mode; the request carries the UID. ``ISO15693Request/frame`` sets it when the
    /// request has a ``ISO15693Request/uid``.
    public static let address = ISO15693RequestFlags(rawValue: 0x20)
    /// Bit 7: the command's option (READ: return the block security status; WRITE / LOCK: answer after
    /// the reader's EOF, ISO/IEC 15693-3 "Option flag" of the write-alike commands — Texas Instruments Tag-it HF-I needs it for writes).
    public static let option = ISO15693RequestFlags(rawValue: 0x40)
}

/// One ISO/IEC 15693-3 request ("Request format"): flags, command code, the UID when addressed, and the command's
/// parameters. The transport adds SOF, CRC and EOF; NFCCore never sees them.
///
/// A backend may send ``frame`` as it is (a transparent exchange) or map well-known commands onto its
/// reader's own (PC/SC part 3 `FF B0` / `FF D6` for READ / WRITE SINGLE BLOCK, with ``blockNumber``).
public struct ISO15693Request: Sendable, Hashable {
    /// Request flags; ``ISO15693RequestFlags/address`` is added by ``frame`` when ``uid`` is set.
    public var flags: ISO15693RequestFlags
    /// Command code (ISO/IEC 15693-3 "Command codes" table: 20h READ SINGLE BLOCK, 2Bh GET SYSTEM INFORMATION, …).
    public var command: UInt8
    /// The addressed tag's UID **MSB first** (`E0 04 …`, as ``Target/uid`` holds it); nil for a
    /// non-addressed request. It goes on the wire LSB first (ISO/IEC 15693-3: the UID is sent least significant byte first).
    public var uid: [UInt8]?
    /// The command's parameters after the UID (block number, data, …).
    public var parameters: [UInt8]
    /// The IC manufacturer code of a custom command (A0h–DFh), which goes before the UID (ISO/IEC
    /// 15693-3 "Custom commands"; e.g. the ICODE SLIX2 datasheet's READ SIGNATURE request format, Table 76:
    /// flags, BDh, IC Mfg code, UID); nil for the commands of the standard.
    public var manufacturerCode: UInt8?

    /// Creates a request.
    public init(flags: ISO15693RequestFlags = [.highDataRate], command: UInt8, manufacturerCode: UInt8? = nil,
                uid: [UInt8]? = nil, parameters: [UInt8] = []) {
        self.flags = flags
        self.command = command
        self.manufacturerCode = manufacturerCode
        self.uid = uid
        self.parameters = parameters
    }

    /// The request as it goes on the air, without SOF, CRC and EOF: flags, command, the manufacturer
    /// code of a custom command, UID LSB first when addressed, parameters.
    public var frame: [UInt8] {
        var flags = self.flags
        if uid != nil { flags.insert(.address) }
        return [flags.rawValue, command] + (manufacturerCode.map { [$0] } ?? []) + (uid?.reversed() ?? []) + parameters
    }

    /// The block a READ / WRITE / LOCK (SINGLE) BLOCK request names: one parameter byte for 20h–22h, two
    /// (LSB first) for the EXTENDED 30h–32h; nil for other commands.
    public var blockNumber: Int? {
        switch command {
        case 0x20...0x22: parameters.first.map(Int.init)
        case 0x30...0x32: parameters.count >= 2 ? Int(parameters[0]) | Int(parameters[1]) << 8 : nil
        default: nil
        }
    }
}

/// Readers that can exchange ISO/IEC 15693-3 requests with a vicinity tag (VICC). libnfc cannot (no
/// ISO 15693 modulation, and PN53x chips have no such front end); the PC/SC backend (issue 14) and the
/// in-process virtual tags of the tests implement it. NFCCore's ISO 15693 family is written against this
/// protocol only.
///
/// Answers are the response frame without SOF, CRC and EOF: the response flags byte (ISO/IEC 15693-3 "Response flags") first,
/// then the parameters. An error response (flags bit 1 set) is returned as it came, `[flags, error
/// code]` — NFCCore maps the code (``ISO15693Error``). A backend that learns the outcome another way
/// (a PC/SC status word) builds the same frames: `00` + data on success, `01 <code>` on a refusal.
/// Silence is ``NFCError/timeout``; a tag that left is ``NFCError/tagRemoved``. Writes and locks may take
/// the tag longer than a read (the response waiting time t1 plus the programming time its datasheet
/// gives, about 20 ms): the backend waits for it.
public protocol ISO15693Transport: TagTransport {
    /// Sends one request and returns the response frame (flags byte first).
    func send(_ request: ISO15693Request) async throws -> [UInt8]
}
