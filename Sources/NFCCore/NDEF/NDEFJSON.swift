import FoundationEssentials

/// Whole messages in JSON: `{"records":[…]}` with records in the ``NDEFRecordJSON`` form.
public enum NDEFJSON {
    /// `{"records":[…]}` for `message`: keys sorted, slashes not escaped, no trailing newline.
    public static func encode(_ message: NDEFMessage) -> String {
        let envelope = Envelope(records: message.records.map(NDEFRecordJSON.init(record:)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and integers always encode; the fallback is unreachable but keeps this total.
        guard let data = try? encoder.encode(envelope) else { return "{\"records\":[]}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The records of `{"records":[…]}`, of a bare array of records, or of one record object
    /// (raw or shorthand, see ``NDEFRecordJSON``). Bad JSON, unknown fields, wrong types and bad
    /// values throw ``NFCError/invalidArgument(_:)`` naming the field.
    public static func decodeRecords(_ data: Data) throws(NFCError) -> [NDEFRecord] {
        let items: [NDEFRecordJSON]
        do {
            items = try JSONDecoder().decode(Input.self, from: data).records
        } catch let error as NFCError {
            throw error
        } catch {
            throw NFCError.invalidArgument("not valid JSON: \(Self.describe(error))")
        }
        return try records(items)
    }

    /// ``decodeRecords(_:)`` for JSON that is already parsed: `decoder` reads a value holding
    /// `{"records":[…]}`, an array of records or one record object (a decoder over the caller's own JSON
    /// value type, so no JSON text is written to be parsed again). Errors are those of
    /// ``decodeRecords(_:)``, naming the field.
    public static func decodeRecords(from decoder: any Decoder) throws(NFCError) -> [NDEFRecord] {
        let items: [NDEFRecordJSON]
        do {
            items = try Input(from: decoder).records
        } catch let error as NFCError {
            throw error
        } catch {
            throw NFCError.invalidArgument("not valid JSON: \(Self.describe(error))")
        }
        return try records(items)
    }

    /// The records `items` describe (decoded models in the ``NDEFRecordJSON`` form); a bad value throws
    /// ``NFCError/invalidArgument(_:)`` naming the record's place, such as `records[1].uri: …`.
    public static func records(_ items: [NDEFRecordJSON]) throws(NFCError) -> [NDEFRecord] {
        var records: [NDEFRecord] = []
        for (index, item) in items.enumerated() {
            do {
                records.append(try item.makeRecord())
            } catch {
                // Field errors read "field: problem"; prefix the record's place in the input.
                let detail = error.message
                let place = detail.hasPrefix("record:") ? String(detail.dropFirst("record".count)) : ".\(detail)"
                throw NFCError.invalidArgument("records[\(index)]\(place)")
            }
        }
        return records
    }

    private struct Envelope: Encodable {
        var records: [NDEFRecordJSON]
    }

    /// `{"records":[…]}`, `[…]` or a single record object.
    private struct Input: Decodable {
        var records: [NDEFRecordJSON]

        init(from decoder: any Decoder) throws {
            if var list = try? decoder.unkeyedContainer() {
                var items: [NDEFRecordJSON] = []
                do {
                    while !list.isAtEnd { items.append(try list.decode(NDEFRecordJSON.self)) }
                } catch let NFCError.invalidArgument(detail) where detail.hasPrefix("[") {
                    // Name a bare array's items as the envelope's are: records[1].uri.
                    throw NFCError.invalidArgument("records" + detail)
                }
                records = items
                return
            }
            guard let object = try? decoder.container(keyedBy: AnyJSONKey.self) else {
                throw NFCError.invalidArgument("the JSON must be {\"records\":[…]}, an array of records or one record object")
            }
            let recordsKey = AnyJSONKey(stringValue: "records")
            if object.allKeys.map(\.stringValue) == ["records"] {
                do {
                    var list = try object.nestedUnkeyedContainer(forKey: recordsKey)
                    var items: [NDEFRecordJSON] = []
                    while !list.isAtEnd { items.append(try list.decode(NDEFRecordJSON.self)) }
                    records = items
                } catch let error as NFCError {
                    throw error
                } catch {
                    throw NFCError.invalidArgument("records: must be an array of records")
                }
            } else {
                records = [try NDEFRecordJSON(from: decoder)]
            }
        }
    }

    private static func describe(_ error: any Error) -> String {
        if case let DecodingError.dataCorrupted(context) = error {
            // The parser's own words ("Unexpected character … around line 1, column 1.") when it says more.
            if let underlying = context.underlyingError as? any CustomDebugStringConvertible { return underlying.debugDescription }
            return context.debugDescription
        }
        return "\(error)"
    }
}
