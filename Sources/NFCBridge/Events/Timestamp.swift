import Foundation

/// UTC ISO-8601 timestamps with milliseconds (`2026-01-01T00:00:00.000Z`), the `ts` and `since`
/// fields of every payload.
public enum Timestamp {
    /// Whole milliseconds since 1970 (rounded down), the time base of `ts`, event ids and the spool.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Formats `date`.
    public static func string(_ date: Date) -> String {
        let milliseconds = Self.milliseconds(date)
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let fraction = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), fraction)
    }
}
