internal import AutofillSystem
internal import AutofillWire

extension AgentServer {
    /// Why the agent does not run a request: what the client is told (nothing of the agent's
    /// program or environment) and what the agent's own log says.
    struct Refusal {
        let reason: String
        let log: String
    }

    /// Knobs read from the agent's own environment when it launches a provider's helper (the helper
    /// executable, the loader's diagnostics, a test's switch): a request that sets them otherwise
    /// runs in its client's process, where they take effect.
    static let launchSettings = ["AUTOFILL_PROVIDER_HELPER", "AUTOFILL_TEST_NO_LANDLOCK", "LD_DEBUG", "LD_DEBUG_OUTPUT"]

    /// The variables the agent keeps its own of in every request: locale and time zone (its helpers
    /// run with the agent's, so a client's other locale neither relaunches them nor matters).
    static func isAgentsOwn(_ name: String) -> Bool {
        ["LANG", "LANGUAGE", "TZ", "USER", "LOGNAME"].contains(name) || name.hasPrefix("LC_")
    }

    /// Why this agent should not run a client's command (the client then runs it itself), or nil.
    /// Neither `PATH`, nor locale, nor terminal variables matter.
    func refusal(version: UInt32, arguments: [String], environment client: [String: String], program: String) -> Refusal? {
        guard version == AgentProtocol.version else {
            return Refusal(reason: "the agent speaks protocol \(AgentProtocol.version) and the client \(version)",
                           log: "a client speaking protocol \(version) runs its command itself")
        }
        // The one list of what a client sends here (AgentRoute): anything else, configuration above
        // all, runs in the caller's own process.
        guard AgentRoute(arguments, environment: client) != nil else {
            return Refusal(reason: "the agent does not run this command; it runs in the client's own process",
                           log: "refused `\(arguments.prefix(2).joined(separator: " "))`, which no client sends to the agent")
        }
        // One socket per user, so a second installation's client (a package beside ~/.local, a
        // checkout's build) reaches this agent too: it must not get this installation's code. What
        // concerns the agent itself (lock, agent status) it serves whoever installed the client.
        let aboutTheAgent = arguments.first == "lock" || Array(arguments.prefix(2)) == ["agent", "status"]
        let agentProgram = HelperSpawn.selfExecutable()
        guard program == agentProgram || aboutTheAgent else {
            return Refusal(reason: "the agent belongs to another installation of autofill than this client",
                           log: "a client of \(program) runs its command itself (the agent runs \(agentProgram))")
        }
        // The user folders as both sides resolve them (UserFolders: each `XDG_*` folder, its default
        // under `HOME` when unset): the agent's running providers, trust records and stores are those.
        let agentFolders = UserFolders(environment: environment).byVariable, clientFolders = UserFolders(environment: client).byVariable
        var differing = zip(agentFolders, clientFolders).filter { ours, theirs in ours.name != "XDG_RUNTIME_DIR" && ours.path != theirs.path }
            .map { ours, _ in ours.name }
        // The runtime folder as both sides find it (XDG_RUNTIME_DIR, else /run/user/UID): a request
        // reaches this socket through it, unless its variable names another path to it.
        if AgentPaths(environment: client)?.runtimeFolder != paths.runtimeFolder { differing.append("XDG_RUNTIME_DIR") }
        guard differing.isEmpty else {
            return Refusal(reason: "the agent serves other user folders (HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME, XDG_CACHE_HOME, XDG_RUNTIME_DIR) than this client's",
                           log: "a client whose \(differing.joined(separator: ", ")) differ from the agent's runs its command itself")
        }
        let knobs = Self.launchSettings.filter { environment[$0] != client[$0] }
        guard knobs.isEmpty else {
            return Refusal(reason: "this client launches providers otherwise than the agent (\(Self.launchSettings.joined(separator: ", ")))",
                           log: "a client whose \(knobs.joined(separator: ", ")) differ from the agent's runs its command itself")
        }
        return nil
    }

    /// The environment a request runs with: the client's, with the agent's own locale and time zone,
    /// and the runtime folder named as the agent found it.
    func requestEnvironment(_ client: [String: String]) -> [String: String] {
        var result = client.filter { !Self.isAgentsOwn($0.key) }
        for (name, value) in environment where Self.isAgentsOwn(name) { result[name] = value }
        result["XDG_RUNTIME_DIR"] = paths.runtimeFolder
        return result
    }
}
