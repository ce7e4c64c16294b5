import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillStore
import FoundationEssentials

/// `autofill identities …`: read and write providers' identity stores (the companion-program path).
struct IdentitiesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identities",
        abstract: "List a provider's identities, or save, remove or replace them from a JSON file.",
        discussion: """
            Identities describe credentials without their secrets. Providers write \
            their own stores; these commands are the companion-program path (what a \
            provider's own app does on Apple platforms) and help provider authors \
            debug. The file format is in docs/IDENTITIES.md. A file with any error is \
            refused whole, naming the line and field; nothing is half-written.

            Examples:
              autofill identities list --provider org.autofill.netrc
              autofill identities save --provider com.example.mine --file identities.json
            """,
        subcommands: [List.self, Save.self, Remove.self, Replace.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the identities in the enabled providers' stores.", discussion: """
                Examples:
                  autofill identities list
                  autofill identities list --provider org.autofill.vault --json
                """)

        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("Only this provider.", valueName: "id")) var provider: String?
        @Flag(help: "Print JSON (schema in docs/IDENTITIES.md).") var json = false

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                let setup = try global.setup()
                let ids = provider.map { [$0] } ?? setup.catalog.enabledIDs
                var listings: [ProviderIdentities] = []
                for id in ids {
                    let name = (try? setup.catalog.manifest(for: id))?.displayName
                    guard let store = try setup.store(for: id) else {
                        throw AutofillError(.usage, "\(id) has no identity store: it is not enabled (`autofill providers enable \(id)`)\(KeySpelling.didYouMean(id, among: setup.catalog.enabledIDs))")
                    }
                    listings.append(try AutofillError.fromStore { () throws(IdentityStoreError) in
                        ProviderIdentities(id: id, displayName: name, state: try store.state(), identities: try store.allIdentities())
                    })
                }
                if json {
                    try printJSON(["providers": listings])
                } else {
                    print(ProviderIdentities.text(listings))
                }
            }
        }
    }

    /// Options shared by the three writes.
    struct WriteOptions: ParsableArguments {
        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("The provider whose store to write.", valueName: "id")) var provider: String
        @Option(help: ArgumentHelp("The identities file (JSON, docs/IDENTITIES.md).", valueName: "file")) var file: String

        func write(_ verb: String, _ body: (SQLiteIdentityStore, [CredentialIdentity]) throws(IdentityStoreError) -> Void) throws {
            global.bootstrapLogging()
            try reportingErrors {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw AutofillError(.notFound, "cannot read the identities file \(file)")
                }
                let identities: [CredentialIdentity]
                do {
                    identities = try IdentityFile.decode(Array(data))
                } catch {
                    throw AutofillError(.invalidData, "\(file) \(error); nothing was written")
                }
                let setup = try global.setup()
                guard let store = try setup.store(for: provider) else {
                    throw AutofillError(.configuration, "\(provider) is not enabled, so its identity store takes no writes; enable it first (`autofill providers enable \(provider)`)\(KeySpelling.didYouMean(provider, among: setup.catalog.enabledIDs))")
                }
                let count = try AutofillError.fromStore { () throws(IdentityStoreError) in
                    try body(store, identities)
                    return try store.count()
                }
                print("\(verb) \(identities.count) identit\(identities.count == 1 ? "y" : "ies") for \(provider); the store holds \(count).")
            }
        }
    }

    struct Save: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Save identities (an identity already stored is replaced).", discussion: """
                Examples:
                  autofill identities save --provider com.example.mine --file new.json
                """)
        @OptionGroup var options: WriteOptions
        func run() throws { try options.write("Saved") { store, identities throws(IdentityStoreError) in try store.save(identities) } }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove identities.", discussion: """
                Examples:
                  autofill identities remove --provider com.example.mine --file gone.json
                """)
        @OptionGroup var options: WriteOptions
        func run() throws { try options.write("Removed") { store, identities throws(IdentityStoreError) in try store.remove(identities) } }
    }

    struct Replace: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace all of a provider's identities with the file's.", discussion: """
                Examples:
                  autofill identities replace --provider com.example.mine --file all.json
                """)
        @OptionGroup var options: WriteOptions
        func run() throws { try options.write("Replaced with") { store, identities throws(IdentityStoreError) in try store.replace(with: identities) } }
    }
}

/// One provider's identities, as `identities list` shows them.
struct ProviderIdentities: Encodable {
    struct State: Encodable {
        let isEnabled: Bool
        let supportsIncrementalUpdates: Bool
    }

    let id: String
    let displayName: String?
    let state: State
    let identities: [IdentityFile.Entry]

    init(id: String, displayName: String?, state: IdentityStoreState, identities: [CredentialIdentity]) {
        self.id = id
        self.displayName = displayName
        self.state = State(isEnabled: state.isEnabled, supportsIncrementalUpdates: state.supportsIncrementalUpdates)
        self.identities = identities.map(IdentityFile.Entry.init)
    }

    static func text(_ listings: [ProviderIdentities]) -> String {
        var lines: [String] = []
        for listing in listings {
            let state = listing.state.isEnabled ? (listing.state.supportsIncrementalUpdates ? "enabled" : "enabled, waiting for a full list") : "disabled"
            lines.append("\(listing.displayName ?? listing.id) (\(listing.id)): \(listing.identities.count) identit\(listing.identities.count == 1 ? "y" : "ies"), \(state)")
            let rows = listing.identities.map { entry in
                [entry.kind, entry.serviceIdentifier?.identifier ?? entry.relyingPartyIdentifier ?? "",
                 entry.user ?? entry.userName ?? entry.label ?? "", "\(entry.rank)", entry.recordIdentifier ?? ""]
            }
            lines += Table(header: ["KIND", "SERVICE", "USER", "RANK", "RECORD"], rows: rows, margin: 2).lines.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
