import enum NFCCore.NFCError
import struct NFCCore.Target
import Synchronization

/// An eMRTD chip (electronic passport, ICAO Doc 9303) in the emulated field, as far as a reader without
/// the document's MRZ or CAN gets: it answers the SELECT of the LDS application and refuses everything
/// that would need Basic Access Control or PACE. It logs every APDU it receives (``receivedAPDUs``), so
/// tests can prove what a scan sent to a passport.
///
/// Answers (the simulator's own table; ICAO 9303-10 §3.6 and 9303-11 §4, ISO/IEC 7816-4 §5.1.3):
/// SELECT by name `A0000002471001` → 9000; any other SELECT by name → 6A82; SELECT of an EF with the LDS
/// selected → 6982 (secure messaging needed), without → 6A82; READ BINARY (B0 / B1) → 6982; GET CHALLENGE
/// (84) → 8 fixed bytes + 9000; MUTUAL AUTHENTICATE (82) / GENERAL AUTHENTICATE (86) → 6300; CLA 90
/// (DESFire wrapping) → 6E00; anything else → 6D00.
public final class VirtualEMRTDTag: ISODEPVirtualTag {
    /// The LDS1 eMRTD application (ICAO 9303-10 §3.6.1).
    public static let ldsApplication: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]

    public let target: Target
    private let state = Mutex<(ldsSelected: Bool, log: [[UInt8]])>((false, []))

    /// A passport with a 4- or 7-byte UID (passports usually show a random 4-byte UID starting 08h),
    /// ATQA `00 04` / `00 44`, SAK 20. Throws ``NFCError/invalidArgument(_:)`` for another UID length.
    public init(uid: [UInt8], ats: [UInt8] = [0x78, 0x80, 0x70, 0x02]) throws(NFCError) {
        guard [4, 7].contains(uid.count) else { throw .invalidArgument("A UID has 4 or 7 bytes, not \(uid.count)") }
        target = Target(modulation: .iso14443a, uid: uid, atqa: [0x00, uid.count == 4 ? 0x04 : 0x44], sak: 0x20, ats: ats)
    }

    /// Every APDU received since the tag was made, in order.
    public var receivedAPDUs: [[UInt8]] { state.withLock { $0.log } }

    public func activate() -> Bool {
        state.withLock { $0.ldsSelected = false }
        return true
    }

    public func powerOff() {
        state.withLock { $0.ldsSelected = false }
    }

    /// ISO 14443-3 frames: the emulator handles RATS and blocks itself.
    public func receive(_ frame: [UInt8]) -> VirtualTagReply { .silent }

    public func process(apdu: [UInt8]) -> [UInt8] {
        state.withLock { s in
            s.log.append(apdu)
            guard apdu.count >= 4 else { return StatusWord.wrongLength }
            if apdu[0] == 0x90 { return StatusWord.claNotSupported }
            switch apdu[1] {
            case 0xA4 where apdu[2] == 0x04:
                let data = apdu.count > 5 ? Array(apdu[5..<min(apdu.count, 5 + Int(apdu[4]))]) : []
                s.ldsSelected = data == Self.ldsApplication
                return s.ldsSelected ? StatusWord.ok : StatusWord.notFound
            case 0xA4: return s.ldsSelected ? StatusWord.securityNotSatisfied : StatusWord.notFound
            case 0xB0, 0xB1: return StatusWord.securityNotSatisfied
            case 0x84: return [0x4E, 0x4F, 0x43, 0x48, 0x41, 0x4E, 0x43, 0x45] + StatusWord.ok
            case 0x82, 0x86: return [0x63, 0x00]
            default: return StatusWord.insNotSupported
            }
        }
    }
}
