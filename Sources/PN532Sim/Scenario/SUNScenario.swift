
/// A scenario's `sun:` mapping (type `ntag424_sun`, docs/simulator.md "NTAG 424 DNA with SUN"): the URL
/// template with its placeholders, the keys, the counter. The simulator lays the mirrors out itself:
/// each placeholder's position in the NDEF file becomes the SDM offset the tag answers in
/// GetFileSettings and fills on every read.
public struct SUNSpec: Sendable, Equatable {
    /// The URL with `{picc}` (encrypted PICCData, 32 characters) or `{uid}` + `{ctr}` (plain mirror, 14
    /// and 6 characters), and `{mac}` (the SDMMAC, 16 characters; the MAC input starts at `{mac_input}`
    /// when given, else the MAC covers nothing before it, as AN12196's page 12 example).
    public var url: String
    public var metaReadKey: [UInt8]?
    public var fileReadKey: [UInt8]
    public var counter: Int
    public var frozen: Bool

    static let keys: Set<String> = ["url", "meta_read_key", "file_read_key", "counter", "frozen"]
    static let zeroKey = [UInt8](repeating: 0, count: 16)

    /// Reads `sun:`. Keys default to 16 zero bytes (the factory keys); `meta_read_key: none` mirrors in plain.
    static func read(_ node: ScenarioNode, with reader: ScenarioNodeReader) throws(SimulatorError) -> SUNSpec {
        let fields = try reader.fields(node, allowed: keys, what: "a sun mapping")
        guard let url = fields["url"] else { throw reader.error(node, "sun needs a 'url' with {picc} (or {uid} and {ctr}) and {mac}") }
        var spec = SUNSpec(url: try reader.string(url, what: "url"), metaReadKey: zeroKey, fileReadKey: zeroKey, counter: 0, frozen: false)
        if let meta = fields["meta_read_key"] {
            spec.metaReadKey = try reader.string(meta, what: "meta_read_key") == "none" ? nil : try reader.hex(meta, what: "meta_read_key", counts: [16])
        }
        if let file = fields["file_read_key"] { spec.fileReadKey = try reader.hex(file, what: "file_read_key", counts: [16]) }
        if let counter = fields["counter"] { spec.counter = try reader.integer(counter, what: "counter", range: 0...0xFF_FFFE) }
        if let frozen = fields["frozen"] { spec.frozen = try reader.bool(frozen, what: "frozen") }
        return spec
    }

    /// The placeholders and their lengths in the file.
    static let placeholders: [(name: String, length: Int)] = [("{picc}", 32), ("{uid}", 14), ("{ctr}", 6), ("{mac_input}", 0), ("{mac}", 16)]

    /// The tag: the URL as one URI record with '0' in every placeholder, and the mirror at their places.
    func makeTag(id: String, uid: [UInt8]) throws(SimulatorError) -> VirtualSDMTag {
        var text = ""
        var at: [String: Int] = [:]  // placeholder → its character offset in the URL as written to the tag
        var rest = Substring(url)
        while let open = rest.firstIndex(of: "{") {
            text += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}"),
                  let (name, length) = Self.placeholders.first(where: { $0.name == rest[open...close] }) else {
                throw .invalidTag(id: id, reason: "sun url: unknown placeholder at '\(rest[open...].prefix(12))' ({picc}, {uid}, {ctr}, {mac_input}, {mac})")
            }
            at[name] = text.utf8.count
            text += String(repeating: "0", count: length)
            rest = rest[rest.index(after: close)...]
        }
        text += rest
        guard let mac = at["{mac}"], (at["{picc}"] != nil) == (metaReadKey != nil),
              metaReadKey != nil || (at["{uid}"] != nil && at["{ctr}"] != nil) else {
            throw .invalidTag(id: id, reason: "sun url needs {mac} and {picc} (with a meta_read_key) or {uid} and {ctr} (meta_read_key: none)")
        }
        guard let message = ScenarioNDEF.message([.uri(text)]) else {
            throw .invalidTag(id: id, reason: "sun url: the NDEF record cannot be encoded")
        }
        // The URI record ends the message, and its payload ends with the URL after the abbreviated
        // prefix: a URL character at `i` is at this offset in the file (2 bytes of NLEN first).
        let base = 2 + message.count - text.utf8.count
        func offset(_ name: String) -> Int { base + (at[name] ?? 0) }
        let mirror = VirtualSDMTag.Mirror(
            metaReadKey: metaReadKey, fileReadKey: fileReadKey, piccOffset: offset("{picc}"), uidOffset: offset("{uid}"),
            counterOffset: offset("{ctr}"), macInputOffset: at["{mac_input}"].map { base + $0 } ?? base + mac, macOffset: base + mac)
        do {
            return try VirtualSDMTag(uid: uid, ndef: message, mirror: mirror, counter: counter, frozen: frozen)
        } catch {
            throw .invalidTag(id: id, reason: error.message)
        }
    }
}
