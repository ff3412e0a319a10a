import enum NFCCore.Modulation
import struct NFCCore.Target

/// Target discovery and target housekeeping (UM0701-02 §7.3.5 InListPassiveTarget, §7.3.12
/// InSelect, §7.3.11 InDeselect, §7.3.10 InRelease; §7.3.13 InAutoPoll is in PN532Chip+AutoPoll).
extension PN532Chip {
    /// A tag that answered discovery, with its target data (everything after Tg).
    typealias Discovered = (placed: PlacedTag, kind: ActivatedTarget.Kind, data: [UInt8])

    /// InListPassiveTarget: MaxTg (1–2), BrTy, [InitiatorData].
    ///
    /// BrTy 00 (106 kbps type A): the optional initiator data is a UID in cascaded form
    /// (`88 u0 u1 u2 u3…u6`) — then that tag is woken even from HALT (WUPA), else HALTed tags stay
    /// quiet (REQA). With fAutomaticRATS (SetParameters bit 4) an ISO-DEP tag also gets RATS and its
    /// ATS is appended. BrTy 01/02 (FeliCa 212/424): initiator data is the SENSF_REQ payload
    /// `00 SC SC RC TSN`; RC 01 adds the system code to the answer. BrTy 03 (106 kbps type B): the
    /// initiator data is the AFI (and an optional polling method byte); each card found gets REQB and
    /// ATTRIB (PN532Chip+TypeB). BrTy 04 (Jewel) finds nothing: no such virtual tags exist.
    func inListPassiveTarget(_ parameters: [UInt8]) -> PN532Outcome {
        guard parameters.count >= 2, (1...2).contains(parameters[0]) else { return .syntaxError }
        let maxTargets = Int(parameters[0])
        let initiatorData = Array(parameters.dropFirst(2))
        let probe: () -> [UInt8]?
        switch parameters[1] {
        case 0x00:
            registers.selectModulation(framing: .typeA, speed: 0)
            let uid = initiatorData.isEmpty ? nil : ISO14443ACascade.uid(fromCascaded: initiatorData)
            let rats = self.parameters & Self.autoRATSParameter != 0
            probe = { [unowned self] in
                listAnswer(discoverTypeA(maxTargets: maxTargets, uid: uid, onlyISODEP: false, rats: rats))
            }
        case 0x01, 0x02:
            guard initiatorData.count == 5, initiatorData[0] == 0x00 else { return .syntaxError }
            registers.selectModulation(framing: .felica, speed: parameters[1])
            probe = { [unowned self] in listAnswer(discoverFeliCa(maxTargets: maxTargets, request: initiatorData)) }
        case 0x03:
            guard (1...2).contains(initiatorData.count) else { return .syntaxError }
            registers.selectModulation(framing: .typeB, speed: 0)
            let afi = initiatorData[0]
            probe = { [unowned self] in listAnswer(discoverTypeB(maxTargets: maxTargets, afi: afi)) }
        case 0x04:
            registers.selectModulation(framing: .typeA, speed: 0)
            probe = { nil }
        default:
            return .syntaxError
        }
        startDiscovery()
        if let answer = probe() { return .answer(answer) }
        // No tag yet: the chip retries MxRtyPassiveActivation times (≈ 5 ms each), or forever at FF.
        let attempts = Int(maxRetriesPassiveActivation) + 1
        let limit = maxRetriesPassiveActivation == 0xFF
            ? nil : timing.chip(PN532Timing.passiveActivationAttempt * attempts)
        return .wait(PN532Wait(timeLimit: limit, probe: probe, giveUpAnswer: [0x00]))
    }

    /// InSelect: Tg. Wakes a listed target again (WUPA + select, RATS for ISO-DEP; type B: WUPB + ATTRIB).
    func inSelect(_ parameters: [UInt8]) -> PN532Outcome {
        guard parameters.count == 1 else { return .syntaxError }
        guard let index = targets.firstIndex(where: { $0.number == parameters[0] }) else {
            return statusAnswer(.wrongContext)
        }
        let placed = targets[index].placed
        if targets[index].kind == .typeB {
            guard reaches(placed), reactivateTypeB(index) else { return timeoutAnswer }
            targets[index].isDeselected = false
            return statusAnswer(.success)
        }
        guard reaches(placed), placed.tag.activate() else { return timeoutAnswer }
        targets[index].isDeselected = false
        if targets[index].kind == .typeA {
            let rats = placed.tag.target.isISODEP && self.parameters & Self.autoRATSParameter != 0
            updateAir(placed) { $0.activated(isoDEP: rats ? ISODEPSession() : nil) }
            activeTypeA = placed
            anticollision = nil
        }
        return statusAnswer(.success)
    }

    /// InDeselect: Tg (00 = all). Type A targets go to HALT (HLTA, or S(DESELECT) for ISO-DEP), so
    /// the next InListPassiveTarget without a UID looks for other tags; FeliCa has no HALT.
    func inDeselect(_ parameters: [UInt8]) -> PN532Outcome {
        guard parameters.count == 1 else { return .syntaxError }
        guard let indices = targetIndices(parameters[0]) else { return statusAnswer(.wrongContext) }
        for index in indices { halt(&targets[index]) }
        return statusAnswer(.success)
    }

    /// InRelease: Tg (00 = all). Like InDeselect, and the chip forgets the target.
    func inRelease(_ parameters: [UInt8]) -> PN532Outcome {
        guard parameters.count == 1 else { return .syntaxError }
        guard let indices = targetIndices(parameters[0]) else { return statusAnswer(.wrongContext) }
        for index in indices { halt(&targets[index]) }
        let released = Set(indices.map { targets[$0].number })
        targets.removeAll { released.contains($0.number) }
        return statusAnswer(.success)
    }

