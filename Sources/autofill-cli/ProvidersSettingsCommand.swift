import ArgumentParser
import AutofillHost

/// `autofill providers set|unset`: a provider's settings (`ProviderSettings` in the configuration)
/// without writing XML.
extension ProvidersCommand {
    struct SetSetting: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set one of a provider's settings in the configuration.",
            discussion: """
                Writes ProviderSettings → ID → KEY = VALUE in the configuration autofill reads (atomically; \
                the built-in demo's changes go to $XDG_CONFIG_HOME/autofill/config.plist). The provider must \
                be installed in a search folder. A key that is a near miss of a setting the provider declares \
                (its Info.plist's AFProviderSandbox file settings) is refused, naming the one meant; another \
                key is set with a note. Values starting with ~/, ./ or ../ are paths (docs/CONFIGURATION.md). \
                When the agent runs the provider, its helper ends (and what it unlocked with it), so its next \
                request launches it with the new setting. A value that lets an approved provider reach files you \
                did not approve is a new approval: asked at the terminal, or refused (exit 77) until \
                `autofill providers trust ID`.

                Examples:
                  autofill providers set org.autofill.vault VaultFile ~/vault/vault.afvault
                  autofill providers set org.autofill.netrc NetrcFile ~/.netrc-work
                  autofill providers set org.autofill.vault UnlockTimeoutSeconds 600
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The provider id.", valueName: "id")) var id: String
        @Argument(help: ArgumentHelp("The setting's name.", valueName: "key")) var key: String
        @Argument(help: ArgumentHelp("Its value (one line).", valueName: "value")) var value: String

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                // A value that lets an approved provider reach more files is a new approval (asked at a
                // terminal; refused, exit 77, without one).
                let setup = try global.setup()
                if let note = try setup.setSetting(id, key: key, value: value) { printError("autofill: note: \(note)") }
                print("Set \(key) of \(id) to \(value).")
                print("Saved \(setup.catalog.file.path)")
                AgentLock.end(id)  // relaunched with the new setting on its next request
            }
        }
    }

    struct UnsetSetting: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unset",
            abstract: "Remove one of a provider's settings from the configuration (the provider's default applies).",
            discussion: """
                Examples:
                  autofill providers unset org.autofill.netrc NetrcFile
                  autofill providers unset org.autofill.vault UnlockTimeoutSeconds
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The provider id.", valueName: "id")) var id: String
        @Argument(help: ArgumentHelp("The setting's name.", valueName: "key")) var key: String

        func run() throws {
            global.bootstrapLogging()
            try reportingErrors {
                // Its default may let an approved provider reach more: a new approval, as with `set`.
                let setup = try global.setup()
                try setup.unsetSetting(id, key: key)
                print("Removed \(key) of \(id); its default applies.")
                print("Saved \(setup.catalog.file.path)")
                AgentLock.end(id)
            }
        }
    }
}
