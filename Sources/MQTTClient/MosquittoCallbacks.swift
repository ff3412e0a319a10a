import CMosquitto

/// The C callbacks registered with libmosquitto. They run on the session's network thread, recover
/// the session from the userdata pointer (`Unmanaged`, unretained: the thread keeps the session alive
/// while it runs libmosquitto), copy everything out of libmosquitto's buffers — which are freed when
/// the callback returns — and hand it to the session. None of them blocks.
enum MosquittoCallbacks {
    static func install(on handle: OpaquePointer, _ lib: LibMosquitto) {
        lib.mosquitto_connect_v5_callback_set(handle) { _, userdata, reasonCode, flags, _ in
            sessionFrom(userdata)?.handleConnack(reasonCode: Int(reasonCode), flags: Int(flags))
        }
        lib.mosquitto_message_v5_callback_set(handle) { _, userdata, message, properties in
            guard let session = sessionFrom(userdata), let message = message?.pointee, let topic = message.topic else { return }
            // Bounded where it enters: an oversized payload is never copied.
            guard session.acceptsIncoming(size: Int(message.payloadlen)) else { return }
            let payload: [UInt8] =
                if let bytes = message.payload, message.payloadlen > 0 {
                    Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
                } else {
                    []
                }
            session.handleMessage(MQTTMessage(
                topic: String(cString: topic), payload: payload,
                qos: MQTTQoS(rawValue: Int(message.qos)) ?? .atMostOnce, retain: message.retain,
                properties: MosquittoPropertyList.read(properties, session.lib)))
        }
        lib.mosquitto_publish_v5_callback_set(handle) { _, userdata, mid, reasonCode, _ in
            sessionFrom(userdata)?.handlePublishAcknowledged(mid: mid, reasonCode: Int(reasonCode))
        }
        lib.mosquitto_subscribe_v5_callback_set(handle) { _, userdata, mid, count, granted, _ in
            let codes = granted.map { pointer in (0..<Int(max(count, 0))).map { Int(pointer[$0]) } } ?? []
            sessionFrom(userdata)?.handleSubscribeAcknowledged(mid: mid, grantedQoS: codes)
        }
        lib.mosquitto_unsubscribe_v5_callback_set(handle) { _, userdata, mid, _ in
            sessionFrom(userdata)?.handleUnsubscribeAcknowledged(mid: mid)
        }
        lib.mosquitto_log_callback_set(handle) { _, userdata, level, text in
            // Only errors are kept (OpenSSL's reason for a TLS failure); skip the string copy otherwise.
            guard let text, level & MOSQ_LOG_ERR != 0 else { return }
            sessionFrom(userdata)?.handleLastError(String(cString: text))
        }
    }

}

/// The session behind a callback's userdata pointer. A free function: a C function pointer cannot
/// capture anything, not even the enclosing type.
private func sessionFrom(_ userdata: UnsafeMutableRawPointer?) -> MosquittoSession? {
    guard let userdata else { return nil }
    return Unmanaged<MosquittoSession>.fromOpaque(userdata).takeUnretainedValue()
}
