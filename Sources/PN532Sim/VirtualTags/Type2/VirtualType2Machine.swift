import struct NFCCore.Target

/// The state and command handlers behind ``VirtualType2Tag`` (guarded by its lock). Every rule comes
/// from the model's ``VirtualType2Product`` row and ``VirtualType2StaticLock``.
struct VirtualType2Machine {
    let model: VirtualType2Model
    let product: VirtualType2Product
    /// Configuration, protection and dynamic locks; nil for a custom model without a matching map.
    let map: VirtualType2Layout?
    let target: Target
    var memory: [UInt8]
    var signature: [UInt8]
    var counters: [UInt32] = [0, 0, 0]
    var tearingFlags: [UInt8] = [0xBD, 0xBD, 0xBD]

    /// ACTIVE (answers frames) vs IDLE/HALT (silent until activated).
    var active = false
    var authenticated = false
    /// Page of a COMPATIBILITY_WRITE whose data frame is awaited.
    var pendingCompatibilityWrite: Int?
    var corruptNextWrite = false
    var failWritesFromPage: Int?
    /// Ultralight C AUTHENTICATE between its two frames: RndB and ek(RndB), the IV of the next decryption.
    var pendingAuthentication: (rndB: [UInt8], challenge: [UInt8])?
    /// Fixture hook: the RndB the next Ultralight C AUTHENTICATE uses (then random again).
    var pinnedChallenge: [UInt8]?

    init(model: VirtualType2Model, uid: [UInt8], atqa: [UInt8], sak: UInt8) {
        self.model = model
        product = model.product
        map = model.memoryMap
        target = Target(modulation: .iso14443a, uid: uid, atqa: atqa, sak: sak)
        memory = VirtualType2FactoryImage.memory(model: model, uid: uid)
        signature = (0..<product.signatureLength).map { index in
            uid.isEmpty ? UInt8(truncatingIfNeeded: index) : uid[index % uid.count] ^ UInt8(truncatingIfNeeded: index)
        }
    }

    // MARK: Life cycle

    mutating func activate() { resetSession(active: true) }

    mutating func powerOff() { resetSession(active: false) }

    /// Enters ACTIVE (`true`) or IDLE/HALT (`false`); either way authentication and any started
    /// two-frame command are lost.
    private mutating func resetSession(active: Bool) {
        self.active = active
        authenticated = false
        pendingCompatibilityWrite = nil
        pendingAuthentication = nil
    }

    mutating func replaceMemory(_ bytes: [UInt8]) {
        let size = model.totalPages * 4
        memory = Array((bytes + [UInt8](repeating: 0, count: max(0, size - bytes.count))).prefix(size))
    }

    mutating func store(_ bytes: [UInt8], at offset: Int) {
        for (index, byte) in bytes.enumerated() where memory.indices.contains(offset + index) {
            memory[offset + index] = byte
        }
    }

    // MARK: Dispatch

    /// Command byte → (frame length, handler). Flipper's listener table in Swift.
    private static let handlers:
        [UInt8: (length: Int, handle: @Sendable (inout VirtualType2Machine, [UInt8]) -> VirtualTagReply)] = [
        0x30: (2, { $0.read($1) }),
        0x3A: (3, { $0.fastRead($1) }),
        0xA2: (6, { $0.write($1) }),
        0xA0: (2, { $0.compatibilityWriteAddress($1) }),
        0x60: (1, { machine, _ in machine.getVersion() }),
        0x3C: (2, { machine, _ in machine.readSignature() }),
        0x39: (2, { $0.readCounter($1) }),
        0x3E: (2, { $0.checkTearingEvent($1) }),
        0xA5: (6, { $0.incrementCounter($1) }),
        0x4B: (21, { machine, _ in machine.virtualCardSelect() }),
        0x1B: (5, { $0.pwdAuth($1) }),
        0x1A: (2, { $0.authenticateStart($1) }),
        0xAF: (17, { $0.authenticateFinish($1) }),
        0x50: (2, { machine, _ in machine.halt() }),
    ]

    mutating func receive(_ frame: [UInt8]) -> VirtualTagReply {
        guard active, let command = frame.first else { return .silent }
        // Any frame but the AUTHENTICATE continuation abandons a started authentication.
        if command != 0xAF { pendingAuthentication = nil }
        if let page = pendingCompatibilityWrite {
            pendingCompatibilityWrite = nil
            // MF0ICU1 §9.4: the second frame carries 16 bytes; the tag stores the first 4.
            guard frame.count == 16 else { return nak(0x0) }
            return performWrite(page: page, data: Array(frame.prefix(4)))
        }
        guard let entry = Self.handlers[command] else { return unsupported() }
        guard frame.count == entry.length else { return nak(0x0) }
        return entry.handle(&self, frame)
    }

