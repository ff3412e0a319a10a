/// libnfc MFD import for Type 2 tags, typed by file size.
extension TagDump {
    /// Reads a libnfc MFD file of a Type 2 tag (see ``Type2FileIdentity/mfdSizes`` for the sizes accepted).
    ///
    /// The size decides the type (80 and 164 bytes are read as Ultralight EV1, as `nfc-mfultralight`
    /// names them; an NTAG210/212 is told apart only by its GET_VERSION, which MFD files do not hold).
    /// - Throws: ``NFCError/malformedDump(_:)`` for any other size.
    public static func importLibNFCMFD(_ bytes: [UInt8]) throws -> TagDump {
        guard Type2FileIdentity.mfdSizes.contains(bytes.count) else {
            let sizes = Type2FileIdentity.mfdSizes.sorted().map(String.init).joined(separator: ", ")
            throw NFCError.malformedDump("\(bytes.count) bytes is not the size of a Type 2 MFD file (\(sizes))")
        }
        var payload = bytes
        var signature: [UInt8]?
        if let extra = AmiiboImage.trailingSignatureLength(forFileSize: bytes.count) {
            signature = Array(payload.suffix(extra))
            payload.removeLast(extra)
        }
        var dump = try TagDump.importType2Pages(payload, version: nil, source: "libnfc MFD")
        dump.type2?.signature = signature.flatMap(nonZero)
        return dump
    }
}
