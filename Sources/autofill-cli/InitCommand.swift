import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillSystem
import FoundationEssentials

/// `autofill init`: your own configuration, from the providers installed in the default plugin
/// folders, at a terminal or with flags; an existing configuration is replaced only with `--force`,
/// and kept as a backup then.
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write your configuration, enabling providers installed in the default plugin folders.",
        discussion: """
            Writes $XDG_CONFIG_HOME/autofill/config.plist (or the file --config or $AUTOFILL_CONFIG names) \
            with no PluginSearchPaths, so the default folders are searched: ~/.local/lib/autofill/providers, \
            /usr/local/lib/autofill/providers, /usr/lib/autofill/providers. Each provider chosen is enabled \
            as `autofill providers enable` does: what it may reach is shown, its files are approved, and its \
            configuration UI runs if it has one (at the terminal, or from --ui-script). One that cannot be \
            enabled yet (a vault or database that does not exist) is left out, saying why; the others are \
            enabled, the configuration is written, and init exits non-zero.

            At a terminal without --provider, autofill asks about each provider it found, then asks before \
            writing (--yes skips that question). Without a terminal, name the providers with --provider, \
            or pass --yes alone for a configuration with none enabled.

            An existing configuration is never replaced without --force; with it, the old file is kept \
            beside the new one as config.plist.bak-<time>.

            Examples:
              autofill init
              autofill init --provider org.autofill.vault --provider org.autofill.netrc --yes
              autofill init --force --provider org.autofill.pass

            Then give providers their settings, for example:
              autofill providers set org.autofill.netrc NetrcFile ~/.netrc-work
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var session: SessionOptions

    @Option(name: .customLong("provider"), help: ArgumentHelp("Enable this installed provider (repeat, most preferred first; at most three).", valueName: "id"))
    var providers: [String] = []

    @Flag(help: "Do not ask before writing (a terminal's questions about which providers are skipped only by --provider).")
    var yes = false

    @Flag(help: "Replace an existing configuration (it is kept as config.plist.bak-<time>).")
    var force = false

    func validate() throws {
        guard providers.count <= HostConfiguration.maximumEnabledProviders else {
            throw ValidationError("at most \(HostConfiguration.maximumEnabledProviders) providers may be enabled; you named \(providers.count)")
        }
    }

    func run() async throws {
        global.bootstrapLogging()
        try await reportingFillErrors(session) {
            let environment = ClientContext.current.environment
            let path = ConfigurationFile.newFilePath(option: global.config, environment: environment)
            let exists = FileManager.default.fileExists(atPath: path)
            if exists && !force {
                throw AutofillError(
                    .configuration,
                    "\(path) exists already, and init does not replace it: change it with `autofill providers enable|disable|set …`, or run `autofill init --force` (the current file is kept as \(path).bak-<time>)")
            }
            let file = ConfigurationFile.new(at: path, home: UserFolders(environment: environment).home)
            var setup = try global.setup(file: file)
            let installed = Self.installed(setup.catalog)
            let terminal = TerminalUserInterface.open()
            let chosen = try choose(from: installed, searched: setup.catalog.file.searchPaths, terminal: terminal)
            if let terminal, !yes {
                let what = chosen.isEmpty ? "no provider enabled" : "enabling " + chosen.compactMap { installed[$0].map(Self.name) }.joined(separator: ", ")
                guard try Self.ask(terminal, "Write \(path), \(what)?") else { throw FillFailure.canceled("nothing was written") }
            }
            if exists { print("Kept the configuration you had as \(try ConfigurationFile.backUp(path))") }
            var empty = file
            try empty.save()
            // A provider that cannot be enabled yet (its file not there, its configuration cancelled) says
            // why, once, and the others are enabled still: the configuration is written either way.
            var failed: [(id: String, status: ExitCode)] = []
            for id in chosen {
                do {
                    try await reportingFillErrors(session) { try await ProvidersCommand.Enable.enable(id, in: &setup, session: session) }
                } catch let status as ExitCode {
                    failed.append((id, status))
                }
            }
            print("Wrote \(path)")
            for id in chosen where !failed.contains(where: { $0.id == id }) {
                guard let manifest = installed[id] else { continue }
                let declared = ProviderCatalog.declaredSettings(of: manifest)
                guard let first = declared.first else { continue }
                print("  \(Self.name(manifest)) reads the settings \(declared.joined(separator: ", ")): `autofill providers set \(id) \(first) VALUE`")
            }
            if let first = failed.first {
                let ids = failed.map(\.id)
                printError("autofill: not enabled: \(ids.joined(separator: ", ")) (above); once that is fixed: \(ids.map { "`autofill providers enable \($0)`" }.joined(separator: ", "))")
                throw first.status
            }
        }
    }

    /// The valid providers found, by id (the first bundle of each id).
    static func installed(_ catalog: ProviderCatalog) -> [String: PluginManifest] {
        var found: [String: PluginManifest] = [:]
        for plugin in catalog.plugins where plugin.ignoredBecause == nil {
            guard let manifest = plugin.manifest, found[manifest.identifier] == nil else { continue }
            found[manifest.identifier] = manifest
        }
        return found
    }

    /// The ids to enable: `--provider`, each checked against what is installed; else, at a terminal,
    /// a question per provider found (up to three yeses); else none with `--yes`, or a usage error.
    func choose(from installed: [String: PluginManifest], searched: [String], terminal: TerminalUserInterface?) throws -> [String] {
        let ids = installed.keys.sorted()
        let found = ids.isEmpty ? "none was found in \(searched.joined(separator: ", "))" : "installed: \(ids.joined(separator: ", "))"
        if !providers.isEmpty {
            for id in providers where installed[id] == nil {
                throw AutofillError(.usage, "no installed provider has the id \(id) (\(found))")
            }
            return providers
        }
        guard let terminal else {
            guard yes else {
                throw AutofillError(.usage, "there is no terminal to ask which providers to enable: name them with --provider ID (\(found)), or pass --yes to write a configuration with none")
            }
            return []
        }
        var chosen: [String] = []
        for id in ids where chosen.count < HostConfiguration.maximumEnabledProviders {
            guard let manifest = installed[id] else { continue }
            if try Self.ask(terminal, "Enable \(Self.name(manifest)), installed in \(manifest.bundlePath)?") { chosen.append(id) }
        }
        return chosen
    }

    static func ask(_ terminal: TerminalUserInterface, _ question: String) throws -> Bool {
        do {
            guard case .confirmed(let yes) = try terminal.present(.confirm(title: "Set up autofill", message: question), providerName: "autofill") else { return false }
            return yes
        } catch {
            throw FillFailure.canceled("nothing was written")
        }
    }

    static func name(_ manifest: PluginManifest) -> String { "\(manifest.displayName) (\(manifest.identifier))" }
}
