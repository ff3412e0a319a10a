import FoundationEssentials
import Glibc
import NFCCore
import Synchronization

/// Signed requests (docs/mqtt.md, "Signed requests"): the HMAC-SHA256 scheme, written down once.
///
/// A signed request is published as an envelope instead of the bare request object:
///
///     {"signed":"<the request JSON, as a string>","sig":"<64 lowercase hex digits>"}
///
/// - `signed` is the request exactly as the client wrote it, plus two fields: `ts` (Unix time in
///   whole seconds) and `nonce` (8–128 characters of printable ASCII, fresh for every request).
/// - `sig` is HMAC-SHA256 with the key of `commands.signature_key_file` (the bytes of its first
///   line) over the canonical string ``canonical(topic:body:)``: the full topic the request is
///   published on, one line feed (0x0A), then the bytes of `signed`. Nothing is re-serialised, so a
///   shell can sign with `printf '%s\n%s' "$topic" "$body" | openssl dgst -sha256 -hmac "$key"`.
///
/// Binding the topic means a signed `write` for one agent is no `format`, and no request for another
/// agent (`<base>/<id>/request/<command>` names both).
package enum RequestSignature {
    /// The bytes the HMAC covers: `topic`, LF, `body`.
    package static func canonical(topic: String, body: [UInt8]) -> [UInt8] {
        Array(topic.utf8) + [0x0A] + body
    }

    /// HMAC-SHA256 of `message` with `key` (libcrypto `EVP_Q_mac`); nil only when libcrypto fails or cannot be loaded.
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        guard let lib = try? LibCrypto.load() else { return nil }
        var output = [UInt8](repeating: 0, count: 32)
        var length = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { data in
                output.withUnsafeMutableBufferPointer { out in
                    lib.EVP_Q_mac(
                        nil, "HMAC", nil, "SHA256", nil, keyBytes.baseAddress, keyBytes.count, data.baseAddress, data.count,
                        out.baseAddress, out.count, &length)
                }
            }
        }
        guard result != nil, length == 32 else { return nil }
        return output
    }

    /// The `sig` of a request body published on `topic`, as lowercase hex.
    package static func signature(key: [UInt8], topic: String, body: [UInt8]) -> String? {
        hmacSHA256(key: key, message: canonical(topic: topic, body: body))?.hexString.lowercased()
    }

    /// Compares without stopping at the first difference (no timing hint about the right MAC).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// Checks signed requests: the HMAC, the timestamp window and the nonce cache against replay.
