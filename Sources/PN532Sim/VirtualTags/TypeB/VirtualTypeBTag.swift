import enum NFCCore.NFCError
import struct NFCCore.Target
import Synchronization

/// An ISO/IEC 14443-B PICC in the emulated field: the type B anticollision and activation of
/// ISO/IEC 14443-3 §7 (REQB/WUPB → ATQB, ATTRIB, HLTB) and the ISO/IEC 14443-4 §7 block protocol,
/// with every frame carrying its CRC_B (ISO/IEC 14443-3 Annex B) as on the air. A frame with a wrong
/// CRC_B is not answered, as a real PICC ignores it.
///
/// What the card holds is another virtual ISO-DEP tag, `application` (a ``VirtualType4Tag`` for the
/// `type4_b` scenario kind): the blocks' APDUs go to it unchanged, so a B Type 4 tag behaves exactly
/// as the A one does above the block layer.
///
/// States (ISO/IEC 14443-3 §7.10 / Figure 11): IDLE (after power-on; answers REQB and WUPB), READY
/// (sent its ATQB; takes ATTRIB for its PUPI), ACTIVE (ATTRIB answered; ISO-DEP blocks), HALT (after
/// HLTB or S(DESELECT); answers WUPB only).
public final class VirtualTypeBTag: ISODEPVirtualTag {
    /// The card's PUPI as the UID, with its ATQB application data and protocol info.
    public let target: Target
    /// The ISO-DEP application the blocks reach.
    public let application: any ISODEPVirtualTag
    private let state: Mutex<State>

    private enum Phase { case idle, ready, active, halted }

    private struct State {
        var phase = Phase.idle
        /// The CID ATTRIB assigned (param 4, low nibble); blocks must carry it when it is not 0.
        var cid: UInt8 = 0
        var session = ISODEPSession()
    }

    /// A card with PUPI `pupi` (4 bytes) in front of `application`. `applicationData` and
    /// `protocolInfo` default to ``TypeBTables/defaultApplicationData`` and
    /// ``TypeBTables/defaultProtocolInfo``. Throws ``NFCError/invalidArgument(_:)`` for a PUPI that is
    /// not 4 bytes, application data that is not 4 bytes or protocol info that is not 3.
    public init(
        pupi: [UInt8], application: any ISODEPVirtualTag, applicationData: [UInt8] = TypeBTables.defaultApplicationData,
        protocolInfo: [UInt8] = TypeBTables.defaultProtocolInfo
    ) throws(NFCError) {
        guard pupi.count == 4 else { throw .invalidArgument("A type B PUPI has 4 bytes, not \(pupi.count)") }
        guard applicationData.count == 4 else { throw .invalidArgument("ATQB application data has 4 bytes") }
        guard protocolInfo.count == 3 else { throw .invalidArgument("ATQB protocol info has 3 bytes") }
        self.target = Target(pupi: pupi, applicationData: applicationData, protocolInfo: protocolInfo)
        self.application = application
        self.state = Mutex(State())
    }

    /// The ATQB (ISO/IEC 14443-3 §7.9): `50h`, PUPI, application data, protocol info.
    public var atqb: [UInt8] { [TypeBTables.atqbHeader] + target.uid + target.applicationData + target.protocolInfo }

    /// The frame size the card accepts (FSC, from the protocol info's Max_Frame_Size code).
    public var frameSizeForCard: Int { TypeBTables.frameSize(code: target.protocolInfo[1] >> 4) }

    /// One frame as it travels on the air, CRC_B included; the answer likewise, or nil for silence.
    public func receiveAir(_ frame: [UInt8]) -> [UInt8]? {
        guard frame.count >= 3, AirChecksum.crcB(Array(frame.dropLast(2))) == Array(frame.suffix(2)) else { return nil }
        guard let answer = respond(to: Array(frame.dropLast(2))) else { return nil }
        return answer + AirChecksum.crcB(answer)
    }

    /// WUPB + ATTRIB (CID 0, FSD 256) done at once: the card is ACTIVE with a fresh block layer, as the
    /// in-process transport wants it. False never happens: the card is always there when asked.
    public func activate() -> Bool {
        state.withLock { s in
            s = State()
            s.phase = .active
        }
        return application.activate()
    }

    /// One frame without CRC_B (the in-process path): ``receiveAir(_:)`` with the CRC added and removed.
    public func receive(_ frame: [UInt8]) -> VirtualTagReply {
        guard !frame.isEmpty, let answer = receiveAir(frame + AirChecksum.crcB(frame)) else { return .silent }
        return .data(Array(answer.dropLast(2)))
    }

    public func powerOff() {
        state.withLock { $0 = State() }
        application.powerOff()
    }

    /// A whole APDU for the application (the in-process transport skips the block layer).
    public func process(apdu: [UInt8]) -> [UInt8] {
        application.process(apdu: apdu)
    }

    // MARK: ISO/IEC 14443-3 §7 and ISO/IEC 14443-4 §7

    private func respond(to frame: [UInt8]) -> [UInt8]? {
        state.withLock { s -> [UInt8]? in
            switch s.phase {
            case .idle, .halted, .ready:
                return anticollision(frame, state: &s)
            case .active:
                return block(frame, state: &s)
            }
        }
    }

    /// REQB/WUPB, ATTRIB and HLTB, in the states that take them.
    private func anticollision(_ frame: [UInt8], state s: inout State) -> [UInt8]? {
        switch frame.first {
        case TypeBTables.requestCommand where frame.count == 3:
            let isWakeUp = frame[2] & TypeBTables.wakeUpBit != 0
            guard s.phase != .halted || isWakeUp, TypeBTables.afiMatches(requested: frame[1], card: target.applicationData[0])
            else { return nil }
            s.phase = .ready
            return atqb
        case TypeBTables.attribCommand where frame.count >= 9 && s.phase == .ready:
            guard Array(frame[1...4]) == target.uid else { return nil }
            let parameter2 = frame[6], parameter4 = frame[8]
            s.cid = parameter4 & 0x0F
            // ATTRIB param 2, low nibble: the PCD's maximum frame size (FSD), coded as FSCI is.
            s.session = ISODEPSession(ratsParameter: (parameter2 & 0x0F) << 4)
            s.phase = .active
            _ = application.activate()
            // MBLI 0 (no limit given) and the CID (§7.11); no higher layer response.
            return [s.cid]
        case TypeBTables.haltCommand where frame.count == 5 && s.phase == .ready:
            guard Array(frame[1...4]) == target.uid else { return nil }
            s.phase = .halted
            return [0x00]
        default:
            return nil
        }
    }

    /// An ISO-DEP block to the ACTIVE card (the shared ``ISODEPSession`` does the block rules); HLTB
    /// is taken here too (§7.10.4).
    private func block(_ frame: [UInt8], state s: inout State) -> [UInt8]? {
        guard let pcb = frame.first else { return nil }
        if pcb == TypeBTables.haltCommand, frame.count == 5, Array(frame[1...4]) == target.uid {
            s.phase = .halted
            return [0x00]
        }
        // A card given CID ≠ 0 answers only blocks with that CID (ISO/IEC 14443-4 §7.1.1.2).
        let hasCID = pcb & 0x08 != 0
        if hasCID {
            guard frame.count >= 2, frame[1] & 0x0F == s.cid else { return nil }
        } else if s.cid != 0 {
            return nil
        }
        let application = self.application
        switch s.session.handle(frame, process: { application.process(apdu: $0) }) {
        case let .reply(answer):
            return answer
        case let .deselected(answer):
            s.phase = .halted
            return answer
        case .silent:
            return nil
        }
    }
}
