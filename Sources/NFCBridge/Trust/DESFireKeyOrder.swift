import NFCCore

/// Where each DESFire key of the keys file was given (`keys.yaml:5`, the line of its `application`),
/// by key name: what the AID-order warning names. Kept beside ``DESFireKeys`` in the families' dump
/// settings; file positions only, never a key's bytes.
package struct DESFireKeyOrigins: FamilyDumpOption {
    package static let standard = DESFireKeyOrigins()

    /// Key name → `path:line`.
    package var lines: [String: String] = [:]
}

/// The warning for a keys-file DESFire application the card does not have while it has the same three
/// bytes reversed (docs/keys.md, "Application IDs"): the keys file gives AIDs as NXP writes them
/// (`123456` for AID 123456h), so an older file written in card order (`563412`) silently points at
/// another application. One line per such key, naming the file and line, the key's name and both AIDs;
/// never the key's bytes.
package enum DESFireKeyOrderWarning {
    /// The warnings for `keys` on a card whose applications (card order, as GetApplicationIDs lists
    /// them) are `cardApplications`. A DF name (DESFire Light, NTAG 424 DNA) is never reported.
    package static func lines(keys: DESFireKeys, origins: DESFireKeyOrigins, cardApplications: [[UInt8]]) -> [String] {
        var seen: Set<String> = []
        var lines: [String] = []
        for key in keys.keys where key.application.count == 3 {
            let reversed = Array(key.application.reversed())
            guard reversed != key.application, !cardApplications.contains(key.application), cardApplications.contains(reversed)
            else { continue }
            let written = DESFireAIDNotation.written(cardOrder: key.application)
            let other = DESFireAIDNotation.written(cardOrder: reversed)
            let origin = origins.lines[key.name] ?? "the keys file"
            guard seen.insert("\(origin) \(written)").inserted else { continue }
            lines.append(
                "\(origin): DESFire key '\(key.name)' names application \(written), which this card does not have, "
                    + "but the card has \(other) (the same bytes reversed). The keys file gives AIDs as NXP writes them "
                    + "(123456 for AID 123456h); a file written in card order points at another application: "
                    + "if \(other) is meant, write application: \"\(other)\" (docs/keys.md, Application IDs)")
        }
        return lines
    }

    /// The warnings for a dump made with `families`' DESFire keys; none for other tags, or when the
    /// application directory was not listed.
    package static func lines(families: FamilyDumpOptions, dump: TagDump) -> [String] {
        let keys = families.desfireKeys
        guard !keys.keys.isEmpty, let desfire = dump.desfire, desfire.directorySkipReason == nil else { return [] }
        return lines(keys: keys, origins: families[DESFireKeyOrigins.self], cardApplications: desfire.applications.map(\.aid))
    }
}
