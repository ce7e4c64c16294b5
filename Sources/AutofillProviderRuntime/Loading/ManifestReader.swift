internal import AutofillCore
internal import AutofillABI
internal import AutofillSystem
internal import FoundationEssentials

/// Reads and checks a plugin bundle's Info.plist, reporting every problem with its key path and fix.
///
/// Nothing of the plugin runs here: this is what the host knows before it loads any code.
public enum ManifestReader {
    /// Capability keys Apple added later that autofill accepts but does not route yet (none today:
    /// the iOS 26 keys are routed; a key Apple adds next goes here first).
    static let knownButUnsupportedKeys: Set<String> = []
    static let capabilitiesKeyPath = "NSExtension.NSExtensionAttributes.ASCredentialProviderExtensionCapabilities"
    static let legacyConfigurationKey = "ASCredentialProviderExtensionShowsConfigurationUI"

    /// Reads the bundle at `bundlePath`. The manifest is nil when any problem is an error.
    public static func read(bundle bundlePath: String) -> (manifest: PluginManifest?, problems: [PluginProblem]) {
        let bundlePath = normalized(bundlePath)
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: bundlePath, isDirectory: &isDirectory), isDirectory else {
            return (nil, [PluginProblem(
                .bundleNotFound, file: bundlePath, message: "no plugin bundle directory here",
                fix: "pass the path of a bundle directory (e.g. VaultProvider.afprovider/) holding Info.plist and the .so")])
        }
        let plistPath = "\(bundlePath)/Info.plist"
        // The plist is parsed again only when it changed (the agent reads every bundle at every
        // request; ``StampedCache``); the library is looked at every time.
        let (manifest, problems) = StampedCache.value("manifest", of: [plistPath]) { checkedPlist(plistPath, bundlePath: bundlePath) }
        guard let manifest else { return (nil, problems) }
        var checker = PlistChecker(file: plistPath)
        checker.problems = problems
        if checker.problems.allSatisfy({ $0.severity != .error }) {
            checker.checkLibraryFile(manifest)
        }
        let hasErrors = checker.problems.contains { $0.severity == .error }
        return (hasErrors ? nil : manifest, checker.problems)
    }

    /// The manifest `plistPath` declares for the bundle at `bundlePath` (nil only when it cannot be read)
    /// and its problems, the library not looked at.
    private static func checkedPlist(_ plistPath: String, bundlePath: String) -> (manifest: PluginManifest?, problems: [PluginProblem]) {
        switch readPlist(plistPath) {
        case .missing:
            return (nil, [PluginProblem(
                .missingPlist, file: plistPath, message: "the bundle has no Info.plist",
                fix: "add an Info.plist declaring the provider (see docs/WRITING_A_PROVIDER.md); `autofill plugin bundle` writes the bundle for you")])
        case .problem(let problem):
            return (nil, [problem])
        case .value(let root):
            var checker = PlistChecker(file: plistPath)
            let manifest = checker.manifest(root: root, bundlePath: bundlePath)
            return (manifest, checker.problems)
        }
    }

    /// Checks a plist file on its own (before it is put in a bundle): every problem but the library's.
    public static func check(plist plistPath: String) -> (manifest: PluginManifest?, problems: [PluginProblem]) {
        let root: PlistValue
        switch readPlist(plistPath) {
        case .missing:
            return (nil, [PluginProblem(.missingPlist, file: plistPath, message: "cannot read this file", fix: "check the path")])
        case .problem(let problem):
            return (nil, [problem])
        case .value(let value):
            root = value
        }
        var checker = PlistChecker(file: plistPath)
        let manifest = checker.manifest(root: root, bundlePath: directory(of: plistPath))
        return (checker.problems.contains { $0.severity == .error } ? nil : manifest, checker.problems)
    }

    enum PlistRead {
        case missing
        case problem(PluginProblem)
        case value(PlistValue)
    }

    /// Reads and decodes the plist at `plistPath` after ``PlistGuard`` checked it: a file that is too
    /// large, too deep, cyclic or not a regular file is a problem, never a crash or a hang.
    static func readPlist(_ plistPath: String) -> PlistRead {
        let data: Data
        do {
            guard let contents = try PlistGuard.contents(ofFile: plistPath) else { return .missing }
            data = contents
        } catch {
            return .problem(refused(plistPath, error))
        }
        return decode(data, plistPath: plistPath)
    }

    private static func refused(_ plistPath: String, _ error: PlistGuard.Refusal) -> PluginProblem {
        PluginProblem(
            .malformedPlist, file: plistPath, message: "refused before reading it: \(error)",
            fix: "keep Info.plist a regular file in XML or binary format, at most \(PlistGuard.maximumBytes) bytes and \(PlistGuard.maximumDepth) levels deep (`autofill plugin bundle` writes one)")
    }

    /// Everything the host reads of an Info.plist's bytes (the guard, the decoder, the manifest and its
    /// sandbox declaration), as ``read(bundle:)`` reads them but without the library: what the fuzz
    /// target drives (Tests/AutofillHostTests/PlistFuzzTests.swift).
    static func manifest(plist data: Data, bundlePath: String) -> (manifest: PluginManifest?, problems: [PluginProblem]) {
        let plistPath = "\(bundlePath)/Info.plist"
        do {
            try PlistGuard.check(data)
        } catch {
            return (nil, [refused(plistPath, error)])
        }
        switch decode(data, plistPath: plistPath) {
        case .missing: return (nil, [])
        case .problem(let problem): return (nil, [problem])
        case .value(let root):
            var checker = PlistChecker(file: plistPath)
            let manifest = checker.manifest(root: root, bundlePath: bundlePath)
            return (checker.problems.contains { $0.severity == .error } ? nil : manifest, checker.problems)
        }
    }

    /// Decodes plist bytes the guard passed (``PlistValue/read(contentsOf:)`` checks them again).
    private static func decode(_ data: Data, plistPath: String) -> PlistRead {
        do {
            return .value(try PlistValue.read(contentsOf: data))
        } catch {
            return .problem(PluginProblem(
                .malformedPlist, file: plistPath,
                message: "not a readable property list (XML or binary): \(DisplayText.line(describe(error)))",
                fix: "fix the plist syntax; `python3 -c 'import plistlib,sys; plistlib.load(open(sys.argv[1],\"rb\"))' \(plistPath)` names the line and column where an XML plist breaks"))
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    /// The bundle path without a trailing slash.
    package static func normalized(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            if let underlying = context.underlyingError { return "\(context.debugDescription) (\(underlying))" }
            return context.debugDescription
        }
        return "\(error)"
    }
}

