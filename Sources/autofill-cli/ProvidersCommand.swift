import ArgumentParser
import AutofillCore
import AutofillHost

/// `autofill providers …`: which providers exist, which are enabled, in what order.
struct ProvidersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "List, enable, disable and order credential providers.",
        discussion: """
            Examples:
              autofill providers list
              autofill providers enable plugins/Mine.afprovider
              autofill providers order org.autofill.vault
              autofill providers set org.autofill.vault UnlockTimeoutSeconds 600
            """,
        subcommands: [List.self, Enable.self, Disable.self, Order.self, Sync.self, Trust.self, SetSetting.self, UnsetSetting.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the plugins in the search folders and the enabled providers, in order.",
            discussion: """
                Reads files only (Info.plist; the enabled providers' libraries for their SHA-256): no plugin code runs. TRUST says whether autofill would run an \
                enabled provider: trusted, not recorded (listed by hand and never approved: autofill asks \
                in a terminal, or run `autofill providers trust ID`), changed (since you approved it), \
                quarantined (after repeated crashes), unsafe (other users could change its files) or \
                unreadable; the line below says what to do.

                Examples:
                  autofill providers list
                  autofill providers list --json
                """)

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON (schema in docs/CLI.md).") var json = false

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                let setup = try global.setup()
                let listing = ProviderListing(setup: setup)
                if json { try printJSON(listing) } else { print(listing.text) }
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enable a provider by bundle path or id (at most three).",
            discussion: """
                Loads the plugin to check it first; nothing is changed if it is invalid. If the plugin declares \
                ShowsConfigurationUI, its configuration runs next (in this terminal or from --ui-script), and \
                the provider is enabled only when the provider completes it.

                Examples:
                  autofill providers enable ~/.local/lib/autofill/providers/Mine.afprovider
                  autofill providers enable org.autofill.netrc
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var session: SessionOptions
        @Argument(help: ArgumentHelp("A bundle directory (X.afprovider) or a provider id.", valueName: "bundle|id"))
        var provider: String

        func run() async throws {
            global.bootstrapLogging()
            try await reportingFillErrors(session) {
                var setup = try global.setup()
                if try await Self.enable(provider, in: &setup, session: session) { print("Saved \(setup.catalog.file.path)") }
            }
        }

        /// Enables `provider` (a bundle or an id) in `setup`: shows what it may reach before any of its
        /// code runs, approves and loads it, runs its configuration UI when it declares one (disabling it
        /// again if that does not complete), and says where it stands; whether it was newly enabled.
        /// `providers enable` and `init`.
        @discardableResult
        static func enable(_ provider: String, in setup: inout ProviderSetup, session: SessionOptions) async throws -> Bool {
            let router = try session.router(setup)
            // What it may reach, before any of its code runs: enabling approves it with its files.
            if let (candidate, _) = try? setup.catalog.resolve(provider), !setup.catalog.enabledIDs.contains(candidate.identifier) {
                print("\(candidate.displayName) (\(candidate.identifier)) asks to:")
                for line in setup.sandboxSummary(for: candidate, problems: false) { print("  \(line)") }
            }
            let (manifest, isNew, _) = try setup.enable(provider, userInterface: router.userInterface)
            guard isNew else {
                print("\(manifest.displayName) (\(manifest.identifier)) is already enabled.")
                return false
            }
            if manifest.capabilities.contains(.showsConfigurationUI) {
                do {
                    try await router.configure(manifest)
                } catch {
                    // One message: why it was not enabled is the provider's reason, with the failure's exit status.
                    _ = try? setup.disable(manifest.identifier)
                    throw error.leading("\(manifest.displayName) was not enabled: ")
                }
            }
            let enabled = setup.catalog.enabledIDs
            let position = (enabled.firstIndex(of: manifest.identifier) ?? 0) + 1
            print("Enabled \(manifest.displayName) (\(manifest.identifier)) as provider \(position) of \(enabled.count).")
            return true
        }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable an enabled provider.", discussion: """
                When the agent runs the provider, its helper ends, and what it unlocked with it.

                Examples:
                  autofill providers disable org.autofill.netrc
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The provider id.", valueName: "id")) var id: String

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                var setup = try global.setup()
                let wiped = try setup.disable(id)
                print("Disabled \(id); its identity store was wiped (\(wiped) identit\(wiped == 1 ? "y" : "ies")).")
                print("Saved \(setup.catalog.file.path)")
                AgentLock.end(id)
            }
        }
    }

    struct Order: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the order of enabled providers (the ones named move to the front).", discussion: """
                Examples:
                  autofill providers order org.autofill.vault org.autofill.netrc
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("Enabled provider ids, most preferred first.", valueName: "id"))
        var ids: [String]

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                var catalog = ProviderCatalog(file: try global.configurationFile(announcing: true))
                try catalog.order(ids)
                for (index, id) in catalog.enabledIDs.enumerated() { print("\(index + 1). \(id)") }
                print("Saved \(catalog.file.path)")
            }
        }
    }

    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load enabled providers so they write their identities to their stores.",
            discussion: """
                What a provider's own app does on Apple platforms: each provider named \
                (all enabled ones by default) is loaded with its identity store and may \
                write its full list. Exits 69 if any failed (77 if every failure was a \
                refusal: a changed, unsafe or quarantined provider).

                Examples:
                  autofill providers sync
                  autofill providers sync org.autofill.netrc
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("Enabled provider ids (all when none).", valueName: "id")) var ids: [String] = []

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                var failures: [AutofillError] = []
                let setup = try global.setup()
                let synced = try progressLine().map { progress in try progress.during("Syncing providers") { try setup.sync(ids) } }
                    ?? setup.sync(ids)
                for (id, result) in synced {
                    switch result {
                    case .success(let count): print("\(id): \(count) identit\(count == 1 ? "y" : "ies")")
                    case .failure(let error):
                        failures.append(error)
                        printError("autofill: \(id): \(error)")
                    }
                }
                guard failures.isEmpty else {
                    let refused = failures.allSatisfy { $0.code == .refused }
                    throw AutofillError(refused ? .refused : .providerUnavailable,
                                        refused ? "some providers were refused (above)" : "some providers could not be synced")
                }
            }
        }
    }

    struct Trust: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Approve enabled providers' files as they are now (a changed plugin you checked, or one listed by hand).",
            discussion: """
                autofill records the SHA-256 of a provider's library and Info.plist when you enable it, and \
                refuses to run it (exit 77) once they differ, or when you never approved them (a provider \
                listed in the configuration by hand). After checking the plugin (an update you installed, \
                say), this records the files as they are now and lifts a quarantine. It shows each file's \
                digest first and runs none of the provider's code. The records are yours, whatever the \
                configuration: $XDG_STATE_HOME/autofill/trust.json, one per provider id and bundle path.

                Examples:
                  autofill providers trust org.autofill.netrc
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The enabled providers' ids.", valueName: "id")) var ids: [String]

        func validate() throws {
            guard !ids.isEmpty else { throw ValidationError("name at least one enabled provider id") }
        }

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                let setup = try global.setup()
                for id in ids { Self.show(try setup.trust(id), setup: setup) }
            }
        }

        static func show(_ change: TrustChange, setup: ProviderSetup) {
            let manifest = change.manifest
            print("\(manifest.displayName) (\(manifest.identifier)): \(manifest.bundlePath)")
            let previous = change.previous
            // Every file of the bundle (the library and Info.plist first), against the earlier record.
            let current = change.current.fingerprint, earlier = previous?.fingerprint
            func digest(_ fingerprint: PluginFingerprint?, _ name: String) -> String? {
                guard let fingerprint else { return nil }
                if let files = fingerprint.files { return files[name] }
                return name == manifest.executable ? fingerprint.library : name == "Info.plist" ? fingerprint.plist : nil
            }
            let others = Set((current.files ?? [:]).keys).union((earlier?.files ?? [:]).keys).subtracting([manifest.executable, "Info.plist"])
            let names = [manifest.executable, "Info.plist"] + others.sorted()
            let width = max(names.map(\.count).max() ?? 0, 10) + 2
            for name in names {
                let label = DisplayText.line(name, limit: 200).padding(toLength: width)
                let before = digest(earlier, name), now = digest(current, name)
                switch (before, now) {
                case (nil, let now?): print("  \(label)SHA-256 \(now) (\(earlier?.files == nil && earlier != nil ? "not recorded before" : previous == nil ? "no earlier record" : "added"))")
                case (_?, nil): print("  \(label)removed")
                case (let before?, let now?) where before == now: print("  \(label)unchanged")
                case (let before?, let now?): print("  \(label)changed: SHA-256 \(before) → \(now)")
                case (nil, nil): break
                }
            }
            if let previous { print("  recorded \(previous.recorded.autofillTimestamp) (\(previous.origin.rawValue))") }
            print("It may:")
            for line in setup.sandboxSummary(for: manifest) { print("  \(line)") }
            let new = manifest.sandbox.asksMore(than: previous?.permissions ?? []) + change.newGrants
            if previous != nil && !new.isEmpty {
                print("New since you last approved it: \(new.map(SandboxDeclaration.describe(permissionKey:)).joined(separator: "; ")).")
            }
            if let lifted = change.liftedQuarantine { print("Lifted the quarantine (since \(lifted.since.autofillTimestamp): \(lifted.reason)).") }
            // Unchanged files may still reach more than before: a setting named another file since.
            print(!change.changedFiles.isEmpty ? "Trusted \(manifest.displayName) as it is now."
                  : change.newGrants.isEmpty ? "Nothing changed; trusted \(manifest.displayName) again."
                  : "Its files are unchanged; trusted \(manifest.displayName) again, with what its settings now let it reach.")
        }
    }
}

