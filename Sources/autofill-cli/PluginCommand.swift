import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillWire
import FoundationEssentials
import Logging

/// `autofill plugin …`: tools for provider authors.
struct PluginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: "Check and package provider plugins (for provider authors).",
        discussion: """
            Examples:
              autofill plugin validate plugins/Mine.afprovider
              autofill plugin bundle --info Info.plist --library libMine.so --output plugins/Mine.afprovider
            """,
        subcommands: [Validate.self, Bundle.self]
    )

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a plugin bundle: plist, library, ABI version, entry symbol, capabilities ↔ entry points.",
            discussion: """
                Prints every problem with its fix. Exits 0 only when the plugin is valid, 65 when it is not.

                Examples:
                  autofill plugin validate plugins/Mine.afprovider
                  autofill plugin validate plugins/Mine.afprovider --json
                """)

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON (schema in docs/CLI.md).") var json = false
        @Argument(help: ArgumentHelp("The bundle directory (X.afprovider).", valueName: "bundle")) var bundle: String

        func run() throws {
            global.bootstrapLogging()
            // Absolute: the helper runs in its provider's data folder, and its sandbox's rules name absolute paths.
            let bundle = bundle.hasPrefix("/") ? bundle : "\(FileManager.default.currentDirectoryPath)/\(bundle)"
            // Who could change the bundle comes first: nothing else of it is read if others could.
            if let refused = PluginPermissions.refusedValidation(bundle: bundle) {
                let report = ValidationReport(refused)
                if json { try printJSON(report) } else { print(report.text) }
                throw ExitCode(ExitStatus.refused)
            }
            let (manifest, _) = ManifestReader.read(bundle: bundle)
            // The provider's settings from the configuration, if there is one: a provider may need them to load.
            let file = try? global.configurationFile()
            let settings = manifest.flatMap { manifest in file?.settings(for: manifest.identifier) } ?? [:]
            var services = ProviderServices(store: InMemoryIdentityStore(isEnabled: false), logger: .init(label: "autofill.plugin"))
            if let manifest { services = .validation(for: manifest) }
            services.settings = settings
            // Always in a helper process: a plugin that crashes or hangs while loading is reported, not fatal;
            // and in the sandbox its declaration asks for, so checking a plugin never runs it with more.
            // Until the user approved it (enabled, its files and permissions the recorded ones), its code
            // runs with no grant beyond its own folders: inspecting a bundle never gives it what it asks for.
            var options = file?.configuration.helperOptions ?? HelperOptions()
            var permissions: [String] = []
            var sandboxNote: String?
            var refused: PluginProblem?
            if let manifest {
                let environment = ProcessInfo.processInfo.environment
                let setup = try file.map { file throws in
                    ProviderSetup(catalog: ProviderCatalog(file: file), stores: try file.identityStores(environment: environment),
                                  records: HostRecords(environment: environment), logger: Logger(label: "autofill.plugin"))
                }
                permissions = setup?.sandboxSummary(for: manifest) ?? []
                var approved = false
                if let setup, setup.catalog.enabledIDs.contains(manifest.identifier),
                    (try? setup.catalog.manifest(for: manifest.identifier))?.bundlePath == manifest.bundlePath,
                    case .trusted = setup.trustState(of: manifest)
                {
                    approved = true
                }
                sandboxNote = approved
                    ? "ran in the sandbox you approved"
                    : "ran with no grant beyond its own folders: you have not approved it (`autofill providers enable \(manifest.identifier)`), so what it asks for is not given"
                switch Result(catching: { () throws(AutofillError) in
                    if approved, let setup { return try setup.sandboxPolicy(for: manifest) }
                    return try ProviderSetup.unapprovedSandboxPolicy(for: manifest, setup: setup)
                }) {
                case .success(let policy):
                    options.sandbox = policy
                    do throws(AutofillError) {
                        // Unapproved, it declares nothing: its namespaces hold no bus and no program.
                        var declared = manifest
                        if !approved { declared.sandbox = SandboxDeclaration() }
                        try ProviderSetup.confine(&options, for: declared)
                    } catch {
                        refused = PluginProblem(.loadFailed, file: "\(manifest.bundlePath)/Info.plist", keyPath: SandboxDeclaration.key,
                                                message: "cannot be sandboxed here: \(error.message)", fix: "see docs/SANDBOX.md; nothing of the plugin ran")
                    }
                case .failure(let error):
                    refused = PluginProblem(.loadFailed, file: "\(manifest.bundlePath)/Info.plist", keyPath: SandboxDeclaration.key,
                                            message: "cannot be sandboxed as configured: \(error.message)",
                                            fix: "see docs/SANDBOX.md; nothing of the plugin ran")
                }
            }
            var validation: PluginValidation
            if let refused {
                validation = PluginValidation(bundlePath: bundle, manifest: manifest, entryPoints: nil, problems: [refused])
            } else {
                validation = HelperConnection.validate(bundle: bundle, services: services, options: options)
            }
            var report = ValidationReport(validation)
            report.permissions = permissions
            report.sandbox = refused == nil ? sandboxNote : nil
            if json { try printJSON(report) } else { print(report.text) }
            guard validation.isValid else {
                let notFound = validation.problems.contains { $0.code == .bundleNotFound }
                throw ExitCode(notFound ? ExitStatus.noInput : .dataError)
            }
        }
    }

    struct Bundle: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a bundle directory from an Info.plist and a built library.",
            discussion: """
                Copies the plist and the library into OUTPUT (created if needed), naming \
                the library as the plist's CFBundleExecutable says. Then check it with \
                `autofill plugin validate OUTPUT`.

                Examples:
                  autofill plugin bundle --info Info.plist --library .build/debug/libMine.so --output plugins/Mine.afprovider
                """)

        @Option(help: ArgumentHelp("The plugin's Info.plist.", valueName: "plist")) var info: String
        @Option(help: ArgumentHelp("The built shared library (.so).", valueName: "so")) var library: String
        @Option(help: ArgumentHelp("The bundle directory to write, e.g. build/MyProvider.afprovider.", valueName: "dir"))
        var output: String

        func run() throws {
            try reportingErrors {
                let files = FileManager.default
                for (path, what) in [(info, "plist"), (library, "library")] where !files.fileExists(atPath: path) {
                    throw AutofillError(.notFound, "no \(what) at \(path)")
                }
                let (manifest, problems) = ManifestReader.check(plist: info)
                guard let manifest else {
                    throw AutofillError(.invalidPlugin, "\(info) is not a valid provider Info.plist:",
                                        problems: problems.filter { $0.severity == .error })
                }
                let executable = manifest.executable
                do {
                    try files.createDirectory(atPath: output, withIntermediateDirectories: true)
                    for (source, name) in [(info, "Info.plist"), (library, executable)] {
                        let target = "\(output)/\(name)"
                        if files.fileExists(atPath: target) { try files.removeItem(atPath: target) }
                        try files.copyItem(atPath: source, toPath: target)
                    }
                } catch {
                    throw AutofillError(.io, "cannot write the bundle \(output): \(error)")
                }
                print("Wrote \(output) (Info.plist, \(executable)). Next: autofill plugin validate \(output)")
            }
        }
    }
}