/// Walks a plist tree, collecting problems.
private struct PlistChecker {
    let file: String
    var problems: [PluginProblem] = []

    init(file: String) {
        self.file = file
    }

    mutating func manifest(root: PlistValue, bundlePath: String) -> PluginManifest? {
        guard case .dictionary(let top) = root else {
            problem(.wrongType, "", "the top level is \(root.typeNameWithArticle), expected a Dictionary",
                    fix: "make the plist's top element a <dict>")
            return nil
        }
        let identifier = string(top, "CFBundleIdentifier", path: "CFBundleIdentifier",
                                fix: "set it to the provider's reverse-DNS id, e.g. com.example.vault")
        if let identifier, !Self.isBundleIdentifier(identifier) {
            problem(.invalidValue, "CFBundleIdentifier",
                    "\(Self.quoted(identifier)) is not a reverse-DNS identifier (letters, digits, '-' and '.', at least two parts)",
                    fix: "use an id such as com.example.vault")
        }
        // CFBundleDisplayName, falling back to CFBundleName as Apple does.
        let nameKey = top["CFBundleDisplayName"] == nil && top["CFBundleName"] != nil ? "CFBundleName" : "CFBundleDisplayName"
        var displayName = string(top, nameKey, path: nameKey,
                                 fix: "add <key>CFBundleDisplayName</key><string>My Vault</string>: the name users see")
        if let name = displayName, let wrong = ProviderDisplayName.problem(name) {
            problem(.invalidValue, nameKey, wrong,
                    fix: "use a plain name of your own, up to \(ProviderDisplayName.maximumLength) characters: users see it at the head of your prompts")
            displayName = nil
        }
        let executable = string(top, "CFBundleExecutable", path: "CFBundleExecutable",
                                fix: "set it to the library's file name inside the bundle, e.g. libVaultProvider.so")
        if let executable, executable.contains("/") || executable == "." || executable == ".." {
            problem(.invalidValue, "CFBundleExecutable", "\(Self.quoted(executable)) is not a file name inside the bundle",
                    fix: "put the .so in the bundle directory and name just its file")
        }
        let version = string(top, "CFBundleShortVersionString", path: "CFBundleShortVersionString", required: false, fix: "")
        let capabilities = extensionCapabilities(top)
        let abiVersion = integer(top, PluginManifest.abiVersionKey,
                                 fix: "add <key>\(PluginManifest.abiVersionKey)</key><integer>\(providerABIVersion)</integer>")
        if let abiVersion, abiVersion != Int(providerABIVersion) {
            problems.append(PluginProblem(
                .abiVersionMismatch, file: file, keyPath: PluginManifest.abiVersionKey,
                message: "the plugin was built for provider ABI version \(abiVersion), this host speaks version \(providerABIVersion)",
                fix: "rebuild the plugin against this host's autofill_provider.h (AF_ABI_VERSION \(providerABIVersion)) and update \(PluginManifest.abiVersionKey)"))
        }
        let entrySymbol = string(top, PluginManifest.entrySymbolKey, path: PluginManifest.entrySymbolKey,
                                 fix: "name the exported entry function, e.g. <string>vault_provider_entry</string>")
        if let entrySymbol, !Self.isCIdentifier(entrySymbol) {
            problem(.invalidValue, PluginManifest.entrySymbolKey, "\(Self.quoted(entrySymbol)) is not a C function name",
                    fix: "use the exported function's name: letters, digits and '_', not starting with a digit")
        }
        let sandbox = SandboxDeclaration.read(top[SandboxDeclaration.key]) { keyPath, message, fix in
            problem(.invalidValue, keyPath, message, fix: fix)
        }
        guard let identifier, let displayName, let executable, let capabilities, let abiVersion, let entrySymbol else {
            return nil
        }
        var manifest = PluginManifest(
            bundlePath: bundlePath, identifier: identifier, displayName: displayName, executable: executable,
            version: version, capabilities: capabilities, abiVersion: abiVersion, entrySymbol: entrySymbol)
        manifest.sandbox = sandbox
        manifest.identitiesAfterUnlock = bool(top, PluginManifest.identitiesAfterUnlockKey, path: PluginManifest.identitiesAfterUnlockKey) ?? false
        return manifest
    }

