@testable import NFCCore
import PN532Sim
import Testing

/// Every GET_VERSION vector of the reference notes (coreextendednfc §2.5, peers-nfc §1.10(a), §4.1, §8):
/// category and product, through the table and through a full identification.
@Suite struct GetVersionTableTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var hex: String
        var type: CardType
        /// Exact product name; nil when only the fallback applies.
        var product: String?
        var testDescription: String { "\(hex) → \(type) / \(product ?? "-")" }
        var bytes: [UInt8] { [UInt8](hex: hex) ?? [] }
    }

    static let exact: [Vector] = [
        Vector(hex: "0004030101000B03", type: .mifareUltralightEV1_MF0UL11, product: "Ultralight EV1 MF0UL11"),
        Vector(hex: "0004030201000B03", type: .mifareUltralightEV1_MF0UL11, product: "Ultralight EV1 MF0ULH11"),
        Vector(hex: "0004030101000E03", type: .mifareUltralightEV1_MF0UL21, product: "Ultralight EV1 MF0UL21"),
        Vector(hex: "0004030201000E03", type: .mifareUltralightEV1_MF0UL21, product: "Ultralight EV1 MF0ULH21"),
        // Upstream [BUG]: Nano became MF0UL11.
        Vector(hex: "0004030102000B03", type: .mifareUltralight, product: "Ultralight Nano"),
        Vector(hex: "0004030202000B03", type: .mifareUltralight, product: "Ultralight Nano"),
        Vector(hex: "0004030104000F03", type: .mifareUltralight, product: "Ultralight AES"),
        Vector(hex: "0004030204000F03", type: .mifareUltralight, product: "Ultralight AES"),
        Vector(hex: "0004030304000F03", type: .mifareUltralight, product: "Ultralight AES"),
        // Upstream [BUG]: NTAG210 became NTAG212, NTAG212 became NTAG213.
        Vector(hex: "0004040101000B03", type: .ntag210, product: "NTAG210"),
        Vector(hex: "0004040102000B03", type: .ntag210, product: "NTAG210u"),
        Vector(hex: "0004040202000B03", type: .ntag210, product: "NTAG210u"),
        Vector(hex: "0004040101000E03", type: .ntag212, product: "NTAG212"),
        Vector(hex: "0004040201000F03", type: .ntag213, product: "NTAG213"),
        Vector(hex: "0004040201010F03", type: .ntag213, product: "NTAG213C"),
        Vector(hex: "0004040401000F03", type: .ntag213, product: "NTAG213F"),
        Vector(hex: "0004040203000F03", type: .ntag213, product: "NTAG213 TT"),
        Vector(hex: "0004040201001103", type: .ntag215, product: "NTAG215"),
        Vector(hex: "0004040201001303", type: .ntag216, product: "NTAG216"),
        Vector(hex: "0004040401001303", type: .ntag216, product: "NTAG216F"),
        // Upstream [BUG]: 223 DNA became NTAG213.
        Vector(hex: "0004040204000F03", type: .mifareUltralight, product: "NTAG 223 DNA"),
        Vector(hex: "0004040804000F03", type: .mifareUltralight, product: "NTAG 223 DNA StatusDetect"),
        Vector(hex: "0004040205001003", type: .mifareUltralight, product: "NTAG 224 DNA"),
        Vector(hex: "0004040805001003", type: .mifareUltralight, product: "NTAG 224 DNA StatusDetect"),
        // Upstream [BUG]: I2C 1K became NTAG216, I2C 2K NTAG213.
        Vector(hex: "0004040502011303", type: .mifareUltralight, product: "NTAG I2C 1K"),
        Vector(hex: "0004040502011503", type: .mifareUltralight, product: "NTAG I2C 2K"),
        Vector(hex: "0004040502001303", type: .mifareUltralight, product: "NTAG I2C 1K"),
        Vector(hex: "0004040502001503", type: .mifareUltralight, product: "NTAG I2C 2K"),
        Vector(hex: "0004040502021303", type: .mifareUltralight, product: "NTAG I2C plus 1K"),
        Vector(hex: "0004040502021503", type: .mifareUltralight, product: "NTAG I2C plus 2K"),
        // Clones (Proxmark3).
        Vector(hex: "0053040201000F03", type: .ntag213, product: "NTAG213 (Shanghai Feiju clone)"),
        Vector(hex: "0005340201001103", type: .ntag215, product: "NTAG215 (Shanghai Feiju clone)"),
        Vector(hex: "0034210101000E03", type: .mifareUltralightEV1_MF0UL21, product: "Ultralight EV1 MF0UL21 (Mikron clone)"),
    ]

    /// Answers not in the table: product type + storage size under the spec's subtype/major rule.
    static let fallback: [Vector] = [
        Vector(hex: "0004040201011103", type: .ntag215),  // NT2H1411-like minor bump
        Vector(hex: "0004040201021303", type: .ntag216),
        Vector(hex: "0004040401020F03", type: .ntag213),  // 213F-like (subtype 04) with minor 02
        Vector(hex: "0004040203010F03", type: .ntag213),  // NTAG213 TT minor bump → 213 map
        Vector(hex: "0004040102010B03", type: .ntag210),  // NTAG210µ minor bump → 210 map
        Vector(hex: "0004030101001103", type: .mifareUltralight),  // MF0UL31: storage 11 is not an EV1 map
        Vector(hex: "0004040600001303", type: .mifareUltralight),  // subtype 06
        Vector(hex: "0004040501001303", type: .mifareUltralight),  // I2C subtype never gets the 216 map
        Vector(hex: "0004040202001303", type: .mifareUltralight),  // major 02 with storage 13
        Vector(hex: "0004040201001503", type: .mifareUltralight),  // unknown storage size
        Vector(hex: "0004050101000B03", type: .mifareUltralight),  // unknown product type
        Vector(hex: "0053040201000F04", type: .ntag213),  // clone with other protocol byte: fallback
    ]

    @Test(arguments: exact)
    func exactMatch(vector: Vector) throws {
        let match = try #require(GetVersionTable.lookup(vector.bytes))
        #expect(match.isExact)
        #expect(match.product.cardType == vector.type)
        #expect(match.product.name == vector.product)
    }

    @Test(arguments: fallback)
    func fallbackMatch(vector: Vector) throws {
        let match = try #require(GetVersionTable.lookup(vector.bytes))
        #expect(!match.isExact)
        #expect(match.product.cardType == vector.type)
    }

    @Test(arguments: exact + fallback)
    func identificationUsesTheTable(vector: Vector) async throws {
        let tag = VirtualType2Tag(model: .custom(version: vector.bytes, totalPages: 16),
                                  uid: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == vector.type)
        #expect(info.product?.name == vector.product)
        #expect(info.version == vector.bytes)
        #expect(info.probes == ["GET_VERSION: \(vector.hex)"])
        #expect(transport.sentCommands == [[0x60]])
    }

    @Test func shortAnswersAreNotLookedUp() {
        #expect(GetVersionTable.lookup([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F]) == nil)
        #expect(GetVersionTable.lookup([]) == nil)
        #expect(GetVersionTable.lookup([UInt8](repeating: 0, count: 9)) == nil)
    }

    @Test func productRowsFollowTheDatasheets() throws {
        // NTAG21x: READ_CNT for counter 2 only, no tearing flags; EV1: 3 counters + CHECK_TEARING_EVENT.
        #expect(Type2Product.ntag213.counters == [2])
        #expect(Type2Product.ntag213.counterNeedsEnable)
        #expect(!Type2Product.ntag215.features.contains(.checkTearingEvent))
        #expect(Type2Product.ultralightEV1_MF0UL11.counters == [0, 1, 2])
        #expect(Type2Product.ultralightEV1_MF0UL21.tearingCounters == [0, 1, 2])
        #expect(Type2Product.ultralightEV1_MF0UL21.features.contains(.checkTearingEvent))
        // NTAG210/212: no counter at all; NTAG210µ: no FAST_READ, no PWD_AUTH.
        #expect(!Type2Product.ntag210.features.contains(.readCounter))
        #expect(!Type2Product.ntag210u.features.contains(.fastRead))
        #expect(!Type2Product.ntag210u.features.contains(.pwdAuth))
        // No GET_VERSION on the first generation.
        for product in [Type2Product.ultralight, .ultralightC, .ntag203] {
            #expect(!product.features.contains(.getVersion))
            #expect(!product.features.contains(.fastRead))
            #expect(!product.features.contains(.readSignature) && product.signatureLength == nil)
        }
        // READ_SIG: 32 bytes on NTAG21x, EV1 and NTAG210µ, 48 on Ultralight AES; the feature bit follows
        // the length, whatever a row says.
        for product in [Type2Product.ntag210, .ntag210u, .ntag212, .ntag213, .ntag216, .ultralightEV1_MF0UL11] {
            #expect(product.features.contains(.readSignature) && product.signatureLength == 32, "\(product.name)")
        }
        #expect(Type2Product.ultralightAES.features.contains(.readSignature) && Type2Product.ultralightAES.signatureLength == 48)
        let claimed = Type2Product(name: "x", cardType: .mifareUltralight, features: [.readSignature], map: .ultralight,
                                   locking: .unknown, flipperName: "x")
        #expect(!claimed.features.contains(.readSignature))
        // Every exact row's card type has a memory map.
        for product in GetVersionTable.exactMatches.values { #expect(product.memoryMap != nil) }
    }

    @Test func authenticationFeaturesFollowTheProtectionScheme() throws {
        // NTAG210µ has no PWD_AUTH, so its map has no password protection: a refusal cannot be
        // "auth_required" while a given password is "unsupported".
        #expect(Type2Product.ntag210u.protection == .none)
        #expect(Type2Product.ntag210.features.contains(.pwdAuth))
        #expect(Type2Product.ultralightC.features.contains(.tripleDESAuthentication))
        let baseRows: [Type2Product] = [.ultralight, .ultralightC, .ultralightEV1_MF0UL11, .ultralightEV1_MF0UL21,
                                        .ntag203, .ntag210, .ntag212, .ntag213, .ntag215, .ntag216]
        for product in baseRows + Array(GetVersionTable.exactMatches.values) {
            let hasPassword = if case .passwordAuth = product.protection { true } else { false }
            let has3DES = if case .tripleDES = product.protection { true } else { false }
            #expect(product.features.contains(.pwdAuth) == hasPassword, "\(product.name)")
            #expect(product.features.contains(.tripleDESAuthentication) == has3DES, "\(product.name)")
        }
    }

    @Test func productForCardInfoPrefersTheExactVersion() throws {
        let version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x02, 0x00, 0x0B, 0x03]
        let info = CardInfo(type: .ntag210, uid: [], version: version)
        #expect(Type2Product.forCardInfo(info) == .ntag210u)
        #expect(Type2Product.forCardInfo(CardInfo(type: .ntag210, uid: [])) == .ntag210)
        // A version that contradicts the type (e.g. edited import) does not win.
        #expect(Type2Product.forCardInfo(CardInfo(type: .ntag216, uid: [], version: version)) == .ntag216)
        #expect(Type2Product.forCardInfo(CardInfo(type: .mifareClassic1K, uid: [])) == nil)
    }

    /// How each row answers a command it lacks (MF0ICU1 silent; MF0ICU2, NTAG203, EV1, NTAG21x NAK 0h),
    /// and the rows refinement tells apart after GET_VERSION failed, largest memory first.
    @Test func unsupportedCommandAnswers() {
        #expect(Type2Product.ultralight.unsupportedCommandAnswer == .silence)
        #expect(Type2Product.ultralightC.unsupportedCommandAnswer == .nak(0x0))
        #expect(Type2Product.ntag203.unsupportedCommandAnswer == .nak(0x0))
        for row in Type2Product.baseRows + Type2Product.productRows where row.features.contains(.getVersion) {
            #expect(row.unsupportedCommandAnswer == .nak(0x0), "\(row.name)")
        }
        for refused in [true, false] {
            #expect(Type2Product.rowsWithoutGetVersion(answeringRefused: refused).map(\.name)
                    == ["MIFARE Ultralight C", "NTAG203", "MIFARE Ultralight"])
        }
        #expect(Type2Product.ultralight.answersUnsupported(refused: false))
        #expect(!Type2Product.ultralight.answersUnsupported(refused: true))
        #expect(Type2Product.ntag203.answersUnsupported(refused: true))
    }
}
