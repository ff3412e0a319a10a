/// One write, format or lock on one Type 2 tag: the pages known so far, the pages written, and the
/// checks every changing operation makes before its first WRITE (password, AUTH0, lock bits).
///
/// Reads use FAST_READ ranges where the product has the command (at most ``Type2Dump/maxFastReadPages``
/// a frame, so a PN53x answer fits), READ otherwise. Every WRITE that the tag ACKs is recorded in ``pagesWritten``,
/// which is what a caller learns when the operation fails half-way. Used by one task at a time.
final class Type2PageSession {
    let transport: any TagTransport
    let product: Type2Product
    let map: Type2MemoryMap
    /// Content known for each page: read from the tag, or written and ACKed.
    private(set) var known: [Int: [UInt8]] = [:]
    /// Pages whose WRITE was ACKed, in first-write order.
    private(set) var pagesWritten: [Int] = []
    /// WRITE commands ACKed (a page written twice counts twice).
    private(set) var writeCount = 0
    private(set) var isAuthenticated = false

    init(transport: any TagTransport, product: Type2Product, map: Type2MemoryMap) {
        self.transport = transport
        self.product = product
        self.map = map
    }

    /// The session for the Type 2 tag `info` describes; ``NFCError/tagNotSupported`` when it is not one.
    convenience init(transport: any TagTransport, info: CardInfo) throws(NFCError) {
        guard let product = Type2Product.forCardInfo(info), let map = product.memoryMap else { throw .tagNotSupported }
        self.init(transport: transport, product: product, map: map)
    }

    // MARK: Opening

    /// Authenticates with `password` when one is given, then reads pages 0–3 (serial number, lock bytes,
    /// CC).
    @discardableResult
    func open(password: [UInt8]?) async throws -> [UInt8] {
        if let password { try await authenticate(password: password) }
        return try await bytes(0...3)
    }

    /// PWD_AUTH (NTAG21x, Ultralight EV1, NTAG210/212). A wrong password throws
    /// ``NFCError/authenticationFailed``; products without PWD_AUTH (Ultralight C uses 3DES, which is
    /// not supported here) throw ``NFCError/unsupportedOperation(_:)``.
    func authenticate(password: [UInt8]) async throws {
        guard product.features.contains(.pwdAuth) else {
            throw NFCError.unsupportedOperation("\(product.name) has no PWD_AUTH password; the password cannot be used")
        }
        _ = try await Type2Command.pwdAuth(password: password, on: transport)
        isAuthenticated = true
    }

    /// The capability container (page 3) as read by ``open(password:)``.
    func capabilityContainer() async throws -> Type2CapabilityContainer {
        guard let cc = Type2CapabilityContainer(bytes: try await page(3)) else { throw NFCError.invalidResponse([]) }
        return cc
    }

    // MARK: Reading

    /// The content of `number`, read if not known yet.
    func page(_ number: Int) async throws -> [UInt8] {
        try await read([number])
        guard let content = known[number] else { throw NFCError.invalidResponse([]) }
        return content
    }

    /// The bytes of `pages`, in order.
    func bytes(_ pages: ClosedRange<Int>) async throws -> [UInt8] {
        try await read(Array(pages))
        var bytes: [UInt8] = []
        for number in pages { bytes += known[number] ?? [] }
        return bytes
    }

    /// Reads the pages of `numbers` not known yet (all of them when `fresh`), in contiguous runs.
    ///
    /// A READ the tag refuses before any password was given, on a product with password protection,
    /// means the pages are read-protected (PROT / AUTH1): ``NFCError/authenticationRequired``, after a
    /// re-select so the tag answers again.
    func read(_ numbers: [Int], fresh: Bool = false) async throws {
        do {
            try await readRuns(numbers, fresh: fresh)
        } catch NFCError.commandRefused where !isAuthenticated && hasPasswordProtection {
            try? await transport.reselect()
            throw NFCError.authenticationRequired
        }
    }