extension ProviderServices {
    /// Services for loading a plugin only to check it: a disabled store that keeps nothing, no UI.
    static func validation(for manifest: PluginManifest) -> ProviderServices {
        ProviderServices(
            store: InMemoryIdentityStore(isEnabled: false),
            userInterface: UnavailableUserInterface(reason: "plugins show no UI while they are validated"),
            logger: .init(label: "autofill.plugin"))
    }
}

extension FillFailure {
    /// The same failure, with the same exit status, its message led by `lead`.
    func leading(_ lead: String) -> FillFailure {
        switch self {
        case .nothingToFill(let message): .nothingToFill(lead + message)
        case .canceled(let message): .canceled(lead + message)
        case .userInterfaceUnavailable(let message): .userInterfaceUnavailable(lead + message)
        case .authenticationFailed(let message): .authenticationFailed(lead + message)
        case .authenticationUnavailable(let message): .authenticationUnavailable(lead + message)
        case .excludedCredential(let message): .excludedCredential(lead + message)
        case .providersFailed(let messages): .providersFailed([lead + (messages.first ?? "")] + messages.dropFirst())
        case .declined(let messages): .declined([lead + (messages.first ?? "")] + messages.dropFirst())
        case .providersRefused(let messages): .providersRefused([lead + (messages.first ?? "")] + messages.dropFirst())
        }
    }
}
