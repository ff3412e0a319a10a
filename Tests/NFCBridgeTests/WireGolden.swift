// The MQTT wire as recorded by WireGoldenTests (see there): topic, QoS, retain flag, correlation data
// and the payload, byte for byte. Recorded from the agent before its payloads became Codable models.
// Changed since, by the fixes issue 8 names:
// - "response write without the password": code auth_failed -> auth_required (no password is not a wrong one).
// And by issue 10 (security): `info` shows mqtt.tls_insecure and the commands' signature and idempotency
// settings; `health` counts connection failures (mqtt.connect_failures); a repeated id's answer says
// "replayed":true.
// And by issue 10 (spool): `info` shows spool.max_age_s; `health` shows the broker's acknowledgement
// state (mqtt.recycles, stalled, stalls, unacked_s) and spool.corrupt_lines.
// And by issue 11 (Home Assistant): `event/scanned` carries `initial`; `tag` carries `last` (the last
// live scan); the discovery documents carry `origin` and the device's `hw_version` (the reader's chip,
// once opened); the event entity is named "Tag", the tag-present sensor has `device_class: occupancy`,
// Last UID reads the retained `tag` and, diagnostic, needs `status` only; templates use `default` for
// keys an event may lack; the tag scanner skips initial scans and random UIDs.
// And by issue 19 (one clock), the scenario, not the agent: the commands' deadlines run on the agent's
// clock, so the 2.5 s of the "response timeout" step now pass for the whole agent; every `ts`, `since`
// and event id time after it is 2.5 s later and the reconnect's `uptime_s` is 3 (was 1). Nothing else.
// And by issue 21 (access): `info` shows the `access` section and homeassistant.trusted_only; `event/scanned`
// carries `trust` (the virtual NTAG215's made-up signature fails: untrusted, version_signature_mismatch);
// the event entity's attributes carry the trust verdict, reason, signature verdict and clone probes.
// And by issue 24 (fleets): `info.mqtt` lists every broker node (`urls`); `health.mqtt` names the node in
// use (`node`, null here: the in-memory broker has none), counts `failovers` and `duplicate_client_id`.
// And by issue 22 (Home Assistant defects): `event/removed` carries `cardType` and `random_uid`; `health`
// carries `clock.synchronized` and `spool.replayed`; `info` shows mqtt.live_window_s; discovery has the
// "MQTT stalls" and "Buffered events" sensors, the Reader sensor is an enum with its options, the Agent
// sensor has expire_after, and the templates drop events that arrive after the live window; a clean
// stop leaves `tag` as it was (no "tag cleared" before `status` offline).
// And by review stop 40 (Home Assistant): the Tag event entity's attributes carry `after_restart`.
// And `info.config.reader` shows `backend` and `pcsc_share_mode` too.

