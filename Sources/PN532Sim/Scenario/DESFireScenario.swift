import enum NFCCore.NFCError

/// The DESFire part of a scenario tag (`type: desfire_ev1 | desfire_ev2 | desfire_ev3 | desfire_light |
/// ntag424_dna`, docs/simulator.md "DESFire"): the `applications:` list, or the demonstration layout.
enum DESFireScenario {
    typealias V = VirtualDESFireTag

    /// The card `spec` describes. `ndef` becomes the card's NFC Forum Type 4 application. An NTAG 424
    /// DNA always has one (it is an NFC Forum Type 4 tag, NT4H2421Gx §8.2): empty, in a 256-byte NDEF
    /// file (file 02h), without `ndef`. Its contents are the Type 4 application's own, not those of the
    /// DESFire file 02h the walk reads (the simulator keeps them apart).
    static func make(_ spec: TagSpec, model: V.Model, uid: [UInt8]) throws -> V {
        let message = spec.ndef ?? (model == .ntag424 ? [] : nil)
        let ndef = try message.map { message in
            try VirtualType4Tag(uid: uid, ndef: message, capacity: spec.capacity ?? (model == .ntag424 ? 256 : 2048),
                                writable: spec.writable)
        }
        return try V(uid: uid, model: model, applications: spec.applications ?? demoApplications(model: model),
                     directoryRequiresAuthentication: spec.directoryProtected, ndefApplication: ndef)
    }

    /// The layout a DESFire tag gets without `applications:`. Application 010000 (card order) has a file
    /// of every type readable without a key — plain, MACed and enciphered communication, 100 bytes so
    /// ReadData chains past 59 bytes, an empty record file — and a key-protected file of every type.
    /// 020000 lists its files only after authentication. 030000 has a "never" file and a cyclic record
    /// file of 100 bytes. A DESFire Light gets its fixed file set instead (``lightApplication``), an
    /// NTAG 424 DNA its factory one (``ntag424FactoryApplication``).
    static func demoApplications(model: V.Model) -> [V.Application] {
        let free = V.free
        if model == .ntag424 { return [ntag424FactoryApplication] }
        let first = V.Application(aid: [0x01, 0x00, 0x00], files: [
            V.File(id: 0x00, read: free, contents: .standard((0..<100).map { UInt8($0) })),
            V.File(id: 0x01, communication: 0x01, read: free, contents: .backup((0..<32).map { UInt8(0xA0 &+ $0) })),
            V.File(id: 0x02, communication: 0x03, read: free,
                   contents: .value(1234, lower: 0, upper: 10000, limitedCredit: 5, limitedCreditEnabled: true)),
            V.File(id: 0x03, read: 0x01, readWrite: free,
                   contents: .linear(recordSize: 16, maxRecords: 10, records: (0..<3).map { r in (0..<16).map { UInt8(r * 16 + $0) } })),
            V.File(id: 0x04, read: free, contents: .cyclic(recordSize: 8, maxRecords: 4, records: [])),
            V.File(id: 0x05, read: 0x01, readWrite: 0x01, contents: .standard([1, 2, 3])),
            V.File(id: 0x06, communication: 0x01, read: 0x02, readWrite: 0x02, contents: .value(-7, lower: -100, upper: 100)),
            V.File(id: 0x07, read: 0x03, readWrite: 0x03, contents: .cyclic(recordSize: 4, maxRecords: 3, records: [[1, 2, 3, 4]])),
            V.File(id: 0x08, communication: 0x03, read: 0x00, readWrite: 0x00, contents: .backup([9, 9])),
            V.File(id: 0x09, read: 0x01, readWrite: 0x01, contents: .linear(recordSize: 2, maxRecords: 2, records: [[5, 5]])),
        ])
        guard model != .light else { return [lightApplication] }
        return [
            first,
            V.Application(aid: [0x02, 0x00, 0x00], listRequiresAuthentication: true, files: [
                V.File(id: 0x00, read: free, contents: .standard([0xFF])),
            ]),
            V.Application(aid: [0x03, 0x00, 0x00], files: [
                V.File(id: 0x01, read: V.never, write: V.never, readWrite: V.never, change: V.never, contents: .standard([0x42])),
                V.File(id: 0x02, read: free,
                       contents: .cyclic(recordSize: 20, maxRecords: 6, records: (0..<5).map { [UInt8](repeating: UInt8(0x10 + $0), count: 20) })),
            ]),
        ]
    }

