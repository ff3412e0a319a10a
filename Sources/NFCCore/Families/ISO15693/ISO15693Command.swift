/// The ISO/IEC 15693-3 commands NFCCore sends, one builder and parser each (ISO/IEC 15693-3 "Command codes"
/// table and the clauses of the mandatory and optional commands). Blocks 0–255 use the one-byte-address
/// commands (20h–22h), blocks from 256 on the EXTENDED ones (30h–32h, two-byte address LSB first), so a
/// tag without the extended commands is still read up to block 255.
///
/// Every request is addressed (the UID in the frame) at the high data rate, so only the tag
/// NFCCore identified answers even when several are in the field.
public enum ISO15693Command {
    /// Command codes (ISO/IEC 15693-3 "Command codes" table).
    public enum Code: UInt8, Sendable {
        case readSingleBlock = 0x20
        case writeSingleBlock = 0x21
        case lockBlock = 0x22
        case readMultipleBlocks = 0x23
        case getSystemInformation = 0x2B
        case extendedReadSingleBlock = 0x30
        case extendedWriteSingleBlock = 0x31
        case extendedLockBlock = 0x32
        case extendedReadMultipleBlocks = 0x33
        case extendedGetSystemInformation = 0x3B
        /// NXP custom command READ SIGNATURE (ICODE SLIX2 SL2S2602 datasheet §9.5.3.20; ICODE DNA).
        case readSignature = 0xBD
    }

    /// Bytes of READ SIGNATURE's answer after the flags: "an IC specific, 32-byte ECC signature" (ICODE
    /// SLIX2 datasheet §9.5.3.20, Table 78: 256 bits).
    public static let signatureLength = 32

    /// The highest block the one-byte-address commands reach.
    public static let lastSingleByteBlock = 255

    /// EXTENDED GET SYSTEM INFORMATION's parameter request field (ISO/IEC 15693-3:2019 EXTENDED GET SYSTEM
    /// INFORMATION; ST25DV04K/16K/64K datasheet "Extended Get System Info" request): DSFID 01h, AFI 02h, VICC memory size 04h, IC
    /// reference 08h — the four fields GET SYSTEM INFORMATION gives.
    public static let extendedInfoRequest: UInt8 = 0x0F

    /// Sends `request` and returns the response parameters (after the flags byte). An error response
    /// (response flags bit 1 set) is thrown as ``ISO15693Error/error(for:code:)`` for the request's command.
    public static func exchange(_ request: ISO15693Request, transport: any ISO15693Transport) async throws -> [UInt8] {
        let response = try await transport.send(request)
        guard let flags = response.first else { throw NFCError.invalidResponse(response) }
        if flags & 0x01 != 0 {
            guard response.count >= 2 else { throw NFCError.invalidResponse(response) }
            throw ISO15693Error.error(for: request.command, code: response[1])
        }
        return Array(response.dropFirst())
    }

    /// READ SINGLE BLOCK (20h) or EXTENDED READ SINGLE BLOCK (30h) of `block`. With `securityStatus` the
    /// option flag asks for the block security status byte before the data (ISO/IEC 15693-3 READ SINGLE BLOCK: bit 1 = locked); the
    /// answer is then `(locked, data)`, else `(nil, data)`.
    public static func readBlock(_ block: Int, uid: [UInt8], securityStatus: Bool, transport: any ISO15693Transport)
        async throws -> (locked: Bool?, data: [UInt8])
    {
        let request = blockRequest(block, single: .readSingleBlock, extended: .extendedReadSingleBlock, uid: uid,
                                   option: securityStatus)
        let answer = try await exchange(request, transport: transport)
        guard securityStatus else { return (nil, answer) }
        guard let status = answer.first else { throw NFCError.invalidResponse(answer) }
        return (status & 0x01 != 0, Array(answer.dropFirst()))
    }

    /// READ MULTIPLE BLOCKS (23h: first block and number of blocks − 1, one byte each) for blocks up to
    /// 255, EXTENDED READ MULTIPLE BLOCKS (33h: both two bytes, LSB first; ISO/IEC 15693-3:2019) for a
    /// range that goes past it. The response repeats `[security status] data` per block (the status with
    /// the option flag, as READ SINGLE BLOCK). A response of another length is
    /// ``NFCError/invalidResponse(_:)``.
    public static func readBlocks(_ blocks: Range<Int>, blockSize: Int, uid: [UInt8], securityStatus: Bool,
                                  transport: any ISO15693Transport) async throws -> [(locked: Bool?, data: [UInt8])]
    {
        guard !blocks.isEmpty, blocks.lowerBound >= 0, blockSize > 0 else { return [] }
        let flags: ISO15693RequestFlags = securityStatus ? [.highDataRate, .option] : [.highDataRate]
        let last = blocks.count - 1
        let request: ISO15693Request
        if blocks.upperBound - 1 <= lastSingleByteBlock && last <= 0xFF {
            request = ISO15693Request(flags: flags, command: Code.readMultipleBlocks.rawValue, uid: uid,
                                      parameters: [UInt8(blocks.lowerBound), UInt8(last)])
        } else {
            request = ISO15693Request(
                flags: flags, command: Code.extendedReadMultipleBlocks.rawValue, uid: uid,
                parameters: [UInt8(blocks.lowerBound & 0xFF), UInt8((blocks.lowerBound >> 8) & 0xFF),
                             UInt8(last & 0xFF), UInt8((last >> 8) & 0xFF)])
        }
        let answer = try await exchange(request, transport: transport)
        let stride = blockSize + (securityStatus ? 1 : 0)
        guard answer.count == stride * blocks.count else { throw NFCError.invalidResponse(answer) }
        return (0..<blocks.count).map { index in
            let part = answer[(index * stride)..<((index + 1) * stride)]
            guard securityStatus, let status = part.first else { return (nil, Array(part)) }
            return (status & 0x01 != 0, Array(part.dropFirst()))
        }
    }

