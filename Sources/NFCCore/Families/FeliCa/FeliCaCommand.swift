/// FeliCa commands (JIS X 6319-4 §7.5), built and parsed without the LEN byte — the transport adds and
/// strips it. Numbers on the wire are little-endian (service codes, 3-byte block numbers) except the
/// system code, which is big-endian.
public enum FeliCaCommand {
    /// NDEF read service 000Bh (random, read-only, no key) and write service 0009h (T3T §6.2).
    public static let ndefReadService: UInt16 = 0x000B
    public static let ndefWriteService: UInt16 = 0x0009

    /// Response codes are command code + 1.
    static let polling: UInt8 = 0x00, requestService: UInt8 = 0x02, requestResponse: UInt8 = 0x04
    static let readWithoutEncryption: UInt8 = 0x06, writeWithoutEncryption: UInt8 = 0x08

    /// POLLING `00 SC SC RC TSN`: RC 01 asks for the system code in the answer.
    public static func polling(systemCode: [UInt8], requestCode: UInt8 = 0x01, timeSlot: UInt8 = 0x00) -> [UInt8] {
        [polling] + systemCode.prefix(2) + [requestCode, timeSlot]
    }

    /// REQUEST SERVICE `02 IDm n code…` (codes little-endian).
    public static func requestService(idm: [UInt8], serviceCodes: [UInt16]) -> [UInt8] {
        [requestService] + idm + [UInt8(serviceCodes.count)] + serviceCodes.flatMap(littleEndian)
    }

    /// REQUEST RESPONSE `04 IDm` (the presence check libnfc sends).
    public static func requestResponse(idm: [UInt8]) -> [UInt8] {
        [requestResponse] + idm
    }

    /// READ WITHOUT ENCRYPTION `06 IDm m svc… n element…`.
    public static func read(idm: [UInt8], serviceCodes: [UInt16], blocks: [FeliCaBlockListElement]) throws(NFCError) -> [UInt8] {
        var command: [UInt8] = [readWithoutEncryption] + idm + [UInt8(serviceCodes.count)]
        command += serviceCodes.flatMap(littleEndian)
        command.append(UInt8(blocks.count))
        for element in blocks { command += try element.bytes() }
        return command
    }

    /// WRITE WITHOUT ENCRYPTION `08 IDm m svc… n element… data(16·n)`.
    public static func write(idm: [UInt8], serviceCodes: [UInt16], blocks: [FeliCaBlockListElement], data: [UInt8]) throws(NFCError) -> [UInt8] {
        guard data.count == blocks.count * 16 else {
            throw .invalidArgument("FeliCa write of \(blocks.count) blocks needs \(blocks.count * 16) bytes, not \(data.count)")
        }
        var command: [UInt8] = [writeWithoutEncryption] + idm + [UInt8(serviceCodes.count)]
        command += serviceCodes.flatMap(littleEndian)
        command.append(UInt8(blocks.count))
        for element in blocks { command += try element.bytes() }
        return command + data
    }

    static func littleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    /// Checks the response code and IDm; returns the bytes after the IDm.
    static func payload(of response: [UInt8], code: UInt8, idm: [UInt8]) throws(NFCError) -> [UInt8] {
        guard response.count >= 9, response[0] == code + 1, Array(response[1...8]) == idm else {
            throw .invalidResponse(response)
        }
        return Array(response.dropFirst(9))
    }

    // MARK: Exchanges

    /// Reads `blocks` of `service` (one READ WITHOUT ENCRYPTION). Returns 16 bytes per block.
    /// Throws ``NFCError/felicaBlockReadFailed(statusFlag:)`` (SF1) for a status ≠ 00 00 and
    /// ``NFCError/invalidResponse(_:)`` for a malformed answer.
    public static func read(blocks: [Int], service: UInt16, transport: any TagTransport) async throws -> [[UInt8]] {
        let idm = transport.target.uid
        let command = try read(idm: idm, serviceCodes: [service], blocks: blocks.map { FeliCaBlockListElement(block: $0) })
        let response = try await transport.transceive(command)
        let payload = try payload(of: response, code: readWithoutEncryption, idm: idm)
        guard payload.count >= 2 else { throw NFCError.invalidResponse(response) }
        guard payload[0] == 0x00 && payload[1] == 0x00 else { throw NFCError.felicaBlockReadFailed(statusFlag: payload[0]) }
        guard payload.count == 3 + blocks.count * 16, Int(payload[2]) == blocks.count else {
            throw NFCError.invalidResponse(response)
        }
        return (0..<blocks.count).map { Array(payload[(3 + $0 * 16)..<(3 + $0 * 16 + 16)]) }
    }

    /// Writes 16-byte `data` blocks to `blocks` of `service` (one WRITE WITHOUT ENCRYPTION).
    /// Throws ``NFCError/felicaBlockWriteFailed(statusFlag:)`` (SF1) for a status ≠ 00 00.
    public static func write(blocks: [Int], data: [[UInt8]], service: UInt16, transport: any TagTransport) async throws {
        guard data.count == blocks.count, data.allSatisfy({ $0.count == 16 }) else {
            throw NFCError.invalidArgument("FeliCa writes take one 16-byte block per block number")
        }
        let idm = transport.target.uid
        let command = try write(idm: idm, serviceCodes: [service], blocks: blocks.map { FeliCaBlockListElement(block: $0) },
                                data: data.flatMap { $0 })
        let response = try await transport.transceive(command)
        let payload = try payload(of: response, code: writeWithoutEncryption, idm: idm)
        guard payload.count >= 2 else { throw NFCError.invalidResponse(response) }
        guard payload[0] == 0x00 && payload[1] == 0x00 else { throw NFCError.felicaBlockWriteFailed(statusFlag: payload[0]) }
    }

    /// REQUEST SERVICE for up to 32 codes: the key version of each, nil where the service is absent
    /// (key version FFFFh).
    public static func requestService(_ codes: [UInt16], transport: any TagTransport) async throws -> [UInt16?] {
        guard (1...32).contains(codes.count) else { throw NFCError.invalidArgument("REQUEST SERVICE takes 1…32 codes") }
        let idm = transport.target.uid
        let response = try await transport.transceive(requestService(idm: idm, serviceCodes: codes))
        let payload = try payload(of: response, code: requestService, idm: idm)
        guard payload.count == 1 + codes.count * 2, Int(payload[0]) == codes.count else {
            throw NFCError.invalidResponse(response)
        }
        return (0..<codes.count).map { index in
            let version = UInt16(payload[1 + index * 2]) | UInt16(payload[2 + index * 2]) << 8
            return version == 0xFFFF ? nil : version
        }
    }
}
