/// The keys a site verifies NTAG 424 DNA SUN messages with: SDMMetaRead (decrypts PICCData) and
/// SDMFileRead (the SDMMAC session keys come from it), AES-128 each, as ``SecretBytes``. Never printed:
/// ``description`` names the key set, not the bytes.
public struct SUNKeys: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The key set's name in the keys file (what facts and events say).
    public var name: String
    public var metaRead: SecretBytes?
    public var fileRead: SecretBytes?

    public init(name: String, metaRead: SecretBytes?, fileRead: SecretBytes?) {
        self.name = name
        self.metaRead = metaRead
        self.fileRead = fileRead
    }

    /// Keys given as bytes (tests, tools).
    public init(name: String, metaRead: [UInt8]?, fileRead: [UInt8]?) {
        self.init(name: name, metaRead: metaRead.map(SecretBytes.init), fileRead: fileRead.map(SecretBytes.init))
    }

    public var description: String { "SUN keys '\(name)'" }
    public var debugDescription: String { description }
}

/// What a SUN message says: the verdict, and what it could read on the way.
public struct SUNResult: Sendable, Hashable {
    /// The verdicts (published as `trust.sun.verdict`, docs/mqtt.md). ``replayed`` is never given by
    /// ``SUNVerifier``: the agent gives it to a valid message whose counter is not above the last one
    /// seen for the UID.
    public enum Verdict: String, Sendable, Hashable, Codable, CaseIterable {
        /// The SDMMAC is the one the key gives for this UID and counter.
        case valid
        /// The SDMMAC does not match: a forged or altered message, or the wrong key.
        case invalidMAC = "invalid_mac"
        /// A valid message whose counter is not above the last one seen for the UID.
        case replayed
        /// No key to check it with (a key the file's settings call for is not configured).
        case noKey = "no_key"
        /// The file holds no readable SUN message where its settings say (not hex, out of the file,
        /// PICCData that does not decrypt to a PICCDataTag).
        case malformed
        /// The SDMMAC verifies, but the message mirrors no UID or no read counter, so nothing tells it
        /// from a copy (its MAC never changes). The verifier does not answer it: a reader that keeps
        /// counters (the agent, docs/sun.md) does, in place of `valid`.
        case notFresh = "not_fresh"
    }

    public var verdict: Verdict
    /// The UID the message carries (PICCData or the plain mirror), when it could be read.
    public var uid: [UInt8]?
    /// SDMReadCtr, when mirrored and readable.
    public var counter: Int?
    /// SDMENCFileData decrypted, when the file mirrors it and the MAC is valid.
    public var fileData: [UInt8]?
    /// Why, for a verdict other than valid: one sentence, never a key.
    public var reason: String?

    public init(verdict: Verdict, uid: [UInt8]? = nil, counter: Int? = nil, fileData: [UInt8]? = nil, reason: String? = nil) {
        self.verdict = verdict
        self.uid = uid
        self.counter = counter
        self.fileData = fileData
        self.reason = reason
    }
}

