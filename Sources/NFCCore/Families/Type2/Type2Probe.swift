/// How a Type 2 command ended when a refusal is an answer in itself (identification probes, reading
/// up to the first protected page).
enum Type2ProbeResult: Sendable, Equatable {
    /// The tag answered these bytes.
    case answered([UInt8])
    /// The tag sent a NAK (or the reader reported a transmission error for the frame).
    case refused
    /// The tag stayed silent.
    case noAnswer

    /// "refused" / "no answer" / "<n> bytes", for probe evidence.
    var summary: String {
        switch self {
        case let .answered(bytes): "\(bytes.count) bytes"
        case .refused: "refused"
        case .noAnswer: "no answer"
        }
    }
}

extension Type2Command {
    /// Sends the frame; a NAK, silence or an RF error becomes a result instead of an error, and the
    /// tag is re-selected at once: NXP Type 2 tags fall back to IDLE after a NAK (MF0ULX1 §8.3,
    /// NTAG213/215/216 §9.3) and ignore everything until selected again. A tag that cannot be
    /// re-selected throws ``NFCError/tagRemoved``; other errors pass through.
    func probe(via transport: some TagTransport) async throws -> Type2ProbeResult {
        let result: Type2ProbeResult
        do {
            return .answered(try await transport.transceive(bytes, framing: framing))
        } catch NFCError.commandRefused, NFCError.rfError {
            result = .refused
        } catch NFCError.timeout {
            result = .noAnswer
        }
        try await transport.reselect()
        return result
    }
}
