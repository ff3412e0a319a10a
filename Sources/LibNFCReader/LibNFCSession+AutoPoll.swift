import CNFC
import NFCCore

extension LibNFCSession {
    /// One InAutoPoll (``LibNFCAutoPoll``, PN532 user manual UM0701-02 §7.3.13) for `wanted` that
    /// lasts about `timeout` (whole polls of 150 ms per target type), sent with `pn53x_transceive`
    /// so that every wait has libnfc's timeout (`nfc_initiator_poll_target` waits for ever, and
    /// libnfc 1.8.0 cannot abort its ACK wait nor the rest of a frame whose bytes were lost).
    ///
    /// Returns nil when the host must poll instead: auto-polling is off, the poll includes a
    /// modulation without an InAutoPoll row, `timeout` is shorter than one poll, or the reader
    /// cannot (not a PN532, or it refused the command ``LibNFCAutoPoll/refusalsBeforeFallback``
    /// times in a row). Else the tags found, `[]` when none came, the poll was aborted
    /// (``LibNFCAbortControl/abortPoll()``: libnfc sends the chip an ACK, which ends the command)
    /// or the answer was lost on the line (the chip answers a probe after it).
    ///
    /// A type A tag the chip activated (ISO/IEC 14443-4 ones with RATS, type 20h; others as they are)
    /// is returned at once, still selected, so the scan's first exchange goes to it with no select
    /// first (issue 25: place → `scanned` no longer waits for the search for a second tag). That
    /// search — deselect it (halted) and list the field after it, what the host's own poll
    /// (``listTargets(modulation:row:limit:after:)``) does — is ``deferredSearch``: the next
    /// ``poll(modulations:timeout:limit:)`` runs it and returns every tag, the first included.
    /// libnfc did not see that selection (the command went through `pn53x_transceive`), so its
    /// own target is stale until the next select: ``libnfcTargetIsStale``. FeliCa is polled again
    /// with the system-code request (InAutoPoll sends none). Wraps `pn53x_transceive` and
    /// `nfc_initiator_deselect_target`.
    func autoPoll(_ wanted: [(Modulation, LibNFCModulation)], timeout: Duration, limit: Int?) throws(NFCError) -> [Target]? {
        guard configuration.autoPoll, hasPN53xRegisters, autoPollSupport != .refused else { return nil }
        guard info.firmware.hasPrefix("PN532") else {
            autoPollSupport = .refused
            return nil
        }
        var types: [UInt8] = []
        for (modulation, _) in wanted {
            guard let more = LibNFCAutoPoll.types(for: modulation) else { return nil }
            types += more
        }
        let cycle = LibNFCAutoPoll.periodUnit * types.count * Int(LibNFCAutoPoll.period)
        let polls = min(Int(timeout / cycle), LibNFCAutoPoll.maximumPolls)
        guard polls >= 1, types.count <= 15 else { return nil }
        if token.isCancelled { throw .userCanceled }
        if control.takePollAbort() { return [] }
        try setMode(.easy)
        active = nil
        isFreshlySelected = false
        let command = [LibNFCAutoPoll.command, UInt8(polls), LibNFCAutoPoll.period] + types
        let wait = cycle * polls + LibNFCAutoPoll.answerMargin
        var answer = [UInt8](repeating: 0, count: LibNFCAutoPoll.answerCapacity)
        let capacity = answer.count, milliseconds = wait.libnfcMilliseconds
        let outcome = control.pollCall(token, deadline: deadline(for: wait)) {
            command.withUnsafeBufferPointer { tx in
                answer.withUnsafeMutableBufferPointer { rx in
                    pn53x_transceive(device, tx.baseAddress, tx.count, rx.baseAddress, capacity, milliseconds)
                }
            }
        }
        guard let (result, expired) = outcome else {
            if token.isCancelled { throw .userCanceled }
            _ = control.takePollAbort()
            return []
        }
        if expired {
            throw .readerUnresponsive(
                "\(connstring): InAutoPoll did not return within its \(deadline(for: wait).libnfcMilliseconds) ms deadline and was aborted")
        }
        if result < 0 { return try autoPollFailed(result) }
        autoPollSupport = .answers
        switch LibNFCAutoPoll.answer(Array(answer.prefix(Int(result)))) {
        case .nothing, .garbled:
            return []
        case let .target(type, data):
            let modulations = wanted.map(\.0)
            guard let modulation = LibNFCAutoPoll.modulation(ofType: type, among: modulations),
                let row = wanted.first(where: { $0.0 == modulation })?.1
            else { return [] }
            let most = max(1, limit ?? 4)
            // A tag of one technology ends the chip's poll: the other modulations are listed with the
            // search for more tags (a FeliCa card placed with a type A tag is found too).
            let others = most > 1 ? wanted.filter { $0.0 != modulation } : []
            guard modulation == .iso14443a else {
                let listed = try listTargets(modulation: modulation, row: row, limit: most)
                // The search lists this modulation again first (FeliCa has no HALT), so the tags found
                // now are seen on its turn too.
                if !listed.isEmpty, !others.isEmpty { deferredModulations = [(modulation, row)] + others }
                return listed
            }
            // Data that does not read (a UID length ISO/IEC 14443-3 has not): the tag stays as the
            // chip left it, and the next poll meets it again.
            guard let found = LibNFCAutoPoll.typeATarget(data) else { return [] }
            if LibNFCAutoPoll.isReadyForExchanges(type: type, target: found) {
                active = ActiveTarget(modulation: .iso14443a, uid: found.uid)
                isFreshlySelected = true
                libnfcTargetIsStale = true
                if most > 1 { deferredSearch = DeferredSearch(modulation: modulation, row: row, found: found) }
                deferredModulations = others
                return [found]
            }
            return try listMore(try searchAfter(found, modulation: modulation, row: row, limit: most), in: others, limit: most)
        }
    }

