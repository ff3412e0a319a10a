/// The files part of a ``TagFamily``: what the family contributes to the file-format table and to the
/// JSON export and import. `ExportFormat`, `DumpImporter` and the JSON export/import ask for this part only
/// (``TagFamilies/files(for:)``, ``TagFamilies/allFiles``).
public protocol TagFamilyFiles: Sendable {
    /// The family's file-format table: one row per format it saves, loads or detects, save and load
    /// side by side (``FileFormatRow``). Default: none (json, hex and bin are every dump's).
    var fileFormats: [FileFormatRow] { get }

    /// Throws ``NFCError/malformedDump(_:)`` when an imported `dump` names memory this family's
    /// products do not have (page or block numbers past the memory map); applies to the family's own
    /// dumps only. Default: no check beyond ``DumpImporter/checkBounds(_:)``'s generic limits.
    func checkFileBounds(_ dump: TagDump) throws

    /// The product row a file names `name` for the card `info` (a JSON file keeps only the product's name;
    /// `info` is the rest of the file's card: type, version, PMm…): the row identification would have
    /// found, when it has that name, else the family's row of that name; nil when the family has no such
    /// row. The card's own family is asked first, then every other (a GET_VERSION product row may name a
    /// card another family owns).
    func product(named name: String, for info: CardInfo) -> Product?

    /// The typed data of `dump` as the JSON export writes it: additive keys at the top level of the
    /// document (``FamilyDumpPayload``). Default: the dump's payload, when it has one.
    func jsonFamilyData(of dump: TagDump) -> (any Encodable)?

    /// Rebuilds ``TagDump/family`` of a dump read from a JSON file: from the keys ``jsonFamilyData(of:)``
    /// writes, or — for a file written without them — from what the memory (`dump`'s pages, blocks,
    /// files) shows; never from the facts, which are for people. Nil when `json` holds none of this
    /// family's keys and `dump` is not one of its cards.
    /// - Throws: ``NFCError/malformedDump(_:)`` when a key's value is malformed.
    func familyData(fromJSON json: [UInt8], dump: TagDump) throws -> FamilyDumpData?
}

extension TagFamilyFiles {
    public var fileFormats: [FileFormatRow] { [] }
    public func checkFileBounds(_ dump: TagDump) throws {}
    public func product(named name: String, for info: CardInfo) -> Product? { nil }
    public func jsonFamilyData(of dump: TagDump) -> (any Encodable)? { dump.family.payload }
    public func familyData(fromJSON json: [UInt8], dump: TagDump) throws -> FamilyDumpData? { nil }
}
