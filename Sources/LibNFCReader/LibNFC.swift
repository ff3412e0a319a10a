import CNFC

/// Facts about the libnfc library this process is linked against, and the devices it knows.
public enum LibNFC {
    /// libnfc's version string (`nfc_version()`), e.g. "1.8.0".
    public static var version: String { String(cString: nfc_version()) }

    /// The most devices ``connstrings(limit:)`` asks libnfc for by default.
    public static let defaultDeviceLimit = 16

    /// The connstrings of the devices libnfc knows: user-defined ones first (`LIBNFC_DEVICE`, or
    /// `LIBNFC_DEFAULT_DEVICE` plus libnfc.conf and devices.d), then those found by autoscan
    /// (`LIBNFC_AUTO_SCAN=false` turns it off). Devices marked `optional` are only listed when they
    /// answer; the others are listed without being opened. Runs on its own thread.
    /// Wraps `nfc_init`, `nfc_list_devices`, `nfc_exit`.
    public static func connstrings(limit: Int = defaultDeviceLimit) async throws -> [String] {
        let thread = LibNFCThread(libNFCName: "libnfc-list")
        defer { thread.stop() }
        return try await thread.run { listConnstrings(limit: max(1, limit)) }
    }

    private static func listConnstrings(limit: Int) -> [String] {
        var contextPointer: OpaquePointer?
        nfc_init(&contextPointer)
        guard let context = contextPointer else { return [] }
        defer { nfc_exit(context) }
        let buffer = UnsafeMutablePointer<nfc_connstring>.allocate(capacity: limit)
        defer { buffer.deallocate() }
        let count = min(nfc_list_devices(context, buffer, limit), limit)
        var result: [String] = []
        for index in 0..<count {
            let text = withUnsafeBytes(of: &buffer[index]) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !text.isEmpty && !result.contains(text) { result.append(text) }
        }
        return result
    }
}
