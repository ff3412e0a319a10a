import NFCCore

/// Which of the tags in the field a request acts on: the one its `uid` names, or — without a `uid`
/// — the only one. With several tags and no `uid` it refuses rather than guess: the retained `tag`
/// shows the latest arrival, the reader's list another order, and a command must not act on a tag
/// its sender did not mean.
enum TagChoice {
    /// The tag of `tags` (the field, oldest arrival first) that a request naming `uid` (nil: none)
    /// acts on. Throws `no_tag` when `tags` is empty, `tag_mismatch` when none has that UID, and
    /// `several_tags` when there are several and the request names none.
    static func pick(from tags: [PresentTag], uid: [UInt8]?) throws(CommandError) -> PresentTag {
        guard let first = tags.first else { throw CommandError(.noTag, "no tag in the field") }
        let uids = tags.map(\.uid.hexString).joined(separator: ", ")
        if let uid {
            if let named = tags.first(where: { $0.uid == uid }) { return named }
            let field =
                tags.count == 1 ? "the tag in the field (UID \(uids)) is not" : "none of the \(tags.count) tags in the field (UIDs \(uids)) is"
            throw CommandError(.tagMismatch, "\(field) the one the request names (UID \(uid.hexString)): nothing was done")
        }
        guard tags.count == 1 else {
            throw CommandError(
                .severalTags, "\(tags.count) tags are in the field (UIDs \(uids)): name the one to act on with `uid`; nothing was done")
        }
        return first
    }
}
