import NFCCore
import Testing

@testable import NFCBridge

/// The discovery documents that act from Home Assistant: inputs kept retained by Home Assistant,
/// buttons that publish the agent's own requests, and the sensors of their results and of the job.
@Suite struct HomeAssistantControlsTests {
    let discovery = HomeAssistantDiscovery(topics: TopicMap(base: "nfc", id: "reader-hall"), version: "1.2.3")

    func document(_ topic: String) throws -> JSONValue {
        try #require(discovery.messages.first { $0.topic == "homeassistant/\(topic)/config" }?.json, "\(topic)")
    }

    @Test func everyControlIsOnTheAgentsDeviceAndNeedsTheAgentOnly() throws {
        let controls = [
            "text/reader-hall_write_content", "button/reader-hall_write_tag", "sensor/reader-hall_write_result",
            "text/reader-hall_job_template", "number/reader-hall_job_first_serial", "number/reader-hall_job_count",
            "button/reader-hall_job_start", "button/reader-hall_job_pause", "button/reader-hall_job_resume",
            "button/reader-hall_job_cancel", "sensor/reader-hall_job_state", "sensor/reader-hall_job_done",
            "sensor/reader-hall_job_failed", "sensor/reader-hall_job_remaining", "sensor/reader-hall_job_tag",
            "button/reader-hall_signal_ok", "button/reader-hall_signal_denied", "sensor/reader-hall_command_result",
        ]
        #expect(discovery.messages.map(\.topic).suffix(controls.count) == controls.map { "homeassistant/\($0)/config" }[...])
        let device = try #require(try document("tag/reader-hall")["device"])
        for control in controls {
            let entity = try document(control)
            #expect(entity["device"] == device, "\(control)")
            #expect(entity["availability"] == [["topic": "nfc/reader-hall/status"]], "\(control)")
            #expect(entity["unique_id"]?.stringValue == String(control.split(separator: "/")[1]), "\(control)")
            #expect(entity["qos"] == 1, "\(control)")
            // Text, number and button entities fix their entity id both ways (sensors need none).
            if let objectID = entity["object_id"]?.stringValue {
                #expect(entity["default_entity_id"]?.stringValue == "\(control.split(separator: "/")[0]).\(objectID)", "\(control)")
            } else {
                #expect(control.hasPrefix("sensor/") && entity["default_entity_id"] == nil, "\(control)")
            }
        }
        #expect(Set(discovery.messages.map(\.topic)).count == discovery.messages.count, "no topic twice")
    }

    @Test func inputsAreRetainedByHomeAssistantOnTheirOwnTopicWithAFixedEntityID() throws {
        let inputs: [(String, String)] = [
            ("text/reader-hall_write_content", "write_content"), ("text/reader-hall_job_template", "job_template"),
            ("number/reader-hall_job_first_serial", "job_first_serial"), ("number/reader-hall_job_count", "job_count"),
        ]
        for (control, name) in inputs {
            let entity = try document(control)
            #expect(entity["command_topic"]?.stringValue == "nfc/reader-hall/ha/\(name)", "\(control)")
            #expect(entity["state_topic"] == entity["command_topic"], "\(control)")
            #expect(entity["retain"] == true, "\(control)")
            // `-` is not allowed in an entity id: the object id is Home Assistant's slug of the agent id.
            #expect(entity["object_id"]?.stringValue == "nfcbridge_reader_hall_\(name)", "\(control)")
            // Home Assistant 2026.4 and later read only `default_entity_id` (review stop 40: without it the
            // entity id was `text.<device>_<name>`, and the buttons read an empty value).
            let component = control.split(separator: "/")[0]
            #expect(entity["default_entity_id"]?.stringValue == "\(component).nfcbridge_reader_hall_\(name)", "\(control)")
            #expect(entity["command_template"] == nil, "\(control)")
        }
        let count = try document("number/reader-hall_job_count")
        #expect(count["min"] == 1)
        #expect(count["max"] == .int(Int64(SerialSource.maximumCount)))
        #expect(count["step"] == 1)
        #expect(count["mode"] == "box")
        #expect(try document("number/reader-hall_job_first_serial")["min"] == 0)
    }