    /// The search for more tags after `found`, a type A tag the chip selected: deselect it (halted:
    /// libnfc then holds no stale target) and list the field after it. Returns `found` and the others.
    func searchAfter(_ found: Target, modulation: Modulation, row: LibNFCModulation, limit: Int) throws(NFCError) -> [Target] {
        try setMode(.easy)
        active = nil
        isFreshlySelected = false
        let deselected = try libnfcCall(.poll(token), "nfc_initiator_deselect_target", timeout: configuration.commandTimeout) {
            nfc_initiator_deselect_target(device)
        }
        libnfcTargetIsStale = false
        if deselected < 0 {
            let error = LibNFCErrorCode(rawValue: deselected)
            if error.meansReaderGone { throw error.nfcError(connstring: connstring, call: "nfc_initiator_deselect_target") }
            // A garbled answer to the deselect: the tag is returned, not lost halted (the first
            // exchange with it selects it again, see listTargets).
            if try checkAnswers(after: deselected, call: "nfc_initiator_deselect_target", keeping: [found]) { return [found] }
        }
        return try listTargets(modulation: modulation, row: row, limit: limit, after: [found])
    }

    /// Runs the search ``autoPoll(_:timeout:limit:)`` left for later, when there is one: every tag, the
    /// first included (at most `limit`) while it still answers. Nil when none is pending.
    /// A poll for other modulations than the one the search was for drops it.
    ///
    /// The first tag counts as seen without a frame only while the scan's last exchange left it
    /// selected. Otherwise it is selected again first: the scan lost it (a tag lifted during the
    /// scan or the dump is absent from this poll on, not one round later; when the scan's own select
    /// already found it gone, nothing is asked again), or left it IDLE (a NAK: an IDLE tag ignores
    /// the deselect's HLTA and would answer the list, hiding the tags after it; ISO/IEC 14443-3 §6.3)
    /// or HALTed (a failed MIFARE Classic authentication), which ``select(_:)`` wakes. A garbled
    /// answer to that select is an answer: the tag is returned, unselected (the next exchange
    /// selects it), as ``searchAfter(_:modulation:row:limit:)`` keeps it after a garbled deselect.
    func runDeferredSearch(limit: Int?, wanted: [Modulation]) throws(NFCError) -> [Target]? {
        let more = deferredModulations.filter { wanted.contains($0.0) }
        deferredModulations = []
        let found = try runTypeASearch(limit: limit, wanted: wanted)
        guard found != nil || !more.isEmpty else { return nil }
        return try listMore(found ?? [], in: more, limit: max(1, limit ?? 4))
    }

    /// `found` and the tags each of `modulations` lists after it (one `InListPassiveTarget` for a
    /// technology without tags), each tag once.
    func listMore(_ found: [Target], in modulations: [(Modulation, LibNFCModulation)], limit: Int) throws(NFCError) -> [Target] {
        var all = found
        for (modulation, row) in modulations {
            for target in try listTargets(modulation: modulation, row: row, limit: limit) where !all.contains(where: { $0.uid == target.uid }) {
                all.append(target)
            }
        }
        return all
    }

    /// The type A part of ``runDeferredSearch(limit:wanted:)``: nil when none is pending.
    private func runTypeASearch(limit: Int?, wanted: [Modulation]) throws(NFCError) -> [Target]? {
        guard let search = deferredSearch else { return nil }
        deferredSearch = nil
        guard wanted.contains(search.modulation) else { return nil }
        let most = max(1, limit ?? 4)
        if active != ActiveTarget(modulation: search.modulation, uid: search.found.uid) {
            if search.isGone { return try listTargets(modulation: search.modulation, row: search.row, limit: most) }
            let answers: Bool
            do throws(NFCError) {
                answers = try select(search.found)
            } catch {
                guard case .rfError = error else { throw error }
                return [search.found]
            }
            guard answers else { return try listTargets(modulation: search.modulation, row: search.row, limit: most) }
        }
        return try searchAfter(search.found, modulation: search.modulation, row: search.row, limit: most)
    }

    /// A failed InAutoPoll: `[]` (aborted, or a frame lost on the line), nil once the reader has
    /// refused the command ``LibNFCAutoPoll/refusalsBeforeFallback`` times in a row, or the error
    /// that lost the reader.
    private func autoPollFailed(_ result: Int32) throws(NFCError) -> [Target]? {
        let code = LibNFCErrorCode(rawValue: result)
        if result == NFC_EOPABORTED {
            if token.isCancelled { throw .userCanceled }
            _ = control.takePollAbort()
            return []
        }
        if code.meansReaderGone { throw code.nfcError(connstring: connstring, call: "InAutoPoll (pn53x_transceive)") }
        if result == NFC_EDEVNOTSUPP {
            autoPollSupport = .refused
            return nil
        }
        do {
            try checkAnswers(after: result, call: "InAutoPoll (pn53x_transceive)")
        } catch {
            // NFC_EIO and then a probe the chip answered: its error frame (UM0701-02 §6.2.1.5,
            // "syntax error") for a command it does not have — or a frame garbled on the line.
            guard case .rfError = error, code.isIOError, case let .untried(refusals) = autoPollSupport else { throw error }
            if refusals + 1 >= LibNFCAutoPoll.refusalsBeforeFallback {
                autoPollSupport = .refused
                return nil
            }
            autoPollSupport = .untried(refusals: refusals + 1)
        }
        return []
    }
}
