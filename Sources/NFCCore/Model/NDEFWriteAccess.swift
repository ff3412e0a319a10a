/// The typed dump data of a family whose only family-specific fact is whether its NDEF may be written
/// (Type 4: the CC's NDEF file write access, NFC Forum T4T §5.1.2.1, 00h = granted; FeliCa / Type 3: the
/// attribute block's RWFlag, T3T §7.1, 01h = read-write). Each such family adds its constructor in its
/// folder (`.type4(ndefWritable:)`, `.felica(ndefWritable:)`) and reads the payload only for its own cards.
/// In the JSON export it is the additive key `ndefWritable`.
public struct NDEFWriteAccess: FamilyDumpPayload {
    /// True when the tag grants NDEF write access.
    public var ndefWritable: Bool

    /// Creates the payload.
    public init(ndefWritable: Bool) {
        self.ndefWritable = ndefWritable
    }

    /// The JSON key.
    public struct JSONKeys: Codable, Sendable {
        public var ndefWritable: Bool?
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONKeys(ndefWritable: ndefWritable).encode(to: encoder)
    }
}

extension TagDump {
    /// The NDEF write access of a Type 4 or FeliCa dump; nil when the dump holds no such payload. The view
    /// of ``family`` those families read for their own cards.
    public var ndefWriteAccess: NDEFWriteAccess? { family.payload(as: NDEFWriteAccess.self) }
}
