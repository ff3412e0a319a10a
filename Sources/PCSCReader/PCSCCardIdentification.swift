import NFCCore

/// What a PC/SC reader's ATR and GET DATA answers leave out, and how the backend fills it in: the
/// technology of an ISO/IEC 14443-4 card (A or B) and a FeliCa card's PMm and system code. Pure
/// functions over the answers, unit-tested without pcscd.
enum PCSCCardIdentification {
    // MARK: ISO/IEC 14443-4 type B

    /// The type B ATR's historical bytes (PC/SC part 3 rev. 2.02 §3.1.3.2.3.2; the same table in the
    /// SCM/Identiv SCL3711 reference manual §5.3.3.5 "ATR for ISO/IEC 14443-4 user tokens"): bytes 1–4
    /// the ATQB's application data, 5–7 its protocol info, byte 8 the ATTRIB answer's MBLI in the high
    /// nibble and 0 in the low one. A type A card's ATR carries its ATS's historical bytes instead, any
    /// number of them, so the ATR alone cannot tell the two apart: ``typeBTarget(historicalBytes:uid:ats:)``
    /// also asks for what only a B card has.
    enum TypeBATR {
        static let historicalByteCount = 8
        static let applicationData = 0..<4
        static let protocolInfo = 4..<7
        /// Byte 8: MBLI << 4; its low nibble is 0.
        static let mbliByte = 7
        /// Protocol info byte 2, Protocol_Type (ISO/IEC 14443-3 §7.9.4.3): b4 is 0, b1 is 1 for a PICC
        /// that speaks ISO/IEC 14443-4 (the only kind a reader gives an ISO-DEP ATR for).
        static let protocolTypeMask: UInt8 = 0x09
        static let protocolTypeISODEP: UInt8 = 0x01
        /// The PUPI GET DATA (`FF CA 00 00`) answers for a B card is 4 bytes (ISO/IEC 14443-3 §7.9.2).
        static let pupiLength = 4
    }

    /// The type B target an ISO-DEP ATR and the reader's GET DATA answers describe, or nil when they
    /// describe a type A card: the historical bytes have the type B form (``TypeBATR``), the UID is a
    /// 4-byte PUPI, and the reader gave no ATS (`FF CA 01 00`), which only a type A card has: it refused,
    /// or answered nothing (what a reader that gives a B card's higher-layer response there answers for
    /// a card with none).
    static func typeBTarget(historicalBytes bytes: [UInt8], uid: [UInt8], ats: [UInt8]?) -> Target? {
        guard bytes.count == TypeBATR.historicalByteCount, bytes[TypeBATR.mbliByte] & 0x0F == 0,
              bytes[TypeBATR.protocolInfo.lowerBound + 1] & TypeBATR.protocolTypeMask == TypeBATR.protocolTypeISODEP,
              uid.count == TypeBATR.pupiLength, ats?.isEmpty ?? true
        else { return nil }
        return Target(
            pupi: uid, applicationData: Array(bytes[TypeBATR.applicationData]), protocolInfo: Array(bytes[TypeBATR.protocolInfo]))
    }

    // MARK: FeliCa

    /// Polling for system code FFFFh (any system) with request code 01h (the answer carries the system
    /// code), time slot 00h — NFCCore's ``FeliCaCommand/polling(systemCode:requestCode:timeSlot:)``, what
    /// libnfc polls a PN53x with, so both backends see the same system code. PC/SC's GET DATA gives the
    /// IDm only; the PMm (IC type, for the product) and the system code (Lite family) come from this
    /// command through the reader's FeliCa pass-through.
    static let felicaPolling = FeliCaCommand.polling(systemCode: [0xFF, 0xFF])

    /// The answer to ``felicaPolling`` without its LEN byte: response code 01h, IDm (8), PMm (8), system code (2).
    enum PollingAnswer {
        static let responseCode: UInt8 = 0x01
        static let idm = 1..<9
        static let pmm = 9..<17
        static let systemCode = 17..<19
    }

    /// `target` (a FeliCa card by its IDm) with the PMm and system code of its polling answer; nil when
    /// the answer is not a polling response for that IDm.
    static func felicaTarget(_ target: Target, pollingAnswer answer: [UInt8]) -> Target? {
        guard answer.count >= PollingAnswer.pmm.upperBound, answer[0] == PollingAnswer.responseCode,
              Array(answer[PollingAnswer.idm]) == target.uid
        else { return nil }
        let systemCode = answer.count >= PollingAnswer.systemCode.upperBound ? Array(answer[PollingAnswer.systemCode]) : []
        return Target(modulation: target.modulation, uid: target.uid, pmm: Array(answer[PollingAnswer.pmm]), systemCode: systemCode)
    }
}