    /// NSExtension → point identifier, attributes, capabilities.
    mutating func extensionCapabilities(_ top: [String: PlistValue]) -> Capabilities? {
        guard let nsExtension = dictionary(top, "NSExtension", path: "NSExtension",
                                           fix: "add an NSExtension dictionary with NSExtensionPointIdentifier and NSExtensionAttributes")
        else { return nil }
        if let point = string(nsExtension, "NSExtensionPointIdentifier", path: "NSExtension.NSExtensionPointIdentifier",
                              fix: "set it to \(PluginManifest.extensionPointIdentifier)"),
            point != PluginManifest.extensionPointIdentifier
        {
            problem(.unknownExtensionPoint, "NSExtension.NSExtensionPointIdentifier",
                    "\(Self.quoted(point)) is not an extension point autofill hosts; expected \(PluginManifest.extensionPointIdentifier)",
                    fix: "set it to \(PluginManifest.extensionPointIdentifier)")
        }
        guard let attributes = dictionary(nsExtension, "NSExtensionAttributes", path: "NSExtension.NSExtensionAttributes",
                                          fix: "add NSExtensionAttributes with ASCredentialProviderExtensionCapabilities")
        else { return nil }
        guard let declared = dictionary(attributes, "ASCredentialProviderExtensionCapabilities",
                                        path: ManifestReader.capabilitiesKeyPath,
                                        fix: "add the dictionary with the capabilities the provider has, e.g. <key>ProvidesPasswords</key><true/>")
        else { return nil }
        var capabilities = Capabilities()
        for capability in Capability.allCases {
            if bool(declared, capability.plistKey, path: "\(ManifestReader.capabilitiesKeyPath).\(capability.plistKey)") == true {
                capabilities.insert(Capabilities(capability))
            }
        }
        let legacyPath = "NSExtension.NSExtensionAttributes.\(ManifestReader.legacyConfigurationKey)"
        if bool(attributes, ManifestReader.legacyConfigurationKey, path: legacyPath) == true {
            capabilities.insert(Capabilities(.showsConfigurationUI))
        }
        let known = Set(Capability.allCases.map(\.plistKey))
        for key in declared.keys.sorted() where !known.contains(key) {
            let path = "\(ManifestReader.capabilitiesKeyPath).\(DisplayText.line(key, limit: 200))"
            if ManifestReader.knownButUnsupportedKeys.contains(key) {
                problem(.unknownKey, path, "Apple's \(key) is not supported by autofill yet; ignored", severity: .warning,
                        fix: "nothing to do; the provider is offered only what autofill routes")
            } else if let intended = Capability.allCases.map(\.plistKey).first(where: { KeySpelling.isNearMiss(key, $0) }) {
                problem(.unknownKey, path, "not a capability key; did you mean \(intended)? As written, \(intended) is off",
                        fix: "spell it \(intended)")
            } else {
                problem(.unknownKey, path, "not a capability key; ignored", severity: .warning,
                        fix: "check the spelling; the keys are \(Capability.allCases.map(\.plistKey).joined(separator: ", "))")
            }
        }
        if capabilities.intersection(Capabilities([.providesPasswords, .providesPasskeys, .providesOneTimeCodes, .providesTextToInsert])).isEmpty {
            problem(.invalidValue, ManifestReader.capabilitiesKeyPath, "declares nothing to provide",
                    fix: "set at least one of ProvidesPasswords, ProvidesPasskeys, ProvidesOneTimeCodes, ProvidesTextToInsert to <true/>")
        }
        if capabilities.contains(.supportsConditionalPasskeyRegistration) && !capabilities.contains(.providesPasskeys) {
            problem(.invalidValue, "\(ManifestReader.capabilitiesKeyPath).SupportsConditionalPasskeyRegistration",
                    "conditional passkey registration needs ProvidesPasskeys",
                    fix: "also declare <key>ProvidesPasskeys</key><true/>, or remove SupportsConditionalPasskeyRegistration")
        }
        return capabilities
    }

