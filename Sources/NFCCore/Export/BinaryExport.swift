/// Raw binary export: the dump's bytes concatenated, nothing added.
extension TagDump {
    /// The first non-empty of: pages sorted by number, blocks sorted by number, files sorted by
    /// identifier bytes, the NDEF message; else no bytes. Missing pages or blocks are not filled in
    /// (use ``exportLibNFCMFD()`` for a fixed-offset page image).
    public func exportBinary() -> [UInt8] {
        if !pages.isEmpty { return pages.sorted { $0.number < $1.number }.flatMap(\.data) }
        if !blocks.isEmpty { return blocks.sorted { $0.number < $1.number }.flatMap(\.data) }
        if !files.isEmpty {
            return files.sorted { $0.identifier.lexicographicallyPrecedes($1.identifier) }.flatMap(\.data)
        }
        return ndefMessage ?? []
    }
}
