/// NXP's originality signature public keys: one row per key, with the products it signs, its curve,
/// how the signature is read and where the key is published.
///
/// The scheme is the same for every row: an ECDSA signature `r‖s` over the UID, **unhashed** (the
/// UID bytes are the ECDSA digest), which NXP writes at the factory; see ``ECDSAVerifier``.
/// NTAG21x: AN11350 "NTAG21x Originality Signature Validation"; Ultralight EV1: AN11341; Ultralight AES:
/// AN13452 §"Originality signature"; NTAG 22x DNA: AN12998; DESFire Light: AN12343 §"Originality check"; NTAG 424 DNA:
/// AN12196 §8.2 "Asymmetric check"; DESFire EV2 / EV2 XL / EV3 and NTAG 413 DNA: keys recovered
/// from genuine UID/signature pairs. Every key as Proxmark3 lists it in
/// `client/src/crypto/originality.c` (read for the facts, not copied).
///
/// Ultralight AES and NTAG 223 DNA / 224 DNA sign with secp192r1 (48-byte READ_SIG answer, read by their
/// Type 2 product rows, ``Type2Product/signatureLength``). The NTAG 22x DNA key is the one Proxmark3's
/// originality.c lists with the reference AN12998 "NTAG 22x DNA (StatusDetect) – features and hints";
/// the NXP document itself was not at hand, and the key verifies the two genuine NTAG 223 / 224 DNA
/// pairs of Proxmark3's tools/recover_pk.py (checked in the unit tests).
public enum OriginalityKeyTable {
    /// The keys, in the order they are tried.
    public static let keys: [OriginalityKey] = [
        OriginalityKey(
            name: "NXP NTAG21x", products: "NTAG 210/212/213/215/216", curve: .secp128r1, reading: .type2ReadSig,
            publicKeyHex: "04494E1A386D3D3CFE3DC10E5DE68A499B1C202DB5B132393E89ED19FE5BE8BC61",
            source: "AN11350"),
        OriginalityKey(
            name: "NXP Ultralight EV1", products: "MIFARE Ultralight EV1 (MF0UL11/21)", curve: .secp128r1,
            reading: .type2ReadSig,
            publicKeyHex: "0490933BDCD6E99B4E255E3DA55389A827564E11718E017292FAF23226A96614B8",
            source: "AN11341"),
        OriginalityKey(
            name: "NXP (TagInfo)", products: "NTAG 210/212, Ultralight EV1 (later batches)", curve: .secp128r1,
            reading: .type2ReadSig,
            publicKeyHex: "04A748B6A632FBEE2C0897702B33BEA1C074998E17B84ACA04FF267E5D2C91F6DC",
            source: "NXP TagInfo, as listed by Proxmark3 originality.c"),
        OriginalityKey(
            name: "NXP Ultralight AES", products: "MIFARE Ultralight AES", curve: .secp192r1, reading: .type2ReadSig,
            publicKeyHex: "0453BF8C49B7BD9FE3207A91513B9C1D238ECAB07186B772104AB535F7D3AE63CF7C7F3DD0D169DA3E99E43C6399621A86",
            source: "AN13452"),
        OriginalityKey(
            name: "NXP Ultralight AES (alternative)", products: "MIFARE Ultralight AES", curve: .secp192r1,
            reading: .type2ReadSig,
            publicKeyHex: "04DC34DAA903F2726A6225B11C692AF6AB4396575CA12810CBBCE3F781A097B3833B50AB364A70D9C2B641A728A599AE74",
            source: "NXP TagInfo, as listed by Proxmark3 originality.c"),
        OriginalityKey(
            name: "NXP NTAG 22x DNA", products: "NTAG 223 DNA, NTAG 224 DNA (and StatusDetect)", curve: .secp192r1,
            reading: .type2ReadSig,
            publicKeyHex: "0485D5B9353B4FAA77581BA2AE96630C5876D6E8603308ABE9A81A0B506F52D02D04FEE6F2D365B3DEE7B9FAD9133E2976",
            source: "AN12998, as listed by Proxmark3 originality.c"),
        OriginalityKey(
            name: "NXP DESFire Light", products: "MIFARE DESFire Light", curve: .secp224r1, reading: .isoDEPReadSig,
            publicKeyHex: "040E98E117AAA36457F43173DC920A8757267F44CE4EC5ADD3C54075571AEBBF7B942A9774A1D94AD02572427E5AE0A2DD36591B1FB34FCF3D",
            source: "AN12343"),
        OriginalityKey(
            name: "NXP NTAG 413 DNA / DESFire EV1", products: "NTAG 413 DNA", curve: .secp224r1, reading: .isoDEPReadSig,
            publicKeyHex: "04BB5D514F7050025C7D0F397310360EEC91EAF792E96FC7E0F496CB4E669D414F877B7B27901FE67C2E3B33CD39D1C797715189AC951C2ADD",
            source: "recovered from genuine signatures (Proxmark3 tools/recover_pk.py)"),
        OriginalityKey(
            name: "NXP DESFire EV2", products: "MIFARE DESFire EV2, NTAG 424 DNA (TT), DESFire Light EV2",
            curve: .secp224r1, reading: .isoDEPReadSig,
            publicKeyHex: "04B304DC4C615F5326FE9383DDEC9AA892DF3A57FA7FFB3276192BC0EAA252ED45A865E3B093A3D0DCE5BE29E92F1392CE7DE321E3E5C52B3A",
            source: "recovered from genuine signatures (Proxmark3 tools/recover_pk.py)"),
        OriginalityKey(
            name: "NXP NTAG 424 DNA", products: "NTAG 424 DNA (TT)", curve: .secp224r1, reading: .isoDEPReadSig,
            publicKeyHex: "048A9B380AF2EE1B98DC417FECC263F8449C7625CECE82D9B916C992DA209D68422B81EC20B65A66B5102A61596AF3379200599316A00A1410",
            source: "AN12196 §8.2"),
        OriginalityKey(
            name: "NXP DESFire EV2 XL", products: "MIFARE DESFire EV2 XL", curve: .secp224r1, reading: .isoDEPReadSig,
            publicKeyHex: "04CD5D45E50B1502F0BA4656FF37669597E7E183251150F9574CC8DA56BF01C7ABE019E29FEA48F9CE22C3EA4029A765E1BC95A89543BAD1BC",
            source: "recovered from genuine signatures (Proxmark3 tools/recover_pk.py)"),
        OriginalityKey(
            name: "NXP DESFire EV3", products: "MIFARE DESFire EV3", curve: .secp224r1, reading: .isoDEPReadSig,
            publicKeyHex: "041DB46C145D0A36539C6544BD6D9B0AA62FF91EC48CBC6ABAE36E0089A46F0D08C8A715EA40A63313B92E90DDC1730230E0458A33276FB743",
            source: "recovered from genuine signatures (Proxmark3 tools/recover_pk.py)"),
        OriginalityKey(
            name: "NXP ICODE DNA / SLIX2", products: "ICODE DNA, ICODE SLIX2", curve: .secp128r1,
            reading: .iso15693ReadSignature,
            publicKeyHex: "048878A2A2D3EEC336B4F261A082BD71F9BE11C4E2E896648B32EFA59CEA6E59F0",
            // The SL2S2602 datasheet (§9.5.3.20) gives the command and the 32-byte ECC signature and leaves
            // the key to an application note; the key and curve as Proxmark3 recovers them.
            source: "recovered from genuine signatures (Proxmark3 tools/recover_pk.py); command: SL2S2602 §9.5.3.20"),
    ]

