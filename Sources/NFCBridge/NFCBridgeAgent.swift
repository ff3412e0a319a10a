/// Facts about the NFCBridge agent library.
package enum NFCBridgeAgent {
    /// The agent's version, published in `<base>/<id>/info`.
    package static let version = "0.1.0"
}
