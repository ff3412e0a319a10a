import NFCBridge
import NFCCore
import Testing

/// The AID-order warning (docs/keys.md, "Application IDs"): a keys-file DESFire application the card
/// lacks while it has the same bytes reversed is named with the file and line, never the key.
@Suite struct DESFireKeyOrderWarningTests {
    static let key = "4A1B9C0D2E3F405162738495A6B7C8D9"

    static func families(application: String) throws -> FamilyDumpOptions {
        let text = """
            keys:
              door_read:
                kind: desfire
                key_number: 1
                application: "\(application)"
                cipher: aes
                key: \(key)

            """
        return try AuthKeysFile.parse(Array(text.utf8), path: "keys.yaml").families
    }

    /// A file in card order (`563412` meant for AID 123456h) on a card with AID 123456h (card order
    /// 56 34 12): one warning naming keys.yaml:5, the key's name and both AIDs, without the key bytes.
    @Test func aCardOrderApplicationIsNamedWithItsFileAndLine() throws {
        let families = try Self.families(application: "563412")
        let lines = DESFireKeyOrderWarning.lines(
            keys: families.desfireKeys, origins: families[DESFireKeyOrigins.self], cardApplications: [[0x56, 0x34, 0x12]])
        #expect(lines.count == 1)
        let line = lines.first ?? ""
        #expect(line.hasPrefix("keys.yaml:5: DESFire key 'door_read' names application 563412"), "\(line)")
        #expect(line.contains("the card has 123456") && line.contains(#"application: "123456""#), "\(line)")
        #expect(!line.uppercased().contains(Self.key), "\(line)")
    }

    /// The right order, an application present under both orders, a palindrome and an absent one: no warning.
    @Test func nothingIsSaidWhenTheApplicationIsThereOrNeitherOrderIs() throws {
        let right = try Self.families(application: "123456")
        #expect(DESFireKeyOrderWarning.lines(keys: right.desfireKeys, origins: right[DESFireKeyOrigins.self],
                                             cardApplications: [[0x56, 0x34, 0x12]]).isEmpty)
        let wrong = try Self.families(application: "563412")
        #expect(DESFireKeyOrderWarning.lines(keys: wrong.desfireKeys, origins: wrong[DESFireKeyOrigins.self],
                                             cardApplications: [[0x56, 0x34, 0x12], [0x12, 0x34, 0x56]]).isEmpty)
        #expect(DESFireKeyOrderWarning.lines(keys: wrong.desfireKeys, origins: wrong[DESFireKeyOrigins.self],
                                             cardApplications: [[0x01, 0x02, 0x03]]).isEmpty)
        let palindrome = try Self.families(application: "123412")
        #expect(DESFireKeyOrderWarning.lines(keys: palindrome.desfireKeys, origins: palindrome[DESFireKeyOrigins.self],
                                             cardApplications: [[0x12, 0x34, 0x12]]).isEmpty)
    }
}
