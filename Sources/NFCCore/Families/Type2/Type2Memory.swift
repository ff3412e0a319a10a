/// One Type 2 tag's memory as one operation sees it: the pages known so far, how more are read, and
/// the pages written — the one page reader of the Type 2 family (nfcpy's `Type2TagMemoryReader` idea).
/// ``Type2Dump``, ``Type2NDEFReader``, ``Type2NDEFWriter``, ``Type2Format`` and ``Type2Lock`` all read
/// and write through it, so they find the same pages and stop at the same protected page.
///
/// Reading (``read(_:fresh:)``): pages already known are not asked again. Missing pages are fetched in
/// contiguous runs with FAST_READ where the product has it (NTAG213/215/216 §10.3: exactly the pages
/// asked, refused as a whole when one of them is protected), in chunks of at most
/// ``Type2Dump/maxFastReadPages`` pages (a PN53x answer holds about 262 bytes), and with READ otherwise
/// or where a FAST_READ chunk did not come back whole.
///
/// The READ roll-over rule (NTAG213/215/216 §10.2, MF0ULX1 §9.2, MF0ICU2 §9.2): READ answers four pages
/// from its start page and rolls over to page 0 at the end of the memory READ can address, and — while
/// reads are protected and no password was given — at AUTH0. The start page is always what it says. The
/// three after it are kept in order until the first one that may be a roll-over copy: past the readable
/// memory, at or past a protected page already found, equal to page 0 (UID0–2, BCC0; a real page that
/// happens to equal page 0 is just read again as the start of its own READ), or — on a product with
/// password protection whose page 0 is not known — any of them.
///
/// Refusals: the tag goes IDLE after a NAK (NTAG213/215/216 §9.3) and is re-selected at once. A refused
/// page is ``NFCError/authenticationRequired`` on a product with password protection (NTAG213/215/216
/// §8.8, MF0ICU2 §7.5.8) before a password was given, ``NFCError/commandRefused(command:nak:)``
/// otherwise; no answer is ``NFCError/timeout``. When the refused page directly follows pages that were
/// read (or is page 0), it is the first protected page: ``refusedFrom`` keeps it, and it is the page the
/// dump reports, the NDEF read and the write stop at.
///
/// Writing: ``write(page:data:)`` sends one WRITE and records it; ``writeChanged(page:data:)`` only
/// when the page differs from what is known (write-back of changed pages only). Used by one task at a time.
final class Type2Memory {
    let transport: any TagTransport
    let product: Type2Product
    let map: Type2MemoryMap
    /// The UID the tag was selected with.
    let uid: [UInt8]
    /// Content known for each page: read from the tag, or written and ACKed.
    private(set) var known: [Int: [UInt8]] = [:]
    /// Pages whose WRITE was ACKed, in first-write order.
    private(set) var pagesWritten: [Int] = []
    /// WRITE commands ACKed (a page written twice counts twice).
    private(set) var writeCount = 0
    private(set) var isAuthenticated = false
    /// The first page the tag refused to READ right after readable pages (or page 0): where protected
    /// memory starts for a reader without the password.
    private(set) var refusedFrom: Int?
    /// Mirrors every page read into a dump's progress record.
    var progress: Type2Dump.Progress?

    /// The memory of the Type 2 tag `info` describes, with the product row ``Type2Product/forCardInfo(_:)``
    /// finds for it — the one way from a ``CardInfo`` to a row that dump, NDEF read, write, format and lock
    /// share; ``NFCError/tagNotSupported`` when it is not a Type 2 tag.
    init(transport: any TagTransport, info: CardInfo) throws(NFCError) {
        guard let product = Type2Product.forCardInfo(info) else { throw .tagNotSupported }
        self.transport = transport
        self.product = product
        self.map = product.map
        self.uid = info.uid
    }

    // MARK: Opening

