import Synchronization

/// The tags the simulator knows, by id — defined by the scenario file or on the control channel.
/// A tag keeps its memory while it is out of the field, like a real one in a pocket.
public final class TagCatalog: Sendable {
    private struct Entry {
        let spec: TagSpec
        let tag: any VirtualTag
    }

    private let entries = Mutex<[(id: String, entry: Entry)]>([])

    /// An empty catalog.
    public init() {}

    /// Builds the tag `spec` describes and files it under its id, replacing an earlier definition.
    @discardableResult
    public func define(_ spec: TagSpec) throws(SimulatorError) -> any VirtualTag {
        let tag = try VirtualTagFactory.make(spec)
        entries.withLock { list in
            let entry = Entry(spec: spec, tag: tag)
            if let index = list.firstIndex(where: { $0.id == spec.id }) {
                list[index] = (spec.id, entry)
            } else {
                list.append((spec.id, entry))
            }
        }
        return tag
    }

    /// The tag with `id`.
    public func tag(id: String) -> (any VirtualTag)? {
        entries.withLock { list in list.first { $0.id == id }?.entry.tag }
    }

    /// The definition of the tag with `id`.
    public func spec(id: String) -> TagSpec? {
        entries.withLock { list in list.first { $0.id == id }?.entry.spec }
    }

    /// Ids in definition order.
    public var ids: [String] { entries.withLock { $0.map(\.id) } }
}