enum WireGolden {
    static let messages: [(label: String, text: String)] = [
        (
            "event/error (reader open)",
            #"""
nfc/test/event/error qos=1 retain=false
{"buffered":false,"error":{"code":"reader_unavailable","message":"The reader is not available: virtual reader busy"},"event_id":"01KDVDNA00040G2081040G2081","op":"open","reader":"test","seq":1,"ts":"2026-01-01T00:00:00.000Z","type":"error"}
"""#
        ),
        (
            "reader ok",
            #"""
nfc/test/reader qos=1 retain=true
{"device":"virtual:0","since":"2026-01-01T00:00:00.000Z","state":"ok"}
"""#
        ),
        (
            "info with the reader",
            #"""
nfc/test/info qos=1 retain=true
{"agent":{"id":"test","started_at":"2026-01-01T00:00:00.000Z","version":"<version>"},"commands":["write","format","lock","dump","cancel","write_blocks","job","feedback"],"config":{"access":{"credential":"uid","credential_hash":false,"originality_keys_file":null,"probes":{"gen1a_backdoor":false,"gen4_gtu":false,"uid_structure":true,"version_signature_mismatch":true},"signature":"check"},"auth":{"keys_file":null},"commands":{"idempotency_window_s":86400,"lock":{"enabled":true},"require_signature":false,"signature_key_file":null,"signature_window_s":300},"dump":{"keys_file":null,"on_scan":true},"feedback":{"exec":null,"exec_timeout_ms":2000,"on_job":{"failed":{"beeps":0,"light":null},"ok":{"beeps":0,"light":null},"refused":{"beeps":0,"light":null}},"on_scan":{"beeps":0,"light":null},"on_trust":{"trusted":{"beeps":0,"light":null},"untrusted":{"beeps":0,"light":null}}},"health_interval_s":60,"homeassistant":{"enabled":true,"prefix":"homeassistant","trusted_only":false},"id":"test","log":{"level":"info"},"mqtt":{"base_topic":"nfc","ca_file":null,"cert_file":null,"key_file":null,"live_window_s":2,"max_packet_size":null,"password_file":null,"protocol":"5","recycle_after_s":60,"stall_after_s":10,"tls_insecure":false,"url":"mqtt://localhost:1883","username":null},"presence":{"min_interval_ms":1000,"mode":"presence","rearm_ms":2000,"removal_grace_ms":600},"reader":{"backend":"auto","device":null,"pcsc_share_mode":"exclusive","polling":{"interval_ms":250,"modulations":["iso14443a"]}},"spool":{"max_age_s":604800,"max_bytes":16777216,"max_events":10000},"state_dir":"<state_dir>"},"mqtt":{"protocol":"5","tls":false,"tls_insecure":false,"url":"mqtt://localhost:1883","urls":["mqtt://localhost:1883"]},"reader":{"connstring":"virtual:0","firmware":"PN532 v1.6","name":"Virtual PN532"}}
"""#
        ),
        (
            "status online",
            #"""
nfc/test/status qos=1 retain=true
online
"""#
        ),
        (
            "discovery tag",
            #"""
homeassistant/tag/test/config qos=1 retain=true
{"device":{"hw_version":"PN532 v1.6","identifiers":["nfcbridge_test"],"manufacturer":"NFCBridge","model":"NFCBridge agent","name":"NFC reader test","sw_version":"<version>"},"origin":{"name":"NFCBridge","sw":"<version>"},"qos":1,"topic":"nfc/test/event/scanned","value_template":"{{ '' if value_json.buffered or value_json.initial | default(false) or not ((as_timestamp(now()) - as_timestamp(value_json.ts, 0)) <= 2) or (value_json.random_uid and value_json.tag_id == value_json.uid) else value_json.tag_id }}"}
"""#
        ),
        (
            "discovery event",
            #"""
homeassistant/event/test_nfc/config qos=1 retain=true
{"availability":[{"topic":"nfc/test/status"},{"topic":"nfc/test/reader","value_template":"{{ 'online' if value_json.state == 'ok' else 'offline' }}"}],"availability_mode":"all","device":{"hw_version":"PN532 v1.6","identifiers":["nfcbridge_test"],"manufacturer":"NFCBridge","model":"NFCBridge agent","name":"NFC reader test","sw_version":"<version>"},"event_types":["scanned","removed"],"icon":"mdi:nfc-variant","name":"Tag","origin":{"name":"NFCBridge","sw":"<version>"},"qos":1,"state_topic":"nfc/test/event/+","unique_id":"test_nfc","value_template":"{% if value_json.type in ['scanned', 'removed'] and not value_json.buffered and (as_timestamp(now()) - as_timestamp(value_json.ts, 0)) <= 2 %}{{ {'event_type': value_json.type, 'uid': value_json.uid, 'tag_id': value_json.tag_id | default(none), 'card_type': value_json.cardType | default(none), 'random_uid': value_json.random_uid | default(false), 'initial': value_json.initial | default(false), 'after_restart': value_json.after_restart | default(false), 'present_ms': value_json.present_ms | default(none), 'trust': value_json.trust.verdict if value_json.trust is defined else none, 'trust_reason': value_json.trust.reason | default(none) if value_json.trust is defined else none, 'signature': value_json.trust.signature.verdict | default(none) if value_json.trust is defined and value_json.trust.signature is defined else none, 'clone_probes': value_json.trust.clone_probes if value_json.trust is defined else none} | tojson }}{% endif %}"}
"""#
        ),
        (
            "discovery binary_sensor",
            #"""
homeassistant/binary_sensor/test_tag_present/config qos=1 retain=true
{"availability":[{"topic":"nfc/test/status"},{"topic":"nfc/test/reader","value_template":"{{ 'online' if value_json.state == 'ok' else 'offline' }}"}],"availability_mode":"all","device":{"hw_version":"PN532 v1.6","identifiers":["nfcbridge_test"],"manufacturer":"NFCBridge","model":"NFCBridge agent","name":"NFC reader test","sw_version":"<version>"},"device_class":"occupancy","icon":"mdi:nfc-tap","json_attributes_template":"{{ {'uid': value_json.uid | default(none), 'cardType': value_json.cardType | default(none), 'since': value_json.since | default(none), 'count': value_json.count | default(1 if value_json.present else 0), 'initial': value_json.initial | default(false)} | tojson }}","json_attributes_topic":"nfc/test/tag","name":"Tag present","origin":{"name":"NFCBridge","sw":"<version>"},"qos":1,"state_topic":"nfc/test/tag","unique_id":"test_tag_present","value_template":"{{ 'ON' if value_json.present else 'OFF' }}"}
"""#
        ),
        (
            "discovery sensor",
            #"""
homeassistant/sensor/test_last_uid/config qos=1 retain=true
{"availability":[{"topic":"nfc/test/status"}],"device":{"hw_version":"PN532 v1.6","identifiers":["nfcbridge_test"],"manufacturer":"NFCBridge","model":"NFCBridge agent","name":"NFC reader test","sw_version":"<version>"},"entity_category":"diagnostic","icon":"mdi:identifier","json_attributes_template":"{{ value_json.last | default({}) | tojson }}","json_attributes_topic":"nfc/test/tag","name":"Last UID","origin":{"name":"NFCBridge","sw":"<version>"},"qos":1,"state_topic":"nfc/test/tag","unique_id":"test_last_uid","value_template":"{{ value_json.last.uid if value_json.last is defined else '' }}"}
"""#
        ),
        (
            "tag absent",
            #"""
nfc/test/tag qos=1 retain=true
{"present":false}
"""#
        ),
        (
            "response unknown_command",
            #"""
nfc/test/response/bogus qos=1 retain=false
{"data":{},"error":{"code":"unknown_command","message":"unknown command 'bogus' (known: write, format, lock, dump, cancel, write_blocks, job, feedback)"},"id":"u1","status":"error"}
"""#
        ),
        (
            "response invalid_request (JSON)",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{},"error":{"code":"invalid_request","message":"payload: not valid JSON"},"id":null,"status":"error"}
"""#
        ),
        (
            "response invalid_request (field, transaction)",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{},"error":{"code":"invalid_request","message":"wait_for_tag: unknown field for write (accepted: expires_at, id, ndef_hex, password, records, transaction, ttl_s, uid, wait_for_tag_s)"},"id":"j2","status":"error","transaction":17}
"""#
        ),
        (
            "response no_tag",
            #"""
nfc/test/response/dump qos=1 retain=false
{"data":{},"error":{"code":"no_tag","message":"no tag in the field (wait_for_tag_s is 0)"},"id":"n1","status":"error"}
"""#
        ),
        (
            "response expired",
            #"""
nfc/test/response/format qos=1 retain=false
{"data":{},"error":{"code":"expired","message":"the request expired before it arrived (ttl_s / expires_at): nothing was done"},"id":"e1","status":"error"}
"""#
        ),
        (
            "response cancel of an unknown id",
            #"""
nfc/test/response/cancel qos=1 retain=false
{"data":{},"error":{"code":"invalid_request","message":"id: no queued or waiting request has id \"nobody\": no such request"},"id":"nobody","status":"error"}
"""#
        ),
        (
            "response waiting",
            #"""
nfc/test/response/format qos=1 retain=false
{"data":{"wait_for_tag_s":2.5},"id":7,"status":"waiting"}
"""#
        ),
        (
            "response timeout",
            #"""
nfc/test/response/format qos=1 retain=false
{"data":{},"error":{"code":"timeout","message":"no tag came within wait_for_tag_s (2.5 s)"},"id":7,"status":"error"}
"""#
        ),
        (
            "response waiting (d1)",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{"wait_for_tag_s":30},"id":"d1","status":"waiting"}
"""#
        ),
        (
            "response duplicate",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{},"error":{"code":"duplicate","message":"a request with id \"d1\" is already pending: it answers on its own"},"id":"d1","status":"error"}
"""#
        ),
        (
            "response cancel ok",
            #"""
nfc/test/response/cancel qos=1 retain=false
{"data":{"canceled":true,"state":"waiting"},"id":"d1","status":"ok","transaction":"t"}
"""#
        ),
        (
            "response canceled",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{},"error":{"code":"canceled","message":"canceled by request/cancel: nothing was done"},"id":"d1","status":"error"}
"""#
        ),
        (
            "event/scanned",
            #"""
nfc/test/event/scanned qos=1 retain=false
{"atqa":"0044","buffered":false,"cardFamily":"NTAG","cardType":"NTAG215","event_id":"01KDVDNCE4081040G2081040G2","initial":false,"ndef":{"hex":"D101215502686F6D652D617373697374616E742E696F2F7461672F66726F6E742D646F6F72","records":[{"idHex":"","payloadHex":"02686F6D652D617373697374616E742E696F2F7461672F66726F6E742D646F6F72","tnf":1,"type":"U","typeHex":"55","uri":"https://www.home-assistant.io/tag/front-door"}]},"product":"NTAG215","random_uid":false,"reader":"test","sak":"00","seq":2,"tag_id":"front-door","trust":{"clone_probes":["version_signature_mismatch"],"credential":"04A1B2C3D4E5F6","credential_source":"uid","reason":"clone_detected","reasons":["clone_detected"],"signature":{"verdict":"invalid"},"verdict":"untrusted"},"ts":"2026-01-01T00:00:02.500Z","type":"scanned","uid":"04A1B2C3D4E5F6","version":"0004040201001103"}
"""#
        ),
        (
            "event/dump",
            #"""
nfc/test/event/dump qos=1 retain=false
{"buffered":false,"cardType":"NTAG215","dump":{"atqa":"0044","blocks":[],"capabilities":["Readable"],"cardFamily":"NTAG","cardType":"NTAG215","counters":[null,null,null],"facts":[{"key":"Pages","monospaced":false,"value":"135"},{"key":"NDEF Bytes","monospaced":false,"value":"37"},{"key":"Originality Signature","monospaced":false,"value":"Not verified (no known NXP key matches)"}],"files":[],"ndefHex":"D101215502686F6D652D617373697374616E742E696F2F7461672F66726F6E742D646F6F72","pages":[{"data":"04A1B29F","number":0},{"data":"C3D4E5F6","number":1},{"data":"04480000","number":2},{"data":"E1103E00","number":3},{"data":"0325D101","number":4},{"data":"21550268","number":5},{"data":"6F6D652D","number":6},{"data":"61737369","number":7},{"data":"7374616E","number":8},{"data":"742E696F","number":9},{"data":"2F746167","number":10},{"data":"2F66726F","number":11},{"data":"6E742D64","number":12},{"data":"6F6F72FE","number":13},{"data":"00000000","number":14},{"data":"00000000","number":15},{"data":"00000000","number":16},{"data":"00000000","number":17},{"data":"00000000","number":18},{"data":"00000000","number":19},{"data":"00000000","number":20},{"data":"00000000","number":21},{"data":"00000000","number":22},{"data":"00000000","number":23},{"data":"00000000","number":24},{"data":"00000000","number":25},{"data":"00000000","number":26},{"data":"00000000","number":27},{"data":"00000000","number":28},{"data":"00000000","number":29},{"data":"00000000","number":30},{"data":"00000000","number":31},{"data":"00000000","number":32},{"data":"00000000","number":33},{"data":"00000000","number":34},{"data":"00000000","number":35},{"data":"00000000","number":36},{"data":"00000000","number":37},{"data":"00000000","number":38},{"data":"00000000","number":39},{"data":"00000000","number":40},{"data":"00000000","number":41},{"data":"00000000","number":42},{"data":"00000000","number":43},{"data":"00000000","number":44},{"data":"00000000","number":45},{"data":"00000000","number":46},{"data":"00000000","number":47},{"data":"00000000","number":48},{"data":"00000000","number":49},{"data":"00000000","number":50},{"data":"00000000","number":51},{"data":"00000000","number":52},{"data":"00000000","number":53},{"data":"00000000","number":54},{"data":"00000000","number":55},{"data":"00000000","number":56},{"data":"00000000","number":57},{"data":"00000000","number":58},{"data":"00000000","number":59},{"data":"00000000","number":60},{"data":"00000000","number":61},{"data":"00000000","number":62},{"data":"00000000","number":63},{"data":"00000000","number":64},{"data":"00000000","number":65},{"data":"00000000","number":66},{"data":"00000000","number":67},{"data":"00000000","number":68},{"data":"00000000","number":69},{"data":"00000000","number":70},{"data":"00000000","number":71},{"data":"00000000","number":72},{"data":"00000000","number":73},{"data":"00000000","number":74},{"data":"00000000","number":75},{"data":"00000000","number":76},{"data":"00000000","number":77},{"data":"00000000","number":78},{"data":"00000000","number":79},{"data":"00000000","number":80},{"data":"00000000","number":81},{"data":"00000000","number":82},{"data":"00000000","number":83},{"data":"00000000","number":84},{"data":"00000000","number":85},{"data":"00000000","number":86},{"data":"00000000","number":87},{"data":"00000000","number":88},{"data":"00000000","number":89},{"data":"00000000","number":90},{"data":"00000000","number":91},{"data":"00000000","number":92},{"data":"00000000","number":93},{"data":"00000000","number":94},{"data":"00000000","number":95},{"data":"00000000","number":96},{"data":"00000000","number":97},{"data":"00000000","number":98},{"data":"00000000","number":99},{"data":"00000000","number":100},{"data":"00000000","number":101},{"data":"00000000","number":102},{"data":"00000000","number":103},{"data":"00000000","number":104},{"data":"00000000","number":105},{"data":"00000000","number":106},{"data":"00000000","number":107},{"data":"00000000","number":108},{"data":"00000000","number":109},{"data":"00000000","number":110},{"data":"00000000","number":111},{"data":"00000000","number":112},{"data":"00000000","number":113},{"data":"00000000","number":114},{"data":"00000000","number":115},{"data":"00000000","number":116},{"data":"00000000","number":117},{"data":"00000000","number":118},{"data":"00000000","number":119},{"data":"00000000","number":120},{"data":"00000000","number":121},{"data":"00000000","number":122},{"data":"00000000","number":123},{"data":"00000000","number":124},{"data":"00000000","number":125},{"data":"00000000","number":126},{"data":"00000000","number":127},{"data":"00000000","number":128},{"data":"00000000","number":129},{"data":"000000BD","number":130},{"data":"040000FF","number":131},{"data":"00000000","number":132},{"data":"00000000","number":133},{"data":"00000000","number":134}],"pagesTotal":135,"parsedNDEF":[{"type":"URI","value":"https://www.home-assistant.io/tag/front-door"}],"probes":["GET_VERSION: 0004040201001103"],"product":"NTAG215","sak":"00","signature":"04A0B0C0D0E0F003A9BBC9DFE9FB0AAEA2D2C6F6E211B7A5DBCDFFED18BCACDC","tearing":[null,null,null],"technicalSummary":"135 pages · export 540 bytes · 1 NDEF records","uid":"04A1B2C3D4E5F6","userSummary":"Read a Type 2 style memory map with 135 pages.","version":"0004040201001103"},"event_id":"01KDVDNCE40C1G60R30C1G60R3","reader":"test","seq":3,"ts":"2026-01-01T00:00:02.500Z","type":"dump","uid":"04A1B2C3D4E5F6"}
"""#
        ),
        (
            "tag present",
            #"""
nfc/test/tag qos=1 retain=true
{"cardType":"NTAG215","last":{"cardType":"NTAG215","random_uid":false,"tag_id":"front-door","ts":"2026-01-01T00:00:02.500Z","uid":"04A1B2C3D4E5F6"},"present":true,"since":"2026-01-01T00:00:02.500Z","uid":"04A1B2C3D4E5F6"}
"""#
        ),
        (
            "response write ok",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{"bytes_written":36,"capability_container":"E1103E00","cardType":"NTAG215","message_length":27,"pages_written":[4,5,6,7,8,9,10,11],"uid":"04A1B2C3D4E5F6"},"id":"w1","status":"ok"}
"""#
        ),
        (
            "response repeated id (first result again)",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{"bytes_written":36,"capability_container":"E1103E00","cardType":"NTAG215","message_length":27,"pages_written":[4,5,6,7,8,9,10,11],"uid":"04A1B2C3D4E5F6"},"id":"w1","replayed":true,"status":"ok","transaction":"again"}
