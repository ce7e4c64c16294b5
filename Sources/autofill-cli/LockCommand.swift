import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillWire

/// `autofill lock [ID]`: end providers' unlocked state now.
struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock every provider, or one: the agent ends their helpers, and what they held unlocked with them.",
        discussion: """
            With no agent running nothing is unlocked, and this says so. A provider configured to run in the \
            agent's own process (ProviderIsolation inProcess) can only be locked by ending the agent, which \
            this then does. SIGHUP to the agent locks everything too (docs/AGENT.md). A provider declaring \
            GPGAgent (pass) keeps its passphrases in your gpg-agent: lock asks gpg-agent to forget those of \
            its keys, and says what it could not clear (exit 75).

            Examples:
              autofill lock
              autofill lock org.autofill.vault
            """).parsedAlone

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The provider to lock (default: all).", valueName: "id")) var provider: String?
    /// What `providers disable` and `providers set` send the agent (``AgentLock``): the id is one
    /// they just changed, so no spelling check, and nothing is said when the agent does not run it.
    @Flag(help: .hidden) var ifRunning = false

    func run() throws {
        global.bootstrapLogging()
        if let id = provider, !ifRunning {
            // A mistyped id (org.autofill.vautl) is a usage error naming the one meant, agent or not.
            let known = (ClientContext.current.pool?.running.map(\.id) ?? [])
                + ((try? global.configurationFile())?.configuration.enabledProviders ?? [])
            if !known.contains(id), let meant = KeySpelling.nearest(id, among: known) {
                printError("autofill: \(id) is not an enabled provider; did you mean \(meant)?")
                throw ExitCode(ExitStatus.usage)
            }
        }
        // Passphrases a provider unlocked in the user's gpg-agent (GPGAgent) outlive its helper: asked to forget
        // them whether the helper runs or not; one it could not clear is said, and that provider is not "Locked".
        let agentLocks = ifRunning ? [] : ((try? global.setup())?.forgetGPGAgentPassphrases(of: provider) ?? [])
        for lock in agentLocks { if let message = lock.message { lock.locked ? print(message) : printError("autofill: \(message)") } }
        let stillUnlocked = Set(agentLocks.filter { !$0.locked }.map(\.id))
        endHelpers(agentLocks: agentLocks, stillUnlocked: stillUnlocked)
        if !stillUnlocked.isEmpty { throw ExitCode(AutofillError(.temporaryFailure, "").exitStatus) }
    }

    /// Ends the agent's helpers (of `provider`, or all) and says which are locked.
    private func endHelpers(agentLocks: [ProviderSetup.GPGAgentLock], stillUnlocked: Set<String>) {
        // Providers whose passphrases gpg-agent just forgot are locked too, helper or not.
        let forgotten = agentLocks.filter { $0.locked && $0.message != nil }.map(\.id)
        guard let pool = ClientContext.current.pool, let server = AgentServer.current else {
            if !forgotten.isEmpty {
                print("Locked \(forgotten.joined(separator: ", ")).")
            } else if !ifRunning && !agentLocks.contains(where: { $0.message != nil }) {
                print("Nothing is unlocked: no agent is running.")
            }
            return
        }
        let (ended, inProcess) = pool.lock(provider)
        if ifRunning && ended.isEmpty { return }
        let locked = ended.filter { !stillUnlocked.contains($0) } + forgotten.filter { !ended.contains($0) }
        let said = agentLocks.contains { $0.message != nil }
        if inProcess {
            server.stop("a provider that runs in the agent's process was locked (autofill lock)")
            print("Locked \(locked.joined(separator: ", ")); the agent ends, since one of them ran in its own process.")
            return
        }
        switch (provider, ended.isEmpty) {
        case (let id?, true) where !said: print("\(id) was not unlocked: the agent is not running it.")
        case (nil, true) where !said: print("Nothing was unlocked: the agent runs no provider.")
        default: if !locked.isEmpty { print("Locked \(locked.joined(separator: ", ")).") }
        }
    }
}

/// `autofill unlock ID`: run a provider's configuration UI through the agent, which is how a
/// provider unlocks itself ahead of a fill (the Vault asks for its master password there and
/// publishes its identities).
struct UnlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock a provider ahead of time: its configuration UI runs in the agent, and it stays unlocked there.",
        discussion: """
            The provider must declare ShowsConfigurationUI. How long it stays unlocked is the provider's own \
            setting (the Vault's UnlockTimeoutSeconds); `autofill lock` ends it sooner. Without the agent \
            (AUTOFILL_AGENT=off) nothing stays unlocked after the command.

            Examples:
              autofill unlock org.autofill.vault
              autofill unlock org.autofill.vault --ui-script answers.ui
            """).parsedAlone

    @OptionGroup var global: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Argument(help: ArgumentHelp("The provider to unlock.", valueName: "id")) var provider: String

    func run() async throws {
        global.bootstrapLogging()
        try await reportingFillErrors(session) {
            let setup = try global.setup()
            let progress = progressLine()
            let router = try session.router(setup, progress: progress)
            let manifest = try router.chooseProvider(
                declaring: .showsConfigurationUI, id: provider, title: "Unlock which provider?", canceled: "Nothing was unlocked.")
            try await showingProgress(progress, "Unlocking \(manifest.displayName)") { try await router.configure(manifest) }
            if ClientContext.current.pool != nil {
                print("Unlocked \(manifest.displayName) (\(manifest.identifier)); `autofill lock \(manifest.identifier)` locks it.")
            } else {
                print("\(manifest.displayName) (\(manifest.identifier)) was unlocked for this command only: without the agent nothing stays unlocked (docs/AGENT.md).")
            }
        }
    }
}
