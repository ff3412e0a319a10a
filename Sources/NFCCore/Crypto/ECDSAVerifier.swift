import CCrypto

/// Verifies ECDSA signatures given as raw `r‖s` against an uncompressed public key, over OpenSSL
/// libcrypto — what NXP originality signatures need.
///
/// The message is **not hashed**: its bytes are the ECDSA "digest" e, as NXP signs the UID and as
/// Proxmark3 verifies it (`client/src/crypto/originality.c` hands the raw UID to the verifier).
/// libcrypto takes e from the leftmost bits of the message up to the bit length of the group order
/// (SEC 1 §4.1.4 step 5), so a 7-byte UID is used whole.
///
/// The verifier is a plain value (curve and key bytes): the libcrypto key is built for each
/// verification, which keeps the type `Sendable` and costs microseconds.
public struct ECDSAVerifier: Sendable, Hashable {
    /// Named curves, with the facts the raw encodings need. Source: SEC 2 v1.0 §2.3.
    public enum Curve: String, Sendable, Hashable, CaseIterable, Codable {
        /// SEC 2 secp128r1 (NXP NTAG21x / Ultralight EV1 / ICODE originality signatures).
        case secp128r1
        /// SEC 2 secp192r1 = NIST P-192 (NXP Ultralight AES originality signatures).
        case secp192r1
        /// SEC 2 secp224r1 = NIST P-224 (NXP DESFire EV2 / EV3 / Light, NTAG 424 DNA originality signatures).
        case secp224r1

        /// Bytes of one field element, of one coordinate, and of `r` or `s`.
        public var fieldBytes: Int {
            switch self {
            case .secp128r1: 16
            case .secp192r1: 24
            case .secp224r1: 28
            }
        }

        /// The group name libcrypto knows the curve by: X9.62's `prime192v1` for secp192r1 (libcrypto
        /// has no alias under the SEC 2 name), the SEC 2 name otherwise.
        var openSSLName: String {
            switch self {
            case .secp192r1: "prime192v1"
            case .secp128r1, .secp224r1: rawValue
            }
        }
    }

    /// The curve the key lies on.
    public let curve: Curve
    /// The public key as an uncompressed point: `04 ‖ X ‖ Y`.
    public let publicKey: [UInt8]

    /// A verifier for `publicKey` (uncompressed: `04 ‖ X ‖ Y`, 1 + 2 × ``Curve/fieldBytes`` bytes).
    ///
    /// Throws ``NFCError/invalidArgument(_:)`` when the key has the wrong length or prefix or is not a
    /// point on `curve`, ``NFCError/cryptoFailure(_:)`` when libcrypto does not know the curve.
    public init(curve: Curve, publicKey: [UInt8]) throws(NFCError) {
        let expected = 1 + 2 * curve.fieldBytes
        guard publicKey.count == expected else {
            throw NFCError.invalidArgument(
                "A \(curve.rawValue) public key is \(expected) bytes (04 ‖ X ‖ Y), not \(publicKey.count)")
        }
        guard publicKey[0] == 0x04 else {
            throw NFCError.invalidArgument("A \(curve.rawValue) public key must be uncompressed (04 ‖ X ‖ Y)")
        }
        self.curve = curve
        self.publicKey = publicKey
        let lib = try LibCrypto.load()
        lib.EVP_PKEY_free(try makeKey(lib))
    }

    /// The key from a hex string (separators allowed, see `[UInt8](hex:)`).
    /// Throws like ``init(curve:publicKey:)``, and ``NFCError/invalidArgument(_:)`` for text that is not hex.
    public init(curve: Curve, publicKeyHex: String) throws(NFCError) {
        guard let bytes = [UInt8](hex: publicKeyHex) else {
            throw NFCError.invalidArgument("The \(curve.rawValue) public key is not hex")
        }
        try self.init(curve: curve, publicKey: bytes)
    }

