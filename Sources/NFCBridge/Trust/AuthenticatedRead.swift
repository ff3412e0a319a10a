import NFCCore

/// One member of the `trust` object's `authenticated` list (docs/mqtt.md, "trust"): which key of
/// `auth.keys_file` — by NAME, never its bytes — was tried on which application, and which files it
/// opened, or the stable code of why the card refused it.
package struct AuthenticatedRead: Sendable, Equatable, Encodable {
    /// The key's name in the keys file.
    package var key: String
    /// The application as the configuration writes it (``DESFireAIDNotation``: a 3-byte AID most
    /// significant byte first, `123456` for AID 123456h; a DF name as is).
    package var application: String
    /// The key number in the application.
    package var keyNumber: Int
    /// The authentication command (`AuthenticateEV2First`, `AuthenticateAES`).
    package var method: String
    /// The files read with it (`AID/fileID`, the AID written as ``application`` is).
    package var files: [String]
    /// Nil when the key opened the application, else the stable code (`auth_failed`, `integrity_error`…).
    package var error: String?

    enum CodingKeys: String, CodingKey { case key, application, keyNumber = "key_number", method, files, error }

    /// The member for what a DESFire dump or read did with one key.
    package init(_ authentication: DESFireAuthentication) {
        key = authentication.keyName
        let written = DESFireAIDNotation.written(cardOrder: authentication.application)
        let cardOrder = authentication.application.hexString + "/"
        application = written
        keyNumber = Int(authentication.keyNumber)
        method = authentication.method
        files = authentication.filesRead.map { $0.hasPrefix(cardOrder) ? written + "/" + $0.dropFirst(cardOrder.count) : $0 }
        if case let .failed(code, _) = authentication.outcome { error = code } else { error = nil }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(application, forKey: .application)
        try container.encode(keyNumber, forKey: .keyNumber)
        try container.encode(method, forKey: .method)
        try container.encode(files, forKey: .files)
        try container.encodeIfPresent(error, forKey: .error)
    }
}

extension TrustReason {
    /// A key of `auth.keys_file` that the credential's application needs was refused by the card.
    package static let authFailed = TrustReason(
        code: "auth_failed", message: "the card refused the key auth.keys_file names for the credential's application")
    /// A secured answer's MAC did not match: the data was dropped.
    package static let integrityError = TrustReason(
        code: "integrity_error", message: "a secured answer's MAC did not match its data: the data was dropped")
    /// The keys file has a key for the credential's application, and the card gave the credential
    /// without proving it with that key (a free file, or plain communication, which carries no MAC).
    package static let credentialUnproven = TrustReason(
        code: "credential_unproven",
        message: "the card gave the credential without proving it with the key auth.keys_file has for its application (a free or plain file: what a clone or a relay answers)")
}