    /// The rows whose signatures are read by `reading`.
    public static func keys(readBy reading: OriginalityKey.Reading, in table: [OriginalityKey] = keys) -> [OriginalityKey] {
        table.filter { $0.reading == reading }
    }

    /// The first key of `table` under which `signature` signs `uid`; nil when none does. Only keys
    /// whose curve gives the signature's length (2 × ``ECDSAVerifier/Curve/fieldBytes``) are tried.
    ///
    /// Never throws: a key libcrypto cannot load is skipped (the table is checked by the unit tests;
    /// keys from `access.originality_keys_file` are checked when the file is loaded).
    public static func verify(uid: [UInt8], signature: [UInt8], in table: [OriginalityKey] = keys) -> OriginalityKey? {
        // An all-zero answer is a blank (unprogrammed or wiped) signature, never valid.
        guard !uid.isEmpty, signature.contains(where: { $0 != 0 }) else { return nil }
        for key in table where signature.count == 2 * key.curve.fieldBytes {
            guard let verifier = try? ECDSAVerifier(curve: key.curve, publicKeyHex: key.publicKeyHex),
                (try? verifier.isValidSignature(signature, for: uid)) == true
            else { continue }
            return key
        }
        return nil
    }
}

/// One originality signature public key (a row of ``OriginalityKeyTable``).
public struct OriginalityKey: Sendable, Hashable {
    /// How a tag's signature is read.
    public enum Reading: String, Sendable, Hashable, CaseIterable {
        /// Type 2 READ_SIG (3Ch 00h): 32 bytes (secp128r1) or 48 bytes (secp192r1: Ultralight AES,
        /// NTAG 223 / 224 DNA).
        case type2ReadSig
        /// DESFire / NTAG 4xx Read_Sig (3Ch, address 00h) over ISO-DEP: 56 bytes (secp224r1).
        case isoDEPReadSig
        /// ISO 15693 READ SIGNATURE (NXP custom command BDh, ICODE SLIX2 / DNA): 32 bytes (secp128r1),
        /// read through PC/SC.
        case iso15693ReadSignature

        /// The bytes a signature read this way signs, for a UID kept MSB first (``CardInfo/uid``): the
        /// UID itself for the ISO 14443 readings; for ICODE the UID as it goes on the air, least
        /// significant byte first (`E0` last) — the genuine pairs of Proxmark3's
        /// `tools/recover_pk.py` ("ICODE DNA, ICODE SLIX2": "tag UID is considered inverted") verify
        /// only so.
        public func signedMessage(uid: [UInt8]) -> [UInt8] {
            self == .iso15693ReadSignature ? uid.reversed() : uid
        }
    }

    /// The name the `trust` object and the dump fact show ("NXP NTAG21x").
    public let name: String
    /// The products whose signatures it verifies, for people.
    public let products: String
    /// The curve the key lies on.
    public let curve: ECDSAVerifier.Curve
    /// How the signatures it verifies are read, for a row of the table (``OriginalityKeyTable/keys(readBy:in:)``
    /// selects by it). Nil for a key of `access.originality_keys_file`, which names no reading: it is
    /// tried on every signature of its curve's length, however read.
    public let reading: Reading?
    /// The public key, uncompressed (`04 ‖ X ‖ Y`), as hex.
    public let publicKeyHex: String
    /// Where the key is published.
    public let source: String

    /// Creates a row.
    public init(
        name: String, products: String, curve: ECDSAVerifier.Curve, reading: Reading?, publicKeyHex: String, source: String
    ) {
        self.name = name
        self.products = products
        self.curve = curve
        self.reading = reading
        self.publicKeyHex = publicKeyHex
        self.source = source
    }
}