    /// DESFire Light's fixed file set (MF2DL(H)x0 §8.2; Proxmark3 doc/desfire.md "DESFire Light"):
    /// 00h standard 256 bytes, 01h cyclic record file of 16-byte records (5 records; 3 written here),
    /// 03h value, 04h standard 256 bytes, 1Fh standard 32 bytes (the FCI). The transaction MAC file 0Fh
    /// is not modelled (the simulator has no TMAC file type). Access rights are the demonstration's, not
    /// the factory's (which this was not checked against): 04h needs key 1, the rest read free. ISO SELECT
    /// by the factory DF name (``VirtualDESFireTag/lightDFName``); the AID is the simulator's handle.
    static var lightApplication: V.Application {
        V.Application(aid: [0x01, 0x00, 0x00], files: [
            V.File(id: 0x00, read: V.free, contents: .standard((0..<256).map { UInt8(truncatingIfNeeded: $0) })),
            V.File(id: 0x01, read: V.free,
                   contents: .cyclic(recordSize: 16, maxRecords: 5, records: (0..<3).map { r in [UInt8](repeating: UInt8(0xC0 + r), count: 16) })),
            V.File(id: 0x03, read: V.free, contents: .value(100, lower: 0, upper: 1000)),
            V.File(id: 0x04, read: 0x01, readWrite: 0x01, contents: .standard([UInt8](repeating: 0x44, count: 256))),
            V.File(id: 0x1F, read: V.free, contents: .standard([0x6F, 0x1E] + [UInt8](repeating: 0x00, count: 30))),
        ])
    }

    /// NTAG 424 DNA as delivered (NT4H2421Gx §8.2, file management): its one application holds
    /// 01h the CC (32 bytes, read free, the rest key 0), 02h the NDEF file (256 bytes, read, write and
    /// read&write free, change key 0) and 03h the proprietary file (128 bytes, fully enciphered, read
    /// key 2, write and read&write key 3). The CC bytes are the factory ones as a tag answers them
    /// (NDEF file E104h 256 bytes, proprietary file E105h 128 bytes); the AID is the simulator's own
    /// handle (the chip has none, it answers only ISO SELECT of D2760000850101).
    static var ntag424FactoryApplication: V.Application {
        let cc: [UInt8] = [0x00, 0x17, 0x20, 0x01, 0x00, 0x00, 0xFF, 0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00, 0x00,
                           0x05, 0x06, 0xE1, 0x05, 0x00, 0x80, 0x82, 0x83] + [UInt8](repeating: 0, count: 9)
        return V.Application(aid: [0x01, 0x00, 0x00], files: [
            V.File(id: 0x01, read: V.free, write: 0x00, readWrite: 0x00, change: 0x00, contents: .standard(cc)),
            V.File(id: 0x02, read: V.free, write: V.free, readWrite: V.free, change: 0x00,
                   contents: .standard([UInt8](repeating: 0, count: 256))),
            V.File(id: 0x03, communication: 0x03, read: 0x02, write: 0x03, readWrite: 0x03, change: 0x00,
                   contents: .standard([UInt8](repeating: 0, count: 128))),
        ], dfName: V.ntag424DFName)
    }

    /// `applications:` — a list of `{aid, list_protected, df_name, keys, files}`; `keys` a list of
    /// `{number, aes | 2k3des | 3k3des}` (the application's keys, 16, 16 or 24 bytes hex, one cipher per
    /// application; others are all zero).
    static func readApplications(_ node: ScenarioNode, with reader: ScenarioNodeReader) throws(SimulatorError) -> [V.Application] {
        var apps: [V.Application] = []
        for item in try reader.list(node, what: "applications") {
            let fields = try reader.fields(item, allowed: ["aid", "list_protected", "df_name", "keys", "files"], what: "an application")
            guard let aid = fields["aid"] else { throw reader.error(item, "an application needs an 'aid' (3 bytes, card order)") }
            var app = V.Application(aid: try reader.hex(aid, what: "aid", counts: [3]), files: [])
            if let flag = fields["list_protected"] { app.listRequiresAuthentication = try reader.bool(flag, what: "list_protected") }
            if let name = fields["df_name"] { app.dfName = try reader.hex(name, what: "df_name") }
            if let keys = fields["keys"] {
                var types: [V.KeyType] = []
                for key in try reader.list(keys, what: "keys") {
                    let entry = try reader.fields(key, allowed: Set(["number"] + keyCiphers.map(\.name)), what: "a key")
                    let given = keyCiphers.filter { entry[$0.name] != nil }
                    guard let number = entry["number"], given.count == 1, let cipher = given.first, let value = entry[cipher.name] else {
                        throw reader.error(key, "a key needs 'number' and one of 'aes', '2k3des', '3k3des'")
                    }
                    app.keys[UInt8(try reader.integer(number, what: "number", range: 0...13))] =
                        try reader.hex(value, what: cipher.name, counts: [cipher.type.keyLength])
                    types.append(cipher.type)
                }
                // One cipher per application (EV1 datasheet §9.5.1, CreateApplication's key settings 2).
                guard Set(types.map { "\($0)" }).count <= 1 else { throw reader.error(keys, "the keys of an application share one cipher") }
                app.keyType = types.first ?? .aes
            }
            if let files = fields["files"] {
                for file in try reader.list(files, what: "files") { app.files.append(try readFile(file, with: reader)) }
            }
            apps.append(app)
        }
        return apps
    }

