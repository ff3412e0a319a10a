/// What an encode job does: the template, the serials, the steps per tag and the policy. Given once
/// (`request/job` `start`, `nfcbridge encode`), written as the journal's first line, and read back
/// from there when the job resumes — so a resumed job writes exactly what the started one did.
package struct EncodeJobSpec: Sendable, Equatable {
    /// The job's name: 1 to 64 of `A–Z a–z 0–9 . _ -` (the journal is `<state_dir>/jobs/<id>.journal`).
    package var id: String
    /// The NDEF message per tag.
    package var template: EncodeTemplate
    /// The serials, handed out in order.
    package var serials: SerialSource
    /// What is done to each tag.
    package var steps: EncodeSteps
    /// Which tags are taken and what a failed one costs.
    package var policy: EncodePolicy

    /// Creates a spec.
    package init(id: String, template: EncodeTemplate, serials: SerialSource, steps: EncodeSteps = EncodeSteps(),
                 policy: EncodePolicy = EncodePolicy()) throws(CommandError) {
        guard Self.isValidID(id) else {
            throw .invalid("job", "'\(id)' is not a job id: 1 to 64 of A-Z a-z 0-9 . _ - (not starting with .)")
        }
        try template.check(serials)
        self.id = id
        self.template = template
        self.serials = serials
        self.steps = steps
        self.policy = policy
    }

    /// Whether `id` can name a job (and its journal file).
    static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && !id.hasPrefix(".")
            && id.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2D
            }
    }

    /// The fields of a spec in JSON.
    static let fields: Set<String> = ["job", "template", "serials", "steps", "protect", "policy"]

    /// Parses `{"job":…, "template":[…], "serials":{…}, "steps":[…], "policy":{…}}`; other members of
    /// `object` must have been taken off by the caller.
    package init(json object: [String: JSONValue]) throws(CommandError) {
        let unknown = Set(object.keys).subtracting(Self.fields)
        guard unknown.isEmpty else { throw .invalid(unknown.sorted()[0], "unknown field") }
        guard let id = object["job"]?.stringValue else { throw .invalid("job", "the job id (a string) is required") }
        guard let template = object["template"] else { throw .invalid("template", "the records to write are required") }
        guard let serials = object["serials"] else { throw .invalid("serials", "required: {\"start\":…,\"count\":…} or {\"list\":[…]}") }
        try self.init(
            id: id, template: try EncodeTemplate(json: template), serials: try SerialSource(json: serials),
            steps: try EncodeSteps(json: object["steps"], protect: object["protect"]),
            policy: try object["policy"].map { value throws(CommandError) in try EncodePolicy(json: value) } ?? EncodePolicy())
    }

    /// As JSON (what ``init(json:)`` reads).
    package var json: JSONValue {
        var members: [String: JSONValue] = [
            "job": .string(id), "template": template.json, "serials": serials.json, "steps": steps.json,
            "policy": policy.json,
        ]
        if let protect = steps.protect { members["protect"] = protect.json }
        return .object(members)
    }
}

/// The steps per tag. `write` and `verify` are always done: the write reads every page it wrote
/// back and fails with `verify_failed` on a difference (``TagCommandExecutor``'s write). `lock`
/// (irreversible) makes the NDEF data read-only afterwards; `protect` then sets a PWD_AUTH password
/// (NTAG21x, Ultralight EV1) from the keys file and switches protection on (``EncodeProtection``).
package struct EncodeSteps: Sendable, Equatable {
    /// Lock the tag after a verified write.
    package var lock: Bool
    /// Password-protect the tag last; nil: not.
    package var protect: EncodeProtection?

    /// Creates the steps (write + verify, `lock` and `protect` when asked).
    package init(lock: Bool = false, protect: EncodeProtection? = nil) {
        self.lock = lock
        self.protect = protect
    }

    /// Parses `["write","verify"]` with `"lock"` and/or `"protect"` added; `protect` is the spec's
    /// `protect` object, required exactly when the list names the step.
    init(json: JSONValue?, protect: JSONValue?) throws(CommandError) {
        guard let json else {
            guard protect == nil else { throw .invalid("protect", "list \"protect\" in steps too") }
            self.init()
            return
        }
        guard let list = json.arrayValue?.compactMap(\.stringValue), list.count == json.arrayValue?.count else {
            throw .invalid("steps", "a list of step names: write, verify, lock, protect")
        }
        let names = Set(list)
        guard names.count == list.count, names.isSubset(of: ["write", "verify", "lock", "protect"]) else {
            throw .invalid("steps", "write, verify, lock and protect, each at most once")
        }
        guard names.isSuperset(of: ["write", "verify"]) else {
            throw .invalid("steps", "write and verify are always done (the write reads its pages back): list both")
        }
        switch (names.contains("protect"), protect) {
        case (true, let value?): self.init(lock: names.contains("lock"), protect: try EncodeProtection(json: value))
        case (true, nil): throw .invalid("protect", "the step protect needs {\"key\":…, \"auth0\":…}")
        case (false, nil): self.init(lock: names.contains("lock"))
        case (false, _?): throw .invalid("protect", "list \"protect\" in steps too")
        }
    }

    /// The step names.
    var names: [String] { ["write", "verify"] + (lock ? ["lock"] : []) + (protect == nil ? [] : ["protect"]) }

    var json: JSONValue { .array(names.map(JSONValue.string)) }
}

