import NFCCore

/// What the access checks do at every tap (configuration section `access`, docs/access-control.md):
/// whether the originality signature is read and required, which clone probes run, where the
/// credential is and whether it is published hashed.
package struct AccessPolicy: Sendable, Equatable {
    /// What the originality signature decides (`access.signature`).
    package enum SignatureRule: String, Sendable, Equatable, CaseIterable, Encodable {
        /// Read and verify it; a tap whose signature does not verify, or that has none, is untrusted.
        case require
        /// Read and verify it and publish the verdict; only the clone probe `version_signature_mismatch`
        /// turns a failing one into an untrusted tap.
        case check
        /// Do not read it (saves the READ_SIG frame).
        case ignore
    }

    /// `access.signature`.
    package var signature = SignatureRule.check
    /// `access.credential`.
    package var credential = CredentialSource.uid
    /// `access.credential_hash`: publish the SHA-256 of the credential instead of the credential.
    package var credentialHash = false
    /// The clone probes that run (`access.probes.*`).
    package var probes: Set<CloneProbe.Name> = CloneProbeTable.defaultNames
    /// `access.originality_keys_file`: the path of the extra keys' file.
    package var originalityKeysFile: String?
    /// The keys of ``originalityKeysFile``, tried after NFCCore's table.
    package var extraKeys: [OriginalityKey] = []

    /// A policy with every default.
    package init() {}

    /// `access.probes.uid_structure`.
    package var probeUIDStructure: Bool {
        get { probes.contains(.uidStructure) }
        set { set(.uidStructure, newValue) }
    }
    /// `access.probes.version_signature_mismatch`.
    package var probeVersionSignatureMismatch: Bool {
        get { probes.contains(.versionSignatureMismatch) }
        set { set(.versionSignatureMismatch, newValue) }
    }
    /// `access.probes.gen1a_backdoor`.
    package var probeGen1aBackdoor: Bool {
        get { probes.contains(.gen1aBackdoor) }
        set { set(.gen1aBackdoor, newValue) }
    }

    /// `access.probes.gen4_gtu`.
    package var probeGen4GTU: Bool {
        get { probes.contains(.gen4GTU) }
        set { set(.gen4GTU, newValue) }
    }

    private mutating func set(_ probe: CloneProbe.Name, _ on: Bool) {
        if on { probes.insert(probe) } else { probes.remove(probe) }
    }
}

/// Where the credential of a tap is (`access.credential`), written as text in the configuration:
/// `uid`, `ndef` / `ndef:<n>`, `desfire:<AID>:<file>:<offset>:<length>` or `sun`.
package enum CredentialSource: Sendable, Equatable, Encodable, CustomStringConvertible {
    /// The UID (anyone can copy it: only for sites that accept that).
    case uid
    /// The payload of the n-th NDEF record (1 = the first), as read by the scan.
    case ndefRecord(Int)
    /// `length` bytes at `offset` of DESFire file `file` in application `aid` (3 bytes, as written:
    /// most significant first).
    case desfire(aid: [UInt8], file: UInt8, offset: Int, length: Int)
    /// The NTAG 424 DNA SUN message, once its check verified it.
    case sun

    /// The largest DESFire credential read (bytes): one ReadData answer of a few frames.
    package static let maximumDESFireLength = 256

    /// The source `text` names; nil with a reason for people when it names none.
    package static func parse(_ text: String) -> Result<CredentialSource, ParseFailure> {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch parts.first {
        case "uid" where parts.count == 1: return .success(.uid)
        case "sun" where parts.count == 1: return .success(.sun)
        case "ndef" where parts.count == 1: return .success(.ndefRecord(1))
        case "ndef" where parts.count == 2:
            guard let index = Int(parts[1]), (1...255).contains(index) else {
                return .failure(ParseFailure("ndef:<n> takes a record number from 1 to 255, got '\(parts[1])'"))
            }
            return .success(.ndefRecord(index))
        case "desfire" where parts.count == 5:
            guard let aid = [UInt8](hex: parts[1]), aid.count == 3 else {
                return .failure(ParseFailure("the DESFire application id is 6 hex digits, got '\(parts[1])'"))
            }
            guard let fileBytes = [UInt8](hex: parts[2]), fileBytes.count == 1, fileBytes[0] < 0x20 else {
                return .failure(ParseFailure("the DESFire file number is 2 hex digits from 00 to 1F, got '\(parts[2])'"))
            }
            guard let offset = Int(parts[3]), (0...0xFF_FFFF).contains(offset) else {
                return .failure(ParseFailure("the offset is a whole number of bytes from 0, got '\(parts[3])'"))
            }
            guard let length = Int(parts[4]), (1...maximumDESFireLength).contains(length) else {
                return .failure(ParseFailure("the length is 1 to \(maximumDESFireLength) bytes, got '\(parts[4])'"))
            }
            return .success(.desfire(aid: aid, file: fileBytes[0], offset: offset, length: length))
        default:
            return .failure(ParseFailure(
                "must be uid, ndef, ndef:<n>, desfire:<AID>:<file>:<offset>:<length> or sun, got '\(text)'"))
        }
    }

    /// Why a text names no source.
    package struct ParseFailure: Error, Equatable {
        /// For people.
        package let message: String
        init(_ message: String) { self.message = message }
    }

    /// The kind the `trust` object names: `uid`, `ndef`, `desfire`, `sun`.
    package var kind: String {
        switch self {
        case .uid: "uid"
        case .ndefRecord: "ndef"
        case .desfire: "desfire"
        case .sun: "sun"
        }
    }

    /// The text form (what the configuration and `info` show).
    package var description: String {
        switch self {
        case .uid, .sun: kind
        case let .ndefRecord(index): index == 1 ? "ndef" : "ndef:\(index)"
        case let .desfire(aid, file, offset, length): "desfire:\(aid.hexString):\(file.hexString):\(offset):\(length)"
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