/// Verifies the SUN message an NTAG 424 DNA mirrors into its SDM file (NT4H2421Gx Rev. 3.0 §9.3;
/// NXP AN12196 Rev. 1.5 §3, the worked examples on pages 12 and 18):
///
/// 1. PICCData: with SDMMetaRead a key, 32 hex characters at PICCDataOffset decrypt (AES-128 CBC,
///    zero IV, §9.3.4.1) to PICCDataTag ‖ UID ‖ SDMReadCtr (LSB first) ‖ random padding; with
///    SDMMetaRead free, the UID and the counter (MSB first) are mirrored in plain (§9.3.3).
/// 2. SesSDMFileReadMACKey = CMAC(SDMFileReadKey, SV2), SV2 = 3C C3 00 01 00 80 [UID] [SDMReadCtr]
///    zero-padded to 16 bytes (§9.3.9.1).
/// 3. SDMMAC = the odd bytes (1, 3, …, 15) of CMAC(SesSDMFileReadMACKey, file[SDMMACInputOffset ..<
///    SDMMACOffset]) (§9.3.8.1, truncation §9.1.3), compared with the 16 hex characters at SDMMACOffset.
/// 4. SDMENCFileData, when mirrored: SesSDMFileReadENCKey = CMAC(key, SV1 = C3 3C 00 01 00 80 UID
///    SDMReadCtr), IV = E(key, SDMReadCtr ‖ 0¹³), AES-CBC decrypt (§9.3.6.1).
///
/// Pure: no I/O, no state. The counter's freshness is the caller's (`replayed`).
public enum SUNVerifier {
    /// Checks the SUN message in `file` (the SDM file's bytes as read, from offset 0: an NDEF file's
    /// NLEN included) laid out as `settings` say, with `keys` (nil: none configured).
    public static func verify(file: [UInt8], settings: SDMSettings, keys: SUNKeys?) -> SUNResult {
        guard settings.fileRead != .never, let macInput = settings.macInputOffset, let macOffset = settings.macOffset else {
            return SUNResult(verdict: .malformed, reason: "the file's SDM settings mirror no SDMMAC")
        }
        // 1. UID and counter.
        var uid: [UInt8]?
        var counter: [UInt8]?
        switch settings.metaRead {
        case .key:
            guard let offset = settings.piccDataOffset,
                  let encrypted = hex(file, at: offset, count: SDMSettings.Length.piccData) else {
                return SUNResult(verdict: .malformed, reason: "no PICCData (32 hex characters) at the PICCData offset")
            }
            guard let key = keys?.metaRead?.revealed else {
                return SUNResult(verdict: .noKey, reason: "no SDMMetaRead key to decrypt PICCData with")
            }
            guard let plain = try? AES.cbc(encrypt: false, key: key, data: encrypted),
                  let picc = PICCData(plain) else {
                return SUNResult(verdict: .malformed, reason: "PICCData does not decrypt to a PICCDataTag (wrong SDMMetaRead key?)")
            }
            uid = picc.uid
            counter = picc.counter
        case .free:
            if settings.options.contains(.uid), let offset = settings.uidOffset {
                guard let plain = hex(file, at: offset, count: SDMSettings.Length.uid) else {
                    return SUNResult(verdict: .malformed, reason: "no UID (14 hex characters) at the UID offset")
                }
                uid = plain
            }
            if settings.options.contains(.readCounter), let offset = settings.readCounterOffset {
                guard let plain = hex(file, at: offset, count: SDMSettings.Length.readCounter) else {
                    return SUNResult(verdict: .malformed, reason: "no read counter (6 hex characters) at its offset")
                }
                counter = plain.reversed()  // ASCII is MSB first; the crypto takes it LSB first (§9.3.1)
            }
        case .never:
            break
        }
        let counterValue = counter.map { Int($0[0]) | Int($0[1]) << 8 | Int($0[2]) << 16 }
        // 2-3. The SDMMAC.
        guard macInput <= macOffset, let received = hex(file, at: macOffset, count: SDMSettings.Length.mac) else {
            return SUNResult(verdict: .malformed, uid: uid, counter: counterValue,
                             reason: "no SDMMAC (16 hex characters) at the SDMMAC offset")
        }
        guard let fileReadKey = keys?.fileRead?.revealed else {
            return SUNResult(verdict: .noKey, uid: uid, counter: counterValue, reason: "no SDMFileRead key to check the SDMMAC with")
        }
        let sv2 = padded([0x3C, 0xC3, 0x00, 0x01, 0x00, 0x80] + (uid ?? []) + (counter ?? []))
        guard let sessionMACKey = try? AES.cmac(key: fileReadKey, message: sv2),
              let full = try? AES.cmac(key: sessionMACKey, message: Array(file[macInput..<macOffset])) else {
            return SUNResult(verdict: .malformed, uid: uid, counter: counterValue, reason: "the SDMMAC could not be computed")
        }
        guard constantTimeEqual(truncated(full), received) else {
            return SUNResult(verdict: .invalidMAC, uid: uid, counter: counterValue, reason: "the SDMMAC does not match")
        }
        // 4. SDMENCFileData.
        var fileData: [UInt8]?
        if settings.options.contains(.encryptedFileData), let offset = settings.encryptedDataOffset,
           let length = settings.encryptedDataLength {
            guard let uid, let counter, length > 0, length % 32 == 0,
                  let encrypted = hex(file, at: offset, count: length),
                  let plain = try? decryptFileData(encrypted, key: fileReadKey, uid: uid, counter: counter) else {
                return SUNResult(verdict: .malformed, uid: uid, counter: counterValue,
                                 reason: "the encrypted file data cannot be read where the settings say")
            }
            fileData = plain
        }
        return SUNResult(verdict: .valid, uid: uid, counter: counterValue, fileData: fileData)
    }

    /// PICCDataTag ‖ UID ‖ SDMReadCtr (§9.3.4 Table 21): bit 7 UID, bit 6 counter, bits 3-0 UID length (7).
    struct PICCData {
        var uid: [UInt8]?
        var counter: [UInt8]?

        init?(_ plain: [UInt8]) {
            guard plain.count == 16, let tag = plain.first, tag & 0x30 == 0 else { return nil }
            var at = 1
            if tag & 0x80 != 0 {
                guard tag & 0x0F == 7 else { return nil }
                uid = Array(plain[at..<at + 7])
                at += 7
            } else if tag & 0x0F != 0 {
                return nil
            }
            if tag & 0x40 != 0 { counter = Array(plain[at..<at + 3]) }
            guard uid != nil || counter != nil else { return nil }
        }
    }

    /// SDMENCFileData decrypted (§9.3.6.1).
    static func decryptFileData(_ encrypted: [UInt8], key: [UInt8], uid: [UInt8], counter: [UInt8]) throws(NFCError) -> [UInt8] {
        let sessionKey = try AES.cmac(key: key, message: padded([0xC3, 0x3C, 0x00, 0x01, 0x00, 0x80] + uid + counter))
        let iv = try AES.cbc(encrypt: true, key: sessionKey, data: counter + [UInt8](repeating: 0, count: 13))
        return try AES.cbc(encrypt: false, key: sessionKey, iv: iv, data: encrypted)
    }

    /// The 8 odd bytes of a CMAC (NT4H2421Gx §9.1.3: "the MAC is truncated … using the even-numbered
    /// bytes" counted from 1, i.e. indexes 1, 3, …, 15).
    public static func truncated(_ mac: [UInt8]) -> [UInt8] {
        stride(from: 1, to: mac.count, by: 2).map { mac[$0] }
    }

    /// Zero-padded to a multiple of 16 bytes (§9.3.9.1).
    static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: (16 - bytes.count % 16) % 16)
    }

    /// `count` hex characters of `file` at `offset`, decoded; nil when out of the file or not hex.
    static func hex(_ file: [UInt8], at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count % 2 == 0, offset <= file.count, count <= file.count - offset else { return nil }
        return [UInt8](hex: String(decoding: file[offset..<offset + count], as: UTF8.self))
            .flatMap { $0.count == count / 2 ? $0 : nil }
    }

    /// Compares without stopping at the first difference.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
