
/// A tag definition from a scenario file or an inline control request (docs/simulator.md, "Tags").
public struct TagSpec: Sendable, Equatable {
    /// MIFARE Classic keys for one sector.
    public struct SectorKeys: Sendable, Equatable {
        /// Sector number.
        public var sector: Int
        /// Key A and key B (6 bytes each).
        public var keyA: [UInt8]
        public var keyB: [UInt8]
        /// Access bits (3 bytes, or 4 with the general-purpose byte); nil keeps the factory ones.
        public var accessBits: [UInt8]?

        /// Keys for `sector`.
        public init(sector: Int, keyA: [UInt8], keyB: [UInt8], accessBits: [UInt8]? = nil) {
            self.sector = sector
            self.keyA = keyA
            self.keyB = keyB
            self.accessBits = accessBits
        }
    }

    /// The tag's name in the scenario and on the control channel.
    public var id: String
    /// Which model.
    public var kind: TagKind
    /// UID (ISO 14443-A) or IDm (FeliCa); nil = derived from the id.
    public var uid: [UInt8]?
    /// The NDEF message to store.
    public var ndef: [UInt8]?
    /// Raw Type 2 memory: first page → bytes (4 per page, may span pages). Applied after `ndef`.
    public var pages: [Int: [UInt8]] = [:]
    /// Raw blocks (Classic, FeliCa: 16 bytes each; ISO 15693: the model's block size): block number →
    /// bytes. Applied after `ndef`.
    public var blocks: [Int: [UInt8]] = [:]
    /// Type 2 password (PWD, 4 bytes) and its PACK (2 bytes).
    public var password: [UInt8]?
    /// PACK answered after a good PWD_AUTH.
    public var pack: [UInt8]?
    /// Type 2 AUTH0: first page PWD_AUTH protects.
    public var auth0: UInt8?
    /// Type 2: protection covers reads too (PROT = 1).
    public var readProtected = false
    /// MIFARE Classic keys per sector.
    public var keys: [SectorKeys] = []
    /// FeliCa PMm and system code.
    public var pmm: [UInt8]?
    public var systemCode: [UInt8]?
    /// Type 4: the ATQA (2 bytes, most significant first) instead of the model's, for a card that
    /// answers another product's ATQA (0344h, a DESFire's, on an ISO-DEP card that is none).
    public var atqa: [UInt8]?
    /// Type 4 / FeliCa: NDEF write access.
    public var writable = true
    /// Type 4: NDEF file size (NLEN included).
    public var capacity: Int?
    /// DESFire: the applications; nil = the demonstration layout (``DESFireScenario/demoApplications(model:)``).
    public var applications: [VirtualDESFireTag.Application]?
    /// DESFire: GetApplicationIDs needs the PICC master key (answers 91AE).
    public var directoryProtected = false
    /// NTAG 424 DNA with SUN: the `sun:` mapping (URL template, keys, counter).
    public var sun: SUNSpec?
    /// ISO 15693: blocks locked as by LOCK BLOCK.
    public var lockedBlocks: [Int] = []
    /// Classic and Ultralight: a "magic" Gen1a clone that answers the backdoor unlock (`magic: gen1a`).
    public var gen1a = false
    /// Classic and Ultralight / NTAG: a "magic" Gen4 GTU clone that answers the Gen4 version read (`magic: gen4`).
    public var gen4 = false
    /// The originality signature the tag answers READ_SIG (Type 2: 32 bytes, 48 on Ultralight AES), Read_Sig (DESFire EV2 /
    /// EV3 / Light, NTAG 424 DNA: 56 bytes) or READ SIGNATURE (ICODE SLIX2, 32 bytes) with; nil keeps
    /// the model's made-up one.
    public var signature: [UInt8]?
    /// Where the definition started (1-based line, 0 for JSON).
    public var line = 0

    /// A definition with the essentials; set the other fields as needed.
    public init(id: String, kind: TagKind, uid: [UInt8]? = nil, ndef: [UInt8]? = nil, line: Int = 0) {
        self.id = id
        self.kind = kind
        self.uid = uid
        self.ndef = ndef
        self.line = line
    }

    static let keys: Set<String> = [
        "id", "type", "uid", "idm", "ndef", "ndef_hex", "pages", "blocks", "password", "pack", "auth0",
        "read_protected", "keys", "pmm", "system_code", "writable", "capacity", "applications", "directory_protected",
        "locked_blocks", "magic", "signature", "sun", "atqa",
    ]