    @Test func buttonsPublishTheAgentsOwnRequestsBuiltFromTheInputs() throws {
        let write = try document("button/reader-hall_write_tag")
        #expect(write["command_topic"] == "nfc/reader-hall/request/write")
        let writeTemplate = try #require(write["command_template"]?.stringValue)
        #expect(writeTemplate.contains("states('text.nfcbridge_reader_hall_write_content')"))
        #expect(writeTemplate.contains("'id': 'ha-write-' ~ (now().timestamp() * 1000) | int"))
        #expect(writeTemplate.contains("'wait_for_tag_s': 60"))
        #expect(writeTemplate.contains("[{'uri': states('text.nfcbridge_reader_hall_write_content')}]"))
        #expect(writeTemplate.contains("{'text': states('text.nfcbridge_reader_hall_write_content'), 'lang': 'en'}"))
        #expect(writeTemplate.hasPrefix("{{ {") && writeTemplate.hasSuffix("} | tojson }}"))

        let start = try document("button/reader-hall_job_start")
        #expect(start["command_topic"] == "nfc/reader-hall/request/job")
        let startTemplate = try #require(start["command_template"]?.stringValue)
        for part in [
            "'action': 'start'", "'job': now().strftime('ha-%Y%m%d-%H%M%S')", "states('text.nfcbridge_reader_hall_job_template')",
            "'serials': {'start': states('number.nfcbridge_reader_hall_job_first_serial') | float(0) | int,"
                + " 'count': states('number.nfcbridge_reader_hall_job_count') | float(0) | int}",
        ] {
            #expect(startTemplate.contains(part), "\(part)")
        }
        for action in ["pause", "resume", "cancel"] {
            let button = try document("button/reader-hall_job_\(action)")
            #expect(button["command_topic"] == "nfc/reader-hall/request/job")
            #expect(
                button["command_template"]?.stringValue
                    == "{{ {'id': 'ha-job-' ~ (now().timestamp() * 1000) | int, 'action': '\(action)'} | tojson }}")
        }
        let ok = try document("button/reader-hall_signal_ok")
        #expect(ok["command_topic"] == "nfc/reader-hall/request/feedback")
        #expect(ok["command_template"]?.stringValue?.contains("'light': 'green', 'beeps': 1") == true)
        let denied = try document("button/reader-hall_signal_denied")
        #expect(denied["command_template"]?.stringValue?.contains("'light': 'red', 'beeps': 2") == true)
        // A button publishes a request, never retained (the agent ignores retained requests).
        for button in ["write_tag", "job_start", "job_pause", "signal_ok"] {
            #expect(try document("button/reader-hall_\(button)")["retain"] == nil, "\(button)")
        }
    }

    @Test func resultSensorsShowOnlyTheAnswersToHomeAssistantsOwnRequests() throws {
        let write = try document("sensor/reader-hall_write_result")
        #expect(write["state_topic"] == "nfc/reader-hall/response/write")
        #expect(
            write["value_template"]?.stringValue
                == "{{ (value_json.error.code if value_json.status == 'error' else value_json.status)"
                + " if value_json.id is string and value_json.id.startswith('ha-write-') else this.state }}")
        #expect(write["json_attributes_topic"] == "nfc/reader-hall/response/write")
        let command = try document("sensor/reader-hall_command_result")
        #expect(command["state_topic"] == "nfc/reader-hall/response/+")
        #expect(command["value_template"]?.stringValue?.contains("startswith('ha-')") == true)
    }

    @Test func theJobSensorsReadTheRetainedJobStateAndTheLastTag() throws {
        let state = try document("sensor/reader-hall_job_state")
        #expect(state["state_topic"] == "nfc/reader-hall/job")
        #expect(state["value_template"] == "{{ value_json.state }}")
        #expect(state["device_class"] == "enum")
        #expect(state["options"] == ["running", "paused", "finished", "canceled", "stopped"])
        for count in ["done", "failed", "remaining"] {
            let sensor = try document("sensor/reader-hall_job_\(count)")
            #expect(sensor["state_topic"] == "nfc/reader-hall/job", "\(count)")
            #expect(sensor["value_template"]?.stringValue == "{{ value_json.\(count) }}", "\(count)")
        }
        let tag = try document("sensor/reader-hall_job_tag")
        #expect(tag["state_topic"] == "nfc/reader-hall/event/job")
        #expect(tag["options"] == ["ok", "duplicate", "refused", "failed", "torn"])
    }
}
