/// What a dump holds, in words for people and for logs — CoreExtendedNFC's `DumpSummary`, with the
/// same strings so summaries diff cleanly against iOS dumps.
public struct DumpSummary: Sendable, Hashable {
    /// One sentence for people ("Read a Type 2 style memory map with 45 pages.").
    public var userSummary: String
    /// Storage, export size and NDEF record count, joined with " · " ("45 pages · export 180 bytes").
    public var technicalSummary: String
    /// The dump's capabilities, or the inferred ones when it stores none.
    public var capabilities: [CardCapability]
    /// The dump's facts.
    public var facts: [Fact]

    public init(userSummary: String, technicalSummary: String, capabilities: [CardCapability], facts: [Fact]) {
        self.userSummary = userSummary
        self.technicalSummary = technicalSummary
        self.capabilities = capabilities
        self.facts = facts
    }
}

extension TagDump {
    /// The summary of this dump (reference notes §3.1).
    public var summary: DumpSummary {
        let storage = storageSummary
        let family = TagFamilies.presentation(for: cardInfo.type)
        let userSummary = family?.userSummary(for: self, storage: storage)
            ?? "Captured \(storage) from \(cardInfo.type.description)."
        var technical = [storage, "export \(exportBinary().count) bytes"]
        if let records = parsedNDEFRecords { technical.append("\(records.count) NDEF records") }
        return DumpSummary(
            userSummary: userSummary,
            technicalSummary: technical.joined(separator: " · "),
            capabilities: capabilities.isEmpty ? inferredCapabilities : capabilities,
            facts: facts
        )
    }

    /// The capabilities a dump that stores none is taken to have, from its family's row and typed data
    /// (upstream's rules, kept so exports match); readable where the family has no rule of its own.
    public var inferredCapabilities: [CardCapability] {
        TagFamilies.presentation(for: cardInfo.type)?.inferredCapabilities(of: self) ?? [.readable]
    }

    /// "45 pages", "3 blocks", "2 files", "9 NDEF bytes" or "identification only" (no singular forms,
    /// as upstream).
    var storageSummary: String {
        if !pages.isEmpty { return "\(pages.count) pages" }
        if !blocks.isEmpty { return "\(blocks.count) blocks" }
        if !files.isEmpty { return "\(files.count) files" }
        if let ndefMessage { return "\(ndefMessage.count) NDEF bytes" }
        return "identification only"
    }
}

/// One NDEF record as exports show it: `displayType` and `displayValue` of the NDEF codec.
struct NDEFRecordDisplay: Sendable, Hashable, Codable {
    var type: String
    var value: String
}

extension TagDump {
    /// The NDEF message's records for display (`displayType`, `displayValue` of the NDEF codec); nil
    /// when there is no message, it does not decode, or it holds no record (upstream's parser
    /// required at least one).
    var parsedNDEFRecords: [NDEFRecordDisplay]? {
        guard let ndefMessage, let message = try? NDEFMessage(bytes: ndefMessage), !message.records.isEmpty else {
            return nil
        }
        return message.records.map { NDEFRecordDisplay(type: $0.displayType, value: $0.displayValue) }
    }
}
