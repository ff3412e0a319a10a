/// Facts about the NFCBridge agent library.
public enum NFCBridgeAgent {
    /// The agent's version, published in `<base>/<id>/info`.
    public static let version = "0.1.0"
}
