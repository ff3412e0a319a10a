import MQTTClient
import Testing

@Suite struct BrokerAddressTests {
    @Test(arguments: [
        ("mqtt://127.0.0.1:1884", "127.0.0.1", 1884, false),
        ("mqtt://broker.lan", "broker.lan", 1883, false),
        ("mqtts://broker.lan", "broker.lan", 8883, true),
        ("MQTTS://broker.lan:443/", "broker.lan", 443, true),
        ("mqtt://[::1]:1883", "::1", 1883, false),
        ("mqtts://[fe80::1]", "fe80::1", 8883, true),
    ])
    func parses(url: String, host: String, port: Int, tls: Bool) throws {
        let address = try MQTTBrokerAddress(url: url)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.usesTLS == tls)
    }

    /// The scheme is what comes before the first colon, and `//` must follow that colon: a host and
    /// port alone, or a colon before `://`, is not a broker URL; another scheme is named.
    @Test(arguments: [
        ("broker.lan:1883", "expected mqtt://host:port or mqtts://host:port"),
        ("mqtt:x://broker.lan", "expected mqtt://host:port or mqtts://host:port"),
        ("mqtt:/broker.lan", "expected mqtt://host:port or mqtts://host:port"),
        ("tcp://broker.lan:1883", "unsupported scheme 'tcp'"),
        ("://broker.lan", "unsupported scheme ''"),
    ])
    func theSchemeEndsAtTheFirstColon(url: String, reason: String) {
        #expect(throws: MQTTClientError.invalidURL(url: url, reason: reason)) { try MQTTBrokerAddress(url: url) }
    }

    @Test(arguments: [
        "", "broker.lan", "http://broker.lan", "tcp://broker.lan:1883", "mqtt://", "mqtt://:1883",
        "mqtt://broker.lan:", "mqtt://broker.lan:0", "mqtt://broker.lan:65536", "mqtt://broker.lan:-1",
        "mqtt://broker.lan:12ab", "mqtt://user:pw@broker.lan", "mqtt://broker.lan/topic", "mqtt://broker.lan?x=1",
        "mqtt://[::1", "mqtt://[::1]x", "mqtt://bro ker",
    ])
    func refuses(url: String) {
        #expect(throws: MQTTClientError.self) { try MQTTBrokerAddress(url: url) }
        do {
            _ = try MQTTClient(configuration: MQTTConfiguration(url: url))
            Issue.record("MQTTClient accepted \(url)")
        } catch {
            #expect(error.code == "invalid_url")
        }
    }
}