    /// The key fields of a scenario's `keys`: the cipher each names.
    static let keyCiphers: [(name: String, type: V.KeyType)] = [("aes", .aes), ("2k3des", .tdes2k), ("3k3des", .tdes3k)]

    static let fileKeys: Set<String> = [
        "id", "type", "comm", "read", "write", "read_write", "change", "data", "value", "lower", "upper",
        "limited_credit", "limited_credit_enabled", "record_size", "max_records", "records", "corrupt_mac",
    ]

    /// One file: `id`, `type` (standard, backup, value, linear_record, cyclic_record), `comm` (plain,
    /// mac, full), access rights `read` / `write` / `read_write` / `change` (`free`, `never` or a key
    /// number 0–13; default key 0), and the type's contents.
    static func readFile(_ node: ScenarioNode, with reader: ScenarioNodeReader) throws(SimulatorError) -> V.File {
        let fields = try reader.fields(node, allowed: fileKeys, what: "a DESFire file")
        guard let id = fields["id"], let type = fields["type"] else { throw reader.error(node, "a DESFire file needs 'id' and 'type'") }
        func right(_ key: String) throws(SimulatorError) -> UInt8 {
            guard let value = fields[key] else { return 0x00 }
            switch try reader.string(value, what: key) {
            case "free": return V.free
            case "never": return V.never
            default: return UInt8(try reader.integer(value, what: key, range: 0...13))
            }
        }
        func number(_ key: String, _ fallback: Int) throws(SimulatorError) -> Int {
            try fields[key].map { value throws(SimulatorError) in try reader.integer(value, what: key, range: Int(Int32.min)...Int(Int32.max)) } ?? fallback
        }
        let communication: UInt8
        switch try fields["comm"].map({ value throws(SimulatorError) in try reader.string(value, what: "comm") }) ?? "plain" {
        case "plain": communication = 0x00
        case "mac": communication = 0x01
        case "full": communication = 0x03
        case let other: throw reader.error(node, "comm must be plain, mac or full, not '\(other)'")
        }
        let data = try fields["data"].map { value throws(SimulatorError) in try reader.hex(value, what: "data") } ?? []
        var records: [[UInt8]] = []
        if let value = fields["records"] {
            for record in try reader.list(value, what: "records") { records.append(try reader.hex(record, what: "a record")) }
        }
        let contents: V.Contents
        switch try reader.string(type, what: "type") {
        case "standard": contents = .standard(data)
        case "backup": contents = .backup(data)
        case "value":
            contents = .value(Int32(try number("value", 0)), lower: Int32(try number("lower", 0)), upper: Int32(try number("upper", 1000)),
                              limitedCredit: Int32(try number("limited_credit", 0)),
                              limitedCreditEnabled: try fields["limited_credit_enabled"].map { value throws(SimulatorError) in
                                  try reader.bool(value, what: "limited_credit_enabled") } ?? false)
        case "linear_record", "cyclic_record":
            let size = try number("record_size", records.first?.count ?? 16)
            let max = try number("max_records", Swift.max(records.count, 1))
            contents = try reader.string(type, what: "type") == "linear_record"
                ? .linear(recordSize: size, maxRecords: max, records: records)
                : .cyclic(recordSize: size, maxRecords: max, records: records)
        case let other:
            throw reader.error(type, "unknown DESFire file type '\(other)' (standard, backup, value, linear_record, cyclic_record)")
        }
        return V.File(id: UInt8(try reader.integer(id, what: "id", range: 0...31)), communication: communication,
                      read: try right("read"), write: try right("write"), readWrite: try right("read_write"),
                      change: try right("change"), contents: contents,
                      corruptMAC: try fields["corrupt_mac"].map { value throws(SimulatorError) in try reader.bool(value, what: "corrupt_mac") } ?? false)
    }
}
