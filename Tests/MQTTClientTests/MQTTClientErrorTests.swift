import CMosquitto
@testable import MQTTClient
import Testing

@Suite struct MQTTClientErrorTests {
    @Test(arguments: [
        (MOSQ_ERR_NO_CONN, MQTTClientError.Phase.request, "not_connected"),
        (MOSQ_ERR_TLS, .connecting, "tls_error"),
        (MOSQ_ERR_TLS_HANDSHAKE, .connecting, "tls_error"),
        (MOSQ_ERR_PAYLOAD_SIZE, .request, "payload_too_large"),
        (MOSQ_ERR_OVERSIZE_PACKET, .request, "payload_too_large"),
        (MOSQ_ERR_PROTOCOL, .connected, "protocol_error"),
        (MOSQ_ERR_MALFORMED_PACKET, .connected, "protocol_error"),
        (MOSQ_ERR_CONN_LOST, .connected, "connection_lost"),
        (MOSQ_ERR_CONN_LOST, .connecting, "broker_unreachable"),
        (MOSQ_ERR_KEEPALIVE, .connected, "connection_lost"),
        (MOSQ_ERR_ERRNO, .connecting, "broker_unreachable"),
        (MOSQ_ERR_ERRNO, .connected, "connection_lost"),
        (MOSQ_ERR_EAI, .connecting, "broker_unreachable"),
        (MOSQ_ERR_AUTH, .connecting, "auth_failed"),
        (MOSQ_ERR_CONN_REFUSED, .connecting, "connection_refused"),
        (MOSQ_ERR_NOT_SUPPORTED, .request, "not_supported"),
        (MOSQ_ERR_QOS_NOT_SUPPORTED, .request, "not_supported"),
        (MOSQ_ERR_INVAL, .request, "invalid_argument"),
        (MOSQ_ERR_NOMEM, .request, "out_of_memory"),
        (MOSQ_ERR_PLUGIN_DEFER, .request, "unknown"),
    ])
    func mapsMosquittoResults(result: mosq_err_t, phase: MQTTClientError.Phase, code: String) {
        #expect(MQTTClientError(mosquittoCode: result.rawValue, phase: phase).code == code)
    }

    @Test func unknownResultsKeepTheirNumber() {
        let error = MQTTClientError(mosquittoCode: 999, phase: .request)
        #expect(error == .unknown(mosquittoCode: 999, message: MQTTClientError.libraryText(999)))
    }

    @Test(arguments: [
        (4, false, "auth_failed"), (5, false, "auth_failed"), (1, false, "connection_refused"),
        (3, false, "connection_refused"), (0x86, true, "auth_failed"), (0x87, true, "auth_failed"),
        (0x8C, true, "auth_failed"), (0x85, true, "connection_refused"), (0x88, true, "connection_refused"),
        (0x8A, true, "connection_refused"),
    ])
    func classifiesCONNACKRefusals(reasonCode: Int, isV5: Bool, code: String) {
        let error = MQTTClientError.connackRefusal(reasonCode: reasonCode, isV5: isV5)
        #expect(error.code == code)
        #expect(error.message.contains("CONNACK \(reasonCode)"))
    }

    @Test func messagesCarryTheFacts() {
        #expect(MQTTClientError.payloadTooLarge(size: 300_000_000).message.contains("300000000"))
        #expect(MQTTClientError.invalidTopic(topic: "a/#/b", reason: "why").description == "invalid_topic: invalid topic 'a/#/b': why")
        #expect(MQTTClientError.connackRefusal(reasonCode: 0x87, isV5: true).message.contains("Not authorized"))
    }
}
