/// Sets a PWD_AUTH password on an NTAG21x, Ultralight EV1 or NTAG210/212 tag and switches protection
/// on from a page: PWD, PACK, then ACCESS (PROT), then AUTH0.
///
/// Procedure (NTAG213/215/216 §8.8 "Password verification protection" and §8.5.7 "Configuration pages";
/// MF0ULX1 §8.8 and §8.5.7; NTAG210/212 §8.8): PWD and PACK are written first, while protection is still
/// off; then CFG1's ACCESS byte with PROT (bit 7: 1 = reads protected too, 0 = writes only), keeping its
/// other bits; AUTH0 (CFG0 byte 3) last, keeping bytes 0–2 (MIRROR, RFUI, MIRROR_PAGE). Writing AUTH0
/// last means a tag pulled away before the end is either unprotected or protected with the new
/// password, never protected with a password that was not written.
///
/// Afterwards PWD_AUTH with the new password must answer the expected PACK (else
/// ``NFCError/verifyFailed(page:)`` naming the PACK page) and CFG0/CFG1, read back after it, must hold
/// AUTH0 and PROT (else ``NFCError/verifyFailed(page:)`` naming the configuration page). PWD and PACK
/// read back as zeros (§8.5.7), so nothing else can check them, and they are never kept as known page
/// content (``Type2Memory/write(page:data:)``).
///
/// Refused, with nothing written: products without PWD_AUTH (``NFCError/unsupportedOperation(_:)``),
/// a tag whose protection is already on (``NFCError/authenticationRequired``: changing a password is
/// not done here), CFGLCK set (``NFCError/tagLocked``: the configuration is frozen for good), an AUTH0
/// outside 3 … the last page (``NFCError/invalidArgument(_:)``), a UID other than `expectedUID`
/// (``NFCError/tagMismatch(expected:actual:)``).
public enum Type2PasswordProtect {
    /// ACCESS bit 7: PROT, reads protected as well as writes (NTAG213/215/216 §8.5.7, Table 11).
    static let protBit: UInt8 = 0x80
    /// ACCESS bit 6: CFGLCK, the configuration pages locked for good (same table).
    static let configLockBit: UInt8 = 0x40

    /// What the protection does.
    public struct Settings: Sendable, Hashable {
        /// The password and the PACK the tag will answer with (`name` is what reports show).
        public var password: Type2Password
        /// The first protected page (AUTH0).
        public var auth0: Int
        /// PROT: reads need the password too, not only writes.
        public var protectsReads: Bool

        /// Creates settings.
        public init(password: Type2Password, auth0: Int, protectsReads: Bool) {
            self.password = password
            self.auth0 = auth0
            self.protectsReads = protectsReads
        }
    }

    /// What was done (never the password: its key name only).
    public struct Report: Sendable, Hashable {
        /// UID of the tag protected.
        public var uid: [UInt8]
        /// Its card type.
        public var cardType: CardType
        /// Pages written, in write order (PWD, PACK, CFG1, CFG0).
        public var pagesWritten: [Int]
        /// AUTH0 as read back.
        public var auth0: Int
        /// PROT as read back.
        public var protectsReads: Bool
        /// The key name of the password set.
        public var keyName: String
    }

