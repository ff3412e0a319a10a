/// The configuration as published in `info` and logged at start: every setting, NO secrets (the
/// password never appears; file paths do).
extension AgentConfiguration {
    /// The configuration without secrets.
    public var publicJSON: JSONValue {
        func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        return [
            "id": .string(id),
            "reader": [
                "device": optional(reader.device),
                "polling": [
                    "modulations": .array(reader.modulations.map { .string($0.rawValue) }),
                    "interval_ms": .int(Int64(reader.intervalMilliseconds)),
                ],
            ],
            "mqtt": [
                "url": .string(mqtt.url),
                "base_topic": .string(mqtt.baseTopic),
                "username": optional(mqtt.username),
                "password_file": optional(mqtt.passwordFile),
                "ca_file": optional(mqtt.caFile),
                "cert_file": optional(mqtt.certFile),
                "key_file": optional(mqtt.keyFile),
                "protocol": .string(mqtt.protocolVersion.rawValue),
            ],
            "presence": [
                "mode": .string(presence.mode.rawValue),
                "removal_grace_ms": .int(Int64(presence.removalGraceMilliseconds)),
                "rearm_ms": .int(Int64(presence.rearmMilliseconds)),
                "min_interval_ms": .int(Int64(presence.minIntervalMilliseconds)),
            ],
            "dump": ["on_scan": .bool(dump.onScan), "keys_file": optional(dump.keysFile)],
            "homeassistant": ["enabled": .bool(homeAssistant.enabled), "prefix": .string(homeAssistant.prefix)],
            "log": ["level": .string(log.level.rawValue)],
            "health_interval_s": .int(Int64(healthIntervalSeconds)),
            "state_dir": .string(stateDirectory),
            "spool": ["max_events": .int(Int64(spool.maxEvents)), "max_bytes": .int(Int64(spool.maxBytes))],
            "commands": ["lock": ["enabled": .bool(commands.lockEnabled)]],
        ]
    }

    /// The remote commands enabled (published in `info`): all of them, `lock` only when enabled.
    public var enabledCommands: [String] {
        CommandName.allCases.filter { $0 != .lock || commands.lockEnabled }.map(\.rawValue)
    }
}
