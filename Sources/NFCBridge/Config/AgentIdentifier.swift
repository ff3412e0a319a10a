import FoundationEssentials
import Glibc

/// Agent ids: the `<id>` of every topic and the Home Assistant device identifier.
package enum AgentIdentifier {
    /// True when `id` is usable as is: 1–64 characters of `[a-z0-9_-]`.
    package static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy(isAllowed)
    }

    /// Turns a host name into an id: lower-cased, the domain dropped, every other character
    /// replaced by `-`, at most 64 characters; `nfcbridge` when nothing is left.
    package static func sanitize(hostName: String) -> String {
        let shortName = hostName.split(separator: ".").first.map(String.init) ?? ""
        var id = String(decoding: shortName.lowercased().utf8.map { isAllowed($0) ? $0 : UInt8(ascii: "-") }, as: UTF8.self)
        id = String(id.prefix(64))
        while id.hasPrefix("-") { id.removeFirst() }
        while id.hasSuffix("-") { id.removeLast() }
        return id.isEmpty ? "nfcbridge" : id
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"),
            UInt8(ascii: "-"):
            true
        default: false
        }
    }
}
