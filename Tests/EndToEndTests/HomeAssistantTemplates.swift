import Foundation
import Testing
import TestSupport

/// Renders Home Assistant templates the way Home Assistant's MQTT integration does, with Debian's
/// Jinja2 (`python3-jinja2`, in the Makefile's `DEBS`), so the tests check the discovery templates
/// against the payloads the agent really publishes:
/// - the variables are `value` (the payload text) and `value_json` (the payload parsed, when it is JSON);
/// - a sandboxed environment, and the result stripped of surrounding whitespace;
/// - an undefined variable is logged when it is printed, iterated or tested for truth (HA's
///   `LoggingUndefined`): such a warning is collected, and the tests treat it as a failure;
/// - `tojson` serializes strictly: an undefined value is not serializable and the render fails
///   with a `TypeError` (HA's orjson `tojson` does the same, which is the bug of issue 11);
/// - `now()` and `as_timestamp(value, default)` as Home Assistant defines them; `now()` is the
///   job's `now` when given, else the payload's `ts` (the message arrived at once), else the time.
enum HomeAssistantTemplates {
    /// What one render gave.
    struct Rendering: CustomStringConvertible {
        /// The rendered text, nil when rendering failed.
        var result: String?
        /// The exception (`TypeError: …`), when rendering failed.
        var error: String?
        /// HA's "Template variable warning"s: undefined values printed or tested.
        var warnings: [String]

        /// Rendered, without error or warning.
        var isClean: Bool { result != nil && error == nil && warnings.isEmpty }

        var description: String { "result \(result ?? "nil"), error \(error ?? "none"), warnings \(warnings)" }
    }

    static let python = "/usr/bin/python3"

    static let script = #"""
        import json, sys
        from datetime import datetime, timezone
        import jinja2
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        warnings = []

        class LoggingUndefined(jinja2.Undefined):
            def _log(self):
                warnings.append(self._undefined_message)
            def __str__(self):
                self._log()
                return super().__str__()
            def __iter__(self):
                self._log()
                return super().__iter__()
            def __bool__(self):
                self._log()
                return super().__bool__()

        def tojson(value):
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

        def parse(value):
            if isinstance(value, datetime):
                return value
            return datetime.fromisoformat(str(value).replace("Z", "+00:00"))

        missing = object()
        def as_timestamp(value, default=missing):
            try:
                return parse(value).timestamp()
            except (ValueError, TypeError):
                if default is missing:
                    raise
                return default

        env = ImmutableSandboxedEnvironment(undefined=LoggingUndefined)
        env.filters["tojson"] = tojson
        env.globals["as_timestamp"] = as_timestamp
        results = []
        for job in json.load(open(sys.argv[1])):
            warnings.clear()
            variables = {"value": job["payload"]}
            try:
                variables["value_json"] = json.loads(job["payload"])
            except ValueError:
                pass
            arrival = job.get("now")
            if arrival is None and isinstance(variables.get("value_json"), dict):
                arrival = variables["value_json"].get("ts")
            arrived = parse(arrival) if arrival else datetime.now(timezone.utc)
            variables["now"] = lambda: arrived
            try:
                text = env.from_string(job["template"]).render(**variables).strip()
                results.append({"result": text, "warnings": list(warnings)})
            except Exception as error:
                results.append({"error": f"{type(error).__name__}: {error}", "warnings": list(warnings)})
        json.dump(results, sys.stdout)
        """#

    /// Renders each `(template, payload)`, in one Python process.
    static func render(_ jobs: [(template: String, payload: String)]) throws -> [Rendering] {
        try render(jobs.map { ($0.template, $0.payload, nil) })
    }

    /// Renders each `(template, payload)` as if it reached Home Assistant at `now` (an ISO 8601
    /// time; nil: at the payload's `ts`), in one Python process.
    static func render(_ jobs: [(template: String, payload: String, now: String?)]) throws -> [Rendering] {
        let folder = try TemporaryFolder()
        let script = try folder.write("render.py", script)
        let input = try JSONSerialization.data(withJSONObject: jobs.map { job -> [String: String] in
            var entry = ["template": job.template, "payload": job.payload]
            entry["now"] = job.now
            return entry
        })
        let jobsFile = folder.path + "/jobs.json"
        try input.write(to: URL(fileURLWithPath: jobsFile))
        let process = try ChildProcess(python, [script, jobsFile])
        let status = process.waitForExit()
        guard status == 0,
            let list = try JSONSerialization.jsonObject(with: process.outputData) as? [[String: Any]], list.count == jobs.count
        else {
            Issue.record("the Jinja2 renderer failed (\(String(describing: status))): \(process.errorOutput)")
            return []
        }
        return list.map {
            Rendering(result: $0["result"] as? String, error: $0["error"] as? String, warnings: $0["warnings"] as? [String] ?? [])
        }
    }

    /// Renders one template.
    static func render(_ template: String, _ payload: String) throws -> Rendering {
        try render([(template, payload)]).first ?? Rendering(result: nil, error: "no result", warnings: [])
    }
}
