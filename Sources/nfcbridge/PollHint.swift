import Glibc
import NFCCore

/// The technology the last one-shot command found a tag with, kept between runs so the next poll asks
/// for it first (issue 25: `scan --once` on a FeliCa card no longer waits for empty 106A and 106B rounds).
/// A one-line file in the user's cache directory (`$XDG_CACHE_HOME/nfcbridge/last-technology`, else
/// `~/.cache/nfcbridge/…`), a place the CLI may always write; the agent keeps its own in memory (the
/// libnfc session's last-found modulation). Only a hint: a missing, unreadable or unwritable file
/// changes nothing but the order, and is never reported. `NFCBRIDGE_POLL_HINT=off` leaves it unread
/// and unwritten (the fixed order: type A, type B, FeliCa 212, FeliCa 424).
enum PollHint {
    /// The hint file, or nil when the environment names no cache directory or turns the hint off.
    static var path: String? {
        if let setting = getenv("NFCBRIDGE_POLL_HINT").map({ String(cString: $0) }), setting == "off" { return nil }
        if let cache = getenv("XDG_CACHE_HOME").map({ String(cString: $0) }), cache.hasPrefix("/") {
            return cache + "/nfcbridge/last-technology"
        }
        guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") else { return nil }
        return home + "/.cache/nfcbridge/last-technology"
    }

    /// `modulations` with the remembered one moved to the front (unchanged without a hint).
    static func ordered(_ modulations: [Modulation]) -> [Modulation] {
        guard let last = remembered(), let index = modulations.firstIndex(of: last), index > 0 else { return modulations }
        var ordered = modulations
        ordered.insert(ordered.remove(at: index), at: 0)
        return ordered
    }

    /// The remembered technology, or nil.
    static func remembered() -> Modulation? {
        guard let path else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self)
        return Modulation(rawValue: text.trimmingWhitespaceAndNewlines())
    }

    /// Remembers `modulation` when it is not the remembered one already (a temporary file renamed
    /// over the old one, so a reader never sees half a line).
    static func remember(_ modulation: Modulation) {
        guard let path, remembered() != modulation else { return }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.endIndex)])
        if !parent.isEmpty { mkdir(parent, 0o700) }
        mkdir(directory, 0o700)
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let line = Array((modulation.rawValue + "\n").utf8)
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        if written != line.count || rename(temporary, path) != 0 { unlink(temporary) }
    }
}
