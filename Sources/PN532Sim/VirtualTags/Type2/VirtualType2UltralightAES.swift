/// MIFARE Ultralight AES (MF0AES20, 17 pF; MF0AESH20, 50 pF), as the simulator plays it: a ``VirtualType2Product``
/// row of its own, written from what could be checked here, never from NFCCore.
///
/// Sources, and what each gives:
/// - MF0AES(H)20 datasheet: §8.9 "Product originality" (the originality signature is read with
///   READ_SIG), §9.1 "MIFARE Ultralight AES command overview", §10.7 "READ_SIG" — the section numbers as
///   NXP's support quotes them (NXP community thread "Is it possible to read the originality signature
///   from a PN532", 2023). The datasheet text itself was not at hand.
/// - AN13452 "MIFARE Ultralight AES features and hints", as Proxmark3's `client/src/crypto/originality.c`
///   cites it: the signature is ECC on secp192r1, so the READ_SIG answer is 48 bytes (r ‖ s, 24 bytes
///   each); Proxmark3's `tools/recover_pk.py` holds genuine 48-byte answers.
/// - GET_VERSION `00 04 03 01 04 00 0F 03` (MF0AES20) and `00 04 03 02 04 00 0F 03` (MF0AESH20): vendor
///   NXP, product type 03h (Ultralight), subtype 01h / 02h (17 / 50 pF), major 04h, storage 0Fh. The
///   MF0AES20 answer as Proxmark3's `cmdhfmfu.c` lists it ("UL AES", MF0AES2001DUD); the 50 pF one
///   from the subtype rule every Ultralight datasheet shares. UNVERIFIED against the datasheet's
///   GET_VERSION table.
///
/// Modelled:
/// - READ (30h) and FAST_READ (3Ah) over pages 00h–2Fh: user memory 04h–27h, lock and configuration
///   pages up to 2Fh. UNVERIFIED: the page layout; the AES key pages from 30h on are modelled as beyond
///   the end (READ / FAST_READ of them NAK), as MF0ICU2 §9.2 has for the Ultralight C key. Whether the
///   chip NAKs them or reads them as 00h was not checked.
/// - READ_SIG (3Ch 00h): the 48-byte signature (§10.7).
/// - GET_VERSION (60h), WRITE (A2h), COMPATIBILITY_WRITE (A0h; UNVERIFIED that §9.1 lists it).
/// - Refused with NAK 0h and IDLE, as for every command it lacks (the NTAG21x / EV1 NAK rule): PWD_AUTH
///   (1Bh; Ultralight AES protects with AES keys, not a 32-bit password) and CHECK_TEARING_EVENT (3Eh;
///   Proxmark3 does not ask it of Ultralight AES). UNVERIFIED against §9.1 for both.
///
/// Not simulated (the model NAKs them, the chip does not): AUTHENTICATE (1Ah, AES-128, §8.6.1 as
/// Flipper's poller cites it) and the secure messaging behind it, READ_CNT / INCR_CNT (39h / A5h, the
/// counters Proxmark3 reads), WRITE_SIG / LOCK_SIG, VCSL, AUTH0 and the configuration pages' effects.
/// NFCBridge's own Ultralight AES row sends none of them.
extension VirtualType2Product {
    /// MF0AES20 (17 pF).
    public static let ultralightAES = VirtualType2Product(
        name: "Ultralight AES", source: "MF0AES(H)20 §8.9, §9.1, §10.7; AN13452",
        version: [0x00, 0x04, 0x03, 0x01, 0x04, 0x00, 0x0F, 0x03],
        // The memory map is not modelled (totalPages 0, as for the NTAG I2C variants): a `.custom`
        // model's page count is the memory (``ultralightAESPages``), with no lock or protection pages.
        layout: VirtualType2Layout(totalPages: 0, userEnd: 0),
        features: [.getVersion, .fastRead, .readSignature, .compatibilityWrite],
        factoryCC: [0, 0, 0, 0], factoryUserArea: [], signatureLength: 48)

    /// MF0AESH20 (50 pF): the same chip, subtype 02h.
    public static let ultralightAESH: VirtualType2Product = {
        var row = ultralightAES
        row.version = [0x00, 0x04, 0x03, 0x02, 0x04, 0x00, 0x0F, 0x03]
        return row
    }()

    /// Pages READ reaches on the virtual Ultralight AES: 00h–2Fh (UNVERIFIED, see the type's comment).
    public static let ultralightAESPages = 0x30
}

extension VirtualType2Model {
    /// A MIFARE Ultralight AES (MF0AES20): ``VirtualType2Product/ultralightAES`` over
    /// ``VirtualType2Product/ultralightAESPages`` pages.
    public static let ultralightAES = VirtualType2Model.custom(
        version: VirtualType2Product.ultralightAES.version ?? [], totalPages: VirtualType2Product.ultralightAESPages)
}
