import CNFC

/// Facts about the libnfc library this process is linked against.
public enum LibNFC {
    /// libnfc's version string (`nfc_version()`), e.g. "1.8.0".
    public static var version: String { String(cString: nfc_version()) }
}
