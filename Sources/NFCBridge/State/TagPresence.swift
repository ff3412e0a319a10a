import Foundation
import NFCCore

/// The retained `<base>/<id>/tag` state: is a tag on the reader right now.
public struct TagPresence: Sendable, Equatable {
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

    /// `{"present":false}`, or the most recent arrival: `{"present":true,"uid":…,"cardType":…,"since":…}`
    /// (+ `"count"` when several tags are in the field).
    public var json: JSONValue {
        guard let latest = tags.last else { return ["present": false] }
        var object: [String: JSONValue] = [
            "present": true,
            "uid": .string(latest.uid.hexString),
            "cardType": .string(latest.cardType),
            "since": .string(Timestamp.string(latest.since)),
        ]
        if tags.count > 1 { object["count"] = .int(Int64(tags.count)) }
        return .object(object)
    }
}