    /// After the plist checks out: the library file exists and is an ELF shared object.
    mutating func checkLibraryFile(_ manifest: PluginManifest) {
        let path = manifest.libraryPath
        guard let magic = Self.prefix(ofFileAt: path, count: 18) else {
            problems.append(PluginProblem(
                .libraryNotFound, file: path, keyPath: "CFBundleExecutable",
                message: "the library \(Self.quoted(manifest.executable)) named by CFBundleExecutable is not in the bundle",
                fix: "copy the built .so into \(manifest.bundlePath)/ or correct CFBundleExecutable"))
            return
        }
        // ELF magic, then e_type (offset 16, little endian) 3 = ET_DYN.
        let isELF = magic.count >= 18 && Array(magic.prefix(4)) == [0x7F, 0x45, 0x4C, 0x46]
        if !isELF || magic[16] != 3 {
            problems.append(PluginProblem(
                .notSharedLibrary, file: path, keyPath: "CFBundleExecutable",
                message: isELF ? "an ELF file but not a shared library" : "not a shared library (no ELF header)",
                fix: "build it as a shared library: `cc -shared -fPIC ...` for C, a .dynamic library product for Swift"))
        }
    }

    /// The first `count` bytes of a file (fewer if it is shorter), or nil if it cannot be read.
    /// Opened without blocking and read only when it is a regular file, so a FIFO or a device named
    /// as the library can neither hang nor feed the reader; anything else reads as empty (not ELF).
    static func prefix(ofFileAt path: String, count: Int) -> [UInt8]? {
        guard let descriptor = try? Descriptors.open(path, [.nonblocking, .noControllingTerminal]) else { return nil }
        defer { Descriptors.closeQuietly(descriptor) }
        guard (try? FileStatus(descriptor: descriptor))?.kind == .regular else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = (try? bytes.withUnsafeMutableBytes { raw in try Descriptors.read(descriptor, into: raw) }) ?? 0
        return Array(bytes.prefix(read))
    }

