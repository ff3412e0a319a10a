/// The presentation part of a ``TagFamily``: how a dump of the family is worded for people. The dump
/// summary asks for this part only (``TagFamilies/presentation(for:)``).
public protocol TagFamilyPresentation: Sendable {
    /// The sentence ``DumpSummary/userSummary`` opens with for a dump holding `storage`; nil for the
    /// generic sentence.
    func userSummary(for dump: TagDump, storage: String) -> String?

    /// The capabilities a dump that stores none is taken to have; nil for the generic rule.
    func inferredCapabilities(of dump: TagDump) -> [CardCapability]?
}

extension TagFamilyPresentation {
    public func userSummary(for dump: TagDump, storage: String) -> String? { nil }
    public func inferredCapabilities(of dump: TagDump) -> [CardCapability]? { nil }
}
