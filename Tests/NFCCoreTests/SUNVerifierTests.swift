import NFCCore
import Testing

/// SUN verification against NXP AN12196 Rev. 1.5 §3's worked examples (page 12: PICCData + SDMMAC over
/// an empty input; page 18: PICCData, SDMENCFileData and an SDMMAC over "<enc>&cmac="), both with the
/// all-zero SDMMetaRead and SDMFileRead keys. The file around each message is built here (the examples
/// give the URL parameters); offsets are positions in the file as NT4H2421Gx §10.7.1 Table 69 defines them.
@Suite struct SUNVerifierTests {
    static let zero = [UInt8](repeating: 0, count: 16)
    static let keys = SUNKeys(name: "door", metaRead: zero, fileRead: zero)

    /// A file of NLEN (2 bytes) + the ASCII `parts`, and the offset each part starts at.
    static func file(_ parts: [String]) -> (bytes: [UInt8], offsets: [Int]) {
        var bytes: [UInt8] = [0x00, 0x00]
        var offsets: [Int] = []
        for part in parts {
            offsets.append(bytes.count)
            bytes += Array(part.utf8)
        }
        return (bytes, offsets)
    }

    /// Encrypted PICCData with SDMMetaRead key 0, SDMMAC with SDMFileRead key 0, SDMMACInputOffset = SDMMACOffset.
    static func page12(mac: String = "94EED9EE65337086") -> (bytes: [UInt8], settings: SDMSettings) {
        let (bytes, at) = file(["ntag.nxp.com/424?e=", "EF963FF7828658A599F3041510671E88", "&c=", mac])
        let settings = SDMSettings(options: [.uid, .readCounter, .ascii], metaRead: .key(0), fileRead: .key(0),
                                   piccDataOffset: at[1], macInputOffset: at[3], macOffset: at[3])
        return (bytes, settings)
    }

    @Test func anPage12PICCDataAndSDMMACVerify() {
        let (bytes, settings) = Self.page12()
        let result = SUNVerifier.verify(file: bytes, settings: settings, keys: Self.keys)
        #expect(result.verdict == .valid, "\(result)")
        #expect(result.uid == [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40])
        #expect(result.counter == 61)  // SDMReadCtr 3D0000, LSB first
        #expect(result.fileData == nil)
    }

    @Test func anPage18EncryptedFileDataAndSDMMACVerify() {
        let (bytes, at) = Self.file(["my424dna.com/?picc_data=", "FD91EC264309878BE6345CBE53BADF40", "&enc=",
                                     "CEE9A53E3E463EF1F459635736738962", "&cmac=", "ECC1E7F6C6C73BF6"])
        let settings = SDMSettings(options: [.uid, .readCounter, .encryptedFileData, .ascii], metaRead: .key(0), fileRead: .key(0),
                                   piccDataOffset: at[1], macInputOffset: at[3], encryptedDataOffset: at[3],
                                   encryptedDataLength: 32, macOffset: at[5])
        let result = SUNVerifier.verify(file: bytes, settings: settings, keys: Self.keys)
        #expect(result.verdict == .valid, "\(result)")
        #expect(result.uid == [0x04, 0x95, 0x8C, 0xAA, 0x5C, 0x5E, 0x80])
        #expect(result.counter == 8)
        #expect(result.fileData == Array("xxxxxxxxxxxxxxxx".utf8))
    }

    @Test func aChangedMACIsInvalid() {
        let (bytes, settings) = Self.page12(mac: "94EED9EE65337087")
        let result = SUNVerifier.verify(file: bytes, settings: settings, keys: Self.keys)
        #expect(result.verdict == .invalidMAC)
        #expect(result.counter == 61)
    }

    @Test func aWrongFileReadKeyIsAnInvalidMAC() {
        let (bytes, settings) = Self.page12()
        let keys = SUNKeys(name: "other", metaRead: Self.zero, fileRead: [UInt8](repeating: 0x11, count: 16))
        #expect(SUNVerifier.verify(file: bytes, settings: settings, keys: keys).verdict == .invalidMAC)
    }