    // MARK: Typed lookups

    mutating func string(_ dict: [String: PlistValue], _ key: String, path: String, required: Bool = true, fix: String) -> String? {
        switch dict[key] {
        case .string(let value) where !value.isEmpty: return value
        case .string: problem(.invalidValue, path, "is empty", fix: fix.isEmpty ? "give it a value" : fix)
        case .none: if required { problem(.missingKey, path, "missing (expected a String)", fix: fix) }
        case .some(let other): problem(.wrongType, path, "expected a String, found \(other.typeNameWithArticle)", fix: fix.isEmpty ? "make it a <string>" : fix)
        }
        return nil
    }

    mutating func integer(_ dict: [String: PlistValue], _ key: String, fix: String) -> Int? {
        switch dict[key] {
        case .integer(let value): return value
        case .none: problem(.missingKey, key, "missing (expected an Integer)", fix: fix)
        case .some(let other): problem(.wrongType, key, "expected an Integer, found \(other.typeNameWithArticle)", fix: fix)
        }
        return nil
    }

    mutating func bool(_ dict: [String: PlistValue], _ key: String, path: String) -> Bool? {
        switch dict[key] {
        case .bool(let value): return value
        case .none: return nil
        case .some(let other):
            problem(.wrongType, path, "expected a Boolean, found \(other.typeNameWithArticle)",
                    fix: "write <true/> or <false/>")
            return nil
        }
    }

    mutating func dictionary(_ dict: [String: PlistValue], _ key: String, path: String, fix: String) -> [String: PlistValue]? {
        switch dict[key] {
        case .dictionary(let value): return value
        case .none: problem(.missingKey, path, "missing (expected a Dictionary)", fix: fix)
        case .some(let other): problem(.wrongType, path, "expected a Dictionary, found \(other.typeNameWithArticle)", fix: fix)
        }
        return nil
    }

    mutating func problem(
        _ code: PluginProblem.Code, _ keyPath: String, _ message: String, severity: PluginProblem.Severity = .error,
        fix: String
    ) {
        problems.append(PluginProblem(code, severity: severity, file: file, keyPath: keyPath.isEmpty ? nil : keyPath,
                                      message: message, fix: fix))
    }

    static func isBundleIdentifier(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && text.utf8.count <= 255 && parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    /// A value from the plist in quotes, for a message: one line, escaped and cut (``DisplayText``).
    static func quoted(_ value: String) -> String {
        "\"\(DisplayText.line(value, limit: 200))\""
    }

    static func isCIdentifier(_ text: String) -> Bool {
        guard let first = text.first, !first.isNumber else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }
}