/// What `autofill plugin validate` reports.
struct ValidationReport: Encodable {
    struct Provider: Encodable {
        let id: String
        let displayName: String
        let executable: String
        let entrySymbol: String
        let abiVersion: Int
        let capabilities: [String]
    }

    let bundle: String
    let valid: Bool
    let provider: Provider?
    let entryPoints: [String]?
    /// What its sandbox would let it reach, in plain words.
    var permissions: [String] = []
    /// How its code ran while checked: with no grant until the user approved it.
    var sandbox: String?
    let problems: [PluginProblem]

    init(_ validation: PluginValidation) {
        bundle = validation.bundlePath
        valid = validation.isValid
        provider = validation.manifest.map {
            Provider(id: $0.identifier, displayName: $0.displayName, executable: $0.executable, entrySymbol: $0.entrySymbol,
                     abiVersion: $0.abiVersion, capabilities: $0.capabilities.members.map(\.plistKey))
        }
        entryPoints = validation.entryPoints?.members.map(\.cName)
        problems = validation.problems
    }

    var text: String {
        var lines = ["Plugin \(bundle)"]
        if let provider {
            lines += [
                "  id:            \(provider.id)",
                "  name:          \(provider.displayName)",
                "  library:       \(provider.executable) (entry \(provider.entrySymbol), ABI version \(provider.abiVersion))",
                "  capabilities:  \(provider.capabilities.joined(separator: ", "))",
            ]
        }
        if let entryPoints { lines.append("  entry points:  \(entryPoints.isEmpty ? "none" : entryPoints.joined(separator: ", "))") }
        if !permissions.isEmpty {
            lines.append("  may:           " + permissions.map { DisplayText.escaped($0, keepingNewlines: false) }.joined(separator: "\n                 "))
        }
        if let sandbox { lines.append("  sandbox:       \(sandbox)") }
        for problem in problems { lines.append("\(problem.severity.rawValue): \(problem.description.replacingNewlines("\n  "))") }
        let errors = problems.filter { $0.severity == .error }.count
        lines.append(valid ? "valid" : "invalid: \(errors) problem\(errors == 1 ? "" : "s")")
        return lines.joined(separator: "\n")
    }
}