    /// Whether `signature` (`r‖s`, 2 × ``Curve/fieldBytes`` bytes, big-endian) signs `message` (used
    /// unhashed, see the type's documentation).
    ///
    /// Returns false for a signature that does not verify, including `r` or `s` zero or out of range.
    /// Throws ``NFCError/invalidArgument(_:)`` for a signature of the wrong length,
    /// ``NFCError/cryptoFailure(_:)`` when libcrypto fails.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) throws(NFCError) -> Bool {
        let half = curve.fieldBytes
        guard signature.count == 2 * half else {
            throw NFCError.invalidArgument(
                "A \(curve.rawValue) signature is \(2 * half) bytes (r ‖ s), not \(signature.count)")
        }
        let lib = try LibCrypto.load()
        let der = try Self.derSignature(r: Array(signature[..<half]), s: Array(signature[half...]), lib)
        let key = try makeKey(lib)
        defer { lib.EVP_PKEY_free(key) }
        guard let context = lib.EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            throw OpenSSLError.failure("ECDSA context", lib)
        }
        defer { lib.EVP_PKEY_CTX_free(context) }
        guard lib.EVP_PKEY_verify_init(context) == 1 else { throw OpenSSLError.failure("ECDSA verify init", lib) }
        // No digest is set on the context, so libcrypto takes `message` as the digest as it is.
        let result = lib.EVP_PKEY_verify(context, der, der.count, message, message.count)
        // 1 = valid, 0 = does not verify; < 0 is a signature libcrypto refuses to process, which for a
        // signature built from two in-range integers only happens when it does not verify either.
        lib.ERR_clear_error()
        return result == 1
    }

    // MARK: - libcrypto plumbing

    /// The public key as a libcrypto `EVP_PKEY` (caller frees). libcrypto checks the point is on the curve.
    private func makeKey(_ lib: LibCrypto) throws(NFCError) -> OpaquePointer {
        guard let context = lib.EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSLError.failure("EC key context", lib)
        }
        defer { lib.EVP_PKEY_CTX_free(context) }
        guard lib.EVP_PKEY_fromdata_init(context) == 1 else { throw OpenSSLError.failure("EC key init", lib) }

        var key: OpaquePointer?
        var groupName = Array(curve.openSSLName.utf8CString)
        var point = publicKey
        // OSSL_PARAM keeps pointers to its key names and buffers: all stay alive for the whole call.
        let status = OSSL_PKEY_PARAM_GROUP_NAME.withCString { groupKey in
            OSSL_PKEY_PARAM_PUB_KEY.withCString { pointKey in
                groupName.withUnsafeMutableBufferPointer { name in
                    point.withUnsafeMutableBytes { pointBytes in
                        var params = [
                            lib.OSSL_PARAM_construct_utf8_string(groupKey, name.baseAddress, 0),
                            lib.OSSL_PARAM_construct_octet_string(pointKey, pointBytes.baseAddress, pointBytes.count),
                            lib.OSSL_PARAM_construct_end(),
                        ]
                        return lib.EVP_PKEY_fromdata(context, &key, ccrypto_selection_public_key, &params)
                    }
                }
            }
        }
        guard status == 1, let key else {
            lib.ERR_clear_error()
            throw NFCError.invalidArgument(
                "The public key \(publicKey.hexString) is not a point on \(curve.rawValue)")
        }
        return key
    }

    /// DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` (SEC 1 §C.5), built by libcrypto.
    private static func derSignature(r: [UInt8], s: [UInt8], _ lib: LibCrypto) throws(NFCError) -> [UInt8] {
        guard let signature = lib.ECDSA_SIG_new() else { throw OpenSSLError.failure("ECDSA signature", lib) }
        defer { lib.ECDSA_SIG_free(signature) }
        guard let rNumber = lib.BN_bin2bn(r, Int32(r.count), nil) else { throw OpenSSLError.failure("ECDSA r", lib) }
        guard let sNumber = lib.BN_bin2bn(s, Int32(s.count), nil) else {
            lib.BN_free(rNumber)
            throw OpenSSLError.failure("ECDSA s", lib)
        }
        // On success the signature owns both numbers.
        guard lib.ECDSA_SIG_set0(signature, rNumber, sNumber) == 1 else {
            lib.BN_free(rNumber)
            lib.BN_free(sNumber)
            throw OpenSSLError.failure("ECDSA signature", lib)
        }
        let length = lib.i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw OpenSSLError.failure("ECDSA signature encoding", lib) }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return lib.i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw OpenSSLError.failure("ECDSA signature encoding", lib) }
        return der
    }
}