    /// Reads a definition from `node` (a mapping).
    static func read(_ node: ScenarioNode, with reader: ScenarioNodeReader) throws(SimulatorError) -> TagSpec {
        let fields = try reader.fields(node, allowed: keys, what: "a tag")
        guard let idNode = fields["id"] else { throw reader.error(node, "a tag needs an 'id'") }
        let id = try reader.string(idNode, what: "id")
        guard !id.isEmpty else { throw reader.error(idNode, "id must not be empty") }
        guard let typeNode = fields["type"] else { throw reader.error(node, "tag '\(id)' needs a 'type'") }
        let typeName = try reader.string(typeNode, what: "type")
        guard let kind = TagKind(name: typeName) else {
            let known = TagKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw reader.error(typeNode, "unknown tag type '\(typeName)' (known: \(known))")
        }
        var spec = TagSpec(id: id, kind: kind, line: node.line)
        if let uid = fields["uid"] ?? fields["idm"] {
            spec.uid = try reader.hex(uid, what: "uid", counts: kind.uidLengths)
        }
        if let atqa = fields["atqa"] {
            guard case .type4 = kind.family else { throw reader.error(atqa, "atqa is given for type4 tags only") }
            spec.atqa = try reader.hex(atqa, what: "atqa", counts: [2])
        }
        if let ndef = fields["ndef"] { spec.ndef = try readNDEF(ndef, with: reader) }
        if let hex = fields["ndef_hex"] {
            guard spec.ndef == nil else { throw reader.error(hex, "give either 'ndef' or 'ndef_hex', not both") }
            spec.ndef = try reader.hex(hex, what: "ndef_hex")
        }
        if let pages = fields["pages"] { spec.pages = try readMemory(pages, unit: 4, what: "pages", with: reader) }
        if let blocks = fields["blocks"] { spec.blocks = try readMemory(blocks, unit: kind.blockUnit, what: "blocks", with: reader) }
        if let password = fields["password"] { spec.password = try reader.hex(password, what: "password", counts: [4]) }
        if let pack = fields["pack"] { spec.pack = try reader.hex(pack, what: "pack", counts: [2]) }
        if let auth0 = fields["auth0"] { spec.auth0 = UInt8(try reader.integer(auth0, what: "auth0", range: 0...255)) }
        if let flag = fields["read_protected"] { spec.readProtected = try reader.bool(flag, what: "read_protected") }
        if let keys = fields["keys"] {
            for entry in try reader.list(keys, what: "keys") { spec.keys.append(try readKeys(entry, with: reader)) }
        }
        if let pmm = fields["pmm"] { spec.pmm = try reader.hex(pmm, what: "pmm", counts: [8]) }
        if let code = fields["system_code"] { spec.systemCode = try reader.hex(code, what: "system_code", counts: [2]) }
        if let flag = fields["writable"] { spec.writable = try reader.bool(flag, what: "writable") }
        if let capacity = fields["capacity"] { spec.capacity = try reader.integer(capacity, what: "capacity", range: 5...0x7FFF) }
        if let apps = fields["applications"] { spec.applications = try DESFireScenario.readApplications(apps, with: reader) }
        if let flag = fields["directory_protected"] { spec.directoryProtected = try reader.bool(flag, what: "directory_protected") }
        if let magic = fields["magic"] {
            let kindOfMagic = try reader.string(magic, what: "magic")
            guard kindOfMagic == "gen1a" || kindOfMagic == "gen4" else { throw reader.error(magic, "magic must be 'gen1a' or 'gen4'") }
            switch kind.family {
            case .type2, .classic:
                if kindOfMagic == "gen1a" { spec.gen1a = true } else { spec.gen4 = true }
            default: throw reader.error(magic, "only MIFARE Classic and Ultralight / NTAG tags can be magic Gen1a / Gen4 cards")
            }
        }
        if let signature = fields["signature"] {
            switch kind.family {
            case let .type2(model):
                spec.signature = try reader.hex(signature, what: "signature", counts: [model.product.signatureLength])
            case .desfire(let model) where model != .ev1: spec.signature = try reader.hex(signature, what: "signature", counts: [56])
            case .iso15693(let model) where model.hasReadSignature:
                spec.signature = try reader.hex(signature, what: "signature", counts: [32])
            default:
                throw reader.error(signature, "only Type 2 tags with READ_SIG, DESFire EV2 / EV3 / Light / NTAG 424 DNA and "
                    + "ICODE SLIX2 have a signature")
            }
        }
        if let sun = fields["sun"] { spec.sun = try SUNSpec.read(sun, with: reader) }
        if let locked = fields["locked_blocks"] {
            for item in try reader.list(locked, what: "locked_blocks") {
                spec.lockedBlocks.append(try reader.integer(item, what: "a locked block", range: 0...0xFFFF))
            }
        }
        return spec
    }

