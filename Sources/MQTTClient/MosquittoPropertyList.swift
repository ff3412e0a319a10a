import CMosquitto
import FoundationEssentials
import Glibc

/// Conversion between Swift property values and libmosquitto's heap-allocated `mosquitto_property`
/// lists. Lists built here are owned by the caller and freed with `mosquitto_property_free_all`;
/// strings and binaries read out of a list are malloc'd copies that are freed here.
enum MosquittoPropertyList {
    /// Property identifiers (MQTT 5.0 §2.2.2.2), as the `int` libmosquitto's functions take.
    private static func id(_ property: mqtt5_property) -> Int32 { Int32(property.rawValue) }

    /// Builds a list from PUBLISH (or will) properties and passes it to `body`, then frees it.
    /// `nil` is passed for an empty set, so v3.1.1 calls stay legal.
    static func with<R>(_ properties: MQTTPublishProperties, _ lib: LibMosquitto,
                        _ body: (OpaquePointer?) throws(MQTTClientError) -> R) throws(MQTTClientError) -> R {
        var list = try make(properties, lib)
        defer { lib.mosquitto_property_free_all(&list) }
        return try body(list)
    }

    /// Builds a list from PUBLISH (or will) properties; the caller owns (frees or hands over) it.
    static func make(_ properties: MQTTPublishProperties, _ lib: LibMosquitto) throws(MQTTClientError) -> OpaquePointer? {
        var list: OpaquePointer?
        func check(_ rc: Int32) throws(MQTTClientError) {
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                lib.mosquitto_property_free_all(&list)
                throw MQTTClientError(mosquittoCode: rc, phase: .request)
            }
        }
        if let indicator = properties.payloadIsUTF8 {
            try check(lib.mosquitto_property_add_byte(&list, id(MQTT_PROP_PAYLOAD_FORMAT_INDICATOR), indicator ? 1 : 0))
        }
        if let expiry = properties.messageExpiryInterval {
            try check(lib.mosquitto_property_add_int32(&list, id(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL), expiry))
        }
        if let contentType = properties.contentType {
            try check(lib.mosquitto_property_add_string(&list, id(MQTT_PROP_CONTENT_TYPE), contentType))
        }
        if let responseTopic = properties.responseTopic {
            try MQTTTopic.validateName(responseTopic)
            try check(lib.mosquitto_property_add_string(&list, id(MQTT_PROP_RESPONSE_TOPIC), responseTopic))
        }
        if let data = properties.correlationData {
            // Binary Data is length-prefixed with two bytes (MQTT 5.0 §1.5.6).
            guard data.count <= Int(UInt16.max) else {
                lib.mosquitto_property_free_all(&list)
                throw .invalidArgument("correlation data longer than 65535 bytes")
            }
            try check(data.withUnsafeBytes {
                lib.mosquitto_property_add_binary(&list, id(MQTT_PROP_CORRELATION_DATA), $0.baseAddress, UInt16(data.count))
            })
        }
        try addUserProperties(properties.userProperties, to: &list, lib)
        return list
    }

    /// Builds a CONNECT property list; the caller owns it.
    static func make(_ properties: MQTTConnectProperties, _ lib: LibMosquitto) throws(MQTTClientError) -> OpaquePointer? {
        var list: OpaquePointer?
        for (property, value) in [(MQTT_PROP_SESSION_EXPIRY_INTERVAL, properties.sessionExpiryInterval),
                                  (MQTT_PROP_MAXIMUM_PACKET_SIZE, properties.maximumPacketSize)] {
            guard let value else { continue }
            let rc = lib.mosquitto_property_add_int32(&list, id(property), value)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                lib.mosquitto_property_free_all(&list)
                throw MQTTClientError(mosquittoCode: rc, phase: .request)
            }
        }
        try addUserProperties(properties.userProperties, to: &list, lib)
        return list
    }

    private static func addUserProperties(_ pairs: [MQTTUserProperty],
                                          to list: inout OpaquePointer?, _ lib: LibMosquitto) throws(MQTTClientError) {
        for pair in pairs {
            let rc = lib.mosquitto_property_add_string_pair(&list, id(MQTT_PROP_USER_PROPERTY), pair.name, pair.value)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                lib.mosquitto_property_free_all(&list)
                throw MQTTClientError(mosquittoCode: rc, phase: .request)
            }
        }
    }

    /// Reads the PUBLISH properties this client models out of a received list (may be `nil`).
    static func read(_ list: OpaquePointer?, _ lib: LibMosquitto) -> MQTTPublishProperties {
        var result = MQTTPublishProperties()
        guard let list else { return result }
        result.responseTopic = readString(list, MQTT_PROP_RESPONSE_TOPIC, lib)
        result.contentType = readString(list, MQTT_PROP_CONTENT_TYPE, lib)

        var binary: UnsafeMutableRawPointer?
        var length: UInt16 = 0
        if lib.mosquitto_property_read_binary(list, id(MQTT_PROP_CORRELATION_DATA), &binary, &length, false) != nil {
            result.correlationData = binary.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
            free(binary)
        }
        var expiry: UInt32 = 0
        if lib.mosquitto_property_read_int32(list, id(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL), &expiry, false) != nil {
            result.messageExpiryInterval = expiry
        }
        var indicator: UInt8 = 0
        if lib.mosquitto_property_read_byte(list, id(MQTT_PROP_PAYLOAD_FORMAT_INDICATOR), &indicator, false) != nil {
            result.payloadIsUTF8 = indicator == 1
        }
        // User properties repeat: continue the search after the one just read (skip_first = true).
        var name: UnsafeMutablePointer<CChar>?
        var value: UnsafeMutablePointer<CChar>?
        var cursor = lib.mosquitto_property_read_string_pair(list, id(MQTT_PROP_USER_PROPERTY), &name, &value, false)
        while let found = cursor {
            if let name, let value {
                result.userProperties.append(MQTTUserProperty(String(cString: name), String(cString: value)))
            }
            free(name)
            free(value)
            name = nil
            value = nil
            cursor = lib.mosquitto_property_read_string_pair(found, id(MQTT_PROP_USER_PROPERTY), &name, &value, true)
        }
        return result
    }

    private static func readString(_ list: OpaquePointer, _ property: mqtt5_property, _ lib: LibMosquitto) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard lib.mosquitto_property_read_string(list, id(property), &value, false) != nil, let value else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}
