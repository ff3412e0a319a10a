/// NXP originality signatures of Type 2 tags (READ_SIG 3Ch): an ECDSA signature over the tag's UID
/// that NXP writes at the factory. A signature that verifies against one of NXP's public keys shows
/// the chip is genuine NXP silicon; one that does not is a clone, a magic tag, or a chip whose key we
/// lack.
///
/// Scheme: the NTAG21x and MF0ULX1 datasheets (READ_SIG) give a 32-byte ECC signature and leave the
/// verification to AN11350 / AN11341: curve secp128r1, message = the 7-byte UID **without hashing**,
/// signature = `r‖s`. The keys are the Type 2 rows of ``OriginalityKeyTable`` (which holds every
/// family's keys with their sources).
public enum OriginalitySignature {
    /// One public key signatures are checked against.
    public typealias Key = OriginalityKey

    /// The key a signature verified against.
    public struct Match: Sendable, Hashable {
        /// The matching key.
        public let key: Key
    }

    /// The keys tried, in order: ``OriginalityKeyTable``'s rows read by Type 2 READ_SIG.
    public static let keys: [Key] = OriginalityKeyTable.keys(readBy: .type2ReadSig)

    /// The first key in ``keys`` under which `signature` signs `uid`; nil when none does, or when the
    /// signature does not have a key's length (32 bytes for secp128r1, 48 for secp192r1).
    public static func verify(uid: [UInt8], signature: [UInt8]) -> Match? {
        OriginalityKeyTable.verify(uid: uid, signature: signature, in: keys).map(Match.init(key:))
    }

    // MARK: - Dump fact

    /// The dump fact key.
    public static let factKey = "Originality Signature"

    /// The dump fact for a READ_SIG answer: "Valid (<key name>)" when it verifies against a known NXP
    /// key; "Not verified (no known NXP key matches)" otherwise — that is a clone or a blank or custom
    /// signature, or a genuine chip whose key is not in ``keys``, so it is not called "invalid".
    /// Only made when a signature was read; a dump never fails over it.
    public static func fact(uid: [UInt8], signature: [UInt8]) -> Fact {
        fact(verifiedBy: verify(uid: uid, signature: signature)?.key.name)
    }

    /// The dump fact for a signature that was read and verified against the key named `keyName`, or
    /// against none (nil): the one wording of the fact, for every family.
    public static func fact(verifiedBy keyName: String?) -> Fact {
        Fact(key: factKey, value: keyName.map { "Valid (\($0))" } ?? "Not verified (no known NXP key matches)")
    }
}
