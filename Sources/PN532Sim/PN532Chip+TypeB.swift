
/// The PN532's 106 kbps type B side: discovery (REQB → ATQB, then ATTRIB, as InListPassiveTarget
/// BrTy 03 and InAutoPoll types 03/23 do it, UM0701-02 §7.3.5 / §7.3.13), the PCD half of the
/// ISO/IEC 14443-4 §7 block protocol that InDataExchange runs in firmware, and raw frames through
/// InCommunicateThru. Every frame crosses the air with its CRC_B (ISO/IEC 14443-3 Annex B), and the
/// card (``VirtualTypeBTag``) checks it.
extension PN532Chip {
    /// Type B cards that answer REQB for `afi` (the InListPassiveTarget initiator data), activated
    /// with ATTRIB. Target data (§7.3.5, 106 kbps type B): `ATQB(12) ATTRIB_RES length ATTRIB_RES`.
    func discoverTypeB(maxTargets: Int, afi: UInt8) -> [Discovered] {
        var found: [Discovered] = []
        for placed in field.placedTags where found.count < maxTargets {
            guard placed.tag is VirtualTypeBTag, reaches(placed) else { continue }
            let request = [TypeBTables.requestCommand, afi, 0x00]  // REQB, one slot
            guard let atqb = typeBAir(placed, request), atqb.count >= 12, atqb[0] == TypeBTables.atqbHeader,
                let attribAnswer = attrib(placed, atqb: atqb, cid: UInt8(found.count + 1))
            else { continue }
            found.append((placed, .typeB, Array(atqb.prefix(12)) + [UInt8(attribAnswer.count)] + attribAnswer))
        }
        return found
    }

    /// ATTRIB for the card that sent `atqb`, giving it `cid` (the PN532 numbers its CIDs by Tg, which
    /// is why libnfc's type B presence check sends `BA 01`, R(NAK) with CID 1).
    private func attrib(_ placed: PlacedTag, atqb: [UInt8], cid: UInt8) -> [UInt8]? {
        let pupi = Array(atqb[1...4])
        let command = [TypeBTables.attribCommand] + pupi
            + [TypeBTables.attribParameter1, TypeBTables.attribParameter2, TypeBTables.attribParameter3, cid & 0x0F]
        guard let answer = typeBAir(placed, command), let first = answer.first, first & 0x0F == cid & 0x0F else {
            return nil
        }
        return answer
    }

    /// Wakes a listed type B target again for InSelect (WUPB + ATTRIB with its CID).
    func reactivateTypeB(_ index: Int) -> Bool {
        let placed = targets[index].placed
        let wakeUp = [TypeBTables.requestCommand, 0x00, TypeBTables.wakeUpBit]
        guard let atqb = typeBAir(placed, wakeUp), atqb.count >= 12,
            attrib(placed, atqb: atqb, cid: targets[index].number) != nil
        else { return false }
        targets[index].blockNumber = 0
        return true
    }

    /// S(DESELECT) with the target's CID (what InDeselect / InRelease send to an ISO-DEP card).
    func deselectTypeB(_ target: ActivatedTarget) {
        guard isFieldOn, field.isPlaced(target.placed.placement) else { return }
        _ = typeBAir(target.placed, [0xCA, target.number])
    }

    /// One frame to a type B card and its answer, CRC_B added on the way out and checked and removed
    /// on the way back; nil when the card is silent or its answer is broken.
    func typeBAir(_ placed: PlacedTag, _ frame: [UInt8]) -> [UInt8]? {
        guard let card = placed.tag as? VirtualTypeBTag,
            let answer = card.receiveAir(frame + AirChecksum.crcB(frame)), answer.count >= 2,
            AirChecksum.crcB(Array(answer.dropLast(2))) == Array(answer.suffix(2))
        else { return nil }
        return Array(answer.dropLast(2))
    }

    // MARK: ISO/IEC 14443-4 blocks, PCD side

    /// Sends `apdu` to type B target `index` in I-blocks with its CID, chaining to the card's FSC, and
    /// collects its answer, acknowledging chained I-blocks with R(ACK) (block rules A–C, §7.5.3).
    /// Returns the response APDU, or nil when the card stops answering or breaks the protocol.
    func typeBExchange(_ index: Int, apdu: [UInt8]) -> [UInt8]? {
        let placed = targets[index].placed
        guard let card = placed.tag as? VirtualTypeBTag else { return nil }
        let cid = targets[index].number
        // PCB + CID + INF + CRC_B(2) within the card's frame size.
        let room = max(1, card.frameSizeForCard - 4)
        var chunks = stride(from: 0, to: max(apdu.count, 1), by: room).map { Array(apdu[$0..<min($0 + room, apdu.count)]) }
        if chunks.isEmpty { chunks = [[]] }
        var reply: [UInt8] = []
        for (position, chunk) in chunks.enumerated() {
            let chaining: UInt8 = position < chunks.count - 1 ? 0x10 : 0x00
            let number = targets[index].blockNumber
            guard let answer = typeBAir(placed, [0x0A | chaining | number, cid] + chunk), let pcb = answer.first else {
                return nil
            }
            if chaining != 0 {
                // The card acknowledges each chained block with R(ACK) of the same number.
                guard pcb & 0xF6 == 0xA2, pcb & 0x01 == number else { return nil }
                targets[index].blockNumber ^= 0x01
                continue
            }
            reply = answer
        }
        var response: [UInt8] = []
        while true {
            guard let pcb = reply.first, pcb & 0xE2 == 0x02, pcb & 0x01 == targets[index].blockNumber else { return nil }
            let header = 1 + (pcb & 0x08 != 0 ? 1 : 0) + (pcb & 0x04 != 0 ? 1 : 0)
            guard reply.count >= header else { return nil }
            response += reply[header...]
            targets[index].blockNumber ^= 0x01
            guard pcb & 0x10 != 0 else { return response }
            guard let next = typeBAir(placed, [0xAA | targets[index].blockNumber, cid]) else { return nil }
            reply = next
        }
    }

    // MARK: InCommunicateThru

    /// A raw frame to the selected type B target: the CIU adds CRC_B when TxCRCEn is on (else the host
    /// sent it), and removes the answer's when RxCRCEn is on. libnfc's type B presence check sends
    /// `BA 01` (R(NAK), CID 1) this way.
    func rawTypeB(_ data: [UInt8]) -> PN532Outcome {
        guard let target = targets.first(where: { $0.kind == .typeB && !$0.isDeselected }), reaches(target.placed),
            let card = target.placed.tag as? VirtualTypeBTag
        else { return timeoutAnswer }
        let onAir = registers.transmitCRC ? data + AirChecksum.crcB(data) : data
        guard let answer = card.receiveAir(onAir), answer.count >= 2 else { return timeoutAnswer }
        if registers.receiveCRC {
            guard AirChecksum.crcB(Array(answer.dropLast(2))) == Array(answer.suffix(2)) else { return statusAnswer(.crcError) }
            return sized(Array(answer.dropLast(2)))
        }
        return sized(answer)
    }
}
