/// Dumps an NFC Forum Type 4 Tag: the CC and NDEF files (reference notes coreextendednfc.md §3.6).
public enum Type4Dump {
    /// Reads the CC and the NDEF file. Files: "Capability Container" (E103, the CC re-encoded from its
    /// fields) and "NDEF File" (NLEN + message; ENLEN + message for a mapping 3.0 extended file).
    /// Facts: Mapping Version, MLe, MLc, NDEF File ID,
    /// NDEF Bytes, Write Access. Checks for cancellation between the files.
    public static func dump(info: CardInfo, transport: any APDUTransport) async throws -> TagDump {
        try Task.checkCancellation()
        let cc = try await Type4NDEF.readCapabilityContainer(transport: transport)
        try Task.checkCancellation()
        let message = try await Type4NDEF.read(transport: transport, capabilityContainer: cc)
        let nlen = cc.lengthField(message.count)
        return TagDump(
            cardInfo: info,
            files: [
                FileData(identifier: Type4NDEF.capabilityContainerFileID, data: cc.bytes, name: "Capability Container"),
                FileData(identifier: cc.ndefFileID, data: nlen + message, name: "NDEF File"),
            ],
            ndefMessage: message.isEmpty ? nil : message,
            facts: [
                Fact(key: "Mapping Version", value: "0x" + cc.mappingVersion.hexString, monospaced: true),
                Fact(key: "MLe", value: "\(cc.mle) bytes"),
                Fact(key: "MLc", value: "\(cc.mlc) bytes"),
                Fact(key: "NDEF File ID", value: cc.ndefFileID.hexString, monospaced: true),
                Fact(key: "NDEF Bytes", value: "\(message.count)"),
                Fact(key: "Write Access", value: cc.isWritable ? "Writable" : "Read-only"),
            ],
            capabilities: cc.isWritable ? [.readable, .writable] : [.readable],
            family: .type4(ndefWritable: cc.isWritable))
    }
}
