/// Dumps a FeliCa card (reference notes coreextendednfc.md §3.5, with the cyclic-service fix): the
/// Type 3 NDEF area, up to 4 blocks of every other keyless service found, and — for Lite / Lite-S —
/// every block of the memory map that can be read on its own.
public enum FeliCaDump {
    /// Blocks read per plain service (the spec: "up to 4 blocks per discovered plain service").
    static let blocksPerService = 4

    /// Reads what can be read without keys. Steps that fail are left out (a missing NDEF area or an
    /// unanswered REQUEST SERVICE is not an error); a tag that leaves the field or a cancelled task
    /// ends the dump with that error. Checks for cancellation between blocks.
    ///
    /// Blocks: the attribute block (0) and the NDEF data blocks as read (16 bytes each), or for the
    /// Lite family the whole readable memory map. Files: one per plain service with data, identifier =
    /// service code little-endian, name "<label> (<n> blocks)". Facts: System Code, Common Services,
    /// Detected Services, and with NDEF: NDEF Bytes, Max Read Blocks, Max Write Blocks, Read / Write;
    /// Plain Service Snapshots when any.
    public static func dump(info: CardInfo, transport: any TagTransport) async throws -> TagDump {
        let systemCode = info.systemCode ?? transport.target.systemCode
        let liteMap = FeliCaLiteMemoryMap.forType(info.type)
        let ndefPair = Array(FeliCaServiceCatalog.candidates(maxServiceNumber: 0).prefix(2))

        // The Lite family has exactly the two NDEF services (and the Lite answers no REQUEST SERVICE).
        let services = liteMap != nil ? ndefPair : try await probeServices(transport: transport)

        var blocks: [Block] = []
        var message: [UInt8]?
        var attribute: FeliCaAttributeInfo?
        if services.contains(where: { $0.code == FeliCaCommand.ndefReadService }) {
            do {
                let info = try await FeliCaType3.readAttributeInfo(transport: transport)
                attribute = info
                let area = try await FeliCaType3.readNDEFBlocks(attribute: info, transport: transport)
                blocks = [Block(number: 0, data: info.bytes)] + area.blocks
                message = area.message
            } catch where !isFatal(error) {
                // No usable NDEF area; the attribute (if read) still tells Nbr/Nbw/RW.
            }
        }

        if let liteMap {
            var memory: [Block] = []
            for entry in liteMap where entry.readable {
                try Task.checkCancellation()
                do {
                    let data = try await FeliCaCommand.read(blocks: [entry.number], service: FeliCaCommand.ndefReadService,
                                                            transport: transport)
                    memory.append(Block(number: entry.number, data: data[0]))
                } catch where !isFatal(error) {
                    continue
                }
            }
            if !memory.isEmpty { blocks = memory }
        }

        var files: [FileData] = []
        for service in services where service.code != FeliCaCommand.ndefReadService && service.code != FeliCaCommand.ndefWriteService {
            var data: [UInt8] = []
            var count = 0
            for block in 0..<blocksPerService {
                try Task.checkCancellation()
                do {
                    data += try await FeliCaCommand.read(blocks: [block], service: service.code, transport: transport)[0]
                    count += 1
                } catch where !isFatal(error) {
                    break
                }
            }
            if count > 0 {
                files.append(FileData(identifier: service.wireBytes, data: data, name: "\(service.label) (\(count) blocks)"))
            }
        }

        var facts = [
            Fact(key: "System Code", value: systemCode.hexString, monospaced: true),
            Fact(key: "Common Services", value: "\(services.count)"),
        ]
        if !services.isEmpty {
            var listed = services.prefix(4).map { "\($0.label) [\($0.wireBytes.hexString)]" }.joined(separator: ", ")
            if services.count > 4 { listed += ", +\(services.count - 4) more" }
            facts.append(Fact(key: "Detected Services", value: listed))
        }
        if let attribute, let message {
            facts += [
                Fact(key: "NDEF Bytes", value: "\(message.count)"),
                Fact(key: "Max Read Blocks", value: "\(attribute.nbr)"),
                Fact(key: "Max Write Blocks", value: "\(attribute.nbw)"),
                Fact(key: "Read / Write", value: attribute.isWritable ? "Read-write" : "Read-only"),
            ]
        }
        if !files.isEmpty { facts.append(Fact(key: "Plain Service Snapshots", value: "\(files.count)")) }

        var capabilities: [CardCapability] = []
        if message != nil || !files.isEmpty || !blocks.isEmpty { capabilities.append(.readable) }
        if message != nil, attribute?.isWritable == true { capabilities.append(.writable) }

        return TagDump(cardInfo: info, blocks: blocks, files: files, ndefMessage: message?.isEmpty == false ? message : nil,
                       facts: facts, capabilities: capabilities,
                       family: attribute.flatMap { attribute in message.map { _ in .felica(ndefWritable: attribute.isWritable) } } ?? .none)
    }

    /// REQUEST SERVICE over the catalogue, 32 codes per command. A card that does not answer gives an
    /// empty list.
    static func probeServices(transport: any TagTransport) async throws -> [FeliCaServiceCatalog.Service] {
        let candidates = FeliCaServiceCatalog.candidates()
        var found: [FeliCaServiceCatalog.Service] = []
        var start = 0
        while start < candidates.count {
            try Task.checkCancellation()
            let chunk = Array(candidates[start..<min(candidates.count, start + 32)])
            do {
                let versions = try await FeliCaCommand.requestService(chunk.map(\.code), transport: transport)
                found += zip(chunk, versions).compactMap { $1 == nil ? nil : $0 }
            } catch where !isFatal(error) {
                return found
            }
            start += 32
        }
        return found
    }

    /// Errors that end a dump instead of skipping a step.
    static func isFatal(_ error: any Error) -> Bool {
        if error.isNFCCancellation { return true }
        return (error as? NFCError) == .tagRemoved
    }
}
