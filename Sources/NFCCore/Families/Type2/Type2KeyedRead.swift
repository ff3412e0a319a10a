/// What one key of the keys file did on a Type 2 tag (by NAME, never the key).
public struct Type2Authentication: Sendable, Hashable {
    /// How it ended.
    public enum Outcome: Sendable, Hashable {
        /// Accepted (and, for a password, the PACK was the expected one): the protected pages were read.
        case opened
        /// PWD_AUTH accepted the password but answered another PACK than the keys file expects: the tag
        /// is not the one the password was set on — a clone, or a tag that accepts any password.
        case packMismatch
        /// Refused: the stable error code (`auth_failed`).
        case refused(code: String)
    }

    /// The key's name in the keys file.
    public var keyName: String
    /// `PWD_AUTH` or `AUTHENTICATE 3DES`.
    public var method: String
    /// The outcome.
    public var outcome: Outcome

    /// The dump fact: `Authentication` → `sticker (PWD_AUTH): opened` / `… PACK differs from the expected
    /// one: not the genuine tag` / `… auth_failed`.
    public var fact: Fact {
        let value = switch outcome {
        case .opened: "\(keyName) (\(method)): opened"
        case .packMismatch: "\(keyName) (\(method)): password accepted, PACK differs from the expected one: not the genuine tag"
        case let .refused(code): "\(keyName) (\(method)): \(code)"
        }
        return Fact(key: "Authentication", value: value, monospaced: false)
    }
}

/// Opens a Type 2 tag's protected pages with the keys file's keys, after the free pages were read and
/// the tag refused the first protected one (``Type2Memory`` re-selected it).
///
/// - Ultralight C (MF0ICU2 §7.5.5): each `ultralight_c` key in file order until one authenticates; a
///   refused 3DES authentication leaves nothing on the tag (it has no failure counter).
/// - NTAG21x / Ultralight EV1 / NTAG210/212 (PWD_AUTH 1Bh, NTAG213/215/216 §10.7): only the FIRST
///   `ntag_password`, because every refused password counts against AUTHLIM (§8.8.2) and may end in a
///   tag that no longer accepts even its own password; the PACK it answers is compared with the
///   expected one.
enum Type2KeyedRead {
    static func open(_ memory: Type2Memory, keys: Type2Keys) async throws -> [Type2Authentication] {
        var results: [Type2Authentication] = []
        if memory.product.features.contains(.tripleDESAuthentication) {
            for key in keys.ultralightC {
                try Task.checkCancellation()
                do {
                    try await UltralightCAuthentication.authenticate(key: key.key.revealed, transport: memory.transport)
                    memory.unlock()
                    results.append(Type2Authentication(keyName: key.name, method: "AUTHENTICATE 3DES", outcome: .opened))
                    return results
                } catch let error as NFCError where error == .authenticationFailed || error.errorCode == .invalidResponse {
                    results.append(Type2Authentication(keyName: key.name, method: "AUTHENTICATE 3DES", outcome: .refused(code: error.code)))
                    try await memory.transport.reselect()
                }
            }
        } else if memory.product.features.contains(.pwdAuth), let password = keys.passwords.first {
            try Task.checkCancellation()
            do {
                let pack = try await Type2Command.pwdAuth(password: password.password.revealed, on: memory.transport)
                memory.unlock()
                results.append(Type2Authentication(keyName: password.name, method: "PWD_AUTH",
                                                   outcome: Array(pack.prefix(2)) == password.pack ? .opened : .packMismatch))
            } catch let error as NFCError where error == .authenticationFailed {
                results.append(Type2Authentication(keyName: password.name, method: "PWD_AUTH", outcome: .refused(code: error.code)))
                try await memory.transport.reselect()
            }
        }
        return results
    }
}
