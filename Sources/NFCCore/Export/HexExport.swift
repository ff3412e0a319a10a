import FoundationEssentials

/// Hex text export: a header, then every page, block and file, then the NDEF message.
extension TagDump {
    /// The dump as text (lines joined with `\n`, no trailing newline; upstream's layout):
    /// ```
    /// Card: NTAG213
    /// UID: 04A1B2C3D4E5F6
    /// Summary: 45 pages · export 180 bytes
    /// Capabilities: Readable
    ///
    /// Page   0: 04 A1 B2 9F
    /// ```
    /// Blocks print as `Block %3d: HH …` (+ ` [LOCKED]`), files as `<name or File> <id> (<n> bytes):`
    /// with an offset dump of 8 bytes a line, then `NDEF (<n> bytes):` and the parsed records.
    public func exportHex() -> String {
        let summary = summary
        var lines = ["Card: \(cardInfo.type.description)", "UID: \(cardInfo.uid.hexString)", "Summary: \(summary.technicalSummary)"]
        if !summary.capabilities.isEmpty {
            lines.append("Capabilities: " + summary.capabilities.map(\.rawValue).joined(separator: ", "))
        }
        lines.append("")
        for page in pages {
            lines.append("Page \(Self.rightAligned(page.number, width: 3)): " + page.data.spacedHexString)
        }
        for block in blocks {
            lines.append("Block \(Self.rightAligned(block.number, width: 3)): " + block.data.spacedHexString + (block.locked ? " [LOCKED]" : ""))
        }
        for file in files {
            lines.append("\(file.name ?? "File") \(file.identifier.hexString) (\(file.data.count) bytes):")
            lines.append(Self.offsetDump(file.data))
        }
        if let ndefMessage, !ndefMessage.isEmpty {
            lines += ["", "NDEF (\(ndefMessage.count) bytes):", Self.offsetDump(ndefMessage)]
            if let records = parsedNDEFRecords {
                lines += ["", "Parsed NDEF:"]
                for (index, record) in records.enumerated() {
                    lines.append("  [\(index)] \(record.type): \(record.value)")
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `n` right-aligned in `width` columns (printf's `%3d`).
    private static func rightAligned(_ n: Int, width: Int) -> String {
        let text = String(n)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// `n` as at least 4 upper-case hex digits (printf's `%04X`).
    private static func hex4(_ n: Int) -> String {
        let text = String(n, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }

    /// `0000: 0A 1B 2C 3D 4E 5F 60 71`, 8 bytes a line (no lines for no bytes).
    static func offsetDump(_ bytes: [UInt8]) -> String {
        stride(from: 0, to: bytes.count, by: 8).map { offset in
            Self.hex4(offset) + ": " + bytes[offset..<min(offset + 8, bytes.count)].spacedHexString
        }.joined(separator: "\n")
    }
}
