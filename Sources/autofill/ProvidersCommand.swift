import ArgumentParser
import AutofillCore
import AutofillHost

/// `autofill providers …`: which providers exist, which are enabled, in what order.
struct ProvidersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "List, enable, disable and order credential providers.",
        subcommands: [List.self, Enable.self, Disable.self, Order.self, Sync.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the plugins in the search folders and the enabled providers, in order.",
            discussion: "Reads Info.plist files only: no plugin code runs.")

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON (schema in docs/CLI.md).") var json = false

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                let setup = try global.setup()
                let listing = ProviderListing(catalog: setup.catalog, stores: setup.stores)
                if json { try printJSON(listing) } else { print(listing.text) }
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enable a provider by bundle path or id (at most three).",
            discussion: """
                Loads the plugin to check it first; nothing is changed if it is invalid. If the plugin declares
                ShowsConfigurationUI, its configuration runs next (in this terminal or from --ui-script), and
                the provider is enabled only when the provider completes it.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var session: SessionOptions
        @Argument(help: ArgumentHelp("A bundle directory (X.afprovider) or a provider id.", valueName: "bundle|id"))
        var provider: String

        func run() async throws {
            global.bootstrapLogging()
            try await reportingFillErrors(session) {
                var setup = try global.setup()
                let router = try session.router(setup)
                defer { session.printTrace(router) }
                let (manifest, isNew, _) = try setup.enable(provider, userInterface: router.userInterface)
                guard isNew else {
                    print("\(manifest.displayName) (\(manifest.identifier)) is already enabled.")
                    return
                }
                if manifest.capabilities.contains(.showsConfigurationUI) {
                    do {
                        try await router.configure(manifest)
                    } catch {
                        _ = try? setup.disable(manifest.identifier)
                        printError("autofill: \(manifest.displayName) was not enabled: its configuration did not complete.")
                        throw error
                    }
                }
                let enabled = setup.catalog.enabledIDs
                let position = (enabled.firstIndex(of: manifest.identifier) ?? 0) + 1
                print("Enabled \(manifest.displayName) (\(manifest.identifier)) as provider \(position) of \(enabled.count).")
                print("Saved \(setup.catalog.file.path)")
            }
        }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable an enabled provider.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The provider id.", valueName: "id")) var id: String

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                var setup = try global.setup()
                let wiped = try setup.disable(id)
                print("Disabled \(id); its identity store was wiped (\(wiped) identit\(wiped == 1 ? "y" : "ies")).")
                print("Saved \(setup.catalog.file.path)")
            }
        }
    }

    struct Order: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the order of enabled providers (the ones named move to the front).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("Enabled provider ids, most preferred first.", valueName: "id"))
        var ids: [String]

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                var catalog = ProviderCatalog(file: try global.configurationFile())
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
                What a provider's own app does on Apple platforms: each provider named
                (all enabled ones by default) is loaded with its identity store and may
                write its full list. Exits 69 if any failed.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("Enabled provider ids (all when none).", valueName: "id")) var ids: [String] = []

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                var failed = false
                for (id, result) in try global.setup().sync(ids) {
                    switch result {
                    case .success(let count): print("\(id): \(count) identit\(count == 1 ? "y" : "ies")")
                    case .failure(let error):
                        failed = true
                        printError("autofill: \(id): \(error)")
                    }
                }
                if failed { throw AutofillError(.providerUnavailable, "some providers could not be synced") }
            }
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
