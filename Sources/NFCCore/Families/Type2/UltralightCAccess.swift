/// Ultralight C access configuration: AUTH0 (page 42 byte 0) and AUTH1 (page 43 byte 0), MF0ICU2 §7.5.8.
///
/// AUTH0 is the first page that needs 3DES authentication; 30h or more switches protection off (valid
/// range 03h–30h). AUTH1 bit 0 = 1 restricts writes only (reads stay free); bit 0 = 0 restricts reads
/// and writes. Upstream had both inverted (protection off only at exactly 30h, bit 0 = 1 meaning "read
/// and write"); its test vector `30 28` → `90 91 … 10 00 00 00 01 00 00 00` is "Write-only" from page 16.
public struct UltralightCAccess: Sendable, Hashable {
    /// What the protection covers.
    public enum Protection: String, Sendable {
        case disabled = "Disabled"
        case readAndWrite = "Read and write"
        case writeOnly = "Write-only"
    }

    /// AUTH0 byte.
    public var auth0: UInt8
    /// AUTH1 byte.
    public var auth1: UInt8

    /// Creates the configuration from the two bytes.
    public init(auth0: UInt8, auth1: UInt8) {
        self.auth0 = auth0
        self.auth1 = auth1
    }

    /// Decodes a READ 30 28 answer (pages 40–43): AUTH0 is byte 8, AUTH1 byte 12.
    /// Throws ``NFCError/invalidResponse(_:)`` when fewer than 13 bytes came back.
    public init(pages40Through43 bytes: [UInt8]) throws(NFCError) {
        guard bytes.count >= 13 else { throw .invalidResponse(bytes) }
        self.init(auth0: bytes[8], auth1: bytes[12])
    }

    /// Decodes pages 42 and 43 from a dump; nil when either is missing or empty.
    public init?(pages: [Page]) {
        guard let auth0 = pages.first(where: { $0.number == 42 })?.data.first,
            let auth1 = pages.first(where: { $0.number == 43 })?.data.first
        else { return nil }
        self.init(auth0: auth0, auth1: auth1)
    }

    /// The first protected page, nil when protection is off (AUTH0 ≥ 30h).
    public var firstProtectedPage: Int? { auth0 >= 0x30 ? nil : Int(auth0) }

    /// What the protection covers.
    public var protection: Protection {
        guard firstProtectedPage != nil else { return .disabled }
        return auth1 & 0x01 == 1 ? .writeOnly : .readAndWrite
    }

    /// True when reads from ``firstProtectedPage`` on need authentication.
    public var protectsReads: Bool { protection == .readAndWrite }

    /// True when writes from ``firstProtectedPage`` on need authentication.
    public var protectsWrites: Bool { protection != .disabled }

    /// The dump facts: `Protection`, and `First Protected Page` (decimal) when protection is on.
    public var facts: [Fact] {
        var facts = [Fact(key: "Protection", value: protection.rawValue)]
        if let firstProtectedPage { facts.append(Fact(key: "First Protected Page", value: "\(firstProtectedPage)")) }
        return facts
    }
}
