/// NXP originality signatures (READ_SIG 3Ch): an ECDSA signature over the tag's UID that NXP writes
/// at the factory. A signature that verifies against one of NXP's public keys shows the chip is
/// genuine NXP silicon; one that does not is a clone, a magic tag, or a chip whose key we lack.
///
/// Scheme: the NTAG21x and MF0ULX1 datasheets (READ_SIG) give a 32-byte ECC signature and leave the
/// verification to an NXP application note; Proxmark3 (`client/src/crypto/originality.c`) verifies it
/// on curve secp128r1 with message = the 7-byte UID **without hashing** and signature = `r‖s`.
/// Keys: the three secp128r1 public keys Proxmark3 lists for these tags. NTAG 22x DNA / Ultralight AES
/// (secp192r1) and DESFire / Plus (secp224r1) keys are not listed.
public enum OriginalitySignature {
    /// One public key signatures are checked against.
    public struct Key: Sendable, Hashable {
        /// Who the key belongs to, as shown in the dump fact ("NXP NTAG21x").
        public let name: String
        /// The curve the key lies on.
        public let curve: ECDSAVerifier.Curve
        /// The public key, uncompressed (`04 ‖ X ‖ Y`), as hex.
        public let publicKeyHex: String
    }

    /// The key a signature verified against.
    public struct Match: Sendable, Hashable {
        /// The matching key.
        public let key: Key
    }

    /// The keys tried, in order. Source: Proxmark3 `originality.c` (public keys).
    public static let keys: [Key] = [
        Key(name: "NXP NTAG21x", curve: .secp128r1,
            publicKeyHex: "04494E1A386D3D3CFE3DC10E5DE68A499B1C202DB5B132393E89ED19FE5BE8BC61"),
        Key(name: "NXP Ultralight EV1", curve: .secp128r1,
            publicKeyHex: "0490933BDCD6E99B4E255E3DA55389A827564E11718E017292FAF23226A96614B8"),
        Key(name: "NXP (TagInfo)", curve: .secp128r1,
            publicKeyHex: "04A748B6A632FBEE2C0897702B33BEA1C074998E17B84ACA04FF267E5D2C91F6DC"),
    ]

    /// The first key in ``keys`` under which `signature` signs `uid`; nil when none does, or when the
    /// signature does not have the key's length (a 32-byte READ_SIG answer for secp128r1).
    ///
    /// Never throws: a key libcrypto cannot load is skipped (``keys`` is checked by the unit tests).
    public static func verify(uid: [UInt8], signature: [UInt8]) -> Match? {
        for key in keys where signature.count == 2 * key.curve.fieldBytes {
            guard let verifier = try? ECDSAVerifier(curve: key.curve, publicKeyHex: key.publicKeyHex),
                (try? verifier.isValidSignature(signature, for: uid)) == true
            else { continue }
            return Match(key: key)
        }
        return nil
    }

    // MARK: - Dump fact

    /// The dump fact key.
    public static let factKey = "Originality Signature"

    /// The dump fact for a READ_SIG answer: "Valid (<key name>)" when it verifies against a known NXP
    /// key; "Not verified (no known NXP key matches)" otherwise — that is a clone or a blank or custom
    /// signature, or a genuine chip whose key is not in ``keys``, so it is not called "invalid".
    /// Only made when a signature was read; a dump never fails over it.
    public static func fact(uid: [UInt8], signature: [UInt8]) -> Fact {
        let value = verify(uid: uid, signature: signature).map { "Valid (\($0.key.name))" }
            ?? "Not verified (no known NXP key matches)"
        return Fact(key: factKey, value: value)
    }
}