    /// WRITE SINGLE BLOCK (21h) or EXTENDED WRITE SINGLE BLOCK (31h). `optionFlag` for tags that answer a
    /// write only after the reader's EOF (Texas Instruments Tag-it HF-I, ``ISO15693Product/Features``).
    public static func writeBlock(_ block: Int, data: [UInt8], uid: [UInt8], optionFlag: Bool,
                                  transport: any ISO15693Transport) async throws {
        var request = blockRequest(block, single: .writeSingleBlock, extended: .extendedWriteSingleBlock, uid: uid,
                                   option: optionFlag)
        request.parameters += data
        _ = try await exchange(request, transport: transport)
    }

    /// LOCK BLOCK (22h) or EXTENDED LOCK BLOCK (32h): **permanent** — a locked block can never be
    /// written again (ISO/IEC 15693-3 LOCK BLOCK).
    public static func lockBlock(_ block: Int, uid: [UInt8], optionFlag: Bool, transport: any ISO15693Transport)
        async throws
    {
        let request = blockRequest(block, single: .lockBlock, extended: .extendedLockBlock, uid: uid, option: optionFlag)
        _ = try await exchange(request, transport: transport)
    }

    /// READ SIGNATURE (BDh, NXP custom): the 32-byte originality signature NXP programs at production
    /// (ICODE SLIX2 datasheet §9.5.3.20, Tables 76–78: flags, BDh, IC Mfg code 04h, UID; the answer is
    /// the flags byte and the signature). Addressed, so only the identified tag answers. An error
    /// response is thrown as ``exchange(_:transport:)`` does; an answer of another length is
    /// ``NFCError/invalidResponse(_:)``. Never writes.
    public static func readSignature(uid: [UInt8], transport: any ISO15693Transport) async throws -> [UInt8] {
        let request = ISO15693Request(command: Code.readSignature.rawValue, manufacturerCode: ICManufacturer.nxp, uid: uid)
        let answer = try await exchange(request, transport: transport)
        guard answer.count == signatureLength else { throw NFCError.invalidResponse(answer) }
        return answer
    }

    /// GET SYSTEM INFORMATION (2Bh) request.
    public static func getSystemInformation(uid: [UInt8]) -> ISO15693Request {
        ISO15693Request(command: Code.getSystemInformation.rawValue, uid: uid)
    }

    /// EXTENDED GET SYSTEM INFORMATION (3Bh) request for DSFID, AFI, memory size and IC reference.
    public static func extendedGetSystemInformation(uid: [UInt8]) -> ISO15693Request {
        ISO15693Request(command: Code.extendedGetSystemInformation.rawValue, uid: uid, parameters: [extendedInfoRequest])
    }

    /// The request for `block`: the one-byte-address command up to 255, the extended one (address LSB
    /// first) from 256 on.
    static func blockRequest(_ block: Int, single: Code, extended: Code, uid: [UInt8], option: Bool) -> ISO15693Request {
        let flags: ISO15693RequestFlags = option ? [.highDataRate, .option] : [.highDataRate]
        if block <= lastSingleByteBlock {
            return ISO15693Request(flags: flags, command: single.rawValue, uid: uid, parameters: [UInt8(block)])
        }
        return ISO15693Request(flags: flags, command: extended.rawValue, uid: uid,
                               parameters: [UInt8(block & 0xFF), UInt8((block >> 8) & 0xFF)])
    }
}

/// The error codes of an ISO/IEC 15693-3 error response (ISO/IEC 15693-3 "Response error code
/// definition" table), and the ``NFCError`` each becomes.
public enum ISO15693Error {
    /// One error code and its name.
    public struct Row: Sendable {
        public var code: UInt8
        public var name: String
    }

    /// The table (codes A0h–DFh are custom, others RFU).
    public static let rows: [Row] = [
        Row(code: 0x01, name: "command not supported"),
        Row(code: 0x02, name: "command not recognised"),
        Row(code: 0x03, name: "option not supported"),
        Row(code: 0x0F, name: "unknown error"),
        Row(code: 0x10, name: "block not available"),
        Row(code: 0x11, name: "block already locked"),
        Row(code: 0x12, name: "block locked, its content cannot change"),
        Row(code: 0x13, name: "block not successfully programmed"),
        Row(code: 0x14, name: "block not successfully locked"),
    ]

    /// "block locked" (12h): a write to a locked block.
    public static let blockLocked: UInt8 = 0x12
    /// "block already locked" (11h): a LOCK BLOCK of a locked block.
    public static let blockAlreadyLocked: UInt8 = 0x11
    /// "option not supported" (03h).
    public static let optionNotSupported: UInt8 = 0x03

    /// The name of `code` ("custom error" for A0h–DFh, "RFU" otherwise).
    public static func name(of code: UInt8) -> String {
        if let row = rows.first(where: { $0.code == code }) { return row.name }
        return (0xA0...0xDF).contains(code) ? "custom error" : "RFU"
    }

    /// The error an error response with `code` to `command` gives: ``NFCError/tagLocked`` for a write to a
    /// locked block, ``NFCError/commandRefused(command:nak:)`` with the code as `nak` otherwise.
    public static func error(for command: UInt8, code: UInt8) -> NFCError {
        let writes: Set<UInt8> = [0x21, 0x31]
        if code == blockLocked, writes.contains(command) { return .tagLocked }
        return .commandRefused(command: command, nak: code)
    }
}
