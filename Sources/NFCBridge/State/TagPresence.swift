import FoundationEssentials
import Glibc
import NFCCore

/// The retained `<base>/<id>/tag` state: is a tag on the reader right now.
public struct TagPresence: Sendable, Equatable, Encodable {
    /// One tag in the field.
    public struct Tag: Sendable, Equatable {
        public var uid: [UInt8]
        public var cardType: String
        public var since: Date

        /// Creates a tag entry.
        public init(uid: [UInt8], cardType: String, since: Date) {
            self.uid = uid
            self.cardType = cardType
            self.since = since
        }
    }

    /// The tags present, in arrival order.
    public var tags: [Tag] = []

    /// Creates an empty field.
    public init() {}

    enum CodingKeys: String, CodingKey { case present, uid, cardType, since, count }

    /// `{"present":false}`, or the most recent arrival: `{"present":true,"uid":…,"cardType":…,"since":…}`
    /// (+ `"count"` when several tags are in the field).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        guard let latest = tags.last else {
            try container.encode(false, forKey: .present)
            return
        }
        try container.encode(true, forKey: .present)
        try container.encode(latest.uid.hexString, forKey: .uid)
        try container.encode(latest.cardType, forKey: .cardType)
        try container.encode(Timestamp.string(latest.since), forKey: .since)
        if tags.count > 1 { try container.encode(tags.count, forKey: .count) }
    }

    /// The payload as a JSON value (tests).
    public var json: JSONValue { (try? JSONValueEncoder().encode(self)) ?? .null }
}