    private func readRuns(_ numbers: [Int], fresh: Bool) async throws {
        let wanted = Set(numbers.filter { fresh || known[$0] == nil }).sorted()
        for run in Self.runs(of: wanted) {
            var next = run.lowerBound
            while next <= run.upperBound {
                try Task.checkCancellation()
                if product.features.contains(.fastRead) {
                    let last = min(run.upperBound, next + Type2Dump.maxFastReadPages - 1)
                    let data = try await Type2Command.fastRead(pages: next...last, from: transport)
                    store(data, from: next, through: last)
                    next = last + 1
                } else {
                    // READ answers four pages; the ones past the run may have rolled over, so they are dropped.
                    let data = try await Type2Command.read(page: next, from: transport)
                    let last = min(run.upperBound, next + 3)
                    store(data, from: next, through: last)
                    next = last + 1
                }
            }
        }
    }

    private func store(_ data: [UInt8], from first: Int, through last: Int) {
        for number in first...last {
            let offset = (number - first) * 4
            guard offset + 4 <= data.count else { return }
            known[number] = Array(data[offset..<offset + 4])
        }
    }

    static func runs(of sorted: [Int]) -> [ClosedRange<Int>] {
        var runs: [ClosedRange<Int>] = []
        for number in sorted {
            if let last = runs.last, last.upperBound + 1 == number {
                runs[runs.count - 1] = last.lowerBound...number
            } else {
                runs.append(number...number)
            }
        }
        return runs
    }

    // MARK: Checks before writing

    /// True when the product can protect pages with a password (AUTH0).
    var hasPasswordProtection: Bool { map.auth0Offset != nil }

    /// Throws ``NFCError/authenticationRequired`` when some of `pages` sit at or above AUTH0 and no
    /// password was given. AUTH0 is byte 3 of CFG0 (off at or beyond the last page) on EV1/NTAG21x, byte 0
    /// of page 42 (off from 30h) on Ultralight C (MF0ULX1 §8.5.7, NTAG213/215/216 §8.5.7, MF0ICU2 §7.5.8).
    /// A configuration page that cannot be read is itself behind the password (see ``read(_:fresh:)``).
    func requireWriteAccess(to pages: [Int]) async throws {
        guard !isAuthenticated, let offset = map.auth0Offset, let highest = pages.max() else { return }
        let configuration = try await page(offset / 4)
        let auth0 = Int(configuration[offset % 4])
        if map.isProtectionOn(auth0: auth0), highest >= auth0 { throw NFCError.authenticationRequired }
    }

    /// Throws ``NFCError/tagLocked`` when a static or dynamic lock bit makes one of `pages` read-only.
    func requireUnlocked(_ pages: [Int]) async throws {
        guard let highest = pages.max() else { return }
        let dynamicPage = map.dynamicLockPage.flatMap { pages.contains { $0 >= 16 } ? $0 : nil }
        try await read([2] + (dynamicPage.map { [$0] } ?? []))
        let memory = lockMemory(through: highest)
        if pages.contains(where: { Type2LockMap.isLocked(page: $0, type: product.cardType, memory: memory) }) {
            throw NFCError.tagLocked
        }
    }

    /// Memory from page 0 with only the lock pages filled in, for ``Type2LockMap``.
    func lockMemory(through page: Int) -> [UInt8] {
        let size = (max(page, map.dynamicLockPage ?? 0, 3) + 1) * 4
        var memory = [UInt8](repeating: 0, count: size)
        for number in [2, map.dynamicLockPage].compactMap({ $0 }) {
            guard let content = known[number] else { continue }
            memory.replaceSubrange(number * 4..<number * 4 + 4, with: content)
        }
        return memory
    }

    // MARK: Writing

    /// WRITEs one page and records it. The content stays unknown for the OTP and lock pages (the tag ORs
    /// what it gets), so a later read fetches what the tag really holds.
    func write(page: Int, data: [UInt8]) async throws {
        try Task.checkCancellation()
        try await Type2Command.write(page: page, data: data, to: transport)
        writeCount += 1
        if !pagesWritten.contains(page) { pagesWritten.append(page) }
        known[page] = page == 2 || page == 3 || page == map.dynamicLockPage ? nil : data
    }

    /// Reads `expected`'s pages back from the tag and throws ``NFCError/verifyFailed(page:)`` with the
    /// first page that differs.
    func verify(_ expected: [Int: [UInt8]]) async throws {
        try await read(Array(expected.keys), fresh: true)
        for number in expected.keys.sorted() where known[number] != expected[number] {
            throw NFCError.verifyFailed(page: number)
        }
    }
}
