/// The content of a Smart Poster record (well-known type `Sp`): a nested NDEF message holding one
/// URI record, optional titles (Text records, one per language), an action (`act`), the size of
/// the referenced content (`s`), its MIME type (`t`) and possibly icons or other records.
/// Source: NFC Forum Smart Poster RTD 1.0, §3.3 (records of the payload), §3.3.4–3.3.6.
public struct SmartPoster: Sendable, Hashable {
    /// The RTD type name `Sp`.
    public static let recordType: [UInt8] = [0x53, 0x70]
    static let actionType: [UInt8] = Array("act".utf8)
    static let sizeType: [UInt8] = Array("s".utf8)
    static let typeType: [UInt8] = Array("t".utf8)

    /// What the reader should do with the URI (the `act` record's one byte).
    public enum Action: UInt8, Sendable, Hashable, CaseIterable {
        /// Do the action: open the browser, send the SMS, call the number.
        case execute = 0
        /// Save for later: bookmark, store in the inbox, add to contacts.
        case save = 1
        /// Open for editing.
        case edit = 2
    }

    /// The URI (nil only when a leniently decoded poster had no URI record).
    public var uri: String?
    /// Titles, in the order found (one per language).
    public var titles: [TextRecord]
    /// The recommended action, when an `act` record is present.
    public var action: Action?
    /// The size in bytes of the referenced content, when an `s` record is present.
    public var size: UInt32?
    /// The MIME type of the referenced content, when a `t` record is present.
    public var type: String?
    /// Every other record of the nested message (icons, unknown records), kept for re-encoding.
    public var otherRecords: [NDEFRecord]

    /// A smart poster's content.
    public init(uri: String?, titles: [TextRecord] = [], action: Action? = nil, size: UInt32? = nil,
                type: String? = nil, otherRecords: [NDEFRecord] = []) {
        self.uri = uri
        self.titles = titles
        self.action = action
        self.size = size
        self.type = type
        self.otherRecords = otherRecords
    }

    /// The first title's text.
    public var title: String? { titles.first?.text }

    /// Decodes a Smart Poster payload (a nested NDEF message, decoded with the same leniency).
    /// - Parameter leniency: `.strict` wants exactly one URI record, at most one `act`/`s`/`t`
    ///   record and well-formed contents; `.relaxed` takes the first of each and keeps malformed
    ///   ones in ``otherRecords``.
    public init(payload: [UInt8], leniency: NDEFLeniency = .strict) throws(NFCError) {
        let nested: NDEFMessage
        do {
            nested = try NDEFMessage(bytes: payload, leniency: leniency)
        } catch {
            throw NFCError.invalidNDEF("smart poster payload: \(error.detail)")
        }
        let strict = leniency == .strict
        self.init(uri: nil)
        var sawAction = false, sawSize = false, sawType = false
        for (index, record) in nested.records.enumerated() {
            func fail(_ problem: String) -> NFCError {
                NFCError.invalidNDEF("smart poster record \(index): \(problem)")
            }
            guard record.tnf == .wellKnown else {
                otherRecords.append(record)
                continue
            }
            switch record.type {
            case URIRecord.recordType:
                let decoded: URIRecord
                do {
                    decoded = try URIRecord(payload: record.payload, leniency: leniency)
                } catch {
                    if strict { throw fail(error.detail) }
                    otherRecords.append(record)
                    continue
                }
                if uri == nil {
                    uri = decoded.uri
                } else if strict {
                    throw fail("a smart poster holds exactly one URI record")
                } else {
                    otherRecords.append(record)
                }
            case TextRecord.recordType:
                do {
                    titles.append(try TextRecord(payload: record.payload, leniency: leniency))
                } catch {
                    if strict { throw fail(error.detail) }
                    otherRecords.append(record)
                }
            case Self.actionType:
                if record.payload.count == 1, let value = Action(rawValue: record.payload[0]), !sawAction {
                    action = value
                    sawAction = true
                } else if strict {
                    throw fail(sawAction ? "more than one action record"
                                         : "action record must hold one byte 00, 01 or 02, found \(record.payload.hexString)")
                } else {
                    otherRecords.append(record)
                }
            case Self.sizeType:
                if record.payload.count == 4, !sawSize {
                    size = record.payload.reduce(0) { $0 << 8 | UInt32($1) }
                    sawSize = true
                } else if strict {
                    throw fail(sawSize ? "more than one size record" : "size record must hold 4 bytes, found \(record.payload.count)")
                } else {
                    otherRecords.append(record)
                }
            case Self.typeType:
                if let text = String(validating: record.payload, as: UTF8.self), !sawType {
                    type = text
                    sawType = true
                } else if strict {
                    throw fail(sawType ? "more than one type record" : "type record is not UTF-8")
                } else {
                    otherRecords.append(record)
                }
            default:
                otherRecords.append(record)
            }
        }
        if strict && uri == nil {
            throw NFCError.invalidNDEF("smart poster has no URI record")
        }
    }

    /// The nested records in encoding order: URI, titles, action, size, type, then the others.
    public var records: [NDEFRecord] {
        var list: [NDEFRecord] = []
        if let uri { list.append(.uri(uri)) }
        for title in titles {
            list.append(NDEFRecord(tnf: .wellKnown, type: TextRecord.recordType, payload: title.payload))
        }
        if let action { list.append(NDEFRecord(tnf: .wellKnown, type: Self.actionType, payload: [action.rawValue])) }
        if let size {
            list.append(NDEFRecord(tnf: .wellKnown, type: Self.sizeType,
                                   payload: [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]))
        }
        if let type { list.append(NDEFRecord(tnf: .wellKnown, type: Self.typeType, payload: Array(type.utf8))) }
        return list + otherRecords
    }

    /// The payload: the nested message of ``records``. Throws only when one of ``otherRecords``
    /// has a TYPE or ID longer than 255 bytes.
    public var payload: [UInt8] {
        get throws(NFCError) { try NDEFMessage(records: records).bytes }
    }
}

extension NDEFRecord {
    /// A Smart Poster record: the URI, an optional title in `language`, an optional action.
    public static func smartPoster(uri: String, title: String? = nil, language: String = "en",
                                   action: SmartPoster.Action? = nil) -> NDEFRecord {
        let poster = SmartPoster(uri: uri, titles: title.map { [TextRecord(text: $0, language: language)] } ?? [],
                                 action: action)
        // URI, Text and act records have 1–3 byte TYPEs and no ID, so encoding cannot fail.
        let payload = (try? poster.payload) ?? []
        return NDEFRecord(tnf: .wellKnown, type: SmartPoster.recordType, payload: payload)
    }

    /// The smart poster this record holds (decoded leniently), nil for other records or a nested
    /// message that does not decode.
    public var smartPoster: SmartPoster? {
        guard isWellKnown(SmartPoster.recordType) else { return nil }
        return try? SmartPoster(payload: payload, leniency: .relaxed)
    }
}

extension NFCError {
    /// The message without the "Invalid NDEF: " lead, for nesting one error's text in another's.
    var detail: String {
        if case let .invalidNDEF(detail) = self { return detail }
        return message
    }
}
