import NFCCore

/// The `write_blocks` request (docs/mqtt.md, "write_blocks"): raw MIFARE Classic blocks written with
/// one known key.
///
/// ```json
/// {"id": "w1", "uid": "DEADBEEF", "key": "FFFFFFFFFFFF", "key_type": "A",
///  "blocks": [{"block": 4, "data_hex": "00112233445566778899AABBCCDDEEFF"}]}
/// ```
///
/// Strict, like every request: `blocks` is a non-empty array of objects with exactly `block` (an
/// integer 0–255) and `data_hex` (16 bytes of hex); `key` is 6 bytes of hex; `key_type` is `"A"`
/// (the default) or `"B"`; `allow_trailer` a boolean (default false), and with it `uid` is required
/// (a trailer write can lock a sector for good, so it names the card, as `lock` does). NFCCore's
/// ``ClassicBlockWriter/validate(_:allowTrailer:layout:)`` then refuses block 0, a block given twice, a
/// trailer without `allow_trailer` and a trailer with inconsistent access bits — all before the request
/// is queued, as `invalid_request` naming the field.
package enum WriteBlocksRequest {
    /// The fields `write_blocks` takes besides the common ones.
    static let fields: Set<String> = ["blocks", "key", "key_type", "allow_trailer"]
    /// Most blocks in one request (a 4K has 256).
    static let maximumBlocks = 256

    /// The action of a `write_blocks` payload.
    package static func action(_ object: JSONFields, uid: [UInt8]?) throws(CommandError) -> CommandAction {
        guard object.has("blocks") else { throw .invalid("blocks", "required: [{\"block\": 4, \"data_hex\": \"…\"}]") }
        guard let items = object.objects("blocks") else { throw .invalid("blocks", "must be an array of {block, data_hex} objects") }
        guard !items.isEmpty else { throw .invalid("blocks", "must hold at least one block") }
        guard items.count <= maximumBlocks else { throw .invalid("blocks", "at most \(maximumBlocks) blocks, got \(items.count)") }
        var blocks: [ClassicBlockData] = []
        for (index, item) in items.enumerated() {
            blocks.append(try block(item, field: "blocks[\(index)]"))
        }
        guard object.has("key") else { throw .invalid("key", "required: the 6-byte key of the sectors, in hex") }
        let key = try self.key(object)
        let keyType = object.has("key_type") ? try self.keyType(object) : .a
        var allowTrailer = false
        if object.has("allow_trailer") {
            guard let flag = object.bool("allow_trailer") else { throw .invalid("allow_trailer", "must be true or false") }
            allowTrailer = flag
        }
        if allowTrailer, uid == nil {
            throw .invalid("uid", "required with allow_trailer: a trailer write can block a sector for good, so name the card")
        }
        do {
            try ClassicBlockWriter.validate(blocks, allowTrailer: allowTrailer)
        } catch {
            throw .invalid("blocks", error.message)
        }
        return .writeBlocks(blocks: blocks, key: key, keyType: keyType, allowTrailer: allowTrailer)
    }

    /// One `{block, data_hex}` object.
    static func block(_ value: JSONFields?, field: String) throws(CommandError) -> ClassicBlockData {
        guard let object = value else { throw .invalid(field, "must be an object {block, data_hex}") }
        if let unknown = object.names.first(where: { $0 != "block" && $0 != "data_hex" }) {
            throw .invalid("\(field).\(unknown)", "unknown field (accepted: block, data_hex)")
        }
        guard let number = object.integer("block"), (0...255).contains(number) else {
            throw .invalid("\(field).block", "required: a block number 0–255")
        }
        guard let text = object.string("data_hex"), let data = [UInt8](hex: text) else {
            throw .invalid("\(field).data_hex", "required: the block's 16 bytes in hex")
        }
        guard data.count == 16 else { throw .invalid("\(field).data_hex", "must be 16 bytes, got \(data.count)") }
        return ClassicBlockData(block: Int(number), data: data)
    }

    /// The 6-byte MIFARE Classic key in hex of the member `key`.
    package static func key(_ object: JSONFields) throws(CommandError) -> [UInt8] {
        guard let text = object.string("key"), let bytes = [UInt8](hex: text), bytes.count == 6 else {
            throw .invalid("key", "must be 6 bytes of hex (e.g. \"FFFFFFFFFFFF\")")
        }
        return bytes
    }

    /// The member `key_type`: `"A"` or `"B"`.
    package static func keyType(_ object: JSONFields) throws(CommandError) -> ClassicKeyType {
        guard let text = object.string("key_type"), let type = ClassicKeyType(rawValue: text) else {
            throw .invalid("key_type", "must be \"A\" or \"B\"")
        }
        return type
    }
}
