/// The one rule of the fixed-offset images (libnfc MFD, Proxmark3 MFU binary, `hf mf` dump, `.eml` and
/// JSON): they have no mark for a unit not read and would hold zeros there, so an image is written
/// whole when every unit is there; else, with `partial`, cut before the first unit not read (nothing is
/// written for units not read, never zeros); else refused with ``NFCError/partialDump(_:)``.
///
/// The family gives the words (Type 2 pages, MIFARE Classic blocks kept in whole sectors), where it
/// cuts and what zeros written back would do; the message is built here, the same for every family.
struct FixedImageCut {
    /// What an image holds a number of: `"page"`, `"block"`.
    let unit: String
    /// What a partial image keeps, counted from 0: `"page"` (Type 2), `"sector"` (Classic).
    let part: String
    /// What part 0 is when the cut leaves nothing: `"missing"`, `"incomplete"`.
    let emptyPart: String
    /// What the zeros would do written back to a tag (said in parentheses).
    let risk: String

    /// Where the first unit not read cuts the image: the units written before it (0: nothing to
    /// write), the parts they are (`part`s 0 ..< `parts`), and what the message adds after the unit's
    /// number (Classic: `" (sector 3)"`).
    struct Cut {
        var units: Int
        var parts: Int
        var location: String = ""
    }

    /// `total` when `firstUnread` is nil; else, with `partial`, the cut's units when there are any;
    /// else ``NFCError/partialDump(_:)`` naming the unit, `format` (the file, "an MFD file") and the way out.
    func unitCount(total: Int, firstUnread: Int?, partial: Bool, format: String, cut: (Int) -> Cut) throws -> Int {
        guard let missing = firstUnread else { return total }
        let cut = cut(missing)
        guard partial, cut.units > 0 else {
            throw NFCError.partialDump(
                "\(unit) \(missing)\(cut.location) of \(total) was not read; \(format) has no mark for unread \(unit)s "
                    + "and would hold zeros there (\(risk))"
                    + (cut.units > 0 ? ". Export only \(part)s 0–\(cut.parts - 1) (partial), or use JSON or Flipper .nfc"
                        : ", and \(part) 0 is \(emptyPart): nothing to write. Use JSON or Flipper .nfc"))
        }
        return cut.units
    }
}