"""#
        ),
        (
            "response tag_mismatch",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{},"error":{"code":"tag_mismatch","message":"the tag in the field (UID 04A1B2C3D4E5F6) is not the one the request names (UID 04112233445566): nothing was done"},"id":"m1","status":"error"}
"""#
        ),
        (
            "response capacity_exceeded",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{"pages_written":[]},"error":{"code":"capacity_exceeded","message":"Needs 610 bytes but the tag holds 492"},"id":"big","status":"error"}
"""#
        ),
        (
            "response dump json",
            #"""
nfc/test/response/dump qos=1 retain=false
{"data":{"cardType":"NTAG215","dump":{"atqa":"0044","blocks":[],"capabilities":["Readable"],"cardFamily":"NTAG","cardType":"NTAG215","counters":[null,null,null],"facts":[{"key":"Pages","monospaced":false,"value":"135"},{"key":"NDEF Bytes","monospaced":false,"value":"27"},{"key":"Originality Signature","monospaced":false,"value":"Not verified (no known NXP key matches)"}],"files":[],"ndefHex":"91010E55046578616D706C652E636F6D2F615101055402656E6869","pages":[{"data":"04A1B29F","number":0},{"data":"C3D4E5F6","number":1},{"data":"04480000","number":2},{"data":"E1103E00","number":3},{"data":"031B9101","number":4},{"data":"0E550465","number":5},{"data":"78616D70","number":6},{"data":"6C652E63","number":7},{"data":"6F6D2F61","number":8},{"data":"51010554","number":9},{"data":"02656E68","number":10},{"data":"69FE726F","number":11},{"data":"6E742D64","number":12},{"data":"6F6F72FE","number":13},{"data":"00000000","number":14},{"data":"00000000","number":15},{"data":"00000000","number":16},{"data":"00000000","number":17},{"data":"00000000","number":18},{"data":"00000000","number":19},{"data":"00000000","number":20},{"data":"00000000","number":21},{"data":"00000000","number":22},{"data":"00000000","number":23},{"data":"00000000","number":24},{"data":"00000000","number":25},{"data":"00000000","number":26},{"data":"00000000","number":27},{"data":"00000000","number":28},{"data":"00000000","number":29},{"data":"00000000","number":30},{"data":"00000000","number":31},{"data":"00000000","number":32},{"data":"00000000","number":33},{"data":"00000000","number":34},{"data":"00000000","number":35},{"data":"00000000","number":36},{"data":"00000000","number":37},{"data":"00000000","number":38},{"data":"00000000","number":39},{"data":"00000000","number":40},{"data":"00000000","number":41},{"data":"00000000","number":42},{"data":"00000000","number":43},{"data":"00000000","number":44},{"data":"00000000","number":45},{"data":"00000000","number":46},{"data":"00000000","number":47},{"data":"00000000","number":48},{"data":"00000000","number":49},{"data":"00000000","number":50},{"data":"00000000","number":51},{"data":"00000000","number":52},{"data":"00000000","number":53},{"data":"00000000","number":54},{"data":"00000000","number":55},{"data":"00000000","number":56},{"data":"00000000","number":57},{"data":"00000000","number":58},{"data":"00000000","number":59},{"data":"00000000","number":60},{"data":"00000000","number":61},{"data":"00000000","number":62},{"data":"00000000","number":63},{"data":"00000000","number":64},{"data":"00000000","number":65},{"data":"00000000","number":66},{"data":"00000000","number":67},{"data":"00000000","number":68},{"data":"00000000","number":69},{"data":"00000000","number":70},{"data":"00000000","number":71},{"data":"00000000","number":72},{"data":"00000000","number":73},{"data":"00000000","number":74},{"data":"00000000","number":75},{"data":"00000000","number":76},{"data":"00000000","number":77},{"data":"00000000","number":78},{"data":"00000000","number":79},{"data":"00000000","number":80},{"data":"00000000","number":81},{"data":"00000000","number":82},{"data":"00000000","number":83},{"data":"00000000","number":84},{"data":"00000000","number":85},{"data":"00000000","number":86},{"data":"00000000","number":87},{"data":"00000000","number":88},{"data":"00000000","number":89},{"data":"00000000","number":90},{"data":"00000000","number":91},{"data":"00000000","number":92},{"data":"00000000","number":93},{"data":"00000000","number":94},{"data":"00000000","number":95},{"data":"00000000","number":96},{"data":"00000000","number":97},{"data":"00000000","number":98},{"data":"00000000","number":99},{"data":"00000000","number":100},{"data":"00000000","number":101},{"data":"00000000","number":102},{"data":"00000000","number":103},{"data":"00000000","number":104},{"data":"00000000","number":105},{"data":"00000000","number":106},{"data":"00000000","number":107},{"data":"00000000","number":108},{"data":"00000000","number":109},{"data":"00000000","number":110},{"data":"00000000","number":111},{"data":"00000000","number":112},{"data":"00000000","number":113},{"data":"00000000","number":114},{"data":"00000000","number":115},{"data":"00000000","number":116},{"data":"00000000","number":117},{"data":"00000000","number":118},{"data":"00000000","number":119},{"data":"00000000","number":120},{"data":"00000000","number":121},{"data":"00000000","number":122},{"data":"00000000","number":123},{"data":"00000000","number":124},{"data":"00000000","number":125},{"data":"00000000","number":126},{"data":"00000000","number":127},{"data":"00000000","number":128},{"data":"00000000","number":129},{"data":"000000BD","number":130},{"data":"040000FF","number":131},{"data":"00000000","number":132},{"data":"00000000","number":133},{"data":"00000000","number":134}],"pagesTotal":135,"parsedNDEF":[{"type":"URI","value":"https://example.com/a"},{"type":"Text","value":"[en] hi"}],"probes":["GET_VERSION: 0004040201001103"],"product":"NTAG215","sak":"00","signature":"04A0B0C0D0E0F003A9BBC9DFE9FB0AAEA2D2C6F6E211B7A5DBCDFFED18BCACDC","tearing":[null,null,null],"technicalSummary":"135 pages · export 540 bytes · 2 NDEF records","uid":"04A1B2C3D4E5F6","userSummary":"Read a Type 2 style memory map with 135 pages.","version":"0004040201001103"},"format":"json","uid":"04A1B2C3D4E5F6"},"id":"dj","status":"ok"}
"""#
        ),
        (
            "response dump flipper (v5 response topic)",
            #"""