    /// NAK and fall back to IDLE, losing authentication (MF0ULX1 §8.3: any NAK returns the tag to IDLE).
    private mutating func nak(_ code: UInt8) -> VirtualTagReply {
        resetSession(active: false)
        return .nak(code)
    }

    /// A command the product lacks: the row's ``VirtualType2Product/unsupportedAnswer`` (the original
    /// Ultralight stays silent, later products NAK); either way the tag goes IDLE.
    private mutating func unsupported() -> VirtualTagReply {
        switch product.unsupportedAnswer {
        case .silent:
            resetSession(active: false)
            return .silent
        case .nak:
            return nak(0x0)
        }
    }

    // MARK: Access rules

    /// Pages READ may address: the Ultralight C key pages (2Ch–2Fh) are outside (MF0ICU2 §9.2).
    private var accessibleEnd: Int { map?.readablePages ?? model.totalPages }

    /// AUTH0 as a page number, nil when protection is off (Ultralight C: AUTH0 ≥ 30h, MF0ICU2 §7.5.8).
    private var auth0: Int? {
        guard let map, let offset = map.auth0Offset, memory.indices.contains(offset) else { return nil }
        let value = Int(memory[offset])
        if case .tripleDES = map.protection { return value >= 0x30 ? nil : value }
        return value < map.totalPages ? value : nil
    }

    private var accessByte: UInt8 {
        guard let page = map?.accessPage, memory.indices.contains(page * 4) else { return 0 }
        return memory[page * 4]
    }

    /// Reads at or above AUTH0 need authentication: PROT = 1 (ACCESS bit 7) on EV1/NTAG21x, AUTH1 bit 0 = 0
    /// on Ultralight C.
    private var readProtected: Bool {
        guard auth0 != nil, let map else { return false }
        if case .tripleDES = map.protection { return accessByte & 0x01 == 0 }
        return accessByte & 0x80 != 0
    }

    /// Where READ rolls over: the end of accessible memory, or AUTH0 while reads are protected and the
    /// reader has not authenticated (MF0ICU2 §9.2, NTAG213/215/216 §10.2).
    private var readLimit: Int {
        if let auth0, readProtected, !authenticated { return min(auth0, accessibleEnd) }
        return accessibleEnd
    }

    private func page(_ number: Int) -> [UInt8] {
        // PWD and PACK always read back as 00h (NTAG213/215/216 §8.8.1).
        if number == map?.passwordPage || number == map?.packPage { return [0, 0, 0, 0] }
        let start = number * 4
        guard start >= 0, start + 4 <= memory.count else { return [0, 0, 0, 0] }
        return Array(memory[start..<start + 4])
    }

    // MARK: Handlers

    private mutating func read(_ frame: [UInt8]) -> VirtualTagReply {
        let start = Int(frame[1])
        let limit = readLimit
        guard start < limit, limit > 0 else { return nak(0x0) }
        return .data((0..<4).flatMap { page((start + $0) % limit) })
    }

    private mutating func fastRead(_ frame: [UInt8]) -> VirtualTagReply {
        guard product.features.contains(.fastRead) else { return unsupported() }
        let start = Int(frame[1])
        let end = Int(frame[2])
        // NAK for a reversed range, a range past the end, or one reaching into read-protected pages.
        guard start <= end, end < readLimit else { return nak(0x0) }
        return .data((start...end).flatMap { page($0) })
    }

    private mutating func write(_ frame: [UInt8]) -> VirtualTagReply {
        performWrite(page: Int(frame[1]), data: Array(frame[2..<6]))
    }

    private mutating func compatibilityWriteAddress(_ frame: [UInt8]) -> VirtualTagReply {
        let page = Int(frame[1])
        guard writeRefusal(page: page) == nil else { return nak(0x0) }
        pendingCompatibilityWrite = page
        return .ack
    }

    /// Why a WRITE to `page` is refused, or nil when it may go ahead.
    private func writeRefusal(page: Int) -> UInt8? {
        // Pages 0-1 hold the serial number; page 2 bytes 0-1 are read-only but its lock bytes are writable.
        guard page >= 2, page < model.totalPages else { return 0x0 }
        if let auth0, page >= auth0, !authenticated { return 0x0 }
        if case let .password(configPage, _, _) = map?.protection, accessByte & 0x40 != 0,
            page == configPage || page == configPage + 1
        {
            return 0x0  // CFGLCK: configuration locked for good.
        }
        if isLocked(page: page) { return 0x0 }
        if let failFrom = failWritesFromPage, page >= failFrom { return 0x5 }
        return nil
    }

