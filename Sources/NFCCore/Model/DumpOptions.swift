/// What one dump reads (``TagDumper/dump(info:transport:options:)``): the family-neutral settings as
/// typed properties, and the settings families declare beside their dump in ``families``, so the dumper
/// does not grow a parameter per family.
public struct DumpOptions: Sendable {
    /// Where the dump reports how far it got and what it read (nil: nowhere).
    public var progress: DumpProgress?

    /// What the output of this dump holds; families leave unread what it cannot hold.
    public var target: DumpTarget

    /// The families' own settings (Classic's keys), each declared in its family's folder. A caller
    /// builds them once — the agent from its configuration — and hands them on without naming a family.
    public var families: FamilyDumpOptions

    /// Options for one dump: by default no progress record, a dump of everything, every family's defaults.
    public init(progress: DumpProgress? = nil, target: DumpTarget = .everything,
                families: FamilyDumpOptions = FamilyDumpOptions()) {
        self.progress = progress
        self.target = target
        self.families = families
    }
}

/// A setting one family's dump reads (MIFARE Classic's key dictionary), declared in the family's folder.
/// The setting's type is its key in ``FamilyDumpOptions``: a family reads `families[Setting.self]` and
/// gets a `Setting`, or ``standard`` when the caller gave none.
public protocol FamilyDumpOption: Sendable, Hashable {
    /// The setting a dump uses when the caller gave none.
    static var standard: Self { get }
}

/// The families' dump settings (``FamilyDumpOption``), at most one of each type. Built once by a caller
/// that knows the families it configures (the agent's `dump.keys_file`), then passed through
/// ``DumpOptions/families`` by code that names no family.
public struct FamilyDumpOptions: Sendable, Hashable {
    /// The settings by their type. Only ``subscript(_:)``'s setter and ``init(_:)`` write, each under the
    /// value's own type, so the read of a type finds a value of that type.
    private var settings: [ObjectIdentifier: any FamilyDumpOption] = [:]

    /// Every family's defaults.
    public init() {}

    /// The given settings (a later one of the same type replaces an earlier one).
    public init(_ settings: any FamilyDumpOption...) {
        for setting in settings { insert(setting) }
    }

    /// The setting of type `Setting`, or its ``FamilyDumpOption/standard`` when none was given.
    public subscript<Setting: FamilyDumpOption>(_ type: Setting.Type) -> Setting {
        get { settings[ObjectIdentifier(type)] as? Setting ?? .standard }
        set { settings[ObjectIdentifier(type)] = newValue }
    }

    /// The settings as hashable values: two sets are equal when they hold equal settings of the same types.
    private var hashable: [ObjectIdentifier: AnyHashable] { settings.mapValues { AnyHashable($0) } }

    public static func == (lhs: FamilyDumpOptions, rhs: FamilyDumpOptions) -> Bool { lhs.hashable == rhs.hashable }

    public func hash(into hasher: inout Hasher) { hasher.combine(hashable) }

    private mutating func insert<Setting: FamilyDumpOption>(_ setting: Setting) {
        self[Setting.self] = setting
    }
}
