import FoundationEssentials

/// Reading a family's additive keys from a JSON dump (``TagFamilyFiles/familyData(fromJSON:dump:)``): each
/// family decodes its own keys from the document, so the generic JSON import names none of them.
public enum FamilyJSON {
    /// Decodes `Keys` (a struct of optional properties, one per key) from the JSON document `json`.
    /// - Throws: ``NFCError/malformedDump(_:)`` when a key holds a value of the wrong kind.
    public static func decode<Keys: Decodable>(_ keys: Keys.Type, from json: [UInt8]) throws -> Keys {
        do {
            return try JSONDecoder().decode(Keys.self, from: Data(json))
        } catch {
            throw NFCError.malformedDump("JSON: \(describe(error))")
        }
    }

    /// A one-line reason from a DecodingError (its coding path and description).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        let context: DecodingError.Context? =
            switch error {
            case let .typeMismatch(_, context), let .valueNotFound(_, context), let .keyNotFound(_, context),
                let .dataCorrupted(context):
                context
            @unknown default: nil
            }
        guard let context else { return "\(error)" }
        let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        // The parser's own words when it says more ("Number 4294967296 is not representable in Swift."
        // rather than "The given data was not valid JSON.").
        let reason = context.underlyingError.flatMap { $0 as? any CustomDebugStringConvertible }?.debugDescription ?? context.debugDescription
        return (path.isEmpty ? "" : path + ": ") + reason
    }
}
