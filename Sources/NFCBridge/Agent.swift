import NFCCore

/// The NFCBridge agent library: configuration, reader loop, presence, events, commands.
public enum NFCBridgeAgent {
    /// The agent's version, published in `<base>/<id>/info`.
    public static let version = "0.1.0"
}