client/replies qos=1 retain=false correlation=C0FF
{"data":{"cardType":"NTAG215","content_type":"text/plain","file":"RmlsZXR5cGU6IEZsaXBwZXIgTkZDIGRldmljZQpWZXJzaW9uOiA0CkRldmljZSB0eXBlOiBOVEFHL1VsdHJhbGlnaHQKVUlEOiAwNCBBMSBCMiBDMyBENCBFNSBGNgpBVFFBOiAwMCA0NApTQUs6IDAwCkRhdGEgZm9ybWF0IHZlcnNpb246IDIKTlRBRy9VbHRyYWxpZ2h0IHR5cGU6IE5UQUcyMTUKU2lnbmF0dXJlOiAwNCBBMCBCMCBDMCBEMCBFMCBGMCAwMyBBOSBCQiBDOSBERiBFOSBGQiAwQSBBRSBBMiBEMiBDNiBGNiBFMiAxMSBCNyBBNSBEQiBDRCBGRiBFRCAxOCBCQyBBQyBEQwpNaWZhcmUgdmVyc2lvbjogMDAgMDQgMDQgMDIgMDEgMDAgMTEgMDMKQ291bnRlciAwOiAwClRlYXJpbmcgMDogMDAKQ291bnRlciAxOiAwClRlYXJpbmcgMTogMDAKQ291bnRlciAyOiAwClRlYXJpbmcgMjogMDAKUGFnZXMgdG90YWw6IDEzNQpQYWdlcyByZWFkOiAxMzUKUGFnZSAwOiAwNCBBMSBCMiA5RgpQYWdlIDE6IEMzIEQ0IEU1IEY2ClBhZ2UgMjogMDQgNDggMDAgMDAKUGFnZSAzOiBFMSAxMCAzRSAwMApQYWdlIDQ6IDAzIDFCIDkxIDAxClBhZ2UgNTogMEUgNTUgMDQgNjUKUGFnZSA2OiA3OCA2MSA2RCA3MApQYWdlIDc6IDZDIDY1IDJFIDYzClBhZ2UgODogNkYgNkQgMkYgNjEKUGFnZSA5OiA1MSAwMSAwNSA1NApQYWdlIDEwOiAwMiA2NSA2RSA2OApQYWdlIDExOiA2OSBGRSA3MiA2RgpQYWdlIDEyOiA2RSA3NCAyRCA2NApQYWdlIDEzOiA2RiA2RiA3MiBGRQpQYWdlIDE0OiAwMCAwMCAwMCAwMApQYWdlIDE1OiAwMCAwMCAwMCAwMApQYWdlIDE2OiAwMCAwMCAwMCAwMApQYWdlIDE3OiAwMCAwMCAwMCAwMApQYWdlIDE4OiAwMCAwMCAwMCAwMApQYWdlIDE5OiAwMCAwMCAwMCAwMApQYWdlIDIwOiAwMCAwMCAwMCAwMApQYWdlIDIxOiAwMCAwMCAwMCAwMApQYWdlIDIyOiAwMCAwMCAwMCAwMApQYWdlIDIzOiAwMCAwMCAwMCAwMApQYWdlIDI0OiAwMCAwMCAwMCAwMApQYWdlIDI1OiAwMCAwMCAwMCAwMApQYWdlIDI2OiAwMCAwMCAwMCAwMApQYWdlIDI3OiAwMCAwMCAwMCAwMApQYWdlIDI4OiAwMCAwMCAwMCAwMApQYWdlIDI5OiAwMCAwMCAwMCAwMApQYWdlIDMwOiAwMCAwMCAwMCAwMApQYWdlIDMxOiAwMCAwMCAwMCAwMApQYWdlIDMyOiAwMCAwMCAwMCAwMApQYWdlIDMzOiAwMCAwMCAwMCAwMApQYWdlIDM0OiAwMCAwMCAwMCAwMApQYWdlIDM1OiAwMCAwMCAwMCAwMApQYWdlIDM2OiAwMCAwMCAwMCAwMApQYWdlIDM3OiAwMCAwMCAwMCAwMApQYWdlIDM4OiAwMCAwMCAwMCAwMApQYWdlIDM5OiAwMCAwMCAwMCAwMApQYWdlIDQwOiAwMCAwMCAwMCAwMApQYWdlIDQxOiAwMCAwMCAwMCAwMApQYWdlIDQyOiAwMCAwMCAwMCAwMApQYWdlIDQzOiAwMCAwMCAwMCAwMApQYWdlIDQ0OiAwMCAwMCAwMCAwMApQYWdlIDQ1OiAwMCAwMCAwMCAwMApQYWdlIDQ2OiAwMCAwMCAwMCAwMApQYWdlIDQ3OiAwMCAwMCAwMCAwMApQYWdlIDQ4OiAwMCAwMCAwMCAwMApQYWdlIDQ5OiAwMCAwMCAwMCAwMApQYWdlIDUwOiAwMCAwMCAwMCAwMApQYWdlIDUxOiAwMCAwMCAwMCAwMApQYWdlIDUyOiAwMCAwMCAwMCAwMApQYWdlIDUzOiAwMCAwMCAwMCAwMApQYWdlIDU0OiAwMCAwMCAwMCAwMApQYWdlIDU1OiAwMCAwMCAwMCAwMApQYWdlIDU2OiAwMCAwMCAwMCAwMApQYWdlIDU3OiAwMCAwMCAwMCAwMApQYWdlIDU4OiAwMCAwMCAwMCAwMApQYWdlIDU5OiAwMCAwMCAwMCAwMApQYWdlIDYwOiAwMCAwMCAwMCAwMApQYWdlIDYxOiAwMCAwMCAwMCAwMApQYWdlIDYyOiAwMCAwMCAwMCAwMApQYWdlIDYzOiAwMCAwMCAwMCAwMApQYWdlIDY0OiAwMCAwMCAwMCAwMApQYWdlIDY1OiAwMCAwMCAwMCAwMApQYWdlIDY2OiAwMCAwMCAwMCAwMApQYWdlIDY3OiAwMCAwMCAwMCAwMApQYWdlIDY4OiAwMCAwMCAwMCAwMApQYWdlIDY5OiAwMCAwMCAwMCAwMApQYWdlIDcwOiAwMCAwMCAwMCAwMApQYWdlIDcxOiAwMCAwMCAwMCAwMApQYWdlIDcyOiAwMCAwMCAwMCAwMApQYWdlIDczOiAwMCAwMCAwMCAwMApQYWdlIDc0OiAwMCAwMCAwMCAwMApQYWdlIDc1OiAwMCAwMCAwMCAwMApQYWdlIDc2OiAwMCAwMCAwMCAwMApQYWdlIDc3OiAwMCAwMCAwMCAwMApQYWdlIDc4OiAwMCAwMCAwMCAwMApQYWdlIDc5OiAwMCAwMCAwMCAwMApQYWdlIDgwOiAwMCAwMCAwMCAwMApQYWdlIDgxOiAwMCAwMCAwMCAwMApQYWdlIDgyOiAwMCAwMCAwMCAwMApQYWdlIDgzOiAwMCAwMCAwMCAwMApQYWdlIDg0OiAwMCAwMCAwMCAwMApQYWdlIDg1OiAwMCAwMCAwMCAwMApQYWdlIDg2OiAwMCAwMCAwMCAwMApQYWdlIDg3OiAwMCAwMCAwMCAwMApQYWdlIDg4OiAwMCAwMCAwMCAwMApQYWdlIDg5OiAwMCAwMCAwMCAwMApQYWdlIDkwOiAwMCAwMCAwMCAwMApQYWdlIDkxOiAwMCAwMCAwMCAwMApQYWdlIDkyOiAwMCAwMCAwMCAwMApQYWdlIDkzOiAwMCAwMCAwMCAwMApQYWdlIDk0OiAwMCAwMCAwMCAwMApQYWdlIDk1OiAwMCAwMCAwMCAwMApQYWdlIDk2OiAwMCAwMCAwMCAwMApQYWdlIDk3OiAwMCAwMCAwMCAwMApQYWdlIDk4OiAwMCAwMCAwMCAwMApQYWdlIDk5OiAwMCAwMCAwMCAwMApQYWdlIDEwMDogMDAgMDAgMDAgMDAKUGFnZSAxMDE6IDAwIDAwIDAwIDAwClBhZ2UgMTAyOiAwMCAwMCAwMCAwMApQYWdlIDEwMzogMDAgMDAgMDAgMDAKUGFnZSAxMDQ6IDAwIDAwIDAwIDAwClBhZ2UgMTA1OiAwMCAwMCAwMCAwMApQYWdlIDEwNjogMDAgMDAgMDAgMDAKUGFnZSAxMDc6IDAwIDAwIDAwIDAwClBhZ2UgMTA4OiAwMCAwMCAwMCAwMApQYWdlIDEwOTogMDAgMDAgMDAgMDAKUGFnZSAxMTA6IDAwIDAwIDAwIDAwClBhZ2UgMTExOiAwMCAwMCAwMCAwMApQYWdlIDExMjogMDAgMDAgMDAgMDAKUGFnZSAxMTM6IDAwIDAwIDAwIDAwClBhZ2UgMTE0OiAwMCAwMCAwMCAwMApQYWdlIDExNTogMDAgMDAgMDAgMDAKUGFnZSAxMTY6IDAwIDAwIDAwIDAwClBhZ2UgMTE3OiAwMCAwMCAwMCAwMApQYWdlIDExODogMDAgMDAgMDAgMDAKUGFnZSAxMTk6IDAwIDAwIDAwIDAwClBhZ2UgMTIwOiAwMCAwMCAwMCAwMApQYWdlIDEyMTogMDAgMDAgMDAgMDAKUGFnZSAxMjI6IDAwIDAwIDAwIDAwClBhZ2UgMTIzOiAwMCAwMCAwMCAwMApQYWdlIDEyNDogMDAgMDAgMDAgMDAKUGFnZSAxMjU6IDAwIDAwIDAwIDAwClBhZ2UgMTI2OiAwMCAwMCAwMCAwMApQYWdlIDEyNzogMDAgMDAgMDAgMDAKUGFnZSAxMjg6IDAwIDAwIDAwIDAwClBhZ2UgMTI5OiAwMCAwMCAwMCAwMApQYWdlIDEzMDogMDAgMDAgMDAgQkQKUGFnZSAxMzE6IDA0IDAwIDAwIEZGClBhZ2UgMTMyOiAwMCAwMCAwMCAwMApQYWdlIDEzMzogMDAgMDAgMDAgMDAKUGFnZSAxMzQ6IDAwIDAwIDAwIDAwCkZhaWxlZCBhdXRoZW50aWNhdGlvbiBhdHRlbXB0czogMAo=","file_name":"ntag-04a1b2c3d4e5f6.nfc","format":"flipper","uid":"04A1B2C3D4E5F6"},"id":"df","status":"ok"}
"""#
        ),
        (
            "response format ok",
            #"""