    private mutating func performWrite(page: Int, data: [UInt8]) -> VirtualTagReply {
        if let code = writeRefusal(page: page) { return nak(code) }
        var data = data
        if corruptNextWrite {
            corruptNextWrite = false
            data[0] = ~data[0]
        }
        let offset = page * 4
        if page == 2 {
            let merged = VirtualType2StaticLock.merge(current: Array(memory[10..<12]), requested: Array(data[2..<4]))
            store(merged, at: 10)
        } else if page == 3 {
            // The CC page is OTP: bits can only be set (MF0ICU1 §8.5.3).
            store((0..<4).map { memory[offset + $0] | data[$0] }, at: offset)
        } else if page == map?.dynamicLockPage {
            // Dynamic lock bytes 0-2 are ORed; byte 3 is RFUI.
            store((0..<3).map { memory[offset + $0] | data[$0] }, at: offset)
        } else {
            store(data, at: offset)
        }
        return .ack
    }

    private mutating func getVersion() -> VirtualTagReply {
        guard product.features.contains(.getVersion), let version = model.version else { return unsupported() }
        return .data(version)
    }

    private mutating func readSignature() -> VirtualTagReply {
        guard product.features.contains(.readSignature) else { return unsupported() }
        return .data(signature)
    }

    private mutating func readCounter(_ frame: [UInt8]) -> VirtualTagReply {
        guard product.features.contains(.readCounter) else { return unsupported() }
        let counter = frame[1]
        guard product.counters.contains(counter), counter < 3 else { return nak(0x0) }
        if product.counterNeedsEnable {
            // NTAG21x: READ_CNT needs NFC_CNT_EN, and PWD_AUTH first when NFC_CNT_PWD_PROT is set (§10.6).
            guard map != nil, accessByte & 0x10 != 0 else { return nak(0x0) }
            guard accessByte & 0x08 == 0 || authenticated else { return nak(0x0) }
        }
        let value = counters[Int(counter)]
        return .data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)])
    }

    /// INCR_CNT (A5h, MF0ULX1 §10.7): `A5 addr i0 i1 i2 i3`, the increment least significant byte first, of
    /// which only i0–i2 count. ACK after adding; a sum above FFFFFFh is NAKed (4h, counter overflow in the
    /// NAK table, §9.3) and leaves the counter as it was; an increment of 0 is always accepted. A finished
    /// increment leaves the counter's tearing flag valid (BDh, §8.7).
    private mutating func incrementCounter(_ frame: [UInt8]) -> VirtualTagReply {
        guard product.features.contains(.incrementCounter) else { return unsupported() }
        let counter = frame[1]
        guard product.counters.contains(counter), counter < 3 else { return nak(0x0) }
        let increment = UInt32(frame[2]) | UInt32(frame[3]) << 8 | UInt32(frame[4]) << 16
        let (sum, overflow) = counters[Int(counter)].addingReportingOverflow(increment)
        guard !overflow, sum <= 0xFF_FFFF else { return nak(0x4) }
        counters[Int(counter)] = sum
        tearingFlags[Int(counter)] = 0xBD
        return .ack
    }

    /// VCSL (4Bh, MF0ULX1 §10.11): `4B IID(16) PCDCAPS(4)`; the tag checks only the length (a frame of
    /// another length is NAKed by the dispatcher) and answers VCTID, byte 1 of CFG1 (§8.5.7; 05h at
    /// delivery).
    private mutating func virtualCardSelect() -> VirtualTagReply {
        guard product.features.contains(.virtualCardSelect) else { return unsupported() }
        guard let page = map?.accessPage else { return .data([product.factoryCFG1.dropFirst().first ?? 0x00]) }
        return .data([memoryByte(page * 4 + 1)])
    }

    private mutating func checkTearingEvent(_ frame: [UInt8]) -> VirtualTagReply {
        guard product.features.contains(.checkTearingEvent) else { return unsupported() }
        let counter = frame[1]
        guard product.tearingCounters.contains(counter), counter < 3 else { return nak(0x0) }
        return .data([tearingFlags[Int(counter)]])
    }

    private mutating func pwdAuth(_ frame: [UInt8]) -> VirtualTagReply {
        guard product.features.contains(.pwdAuth), let map, let pwdPage = map.passwordPage,
            let packPage = map.packPage
        else { return unsupported() }
        let stored = Array(memory[pwdPage * 4..<pwdPage * 4 + 4])
        guard Array(frame[1..<5]) == stored else { return nak(0x0) }
        authenticated = true
        return .data(Array(memory[packPage * 4..<packPage * 4 + 2]))
    }

    /// Ultralight C AUTHENTICATE part 1 (1A 00, MF0ICU2 §9.5): AF ‖ ek(RndB), 2-key 3DES CBC from a zero
    /// IV, with the key from pages 2Ch–2Fh (stored with each half reversed, §7.5.7).
    private mutating func authenticateStart(_ frame: [UInt8]) -> VirtualTagReply {
        guard product.features.contains(.tripleDESAuthentication), let key = cipherKey else { return unsupported() }
        // Only key number 00 exists; a new attempt drops an earlier authentication.
        guard frame[1] == 0x00 else { return nak(0x0) }
        authenticated = false
        var random = SystemRandomNumberGenerator()
        let rndB = pinnedChallenge ?? withUnsafeBytes(of: random.next()) { Array($0) }
        pinnedChallenge = nil
        guard let challenge = SimulatedTripleDES.cbcEncrypt(key, iv: Self.zeroBlock, rndB) else {
            return nak(0x0)
        }
        pendingAuthentication = (rndB, challenge)
        return .data([0xAF] + challenge)
    }

    /// AUTHENTICATE part 2 (AF ‖ ek(RndA ‖ RndB')): checks RndB' and answers 00 ‖ ek(RndA'), each
    /// encryption chained on the last ciphertext block (MF0ICU2 §7.5.5). A wrong RndB' (wrong key) is
    /// NAKed and the tag goes IDLE.
    private mutating func authenticateFinish(_ frame: [UInt8]) -> VirtualTagReply {
        guard product.features.contains(.tripleDESAuthentication) else { return unsupported() }
        guard let pending = pendingAuthentication, let key = cipherKey else { return nak(0x0) }
        pendingAuthentication = nil
        let token = Array(frame[1...])
        guard let plain = SimulatedTripleDES.cbcDecrypt(key, iv: pending.challenge, token), plain.count == 16,
            Array(plain[8...]) == Self.rotatedLeft(pending.rndB)
        else { return nak(0x0) }
        let rndA = Array(plain[..<8])
        guard let proof = SimulatedTripleDES.cbcEncrypt(key, iv: Array(token.suffix(8)), Self.rotatedLeft(rndA))
        else { return nak(0x0) }
        authenticated = true
        return .data([0x00] + proof)
    }

    private static let zeroBlock = [UInt8](repeating: 0, count: 8)

    /// RndX': the 8 bytes rotated left by one byte (MF0ICU2 §7.5.5).
    private static func rotatedLeft(_ bytes: [UInt8]) -> [UInt8] {
        guard let first = bytes.first else { return bytes }
        return Array(bytes.dropFirst()) + [first]
    }

    /// Key pages ↔ cipher key (Key1 ‖ Key2): each 8-byte half is stored reversed, so key bytes
    /// 00 01 … 07 sit in pages 2Ch–2Dh as 07 06 05 04 | 03 02 01 00 (MF0ICU2 §7.5.7 Table 11). The same
    /// swap works both ways.
    static func swapKeyHalves(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count == 16 else { return nil }
        return Array(bytes[0..<8].reversed()) + Array(bytes[8..<16].reversed())
    }

    /// The 3DES key held in pages 2Ch–2Fh, in cipher order; nil without key pages.
    private var cipherKey: [UInt8]? {
        guard let keyPages = map?.keyPages, memory.count >= (keyPages.lowerBound + 4) * 4 else { return nil }
        let start = keyPages.lowerBound * 4
        return Self.swapKeyHalves(Array(memory[start..<start + 16]))
    }

    /// True when a static lock bit (pages 3–15) or one of the row's dynamic lock bits makes `page`
    /// read-only. Pages 0–2 are not covered: their writable bytes are the lock bytes themselves.
    private func isLocked(page: Int) -> Bool {
        if let (byte, bit) = VirtualType2StaticLock.bit(ofPage: page) { return memoryByte(2 * 4 + byte) & (1 << bit) != 0 }
        guard let map, let lockPage = map.dynamicLockPage else { return false }
        return product.dynamicLockBits.contains { entry in
            entry.pages.contains(page) && memoryByte(lockPage * 4 + entry.byte) & (1 << entry.bit) != 0
        }
    }

    private func memoryByte(_ index: Int) -> UInt8 { memory.indices.contains(index) ? memory[index] : 0 }

    /// HALT (50 00): silent, and HALT state until the next WUPA (ISO/IEC 14443-3 §6.3).
    private mutating func halt() -> VirtualTagReply {
        resetSession(active: false)
        return .silent
    }
}