    /// The targets a Tg byte names (00 = all of them); nil for a number the chip does not know.
    private func targetIndices(_ tg: UInt8) -> [Int]? {
        let indices = targets.indices.filter { tg == 0 || targets[$0].number == tg }
        return indices.isEmpty && tg != 0 ? nil : Array(indices)
    }

    // MARK: Discovery

    /// A new discovery: the RF field turns on, earlier targets and a MIFARE authentication are gone.
    func startDiscovery() {
        setField(on: true)
        targets.removeAll()
        activeTypeA = nil
        anticollision = nil
        registers.crypto1On = false
    }

    /// Type A tags that answer: all non-HALTed ones (REQA), or the one with `uid` (WUPA).
    func discoverTypeA(maxTargets: Int, uid: [UInt8]?, onlyISODEP: Bool, rats: Bool) -> [Discovered] {
        var found: [Discovered] = []
        for placed in field.placedTags where found.count < maxTargets {
            let target = placed.tag.target
            guard target.modulation == .iso14443a, !onlyISODEP || target.isISODEP else { continue }
            if let uid {
                guard target.uid == uid else { continue }
            } else if airState(placed).isHalted {
                continue
            }
            guard reaches(placed), placed.tag.activate() else { continue }
            let isoDEP = rats && target.isISODEP
            var data = Self.senseResponse(target.atqa) + [target.sak ?? 0, UInt8(target.uid.count)] + target.uid
            if isoDEP { data += Self.atsWithLength(target) }
            updateAir(placed) { $0.activated(isoDEP: isoDEP ? ISODEPSession() : nil) }
            found.append((placed, .typeA, data))
        }
        return found
    }

    /// FeliCa tags that answer SENSF_REQ `00 SC SC RC TSN` (JIS X 6319-4 §6.6.5; answer
    /// `len 01 IDm PMm [request data]`, len counting itself).
    func discoverFeliCa(maxTargets: Int, request: [UInt8]) -> [Discovered] {
        let systemCode = Array(request[1...2]), requestCode = request[3]
        var found: [Discovered] = []
        for placed in field.placedTags where found.count < maxTargets {
            guard let felica = placed.tag as? FeliCaVirtualTag, felica.answersPolling(systemCode: systemCode),
                reaches(placed), placed.tag.activate()
            else { continue }
            // The model's own POLLING answer when it has one; else the fields from its target.
            var response = felica.process(felica: request) ?? []
            if response.first != 0x01 || response.count < 17 {
                response = Self.pollingResponse(placed.tag.target, systemCode: systemCode, requestCode: requestCode)
            }
            found.append((placed, .felica, [UInt8(response.count + 1)] + response))
        }
        return found
    }

    /// A POLLING response built from the target: `01 IDm PMm [request data]`.
    static func pollingResponse(_ target: Target, systemCode: [UInt8], requestCode: UInt8) -> [UInt8] {
        var response: [UInt8] = [0x01] + padded(target.uid, to: 8) + padded(target.pmm, to: 8)
        switch requestCode {
        case 0x01:  // system code: the one asked for, or the tag's own for a wildcard
            let wildcard = systemCode.contains(0xFF) && target.systemCode.count == 2
            response += wildcard ? target.systemCode : systemCode
        case 0x02:  // communication performance: 212 and 424 kbps, no automatic detection
            response += [0x00, 0x03]
        default: break
        }
        return response
    }

    /// Makes the discovered tags the chip's targets and returns `NbTg [Tg data]…`, or nil for none.
    private func listAnswer(_ found: [Discovered]) -> [UInt8]? {
        guard !found.isEmpty else { return nil }
        adopt(found)
        var answer = [UInt8(found.count)]
        for (index, item) in found.enumerated() { answer += [UInt8(index + 1)] + item.data }
        return answer
    }

    func adopt(_ found: [Discovered]) {
        targets = found.enumerated().map { ActivatedTarget(number: UInt8($0 + 1), placed: $1.placed, kind: $1.kind) }
        activeTypeA = found.first { $0.kind == .typeA }?.placed
        lastStatus = .success
    }

    /// HALTs a type A target (the PN532 sends HLTA, or S(DESELECT) to an ISO-DEP tag) or a type B one
    /// (S(DESELECT) with its CID).
    private func halt(_ target: inout ActivatedTarget) {
        let wasDeselected = target.isDeselected
        target.isDeselected = true
        if target.kind == .typeB, !wasDeselected { deselectTypeB(target) }
        guard target.kind == .typeA else { return }
        let placed = target.placed
        if isFieldOn, field.isPlaced(placed.placement), airState(placed).isoDEP == nil {
            _ = placed.tag.receive([0x50, 0x00])
        }
        leaveActive(placed) { $0.halted() }
    }

    /// SENS_RES as the PN532 reports it: two bytes, MSB first (an Ultralight is `00 44`).
    static func senseResponse(_ atqa: [UInt8]) -> [UInt8] {
        padded(atqa, to: 2)
    }

    /// `bytes` cut or zero-filled to exactly `count` bytes (left-padded, so short ATQAs keep their LSB).
    static func padded(_ bytes: [UInt8], to count: Int) -> [UInt8] {
        bytes.count >= count ? Array(bytes.prefix(count)) : [UInt8](repeating: 0, count: count - bytes.count) + bytes
    }
}