    /// Authenticates with `password` when one is given, then reads pages 0–3 (serial number, lock bytes,
    /// CC), and on to `lastPage` in the same run when the caller knows it needs them (a writer: the pages
    /// it will write). A refused page beyond 3 is left to the caller's own read of it (it is where the
    /// caller's checks stop, with their error); pages 0–3 must be read.
    @discardableResult
    func open(password: [UInt8]?, through lastPage: Int = 3) async throws -> [UInt8] {
        if let password { try await authenticate(password: password) }
        if lastPage > 3 {
            do {
                try await read(Array(0...lastPage))
            } catch NFCError.authenticationRequired, NFCError.commandRefused {
                // Read protection from a page after 3 (AUTH0 with PROT): the checks read up to it again.
            }
        }
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

    /// Records an authentication the caller made on ``transport`` (``Type2KeyedRead``): the protected
    /// pages are readable from now on, and no page is taken for the protection boundary any more.
    func unlock() {
        isAuthenticated = true
        refusedFrom = nil
    }

    /// The capability container (page 3), read if not known yet.
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

    /// The bytes of `pages`, in order, read where not known yet.
    func bytes(_ pages: ClosedRange<Int>) async throws -> [UInt8] {
        try await read(Array(pages))
        var bytes: [UInt8] = []
        for number in pages { bytes += known[number] ?? [] }
        return bytes
    }

    /// Tag memory from page 0 up to the first page not known from page 4 on, for a TLV walk: the one
    /// rule of ``NFCForumTLV/memory(from:)`` (header pages 0–3 not read are zeros).
    var contiguousMemory: [UInt8] { NFCForumTLV.memory(from: pages) }

    /// Walks the TLVs of the data area up to `end` (a byte offset from page 0) with the one walker
    /// (``NFCForumTLV/scan(memory:start:end:controlTLVs:)``), reading the pages the walk asks for, until
    /// `isDone` accepts the scan or the walk needs no more memory. Each round reads the pages up to the
    /// one the walk needs and at least `readAhead` more, never past the last data page. A walk that asks
    /// for no new page, or for one past the data area, throws ``NFCError/invalidResponse(_:)`` (so the
    /// loop always ends); read errors are thrown as ``read(_:fresh:fastRead:)`` throws them.
    func scanTLVs(end: Int, readAhead: Int = 0,
                  until isDone: (NFCForumTLV.Scan) -> Bool = { _ in false }) async throws -> NFCForumTLV.Scan {
        let lastPage = (end - 1) / 4
        while true {
            let memory = contiguousMemory
            let scan = NFCForumTLV.scan(memory: memory, end: end)
            if isDone(scan) { return scan }
            guard case let .needsMemory(upTo) = scan.outcome else { return scan }
            let nextPage = memory.count / 4
            let needed = (upTo - 1) / 4
            guard needed >= nextPage, needed <= lastPage else { throw NFCError.invalidResponse([]) }
            try await read(Array(nextPage...min(max(needed, nextPage + readAhead), lastPage)))
        }
    }

    /// The pages known, in page order.
    var pages: [Page] { known.keys.sorted().compactMap { number in known[number].map { Page(number: number, data: $0) } } }

    /// Reads the pages of `numbers` not known yet (all of them when `fresh`), in contiguous runs (see the
    /// type's notes for the command choice, the roll-over rule and the errors). `fastRead: false` reads
    /// with READ only, for a first look that wants the four pages of one READ.
    func read(_ numbers: [Int], fresh: Bool = false, fastRead: Bool = true) async throws {
        let wanted = Set(numbers.filter { fresh || known[$0] == nil })
        fetched = []
        for run in Self.runs(of: wanted.sorted()) {
            try await read(run: run, wanted: wanted, fastRead: fastRead && product.features.contains(.fastRead))
        }
    }

    /// Pages stored by the current ``read(_:fresh:fastRead:)`` (so a READ's extra pages are not asked again).
    private var fetched: Set<Int> = []

    private func read(run: ClosedRange<Int>, wanted: Set<Int>, fastRead useFastRead: Bool) async throws {
        var next = run.lowerBound
        while true {
            while next <= run.upperBound, fetched.contains(next) { next += 1 }
            guard next <= run.upperBound else { return }
            let last = min(run.upperBound, next + Type2Dump.maxFastReadPages - 1)
            if useFastRead, try await fastRead(next...last) {
                next = last + 1
                continue
            }
            // READ walk over the chunk (no FAST_READ, or the chunk did not come back whole).
            while next <= last {
                try await readStep(at: next, wanted: wanted)
                while next <= last, fetched.contains(next) { next += 1 }
            }
        }
    }

    /// One FAST_READ of `pages`; false when the tag did not give them all (it is then re-selected).
    private func fastRead(_ pages: ClosedRange<Int>) async throws -> Bool {
        try Task.checkCancellation()
        let command = Type2Command.fastRead(start: UInt8(clamping: pages.lowerBound), end: UInt8(clamping: pages.upperBound))
        guard case let .answered(bytes) = try await command.probe(via: transport), bytes.count >= pages.count * 4 else {
            return false
        }
        store(bytes, from: pages.lowerBound, count: pages.count)
        return true
    }

    /// One READ at `first`: stores it and the pages after it that the roll-over rule trusts (pages known
    /// already are kept as they are unless this read wants them fresh).
    private func readStep(at first: Int, wanted: Set<Int>) async throws {
        try Task.checkCancellation()
        let result = try await Type2Command.read(page: UInt8(clamping: first)).probe(via: transport)
        guard case let .answered(bytes) = result else {
            if first == 0 || known[first - 1] != nil, !isAuthenticated { refusedFrom = first }
            if case .noAnswer = result { throw NFCError.timeout }
            throw refusal(command: 0x30)
        }
        guard bytes.count >= 16 else { throw NFCError.invalidResponse(bytes) }
        store(bytes, from: first, count: 1)
        for index in 1..<4 {
            let number = first + index
            let content = Array(bytes[index * 4..<index * 4 + 4])
            guard trusts(page: number, content: content) else { break }
            if known[number] == nil || (wanted.contains(number) && !fetched.contains(number)) {
                store(content, from: number, count: 1)
            }
        }
    }

    /// The roll-over rule for page `number` of a READ answer that did not start there.
    private func trusts(page number: Int, content: [UInt8]) -> Bool {
        if number >= map.readablePages { return false }
        if let refusedFrom, number >= refusedFrom { return false }
        let pageZero = known[0] ?? (uid.count == 7 ? Array(uid.prefix(3)) + [ISO14443.bcc([0x88] + uid.prefix(3))] : nil)
        guard let pageZero else { return map.protection == .none || isAuthenticated }
        return content != pageZero
    }

    private func refusal(command: UInt8) -> NFCError {
        map.protection != .none && !isAuthenticated ? .authenticationRequired : .commandRefused(command: command, nak: nil)
    }

    private func store(_ data: [UInt8], from first: Int, count: Int) {
        for index in 0..<count {
            let offset = index * 4
            guard offset + 4 <= data.count else { break }
            known[first + index] = Array(data[offset..<offset + 4])
            fetched.insert(first + index)
        }
        progress?.update(pages)
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

    /// Throws ``NFCError/authenticationRequired`` when some of `pages` sit at or above AUTH0 and no
    /// password was given (NTAG213/215/216 §8.8, MF0ULX1 §8.8, MF0ICU2 §7.5.8: AUTH0 guards writes from
    /// that page on, PROT / AUTH1 reads too). The pages to write are read first: a refused one is the
    /// protected page the write stops at (the page a dump and an NDEF read of the tag stop at too). Then
    /// AUTH0 comes from its configuration page; when that page is itself read-protected, reads are
    /// protected from AUTH0 on, so pages the tag let be read all lie below AUTH0.
    func requireWriteAccess(to pages: [Int]) async throws {
        guard !isAuthenticated, let auth0Page = map.auth0Offset.map({ $0 / 4 }), let highest = pages.max() else { return }
        // The pages to write first (the write needs them anyway): a refused one stops the write at it.
        try await read(pages)
        let configuration: [UInt8]
        do {
            configuration = try await page(auth0Page)
        } catch NFCError.authenticationRequired {
            // Reads are protected from AUTH0 on and every page to write was readable: all lie below AUTH0.
            return
        }
        if let first = map.firstWriteProtectedPage(auth0PageContent: configuration), highest >= first {
            throw NFCError.authenticationRequired
        }
    }

    /// Throws as a READ of the first protected page found (``refusedFrom``) does when one of `pages`
    /// lies at or beyond it and no password was given, without asking the tag again.
    func requireReadable(_ pages: [Int]) throws {
        guard !isAuthenticated, let refusedFrom, pages.contains(where: { $0 >= refusedFrom }) else { return }
        throw refusal(command: 0x30)
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
    /// what it gets), so a later read fetches what the tag really holds, and for PWD and PACK (they read
    /// back as zeros, and a password must never sit in what a dump or a report shows).
    func write(page: Int, data: [UInt8]) async throws {
        try Task.checkCancellation()
        try await Type2Command.write(page: page, data: data, to: transport)
        writeCount += 1
        if !pagesWritten.contains(page) { pagesWritten.append(page) }
        let unknownAfterWrite = [2, 3, map.dynamicLockPage, map.passwordPage, map.packPage].contains(page)
        known[page] = unknownAfterWrite ? nil : data
    }

    /// The first WRITE of an operation, to the highest of the pages in `guarded` (the pages it will
    /// change): AUTH0 protects every page from AUTH0 on (NTAG213/215/216 §8.8.1, MF0ULX1 §8.8.1,
    /// MF0ICU2 §7.5.8), so this WRITE's ACK says none of them needs the password, without reading the
    /// AUTH0 page. A NAK writes nothing and leaves the tag IDLE (NTAG213/215/216 §9.3): the tag is
    /// re-selected and the AUTH0 page read, and a protected page is ``NFCError/authenticationRequired``
    /// as ``requireWriteAccess(to:)`` finds it; otherwise the WRITE's own error.
    func writeFirst(page: Int, data: [UInt8], guarding guarded: [Int]) async throws {
        do {
            try await write(page: page, data: data)
        } catch NFCError.writeFailed(let refused) where pagesWritten.isEmpty {
            try await transport.reselect()
            try await requireWriteAccess(to: guarded)
            throw NFCError.writeFailed(page: refused)
        }
    }

    /// WRITEs `page` only when `data` differs from what is known of it (write-back of changed pages).
    func writeChanged(page: Int, data: [UInt8]) async throws {
        guard known[page] != data else { return }
        try await write(page: page, data: data)
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
