import Foundation
import Testing
import NFCCore
import TestSupport

/// `nfcbridge export` and `import` on hostile and partial dumps (issue 10, "Bad input"): huge page
/// numbers, a Proxmark3 JSON dump named `pm3`, a partial Type 2 dump in the fixed-offset formats.
@Suite struct ExportBadInputCLITests {
    typealias CLI = ExportCLITests

    /// A JSON dump of `type` with page 0 and page `number`.
    static func hugePageDump(number: String, type: String) -> Data {
        Data(#"{"cardType":"\#(type)","uid":"04A1B2C3D4E5F6","pages":[{"number":0,"data":"04A1B2BF"},{"number":\#(number),"data":"00000000"}]}"#.utf8)
    }

    /// Page 2^62 (SIGILL from an arithmetic overflow before) and page 2^31 (an 8 GiB MFD before), in
    /// every export format and in `import`: `malformed_dump`, exit 1, nothing written.
    @Test(arguments: [("4611686018427387904", "NTAG213"), ("2147483648", "MIFARE Ultralight")])
    func hugePageNumbersAreMalformed(number: String, type: String) throws {
        try CLI.withTemporaryDirectory { (dir: URL) throws in
            let input = dir.appendingPathComponent("huge.json")
            try Self.hugePageDump(number: number, type: type).write(to: input)
            for format in ["mfd", "pm3", "flipper", "bin", "hex", "json"] {
                let output = dir.appendingPathComponent("out.\(format)")
                let result = try CLI.run(["export", "--from", input.path, "--format", format, "--output", output.path])
                #expect(result.status == 1, "\(format)")
                let (code, message) = try CLI.errorLine(result)
                #expect(code == "malformed_dump", "\(format)")
                #expect(message.contains("page \(number) is outside"), "\(format): \(message)")
                #expect(!FileManager.default.fileExists(atPath: output.path), "\(format)")
                #expect(result.stdout.isEmpty)
            }
            let imported = try CLI.run(["import", input.path])
            #expect(imported.status == 1)
            #expect(try CLI.errorLine(imported).0 == "malformed_dump")
            #expect(imported.stdout.isEmpty)
        }
    }

    /// A Proxmark3 Classic 1K key file (`hf-mf-<UID>-key.bin`, 192 bytes) imported as an Ultralight C
    /// (issue 23): `import` and `export --from` pass the file's name, so it is refused as a key file
    /// even when its first bytes happen to pass the UID checks; the same bytes under another name are
    /// read as the 48-page image they could be.
    @Test func aProxmarkKeyFileIsRefusedByItsNameInImportAndExport() throws {
        try CLI.withTemporaryDirectory { (dir: URL) throws in
            var bytes = [UInt8](repeating: 0xFF, count: 192)
            // UID 04 A1 B2 C3 D4 E5 F6 with its check bytes: BCC0 = 88 ^ 04 ^ A1 ^ B2, BCC1 = C3 ^ D4 ^ E5 ^ F6.
            let uidPages: [UInt8] = [0x04, 0xA1, 0xB2, 0x9F, 0xC3, 0xD4, 0xE5, 0xF6, 0x04]
            bytes.replaceSubrange(0..<9, with: uidPages)
            let keyFile = dir.appendingPathComponent("hf-mf-04A1B2C3-key.bin")
            try Data(bytes).write(to: keyFile)
            for arguments in [["import", keyFile.path], ["export", "--from", keyFile.path, "--format", "json"]] {
                let result = try CLI.run(arguments)
                #expect(result.status == 1, "\(arguments)")
                let (code, message) = try CLI.errorLine(result)
                #expect(code == "malformed_dump", "\(arguments)")
                #expect(message.contains("Proxmark3 MIFARE Classic key file (16 sectors"), "\(arguments): \(message)")
            }
            let image = dir.appendingPathComponent("card.bin")
            try Data(bytes).write(to: image)
            #expect(try CLI.run(["import", image.path]).status == 0)
        }
    }

    /// A Proxmark3 JSON dump padded to whole 4-byte "pages" (what `import --format pm3` decoded as a
    /// 349-page Ultralight before): named `pm3` or `mfd`, it is refused saying what it is. (Left to
    /// detection it was refused too until the Proxmark3 JSON import existed; now it is read: below.)
    @Test(arguments: ["pm3", "mfd"])
    func proxmark3JSONIsNamedForWhatItIs(format: String) throws {
        var text = Self.paddedProxmarkJSON
        while text.utf8.count % 4 != 0 { text += " " }
        let result = try CLI.run(["import", "-", "--format", format], input: Data(text.utf8))
        #expect(result.status == 1)
        let (code, message) = try CLI.errorLine(result)
        #expect(code == "malformed_dump")
        #expect(message.contains("this is a Proxmark3 JSON dump"), "\(message)")
        if format == "pm3" { #expect(message.contains("not a Proxmark3 MFU binary"), "\(message)") }
        #expect(result.stdout.isEmpty)
    }

    /// The Proxmark3 JSON dump of the tests above.
    static let paddedProxmarkJSON = """
        {
          "Created": "proxmark3",
          "FileType": "mfu",
          "Card": {"UID": "04A1B2C3D4E5F6", "Version": "0004040201000F03"},
          "blocks": {"0": "04A1B29F", "1": "C3D4E5F6", "2": "E0480000", "3": "E1101200"}
        }
        """

    /// The same file left to detection or named `pm3json` is read as Proxmark3 JSON: the NTAG213 its
    /// GET_VERSION names, the UID from pages 0–1.
    @Test(arguments: ["auto", "pm3json"])
    func proxmark3JSONIsRead(format: String) throws {
        let result = try CLI.run(["import", "-", "--format", format, "--compact"], input: Data(Self.paddedProxmarkJSON.utf8))
        #expect(result.status == 0)
        let stdout = String(decoding: result.stdout, as: UTF8.self)
        #expect(stdout.contains(#""cardType":"NTAG213""#), "\(stdout)")
        #expect(stdout.contains(#""uid":"04A1B2C3D4E5F6""#), "\(stdout)")
        #expect(stdout.contains(#"{"data":"E1101200","number":3}"#), "\(stdout)")
    }

    /// A file of another format than the one named says what it looks like.
    @Test func wrongFormatNamesWhatTheFileIs() throws {
        let json = try CLI.run(["import", CLI.fixture("ntag213.input.json"), "--format", "mfd"])
        #expect(json.status == 1)
        #expect(try CLI.errorLine(json) == ("malformed_dump", "Malformed dump: this is a JSON dump, not a libnfc MFD file (mfd)"))
        let flipper = try CLI.run(["import", CLI.fixture("ntag213.nfc"), "--format", "pm3"])
        #expect(try CLI.errorLine(flipper) == ("malformed_dump", "Malformed dump: this is a Flipper .nfc file, not a Proxmark3 MFU binary (pm3)"))
        let binary = try CLI.run(["import", CLI.fixture("ntag213.mfd"), "--format", "json"])
        #expect(try CLI.errorLine(binary) == ("malformed_dump", "Malformed dump: this is binary data, not a JSON dump (json)"))
    }

    /// An input longer than any dump (here a 5 MiB file) is refused before it is read to its end.
    @Test func overlongInputIsMalformed() throws {
        try CLI.withTemporaryDirectory { (dir: URL) throws in
            let input = dir.appendingPathComponent("big.bin")
            try Data(count: 5 << 20).write(to: input)
            let result = try CLI.run(["import", input.path])
            #expect(result.status == 1)
            let (code, message) = try CLI.errorLine(result)
            #expect(code == "malformed_dump")
            #expect(message.contains("holds more than \(DumpImporter.maxFileSize) bytes"), "\(message)")
        }
    }

    /// The NTAG213 fixture read only up to its AUTH0 boundary (pages 0–15 of 45), as a JSON dump.
    static func partialNTAG213() throws -> (json: Data, pages: [UInt8]) {
        let full = try TagDump.importFlipperNFC(String(decoding: try CLI.fixtureBytes("ntag213.nfc"), as: UTF8.self))
        var dump = full
        dump.pages = full.pages.filter { $0.number < 16 }
        dump.capabilities = [.authenticationRequired, .partiallyReadable]
        return (Data(try dump.exportJSON().utf8), dump.pages.flatMap(\.data))
    }

    /// A partial dump is refused in MFD and Proxmark3 `.bin` (`partial_dump`, naming page 16, nothing
    /// written); `--partial` writes pages 0–15 and nothing else (no zeros for the 29 pages not read).
    @Test func partialDumpIsRefusedInFixedOffsetFormats() throws {
        let (json, pages) = try Self.partialNTAG213()
        #expect(pages.count == 64)
        try CLI.withTemporaryDirectory { (dir: URL) throws in
            let input = dir.appendingPathComponent("partial.json")
            try json.write(to: input)
            for format in ["mfd", "pm3"] {
                let output = dir.appendingPathComponent("out.\(format)")
                let refused = try CLI.run(["export", "--from", input.path, "--format", format, "--output", output.path])
                #expect(refused.status == 1)
                let (code, message) = try CLI.errorLine(refused)
                #expect(code == "partial_dump")
                #expect(message.hasPrefix("Partial dump: page 16 of 45 was not read"), "\(message)")
                #expect(!FileManager.default.fileExists(atPath: output.path))

                let written = try CLI.run(["export", "--from", input.path, "--format", format, "--partial", "--output", output.path])
                #expect(written.status == 0)
                #expect(written.err.isEmpty)
                let bytes = Array(try Data(contentsOf: output))
                if format == "mfd" {
                    #expect(bytes == pages)
                } else {
                    #expect(bytes.count == 56 + 64)
                    #expect(bytes[11] == 15)  // the header's page byte: highest page in the file
                    #expect(Array(bytes[56...]) == pages)
                }
            }
            // Flipper keeps partial dumps (its `Pages read` line): written without --partial.
            let flipper = try CLI.run(["export", "--from", input.path, "--format", "flipper"])
            #expect(flipper.status == 0)
            #expect(flipper.out.contains("Pages total: 45\nPages read: 16\n"))
            // --partial is for the fixed-offset formats only.
            let misuse = try CLI.run(["export", "--from", input.path, "--format", "json", "--partial"])
            #expect(misuse.status == 2)
            #expect(try CLI.errorLine(misuse).0 == "usage")
        }
    }
}
