/// Making a Type 4 Tag read-only (reference notes coreextendednfc.md §5.4).
extension Type4NDEF {
    /// The CC's write access byte can only be changed with vendor commands (DESFire / NTAG 424
    /// ChangeFileSettings, ST25TA proprietary commands), which a generic Type 4 reader cannot send.
    /// Succeeds without writing when the CC already says read-only; otherwise throws
    /// ``NFCError/unsupportedOperation(_:)``.
    public static func lock(transport: any APDUTransport) async throws {
        let cc = try await readCapabilityContainer(transport: transport)
        guard cc.isWritable else { return }
        throw NFCError.unsupportedOperation(
            "A Type 4 tag's write access can only be changed with the chip vendor's commands")
    }
}
