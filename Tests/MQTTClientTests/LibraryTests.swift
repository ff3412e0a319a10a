import DynamicLibrary
import Testing
@testable import MQTTClient

@Suite struct LibraryTests {
    @Test func loadsLibmosquitto2() throws {
        #expect(try MosquittoLibrary.version.major == 2)
    }

    /// libmosquitto is opened with dlopen when the first client is made (issue 25): one that cannot be
    /// loaded is `library_unavailable`, naming the package, and nothing else is tried.
    @Test func aMissingLibmosquittoIsLibraryUnavailable() {
        let result = MosquittoLibrary.load("libnfcbridge-test-missing-mosquitto.so.1")
        guard case let .failure(error) = result else {
            Issue.record("loaded a library that does not exist")
            return
        }
        #expect(error.code == "library_unavailable")
        #expect(error.message.contains("libnfcbridge-test-missing-mosquitto.so.1 could not be loaded"))
        #expect(error.message.hasSuffix("install the Debian package libmosquitto1"))
    }

    /// A library without libmosquitto's functions (libc) fails at the first one bound.
    @Test func aLibraryWithoutTheFunctionsIsLibraryUnavailable() {
        guard case let .failure(error) = MosquittoLibrary.load("libc.so.6") else {
            Issue.record("libc bound as libmosquitto")
            return
        }
        #expect(error.code == "library_unavailable")
        #expect(error.message.contains("has no mosquitto_"))
    }
}

/// The topic checks (MQTT 5.0 §4.7.1), done in Swift so checking a configuration loads no library;
/// the cases are those libmosquitto's `mosquitto_pub_topic_check2` / `_sub_topic_check2` decide.
@Suite struct MQTTTopicTests {
    @Test(arguments: ["a", "a/b", "/", "a//b", "nfcbridge/reader-1/event/scanned", "é/ü"])
    func validNames(_ topic: String) throws {
        try MQTTTopic.validateName(topic)
    }

    @Test(arguments: ["a/+", "#", "a/#", "a+", "a/b#", ""])
    func invalidNames(_ topic: String) {
        #expect(throws: MQTTClientError.self) { try MQTTTopic.validateName(topic) }
    }

    @Test(arguments: ["#", "+", "a/+", "a/#", "+/b/#", "a/+/c", "/+", "+/+", "a//#", "a/b"])
    func validFilters(_ filter: String) throws {
        try MQTTTopic.validateFilter(filter)
    }

    @Test(arguments: ["a/#/b", "a#", "a/b+", "+a/b", "##", "a/++", "#/", "", "a/#/#"])
    func invalidFilters(_ filter: String) {
        #expect(throws: MQTTClientError.self) { try MQTTTopic.validateFilter(filter) }
    }
}
