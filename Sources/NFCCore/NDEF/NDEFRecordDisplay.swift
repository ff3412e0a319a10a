extension NDEFRecord {
    /// A short label for the record kind, with upstream's strings: "Empty", "Text", "URI",
    /// "MIME: <type>", "Smart Poster", "External: <type>", "Unknown" or "Type <type>".
    /// Kept identical to CoreExtendedNFC so JSON exports (`parsedNDEF`) diff cleanly against iOS dumps.
    public var displayType: String {
        switch tnf {
        case .empty:
            return "Empty"
        case .wellKnown where type == TextRecord.recordType && text != nil:
            return "Text"
        case .wellKnown where type == URIRecord.recordType && uri != nil:
            return "URI"
        case .wellKnown where type == SmartPoster.recordType && smartPoster != nil:
            return "Smart Poster"
        case .absoluteURI:
            return "URI"
        case .mimeMedia:
            return "MIME: \(typeLabel)"
        case .external:
            return "External: \(typeLabel)"
        default:
            return type.isEmpty ? "Unknown" : "Type \(typeLabel)"
        }
    }

    /// A one-line value, with upstream's formats: "No payload", "[<lang>] <text>", the URI,
    /// "<type> (<n> bytes)", "<title or Untitled> · <uri>", "<n> bytes".
    public var displayValue: String {
        if tnf == .empty { return "No payload" }
        if let text { return "[\(text.language)] \(text.text)" }
        if let poster = smartPoster {
            return [poster.title ?? "Untitled", poster.uri].compactMap { $0 }.joined(separator: " · ")
        }
        if let uri { return uri }
        if tnf == .mimeMedia { return "\(typeLabel) (\(payload.count) bytes)" }
        return "\(payload.count) bytes"
    }

    /// TYPE as text, or as hex when it is not UTF-8 (upstream's fallback).
    private var typeLabel: String { typeText ?? type.hexString }
}
