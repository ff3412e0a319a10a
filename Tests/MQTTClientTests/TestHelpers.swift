import MQTTClient
import TestSupport
import Testing

/// All tests that start a broker live in suites nested in this one, so they run one after another:
/// the machine is small and shared, and each test owns a broker process.
@Suite(.serialized) struct BrokerTests {}

/// A configuration for `broker` with a fast reconnect policy (tests wait for events, not for time).
func configuration(for broker: MosquittoBroker, clientID: String? = nil,
                   protocolVersion: MQTTProtocolVersion = .v5) -> MQTTConfiguration {
    configuration(url: broker.url, clientID: clientID, protocolVersion: protocolVersion)
}

func configuration(url: String, clientID: String? = nil, protocolVersion: MQTTProtocolVersion = .v5) -> MQTTConfiguration {
    MQTTConfiguration(url: url, protocolVersion: protocolVersion, clientID: clientID, keepAlive: .seconds(10),
                      reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(400)))
}

extension MQTTConnectionEvent {
    var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    /// The code of a `.connectionFailed` event.
    var failureCode: String? {
        if case .connectionFailed(let error) = self { return error.code }
        return nil
    }

    /// The code of a `.disconnected` event ("clean" for a deliberate disconnect).
    var disconnectCode: String? {
        if case .disconnected(let error) = self { return error?.code ?? "clean" }
        return nil
    }

    var isReconnecting: Bool {
        if case .reconnecting = self { return true }
        return false
    }
}

/// The `code` of the `MQTTClientError` thrown by `body`, or `nil` when it does not throw one.
func errorCode(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch let error as MQTTClientError {
        return error.code
    } catch {
        return "not an MQTTClientError: \(error)"
    }
}
