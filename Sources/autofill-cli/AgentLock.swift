import AutofillHost
import AutofillWire

/// Ends a provider's helper in the agent from a command that runs in its own process (`providers
/// disable`, `providers set` and `unset`): what it unlocked dies with it, and its next launch reads
/// the configuration as it is now (docs/AGENT.md). It asks the agent the way `autofill lock ID` does
/// (the agent's `lock`, over its socket); it starts no agent, since with none running nothing is
/// unlocked.
enum AgentLock {
    /// Asks the agent to end `id`'s helper; says so when it could not ask a running agent.
    static func end(_ id: String) {
        // A command the agent itself runs (a client of an older protocol) reaches the pool directly.
        if let pool = ClientContext.current.pool {
            let ended = pool.lock(id).ended
            if !ended.isEmpty { print("Locked \(ended.joined(separator: ", ")).") }
            return
        }
        let environment = ClientContext.current.environment
        switch AgentClient.run(["lock", id, "--if-running"], environment: environment, start: false,
                               agentExecutable: ClientProcess.folder() + "/autofill-cli") {
        case .exited(0): break
        case .exited(let status):
            printError("autofill: note: the agent could not end \(id)'s helper (exit \(status)); run `autofill lock \(id)`")
        case .runHere(let reason):
            // No agent (nothing is unlocked), or one that serves another environment and runs nothing for this one.
            guard AgentPaths(environment: environment).map({ AgentSocketPeer(path: $0.socket) != nil }) == true else { return }
            printError("autofill: note: the agent did not end \(id)'s helper: \(reason). `autofill lock \(id)` from where it was started, or `autofill agent stop`, ends it")
        }
    }
}
