import NFCCore
import Testing

@testable import NFCBridge

/// `access.originality_keys_file` (docs/access-control.md, "originality signature").
@Suite struct OriginalityKeysFileTests {
    /// NTAG 22x DNA's key (AN12998, OriginalityKeyTable) and a genuine pair of Proxmark3's recover_pk.py.
    static let ntag22xKey = "0485D5B9353B4FAA77581BA2AE96630C5876D6E8603308ABE9A81A0B506F52D02D04FEE6F2D365B3DEE7B9FAD9133E2976"
    static let uid = [UInt8](hex: "043302218D3D00") ?? []
    static let signature = [UInt8](
        hex: "6A5D5E034F4FC823CACAB56C1A77A409B8DB345F89BD3FD59ED1F9C0093518609BE62D0A20764D2011E47EFA187F29AA") ?? []

    /// The documented format loads: a file key names no reading and checks every signature of its
    /// curve's length, whichever way it was read.
    @Test func aFileKeyNamesNoReadingAndChecksEverySignatureOfItsLength() throws {
        let text = "# curve    public key    name\nsecp192r1  \(Self.ntag22xKey)  Site DNA key  # comment\n\n"
        let keys = try OriginalityKeysFile.parse(Array(text.utf8), path: "/etc/nfcbridge/keys.txt")
        #expect(keys.count == 1)
        #expect(keys.first?.reading == nil && keys.first?.curve == .secp192r1 && keys.first?.name == "Site DNA key")
        #expect(keys.first?.source == "/etc/nfcbridge/keys.txt:2")
        // The table has no secp192r1 key read by ISO-DEP Read_Sig; the file's key verifies there too.
        let verdict = OriginalityCheck.verdict(uid: Self.uid, signature: Self.signature, reading: .isoDEPReadSig, extraKeys: keys)
        guard case let .valid(key, _) = verdict else {
            Issue.record("the file's key should verify the pair, got \(verdict)")
            return
        }
        #expect(key.name == "Site DNA key")
    }

    /// Columns aligned with tabs (and a file saved on Windows: a byte-order mark, CR LF line ends) load as with spaces.
    @Test func tabsSeparateTheColumnsAsSpacesDo() throws {
        let text = "\u{FEFF}secp192r1\t\(Self.ntag22xKey)\t\tSite DNA key\r\nsecp192r1 \t\(Self.ntag22xKey)\tOther key\t\r\n"
        let keys = try OriginalityKeysFile.parse(Array(text.utf8), path: "keys.txt")
        #expect(keys.map(\.name) == ["Site DNA key", "Other key"])
        #expect(keys.allSatisfy { $0.curve == .secp192r1 && $0.publicKeyHex == Self.ntag22xKey })
    }

    @Test func aBadLineNamesTheFileAndLine() {
        let error = #expect(throws: ConfigurationError.self) {
            _ = try OriginalityKeysFile.parse(Array("secp192r1 \(Self.ntag22xKey)\n".utf8), path: "keys.txt")
        }
        #expect(error?.line == 1 && error?.source == "keys.txt")
    }
}