/// The `protect` step: which password of the keys file (`auth.keys_file`, kind `ntag_password`: its
/// `password` and `pack`) is set, from which page on (AUTH0), and whether reads need it too (PROT).
/// The job, its journal and its events name the key, never the password.
package struct EncodeProtection: Sendable, Equatable {
    /// The key's name in the keys file.
    package var key: String
    /// The first protected page.
    package var auth0: Int
    /// Reads need the password too (PROT), not only writes.
    package var protectsReads: Bool

    /// Creates the step.
    package init(key: String, auth0: Int, protectsReads: Bool = false) {
        self.key = key
        self.auth0 = auth0
        self.protectsReads = protectsReads
    }

    /// Parses `{"key":"station","auth0":4,"protect_reads":false}`.
    init(json: JSONValue) throws(CommandError) {
        guard let object = json.objectValue else { throw .invalid("protect", "an object: {\"key\":…, \"auth0\":…}") }
        let unknown = Set(object.keys).subtracting(["key", "auth0", "protect_reads"])
        guard unknown.isEmpty else { throw .invalid("protect", "unknown field \(unknown.sorted().joined(separator: ", "))") }
        guard let key = object["key"]?.stringValue, (1...64).contains(key.utf8.count) else {
            throw .invalid("protect.key", "the name of an ntag_password key in auth.keys_file (1 to 64 bytes)")
        }
        guard let auth0 = object["auth0"]?.intValue, (3...255).contains(auth0) else {
            throw .invalid("protect.auth0", "the first protected page, 3 to 255 (4: every user page)")
        }
        var protectsReads = false
        if let value = object["protect_reads"] {
            guard let flag = value.boolValue else { throw .invalid("protect.protect_reads", "true or false") }
            protectsReads = flag
        }
        self.init(key: key, auth0: Int(auth0), protectsReads: protectsReads)
    }

    var json: JSONValue {
        .object(["key": .string(key), "auth0": .int(Int64(auth0)), "protect_reads": .bool(protectsReads)])
    }
}

/// Which tags a job takes and what happens when one fails.
package struct EncodePolicy: Sendable, Equatable {
    /// Which tags are encoded.
    package enum Tags: String, Sendable, Equatable, CaseIterable {
        /// Only tags whose NDEF message is empty (or that hold none): others are `refused` (not_blank).
        case blank
        /// Any tag; its message is replaced.
        case overwrite
    }

    /// What a serial whose write or verify failed on a tag still in the field costs.
    package enum OnFailure: String, Sendable, Equatable, CaseIterable {
        /// Write the same serial to the same tag again, up to ``EncodePolicy/retries`` times, then spend it.
        case retry
        /// Mark the serial spent at once (never issued again) and the tag failed.
        case spend
    }

    /// Which tags are encoded (default ``Tags/blank``).
    package var tags: Tags
    /// After a failed write or verify (default ``OnFailure/retry``).
    package var onFailure: OnFailure
    /// More attempts on the same tag with ``OnFailure/retry`` (default 2).
    package var retries: Int

    /// Most retries.
    static let maximumRetries = 10

    /// Creates a policy.
    package init(tags: Tags = .blank, onFailure: OnFailure = .retry, retries: Int = 2) {
        self.tags = tags
        self.onFailure = onFailure
        self.retries = retries
    }

    /// Parses `{"tags":"blank"|"overwrite", "on_failure":"retry"|"spend", "retries":N}`.
    init(json: JSONValue) throws(CommandError) {
        self.init()
        guard let object = json.objectValue else { throw .invalid("policy", "an object") }
        let unknown = Set(object.keys).subtracting(["tags", "on_failure", "retries"])
        guard unknown.isEmpty else { throw .invalid("policy", "unknown field \(unknown.sorted().joined(separator: ", "))") }
        if let value = object["tags"] {
            guard let tags = value.stringValue.flatMap(Tags.init(rawValue:)) else { throw .invalid("policy.tags", "blank or overwrite") }
            self.tags = tags
        }
        if let value = object["on_failure"] {
            guard let onFailure = value.stringValue.flatMap(OnFailure.init(rawValue:)) else {
                throw .invalid("policy.on_failure", "retry or spend")
            }
            self.onFailure = onFailure
        }
        if let value = object["retries"] {
            guard let retries = value.intValue, (0...Int64(Self.maximumRetries)).contains(retries) else {
                throw .invalid("policy.retries", "0 to \(Self.maximumRetries)")
            }
            self.retries = Int(retries)
        }
    }

    var json: JSONValue {
        .object(["tags": .string(tags.rawValue), "on_failure": .string(onFailure.rawValue), "retries": .int(Int64(retries))])
    }
}