    /// Protects the tag `info` describes, which must be `expectedUID`.
    public static func protect(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8],
                               settings: Settings) async throws(TagOperationError) -> Report {
        let session: Type2Memory
        do { session = try Type2Memory(transport: transport, info: info) } catch { throw TagOperationError(error) }
        do {
            guard transport.target.uid == expectedUID, info.uid == expectedUID else {
                throw NFCError.tagMismatch(expected: expectedUID, actual: transport.target.uid)
            }
            return try await protect(session: session, info: info, settings: settings)
        } catch {
            throw TagOperationError(wrapping: error, pagesWritten: session.pagesWritten)
        }
    }

    private static func protect(session: Type2Memory, info: CardInfo, settings: Settings) async throws -> Report {
        let map = session.map
        guard case let .passwordAuth(configPage, passwordPage, packPage) = map.protection else {
            throw NFCError.unsupportedOperation("\(session.product.name) has no PWD_AUTH password: it cannot be password-protected")
        }
        let password = settings.password.password.revealed
        guard password.count == 4, settings.password.pack.count == 2 else {
            throw NFCError.invalidArgument("An NTAG password is 4 bytes and its PACK 2 bytes")
        }
        guard (3..<map.totalPages).contains(settings.auth0) else {
            throw NFCError.invalidArgument("AUTH0 \(settings.auth0) is outside 3-\(map.totalPages - 1) on \(session.product.name)")
        }
        // CFG0 and CFG1 as the tag holds them now: refused reads mean protection is on already.
        var configuration: [UInt8] = []
        var protectionOn = false
        do {
            configuration = try await session.bytes(configPage...configPage + 1)
            guard configuration.count == 8 else { throw NFCError.invalidResponse(configuration) }
            protectionOn = map.isProtectionOn(auth0: Int(configuration[3]))
        } catch NFCError.authenticationRequired {
            protectionOn = true
        }
        if protectionOn {
            // Done before (a job resumed after a stop between AUTH0 and its report)? Only when the
            // settings' own password opens it and the configuration is already what they ask.
            return try await alreadyProtected(session: session, info: info, settings: settings)
        }
        if configuration[4] & configLockBit != 0 { throw NFCError.tagLocked }

        var access = Array(configuration[4..<8])
        access[0] = settings.protectsReads ? access[0] | protBit : access[0] & ~protBit
        var cfg0 = Array(configuration[0..<4])
        cfg0[3] = UInt8(clamping: settings.auth0)

        try await session.write(page: passwordPage, data: password)
        try await session.write(page: packPage, data: settings.password.pack + [0x00, 0x00])
        try await session.write(page: configPage + 1, data: access)
        try await session.write(page: configPage, data: cfg0)

        // Verify: the new password opens the tag and answers the PACK, and the configuration holds.
        let pack: [UInt8]
        do {
            pack = try await Type2Command.pwdAuth(password: password, on: session.transport)
        } catch NFCError.authenticationFailed {
            throw NFCError.verifyFailed(page: passwordPage)
        }
        guard Array(pack.prefix(2)) == settings.password.pack else { throw NFCError.verifyFailed(page: packPage) }
        return try await checkConfiguration(session: session, info: info, settings: settings, failure: .verifyFailed(page: configPage))
    }

    /// A tag whose protection is on: the report when `settings`' password opens it with their PACK and
    /// AUTH0 / PROT already match (nothing written); ``NFCError/authenticationRequired`` otherwise.
    private static func alreadyProtected(session: Type2Memory, info: CardInfo, settings: Settings) async throws -> Report {
        let pack: [UInt8]
        do {
            pack = try await Type2Command.pwdAuth(password: settings.password.password.revealed, on: session.transport)
        } catch NFCError.authenticationFailed {
            throw NFCError.authenticationRequired
        }
        guard Array(pack.prefix(2)) == settings.password.pack else { throw NFCError.authenticationRequired }
        return try await checkConfiguration(session: session, info: info, settings: settings, failure: .authenticationRequired)
    }

    /// After a PWD_AUTH that answered the PACK: CFG0 / CFG1 read back must hold the settings' AUTH0 and
    /// PROT, else `failure`.
    private static func checkConfiguration(session: Type2Memory, info: CardInfo, settings: Settings,
                                           failure: NFCError) async throws -> Report {
        guard let configPage = session.map.configPage else { throw failure }
        session.unlock()
        try await session.read([configPage, configPage + 1], fresh: true)
        let after = try await session.bytes(configPage...configPage + 1)
        guard after.count == 8, Int(after[3]) == settings.auth0, (after[4] & protBit != 0) == settings.protectsReads else {
            throw failure
        }
        return Report(uid: info.uid, cardType: info.type, pagesWritten: session.pagesWritten, auth0: Int(after[3]),
                      protectsReads: after[4] & protBit != 0, keyName: settings.password.name)
    }
}
