/// What the output of a dump holds, so a family reads only that (``DumpOptions/target``): a file
/// format that cannot hold a part of the tag does not pay the commands that read it (issue 13: no
/// READ_CNT or CHECK_TEARING_EVENT for a libnfc MFD file). The exports are the same as those of a dump
/// of everything; only what the output could not show is left unread.
public enum DumpTarget: Sendable, Hashable {
    /// Everything the tag gives without authentication: the JSON export, the agent's record (the
    /// default).
    case everything
    /// One file format: the family reads the parts that format writes (docs/formats.md, "What each
    /// format keeps"); ``ExportFormat/dumpTarget`` is the format table's column.
    case file(ExportFormat)
    /// The memory alone (pages, blocks, files, the NDEF message): a raw binary image or the hex
    /// listing.
    case memory
}
