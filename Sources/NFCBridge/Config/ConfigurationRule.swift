/// How a key's YAML value is read and checked (a ``ConfigurationKey``'s type and validation): one of
/// ``ConfigurationValue``'s readers, which throw the error naming the key and the line. A rule may
/// also set a companion field that follows from the value (the TLS flag of the broker URL, the keys
/// read from a keys file, the secret read from a secret file).
struct ConfigurationRule<Value>: Sendable {
    /// Reads the value; may set companion fields of the configuration.
    let read: @Sendable (ConfigurationValue, inout AgentConfiguration) throws(ConfigurationError) -> Value
}

extension ConfigurationRule where Value == Int {
    /// A whole number within `range`.
    static func int(in range: ClosedRange<Int>) -> Self {
        Self { value, _ throws(ConfigurationError) in try value.int(in: range) }
    }
}

extension ConfigurationRule where Value == Bool {
    /// `true` / `false` (also `yes` / `no`, `on` / `off`), unquoted.
    static var bool: Self { Self { value, _ throws(ConfigurationError) in try value.bool() } }
}

extension ConfigurationRule where Value == String {
    /// Any non-empty text.
    static var text: Self { Self { value, _ throws(ConfigurationError) in try value.nonEmptyString() } }

    /// The path of a regular file that exists and can be read.
    static var file: Self { Self { value, _ throws(ConfigurationError) in try value.readableFile() } }

    /// An MQTT topic prefix: no wildcards, no empty levels, no leading or trailing slash.
    static var topicPrefix: Self { Self { value, _ throws(ConfigurationError) in try value.topicPrefix() } }
}

extension ConfigurationRule where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
    /// One of the enumeration's raw values.
    static var choice: Self { Self { value, _ throws(ConfigurationError) in try value.choice(Value.self) } }
}

extension ConfigurationRule {
    /// A non-empty list of an enumeration's raw values, without repeats.
    static func choices<Item: RawRepresentable & CaseIterable & Equatable & Sendable>() -> Self
    where Value == [Item], Item.RawValue == String {
        Self { value, _ throws(ConfigurationError) in try value.choices(Item.self) }
    }
}