    /// `ndef:` — a list of records (`uri:`, `text:` + `language:`, `mime:` + `hex:`), or one record.
    private static func readNDEF(_ node: ScenarioNode, with reader: ScenarioNodeReader) throws(SimulatorError) -> [UInt8] {
        let items: [ScenarioNode] = if case .map = node.value { [node] } else { try reader.list(node, what: "ndef") }
        var records: [ScenarioNDEF.Record] = []
        for item in items {
            let fields = try reader.fields(item, allowed: ["uri", "text", "language", "mime", "hex"], what: "an NDEF record")
            if let uri = fields["uri"] {
                records.append(.uri(try reader.string(uri, what: "uri")))
            } else if let text = fields["text"] {
                let language = try fields["language"].map { node throws(SimulatorError) in try reader.string(node, what: "language") } ?? "en"
                records.append(.text(try reader.string(text, what: "text"), language: language))
            } else if let mime = fields["mime"] {
                let payload = try fields["hex"].map { node throws(SimulatorError) in try reader.hex(node, what: "hex") } ?? []
                records.append(.mime(type: try reader.string(mime, what: "mime"), payload: payload))
            } else {
                throw reader.error(item, "an NDEF record needs 'uri', 'text' or 'mime'")
            }
        }
        guard let message = ScenarioNDEF.message(records) else {
            throw reader.error(node, "an NDEF record does not fit: a MIME type of at most 255 bytes, a language code of at most 63")
        }
        return message
    }

    /// `pages:` / `blocks:` — a mapping from the first page/block number to hex bytes.
    private static func readMemory(_ node: ScenarioNode, unit: Int, what: String, with reader: ScenarioNodeReader)
        throws(SimulatorError) -> [Int: [UInt8]]
    {
        guard case let .map(entries) = node.value else {
            throw reader.error(node, "\(what) must map numbers to hex, like `4: E1103E00`")
        }
        var memory: [Int: [UInt8]] = [:]
        for (key, value) in entries {
            let number = try reader.integer(ScenarioNode(.scalar(key), line: value.line), what: "a \(what) number", range: 0...0xFFFF)
            let bytes = try reader.hex(value, what: "\(what) \(key)")
            guard !bytes.isEmpty, bytes.count % unit == 0 else {
                throw reader.error(value, "\(what) \(key) must hold a multiple of \(unit) bytes, not \(bytes.count)")
            }
            memory[number] = bytes
        }
        return memory
    }

    /// One `keys:` entry: `sector`, `a`, `b`, optional `access`.
    private static func readKeys(_ node: ScenarioNode, with reader: ScenarioNodeReader) throws(SimulatorError) -> SectorKeys {
        let fields = try reader.fields(node, allowed: ["sector", "a", "b", "access"], what: "a keys entry")
        guard let sector = fields["sector"] else { throw reader.error(node, "a keys entry needs 'sector'") }
        let factory = VirtualClassicTag.factoryKey
        return SectorKeys(
            sector: try reader.integer(sector, what: "sector", range: 0...39),
            keyA: try fields["a"].map { node throws(SimulatorError) in try reader.hex(node, what: "key a", counts: [6]) } ?? factory,
            keyB: try fields["b"].map { node throws(SimulatorError) in try reader.hex(node, what: "key b", counts: [6]) } ?? factory,
            accessBits: try fields["access"].map { node throws(SimulatorError) in try reader.hex(node, what: "access", counts: [3, 4]) })
    }
}

extension TagKind {
    /// UID lengths the model accepts (FeliCa: the 8-byte IDm).
    var uidLengths: Set<Int> {
        switch family {
        case .type2: [7]
        case .classic: [4, 7]
        case .type4: [4, 7, 10]
        case .felica: [8]
        case .desfire, .sdm: [7]
        case .type4B: [4]  // the PUPI
        case .emrtd: [4, 7]
        case .iso15693: [8]
        }
    }

    /// Bytes per block of `blocks:` (16 for Classic and FeliCa; the model's for ISO 15693).
    var blockUnit: Int {
        if case let .iso15693(model) = family { return model.blockSize }
        return 16
    }
}
