/// One tag family — the unit Flipper's `nfc_devices[]` lists: what it answers to (its name, the card types
/// it claims, the ATQA/SAK rules that name them) and three parts with one job each, which the row composes:
///
/// - ``TagFamilyVerbs``: what it does with a tag — refine, read NDEF, dump, write, format, lock;
/// - ``TagFamilyFiles``: its rows of the file-format table, the bounds a file may name, its JSON keys and
///   the product a file names;
/// - ``TagFamilyPresentation``: how a dump of it is worded for people (summary, inferred capabilities).
///
/// ``TagFamilies/all`` is the one table of families; callers ask it for the part they need
/// (``TagFamilies/verbs(for:)``, ``TagFamilies/files(for:)``, ``TagFamilies/presentation(for:)``) —
/// `TagIdentifier`, `TagDumper`, `NDEFReader` and `TagOperations` the verbs, the exports and imports the
/// files, the dump summary the presentation — and never switch on the card type themselves.
///
/// Every requirement of the parts has a default (a verb answers "not supported" through
/// ``TagVerb/unsupported(for:hasNDEFMapping:)``, a file part has no rows), so a family implements only
/// what it has. A new family is one folder under `Families/` with a type conforming to this protocol, and
/// one row in ``TagFamilies/all`` (docs/architecture.md, "Adding a family").
public protocol TagFamily: TagFamilyVerbs, TagFamilyFiles, TagFamilyPresentation {
    /// The family's name in docs and messages ("NFC Forum Type 2").
    var name: String { get }

    /// True when cards of `type` belong to this family (the first row of the table that claims a type
    /// owns it).
    func claims(_ type: CardType) -> Bool

    /// The ISO/IEC 14443-A ATQA/SAK rules that give this family's card types before any command
    /// (``CardClassifier/rules`` assembles them, first match wins). Default: none.
    var classifierRules: [CardClassifier.Rule] { get }
}

extension TagFamily {
    public var classifierRules: [CardClassifier.Rule] { [] }
}
