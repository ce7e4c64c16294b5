// The helper protocol's encoding of the sandbox: the policy the host sends in `load`, the report
// the helper sends back before it opens the plugin. No secrets here: paths, ports, switches and
// the environment the host chose (which holds no secret by construction: docs/SANDBOX.md).

internal import AutofillWire

extension FrameWriter {
    mutating func sandboxPolicy(_ policy: SandboxPolicy) {
        array(policy.rules) { w, rule in
            w.string(rule.path)
            w.u32(rule.access.rawValue)
            w.string(rule.reason)
        }
        array(policy.tcpPorts) { $0.u32(UInt32($1)) }
        bool(policy.network)
        bool(policy.sessionBus)
        bool(policy.unixSockets)
        bool(policy.runsPrograms)
        array(policy.environment.sorted { $0.key < $1.key }) { w, entry in
            w.string(entry.key)
            w.string(entry.value)
        }
        string(policy.dataFolder)
        optional(policy.runtimeFolder) { $0.string($1) }
    }

    mutating func sandboxReport(_ report: SandboxReport) {
        for value in [report.landlockABI, report.kernelLandlockABI, report.seccompRules, report.pathRules, report.skippedPathRules, report.microseconds] {
            int(value)
        }
    }
}

extension FrameReader {
    /// The most path rules or environment entries a policy may carry.
    static let maximumSandboxEntries = 4096

    mutating func sandboxPolicy() throws(FrameError) -> SandboxPolicy {
        let rules = try array("load.sandbox.rules", minimumElementSize: 12) { r throws(FrameError) in
            SandboxPolicy.Rule(path: try r.text("load.sandbox.rule.path"),
                               access: SandboxPolicy.Access(rawValue: try r.u32("load.sandbox.rule.access")),
                               reason: try r.text("load.sandbox.rule.reason"))
        }
        let ports = try array("load.sandbox.tcpPorts", minimumElementSize: 4) { r throws(FrameError) in
            let port = try r.u32("load.sandbox.tcpPort")
            guard (1...65535).contains(port) else { throw FrameError("load.sandbox.tcpPort: \(port) is no TCP port") }
            return UInt16(port)
        }
        let network = try bool("load.sandbox.network"), sessionBus = try bool("load.sandbox.sessionBus")
        let unixSockets = try bool("load.sandbox.unixSockets"), runsPrograms = try bool("load.sandbox.runsPrograms")
        let entries = try array("load.sandbox.environment", minimumElementSize: 8) { r throws(FrameError) in
            (try r.text("load.sandbox.environment.name"), try r.text("load.sandbox.environment.value"))
        }
        guard rules.count <= Self.maximumSandboxEntries, entries.count <= Self.maximumSandboxEntries else {
            throw FrameError("load.sandbox: over \(Self.maximumSandboxEntries) rules or environment entries")
        }
        var environment: [String: String] = [:]
        for (name, value) in entries {
            guard !name.isEmpty, !name.contains("="), !name.contains("\0"), !value.contains("\0"), environment[name] == nil else {
                throw FrameError("load.sandbox.environment: a malformed or repeated name")
            }
            environment[name] = value
        }
        return SandboxPolicy(rules: rules, tcpPorts: ports, network: network, sessionBus: sessionBus, unixSockets: unixSockets,
                             runsPrograms: runsPrograms, environment: environment, dataFolder: try text("load.sandbox.dataFolder"),
                             runtimeFolder: try optional("load.sandbox.runtimeFolder") { r throws(FrameError) in try r.text("load.sandbox.runtimeFolder") })
    }

    mutating func sandboxReport() throws(FrameError) -> SandboxReport {
        SandboxReport(landlockABI: try int("sandboxed.landlockABI"), kernelLandlockABI: try int("sandboxed.kernelLandlockABI"),
                      seccompRules: try int("sandboxed.seccompRules"), pathRules: try int("sandboxed.pathRules"),
                      skippedPathRules: try int("sandboxed.skippedPathRules"), microseconds: try int("sandboxed.microseconds"))
    }
}
