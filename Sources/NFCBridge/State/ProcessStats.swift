import FoundationEssentials
import Glibc

/// Facts about this process for `health`.
package enum ProcessStats {
    /// Resident set size in bytes, from `/proc/self/statm` (second field, in pages); nil when unknown.
    package static var residentBytes: Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
