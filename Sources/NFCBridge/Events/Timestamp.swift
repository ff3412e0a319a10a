import FoundationEssentials
import Glibc

/// UTC ISO-8601 timestamps with milliseconds (`2026-01-01T00:00:00.000Z`), the `ts` and `since`
/// fields of every payload.
package enum Timestamp {
    /// Whole milliseconds since 1970 (rounded down), the time base of `ts`, event ids and the spool.
    package static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Formats `date`.
    package static func string(_ date: Date) -> String {
        let milliseconds = Self.milliseconds(date)
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let fraction = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" (String(format:) is not in FoundationEssentials).
        let date = "\(digits(Int(parts.tm_year) + 1900, 4))-\(digits(Int(parts.tm_mon) + 1, 2))-\(digits(Int(parts.tm_mday), 2))"
        let time = "\(digits(Int(parts.tm_hour), 2)):\(digits(Int(parts.tm_min), 2)):\(digits(Int(parts.tm_sec), 2))"
        return date + "T" + time + "." + digits(fraction, 3) + "Z"
    }

    /// `value` zero-padded to `width` digits (printf's `%0Nd`, a sign first when negative).
    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value.magnitude)
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