    @Test func withoutKeysTheVerdictIsNoKey() {
        let (bytes, settings) = Self.page12()
        #expect(SUNVerifier.verify(file: bytes, settings: settings, keys: nil).verdict == .noKey)
        let metaOnly = SUNKeys(name: "half", metaRead: Self.zero, fileRead: nil)
        let result = SUNVerifier.verify(file: bytes, settings: settings, keys: metaOnly)
        #expect(result.verdict == .noKey)
        #expect(result.counter == 61)
    }

    @Test func aMessageThatIsNotThereIsMalformed() {
        let (bytes, settings) = Self.page12()
        var notHex = bytes
        notHex[settings.piccDataOffset ?? 0] = UInt8(ascii: "G")
        #expect(SUNVerifier.verify(file: notHex, settings: settings, keys: Self.keys).verdict == .malformed)
        #expect(SUNVerifier.verify(file: Array(bytes.prefix(40)), settings: settings, keys: Self.keys).verdict == .malformed)
        var farOut = settings
        farOut.macOffset = Int.max - 3
        #expect(SUNVerifier.verify(file: bytes, settings: farOut, keys: Self.keys).verdict == .malformed)
        // A wrong SDMMetaRead key decrypts to random bytes: no PICCDataTag.
        let wrongMeta = SUNKeys(name: "x", metaRead: [UInt8](repeating: 0x22, count: 16), fileRead: Self.zero)
        #expect(SUNVerifier.verify(file: bytes, settings: settings, keys: wrongMeta).verdict == .malformed)
    }

    @Test func keysNeverPrint() {
        let keys = SUNKeys(name: "door", metaRead: [UInt8](repeating: 0xAB, count: 16), fileRead: [UInt8](repeating: 0xCD, count: 16))
        #expect(!"\(keys)".contains("AB") && !String(reflecting: keys).contains("CD"))
    }

    /// NT4H2421Gx §10.7.2 Table 73: encrypted PICCData (meta read key 2), SDMMAC with key 1, counter
    /// retrieval key 1, no limit: SDMOptions C1, SDMAccessRights F1 21 (LSB first), PICCDataOffset,
    /// SDMMACInputOffset, SDMMACOffset.
    @Test func fileSettingsWithSDMDecodeAndEncodeAgain() throws {
        let answer: [UInt8] = [0x00, 0x40, 0xE0, 0xEE, 0x00, 0x01, 0x00, 0xC1, 0xF1, 0x21,
                               0x20, 0x00, 0x00, 0x43, 0x00, 0x00, 0x43, 0x00, 0x00]
        let settings = try NTAG424FileSettings(bytes: answer)
        #expect(settings.fileSize == 256)
        #expect(settings.accessRights.read.isFree)
        let sdm = try #require(settings.sdm)
        #expect(sdm.metaRead == .key(2) && sdm.fileRead == .key(1) && sdm.counterRetrieval == .key(1))
        #expect(sdm.piccDataOffset == 0x20 && sdm.macInputOffset == 0x43 && sdm.macOffset == 0x43)
        #expect(sdm.uidOffset == nil && sdm.encryptedDataOffset == nil && sdm.readCounterLimit == nil)
        #expect(settings.bytes == answer)
        // A missing field, or one too many, is not an answer.
        #expect(throws: NFCError.self) { try NTAG424FileSettings(bytes: Array(answer.dropLast())) }
        #expect(throws: NFCError.self) { try NTAG424FileSettings(bytes: answer + [0x00]) }
        // Plain mirroring: UID and counter offsets instead of PICCData; the counter FFFFFFh is "not mirrored".
        let plain: [UInt8] = [0x00, 0x40, 0xE0, 0xEE, 0x00, 0x01, 0x00, 0xC1, 0xFE, 0xE0,
                              0x10, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x30, 0x00, 0x00, 0x30, 0x00, 0x00]
        let free = try #require(try NTAG424FileSettings(bytes: plain).sdm)
        #expect(free.metaRead == .free && free.fileRead == .key(0) && free.uidOffset == 0x10 && free.readCounterOffset == nil)
    }
}
