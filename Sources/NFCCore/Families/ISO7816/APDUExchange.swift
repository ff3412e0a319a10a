extension APDUTransport {
    /// Sends `apdu` and returns the complete response. A 61xx status ("xx more bytes available",
    /// ISO/IEC 7816-4 §5.1.3) is followed by GET RESPONSE until the card stops asking, the pieces
    /// joined; a 6Cxx ("wrong Le, use xx") is answered by sending the command again with that Le.
    /// Both loops are bounded, so a card that keeps asking cannot hold the reader forever.
    public func send(_ apdu: CommandAPDU) async throws -> ResponseAPDU {
        var response = try ResponseAPDU(raw: try await sendAPDU(try apdu.bytes()))
        if response.sw1 == 0x6C {
            var corrected = apdu
            corrected.le = response.sw2 == 0 ? 256 : Int(response.sw2)
            response = try ResponseAPDU(raw: try await sendAPDU(try corrected.bytes()))
        }
        var data = response.data
        var rounds = 0
        while response.sw1 == 0x61 {
            rounds += 1
            // 64 × 256 bytes is far beyond anything a tag holds in one file read.
            guard rounds <= 64 else { throw NFCError.invalidResponse([response.sw1, response.sw2]) }
            response = try ResponseAPDU(raw: try await sendAPDU(try CommandAPDU.getResponse(length: Int(response.sw2)).bytes()))
            data += response.data
        }
        return ResponseAPDU(data: data, sw1: response.sw1, sw2: response.sw2)
    }
}