nfc/test/response/format qos=1 retain=false
{"data":{"bytes_written":4,"capability_container":"E1103E00","cardType":"NTAG215","message_length":0,"pages_written":[4],"uid":"04A1B2C3D4E5F6"},"id":"f1","status":"ok"}
"""#
        ),
        (
            "response lock with a wrong confirm",
            #"""
nfc/test/response/lock qos=1 retain=false
{"data":{},"error":{"code":"invalid_request","message":"confirm: must equal uid (04A1B2C3D4E5F6), got 04A1B2C3D4E5F7"},"id":"L0","status":"error"}
"""#
        ),
        (
            "response lock ok",
            #"""
nfc/test/response/lock qos=1 retain=false
{"data":{"capability_container":"E1103E0F","cardType":"NTAG215","lock_bytes":"FFFFFF000F","pages_written":[3,130,2],"uid":"04A1B2C3D4E5F6"},"id":"L1","status":"ok","transaction":1}
"""#
        ),
        (
            "event/lock",
            #"""
nfc/test/event/lock qos=1 retain=false
{"buffered":false,"command":"lock","data":{"capability_container":"E1103E0F","cardType":"NTAG215","lock_bytes":"FFFFFF000F","pages_written":[3,130,2],"uid":"04A1B2C3D4E5F6"},"event_id":"01KDVDNCE40G2081040G208104","id":"L1","reader":"test","seq":4,"status":"ok","ts":"2026-01-01T00:00:02.500Z","type":"lock","uid":"04A1B2C3D4E5F6"}
"""#
        ),
        (
            "response tag_locked",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{"pages_written":[]},"error":{"code":"tag_locked","message":"The tag is read-only"},"id":"w2","status":"error"}
"""#
        ),
        (
            "event/removed",
            #"""
nfc/test/event/removed qos=1 retain=false
{"buffered":false,"cardType":"NTAG215","event_id":"01KDVDND0W0M2GA1850M2GA185","present_ms":0,"random_uid":false,"reader":"test","seq":5,"ts":"2026-01-01T00:00:03.100Z","type":"removed","uid":"04A1B2C3D4E5F6"}
"""#
        ),
        (
            "response write without the password",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{"pages_written":[]},"error":{"code":"auth_required","message":"The tag is password protected: a password is needed"},"id":"p0","status":"error"}
"""#
        ),
        (
            "response write with a wrong password",
            #"""
nfc/test/response/write qos=1 retain=false
{"data":{"pages_written":[]},"error":{"code":"auth_failed","message":"Authentication failed"},"id":"p1","status":"error"}
"""#
        ),
        (
            "status online (reconnect)",
            #"""
nfc/test/status qos=1 retain=true
online
"""#
        ),
        (
            "info (reconnect)",
            #"""
nfc/test/info qos=1 retain=true
{"agent":{"id":"test","started_at":"2026-01-01T00:00:00.000Z","version":"<version>"},"commands":["write","format","lock","dump","cancel","write_blocks","job","feedback"],"config":{"access":{"credential":"uid","credential_hash":false,"originality_keys_file":null,"probes":{"gen1a_backdoor":false,"gen4_gtu":false,"uid_structure":true,"version_signature_mismatch":true},"signature":"check"},"auth":{"keys_file":null},"commands":{"idempotency_window_s":86400,"lock":{"enabled":true},"require_signature":false,"signature_key_file":null,"signature_window_s":300},"dump":{"keys_file":null,"on_scan":true},"feedback":{"exec":null,"exec_timeout_ms":2000,"on_job":{"failed":{"beeps":0,"light":null},"ok":{"beeps":0,"light":null},"refused":{"beeps":0,"light":null}},"on_scan":{"beeps":0,"light":null},"on_trust":{"trusted":{"beeps":0,"light":null},"untrusted":{"beeps":0,"light":null}}},"health_interval_s":60,"homeassistant":{"enabled":true,"prefix":"homeassistant","trusted_only":false},"id":"test","log":{"level":"info"},"mqtt":{"base_topic":"nfc","ca_file":null,"cert_file":null,"key_file":null,"live_window_s":2,"max_packet_size":null,"password_file":null,"protocol":"5","recycle_after_s":60,"stall_after_s":10,"tls_insecure":false,"url":"mqtt://localhost:1883","username":null},"presence":{"min_interval_ms":1000,"mode":"presence","rearm_ms":2000,"removal_grace_ms":600},"reader":{"backend":"auto","device":null,"pcsc_share_mode":"exclusive","polling":{"interval_ms":250,"modulations":["iso14443a"]}},"spool":{"max_age_s":604800,"max_bytes":16777216,"max_events":10000},"state_dir":"<state_dir>"},"mqtt":{"protocol":"5","tls":false,"tls_insecure":false,"url":"mqtt://localhost:1883","urls":["mqtt://localhost:1883"]},"reader":{"connstring":"virtual:0","firmware":"PN532 v1.6","name":"Virtual PN532"}}
"""#
        ),
        (
            "reader (reconnect)",
            #"""
nfc/test/reader qos=1 retain=true
{"device":"virtual:0","since":"2026-01-01T00:00:00.000Z","state":"ok"}
"""#
        ),
        (
            "tag absent (reconnect)",
            #"""
nfc/test/tag qos=1 retain=true
{"last":{"cardType":"NTAG215","random_uid":false,"tag_id":"04112233445566","ts":"2026-01-01T00:00:03.100Z","uid":"04112233445566"},"present":false}
"""#
        ),
        (
            "health (reconnect, one event spooled)",
            #"""
nfc/test/health qos=1 retain=true
{"clock":{"synchronized":null},"mqtt":{"connect_failures":{},"connected":true,"duplicate_client_id":0,"failovers":0,"node":null,"reconnects":1,"recycles":0,"refused_for_size":0,"responses_dropped":0,"stalled":false,"stalls":0,"unacked_s":<0 or null>},"reader":{"poll_errors":0,"reopens":0,"state":"ok"},"rss_bytes":<rss>,"scans":{"total":2},"spool":{"bytes":279,"corrupt_lines":0,"depth":1,"dropped":0,"oldest_age_s":0,"replayed":0,"write_failed":false,"write_failures":0},"ts":"2026-01-01T00:00:03.702Z","uptime_s":3}
"""#
        ),
        (
            "event/removed (replayed from the spool)",
            #"""
nfc/test/event/removed qos=1 retain=false
{"buffered":true,"cardType":"NTAG215","event_id":"01KDVDNDKP1040G2081040G208","present_ms":0,"random_uid":false,"reader":"test","seq":8,"ts":"2026-01-01T00:00:03.702Z","type":"removed","uid":"04112233445566"}
"""#
        ),
        (
            "status offline (stop)",
            #"""
nfc/test/status qos=1 retain=true
offline
"""#
        ),
    ]
}
