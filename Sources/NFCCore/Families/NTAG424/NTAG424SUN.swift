/// The SUN settings scans and dumps use (a ``FamilyDumpOption``): the key sets to try, and offsets
/// configured in place of the file's own (GetFileSettings). Built by the agent from its keys file.
public struct NTAG424SUNOptions: FamilyDumpOption {
    /// No keys: every SUN message is `no_key`.
    public static let standard = NTAG424SUNOptions()

    /// Key sets, tried in order: the first that verifies the message names it.
    public var keySets: [SUNKeys]
    /// SDM offsets to use instead of asking the tag (GetFileSettings), when set.
    public var layout: SDMSettings?

    public init(keySets: [SUNKeys] = [], layout: SDMSettings? = nil) {
        self.keySets = keySets
        self.layout = layout
    }
}

/// A SUN message checked during a scan or a dump: the result and the key set that gave it.
public struct SUNCheck: Sendable, Hashable {
    public var result: SUNResult
    /// The name of the key set the verdict comes from (nil for `no_key` and `malformed` before any key).
    public var keySet: String?

    public init(result: SUNResult, keySet: String?) {
        self.result = result
        self.keySet = keySet
    }
}

/// SUN verification of an NTAG 424 DNA as the scan meets it: the NDEF message the Type 4 read
/// returned is the SDM file's content after its 2-byte NLEN (T4T v2.0 mapping, NT4H2421Gx §8.2.2), so
/// the SDM offsets apply to NLEN + message.
public enum NTAG424SUN {
    /// Reads file 02h's SDM settings (one GetFileSettings, unless `options.layout` gives them) and
    /// verifies `ndefMessage` with each key set. Nil when the file has SDM disabled (no SUN message).
    /// Throws what the transport throws (the tag left, a timeout); a refused or unreadable
    /// GetFileSettings is a `malformed` verdict.
    public static func check(ndefMessage: [UInt8], transport: any TagTransport, options: NTAG424SUNOptions)
        async throws -> SUNCheck?
    {
        let settings: SDMSettings
        if let layout = options.layout {
            settings = layout
        } else {
            guard let apdu = transport as? any APDUTransport else { return nil }
            do {
                guard let sdm = try await NTAG424Command.fileSettings(of: NTAG424Command.sdmFile, transport: apdu).sdm else {
                    return nil
                }
                settings = sdm
            } catch let error as NFCError {
                switch error {
                case .desfireError, .invalidResponse, .unexpectedStatusWord:
                    return SUNCheck(result: SUNResult(verdict: .malformed, reason: "GetFileSettings of file 02h: \(error.code)"),
                                    keySet: nil)
                default: throw error
                }
            }
        }
        return verify(file: file(of: ndefMessage), settings: settings, options: options)
    }

    /// The SDM file as read: NLEN (2 bytes, MSB first) + the message.
    public static func file(of ndefMessage: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: ndefMessage.count >> 8), UInt8(truncatingIfNeeded: ndefMessage.count)] + ndefMessage
    }

    /// Verifies with each key set in order: the first `valid` wins; else the first verdict a key gave
    /// (`invalid_mac`, `malformed` after decryption); else `no_key` (or `malformed` for a message that is
    /// not there whatever the key).
    public static func verify(file: [UInt8], settings: SDMSettings, options: NTAG424SUNOptions) -> SUNCheck {
        var first: SUNCheck?
        for keys in options.keySets {
            let result = SUNVerifier.verify(file: file, settings: settings, keys: keys)
            if result.verdict == .valid { return SUNCheck(result: result, keySet: keys.name) }
            if first == nil, result.verdict != .noKey { first = SUNCheck(result: result, keySet: keys.name) }
        }
        if let first { return first }
        return SUNCheck(result: SUNVerifier.verify(file: file, settings: settings, keys: nil), keySet: nil)
    }

    /// The dump's facts about a SUN check: "SUN" = verdict, counter and key set (never a key).
    public static func facts(_ check: SUNCheck, settings: SDMSettings?) -> [Fact] {
        var facts: [Fact] = []
        if let settings { facts.append(Fact(key: "SDM", value: settings.summary)) }
        var value = check.result.verdict.rawValue
        if let counter = check.result.counter { value += ", counter \(counter)" }
        if let name = check.keySet { value += ", keys '\(name)'" }
        if let reason = check.result.reason { value += " (\(reason))" }
        facts.append(Fact(key: "SUN", value: value))
        return facts
    }
}
