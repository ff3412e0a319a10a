/// The broker nodes a client connects to and which one is in use: the pure bookkeeping behind
/// `MQTTConfiguration.failoverURLs`, kept apart from the network loop so it can be tested alone.
///
/// Every attempt goes to ``current``; after an attempt fails or a connection ends, ``advance()``
/// moves on to the next node, round and round (the back-off between attempts is the reconnect
/// loop's). A connection made on another node than the previous connection is a failover.
struct BrokerNodes: Sendable, Equatable {
    /// The most nodes a client takes (`url` and 15 failover URLs).
    static let maximumCount = 16

    /// The nodes' URLs as configured, `url` first.
    let urls: [String]
    /// The nodes' parsed addresses, in the same order.
    let addresses: [MQTTBrokerAddress]
    /// The node of the attempt under way, or of the next one.
    private(set) var index = 0
    /// The node of the last successful connection; nil before the first.
    private(set) var connectedIndex: Int?
    /// Connections made on another node than the connection before them.
    private(set) var failovers = 0
    /// The nodes that refused MQTT 5 and took MQTT 3.1.1 (``fellBackToV311()``): every later attempt
    /// on them speaks 3.1.1.
    private(set) var v311Nodes: Set<Int> = []

    /// Parses the nodes of `configuration`.
    /// - Throws: `invalid_url` for a URL that is not a broker URL, `invalid_configuration` for more
    ///   than ``maximumCount`` nodes or nodes that mix `mqtt://` and `mqtts://` (TLS is set up once
    ///   per client, for every node alike).
    init(_ configuration: MQTTConfiguration) throws(MQTTClientError) {
        let urls = [configuration.url] + configuration.failoverURLs
        guard urls.count <= Self.maximumCount else {
            throw .invalidConfiguration("at most \(Self.maximumCount) broker URLs, got \(urls.count)")
        }
        var addresses: [MQTTBrokerAddress] = []
        for url in urls { addresses.append(try MQTTBrokerAddress(url: url)) }
        guard let first = addresses.first, addresses.allSatisfy({ $0.usesTLS == first.usesTLS }) else {
            throw .invalidConfiguration("the broker URLs mix mqtt:// and mqtts://: use one scheme for every node")
        }
        self.urls = urls
        self.addresses = addresses
    }

    /// The node of the attempt under way, or of the next one.
    var current: MQTTBrokerAddress { addresses[index] }

    /// The URL of the node of the last successful connection (nil before the first).
    var connectedURL: String? { connectedIndex.map { urls[$0] } }

    /// The attempt on ``current`` failed or its connection ended: the next attempt goes to the next node.
    mutating func advance() {
        index = (index + 1) % addresses.count
    }

    /// Whether ``current`` is known to speak only MQTT 3.1.1.
    var currentSpeaksOnlyV311: Bool { v311Nodes.contains(index) }

    /// ``current`` refused an MQTT 5 CONNECT and accepted an MQTT 3.1.1 one: remembered for the
    /// client's life. Returns true the first time for this node (so it is reported once).
    mutating func fellBackToV311() -> Bool {
        v311Nodes.insert(index).inserted
    }

    /// A connection was made on ``current``: counts a failover when the previous connection was on
    /// another node.
    mutating func connected() {
        if let previous = connectedIndex, previous != index { failovers += 1 }
        connectedIndex = index
    }
}