///
/// Replay protection: a nonce is remembered with its `ts` until that `ts` leaves the window (a
/// request that old is refused as stale anyway). The book is bounded by ``nonceCapacity``: when it
/// is full of nonces still in the window, the oldest is forgotten and every `ts` up to its own is
/// refused from then on (the *floor*), so a forgotten nonce can never be replayed. Thread-safe.
package final class RequestSignatureVerifier: Sendable {
    /// What ``check(topic:payload:now:)`` found.
    package enum Outcome: Sendable, Equatable {
        /// The payload is not a signed envelope (the router decides whether that is allowed).
        case unsigned
        /// Signature, timestamp and nonce are good: `body` is the request without `ts` and `nonce`,
        /// read once from `signed` (its size is that of `signed`), ready for ``CommandParser``.
        case verified(body: RequestPayload)
        /// Refused (`not_permitted`, or `invalid_request` for a malformed envelope).
        case rejected(CommandRejection)
    }

    /// How far `ts` may be from the agent's clock, in seconds (either way).
    package let windowSeconds: Int64
    /// Most nonces remembered.
    package let nonceCapacity: Int
    private let key: [UInt8]
    private let book: Mutex<NonceBook>

    struct NonceBook {
        /// Nonce → its request's `ts`.
        var seen: [String: Int64] = [:]
        /// Nonces in the order they came (for the bound).
        var order: [String] = []
        /// A `ts` at or below this is refused: a nonce that old may have been forgotten.
        var floor = Int64.min
    }

    /// Creates a verifier for `key` (the bytes of the key file's first line).
    package init(key: [UInt8], windowSeconds: Int = 300, nonceCapacity: Int = 10_000) {
        self.key = key
        self.windowSeconds = Int64(max(1, windowSeconds))
        self.nonceCapacity = max(1, nonceCapacity)
        self.book = Mutex(NonceBook())
    }

    /// Nonces remembered now (tests).
    package var nonceCount: Int { book.withLock { $0.seen.count } }

    /// Checks one request payload published on `topic` (read once by the router), at the agent's
    /// time `now`. The body in `signed` is read once here (its `id` and `transaction` are echoed when
    /// it is refused) and, once it checked out, handed on as read, without `ts` and `nonce`.
    package func check(topic: String, payload: RequestPayload, now: Date) -> Outcome {
        guard case let .object(envelope)? = payload.content, envelope.has("signed") else {
            return .unsigned
        }
        guard let signed = envelope.string("signed") else {
            return .rejected(CommandRejection(.invalid("signed", "must be the request JSON as a string")))
        }
        let body = Array(signed.utf8)
        let inner: JSONFields?
        if case let .object(fields) = JSONFields.parse(body) { inner = fields } else { inner = nil }
        let echo: (id: RequestID?, transaction: TransactionID?) = inner.map(CommandParser.echo) ?? (nil, nil)
        func refuse(_ problem: String) -> Outcome {
            .rejected(
                CommandRejection(id: echo.id, transaction: echo.transaction, CommandError(.notPermitted, "signed request refused: \(problem)")))
        }
        if let extra = envelope.names.first(where: { $0 != "signed" && $0 != "sig" }) {
            return .rejected(
                CommandRejection(
                    id: echo.id, transaction: echo.transaction,
                    .invalid(extra, "unknown field of a signed request (accepted: sig, signed)")))
        }
        guard let sig = envelope.string("sig"), sig.utf8.count == 64,
            sig.utf8.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }), let given = [UInt8](hex: sig)
        else {
            return refuse("sig must be 64 hex digits (HMAC-SHA256)")
        }
        guard let expected = RequestSignature.hmacSHA256(key: key, message: RequestSignature.canonical(topic: topic, body: body))
        else {
            // Say why when it is a library that cannot be loaded: the message names the package to install.
            do { _ = try LibCrypto.load() } catch { return refuse(error.message) }
            return refuse("libcrypto could not compute the HMAC")
        }
        guard RequestSignature.constantTimeEqual(given, expected) else {
            return refuse("bad signature (wrong key, or topic / body changed)")
        }
        guard let inner else { return refuse("signed must hold a JSON object") }
        guard case let .integer(ts)? = inner.member("ts") else { return refuse("ts (Unix time in whole seconds) is required") }
        guard case let .string(nonce)? = inner.member("nonce"), (8...128).contains(nonce.utf8.count),
            nonce.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            return refuse("nonce (8-128 printable ASCII characters, fresh for every request) is required")
        }
        let nowSeconds = Timestamp.milliseconds(now) / 1000
        // `ts` is anything a client sent (Int64.min included): the distance is taken as a magnitude.
        // Two Int64s are less than 2^64 apart, so the wrapping difference read as UInt64 is exact.
        let skew = ts > nowSeconds ? UInt64(bitPattern: ts &- nowSeconds) : UInt64(bitPattern: nowSeconds &- ts)
        guard skew <= windowSeconds.magnitude else {
            return refuse("ts \(ts) is \(skew) s from the agent's clock (\(nowSeconds)); allowed: \(windowSeconds) s")
        }
        let problem: String? = book.withLock { book in
            guard ts > book.floor else { return "ts \(ts) is older than the oldest nonce still remembered" }
            guard book.seen[nonce] == nil else { return "nonce '\(nonce)' was already used (a replay)" }
            // Forget what left the window: such a request is refused as stale anyway.
            let oldest = nowSeconds - windowSeconds
            if book.seen.values.contains(where: { $0 < oldest }) {
                book.seen = book.seen.filter { $0.value >= oldest }
                book.order.removeAll { book.seen[$0] == nil }
            }
            book.seen[nonce] = ts
            book.order.append(nonce)
            while book.order.count > nonceCapacity {
                let dropped = book.order.removeFirst()
                if let droppedTS = book.seen.removeValue(forKey: dropped) { book.floor = max(book.floor, droppedTS) }
            }
            return nil
        }
        if let problem { return refuse(problem) }
        return .verified(body: RequestPayload(size: body.count, content: .object(inner.removing("ts", "nonce"))))
    }
}
