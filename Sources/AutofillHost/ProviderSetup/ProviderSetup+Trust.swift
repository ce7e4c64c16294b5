internal import AutofillCore
internal import FoundationEssentials
internal import Synchronization

/// What happens to an enabled provider whose files the user never approved: one listed in the
/// configuration by hand, with no record in the user's trust records.
public enum UnapprovedProviders: Sendable, Equatable {
    /// Refused (exit 77), naming `autofill providers trust ID`. Scripts and tests get this.
    case refuse
    /// The person at the controlling terminal (`/dev/tty`) is shown the files and asked yes/no; with no
    /// terminal, refused as above. A UI script never answers it.
    case askAtTerminal
}

/// Trust and quarantine: no code of a provider runs unless its files are the ones the user approved,
/// only the user (or root) can change them, and it is not quarantined. See docs/ARCHITECTURE.md,
/// "Trust and quarantine".
extension ProviderSetup {
    /// The user's trust records (`trust.json` in ``records``, whatever the configuration says).
    public var trustRecords: TrustStore { TrustStore(folder: records) }

    /// Digests of plugin files by their stat stamp, so an unchanged library is not hashed at every launch.
    var digestCache: DigestCache { DigestCache(folder: records) }

    /// The fingerprint of `manifest`'s files as they are now (unchanged files' digests from the cache).
    func currentFingerprint(of manifest: PluginManifest) throws(AutofillError) -> PluginFingerprint {
        try PluginFingerprint(of: manifest, cache: digestCache)
    }

    /// The user's fault ledger (`faults.json` in ``records``), with this configuration's `Quarantine` policy.
    public var faultLedger: FaultLedger {
        FaultLedger(folder: records, policy: (catalog.file.configuration.quarantine ?? QuarantineSettings()).policy)
    }

    /// Whether `manifest`'s provider would be launched now, and why not. Reads permissions, hashes the
    /// files and reads the records; runs no plugin code and changes nothing.
    public func trustState(of manifest: PluginManifest) -> ProviderTrustState {
        let problems = PluginPermissions.problems(bundle: manifest.bundlePath)
        guard problems.isEmpty else { return .unsafe(problems) }
        do {
            return try trustState(of: manifest, fingerprint: try currentFingerprint(of: manifest))
        } catch {
            return .unreadable(error)
        }
    }

    private func trustState(of manifest: PluginManifest, fingerprint: PluginFingerprint) throws(AutofillError) -> ProviderTrustState {
        let record = try trustRecords.record(for: manifest.identifier, bundle: manifest.bundlePath)
        if let record {
            let changed = fingerprint.changedFiles(since: record.fingerprint, executable: manifest.executable)
            if !changed.isEmpty { return .changed(files: changed, record: record) }
            // The files are the approved ones; their declaration may still ask more than the record (a
            // record made before the sandbox approved nothing).
            let more = manifest.sandbox.asksMore(than: record.permissions ?? [])
            if !more.isEmpty { return .newPermissions(more, record: record) }
            // Its settings may now name other files than those approved (`providers set`, an edited configuration).
            let wider = grantsBeyond(record, of: manifest)
            if !wider.isEmpty { return .newPermissions(wider, record: record) }
        }
        if let quarantine = try faultLedger.quarantine(for: manifest.identifier, bundle: manifest.bundlePath, fingerprint: fingerprint) {
            return .quarantined(quarantine)
        }
        return record.map { .trusted($0) } ?? .notRecorded
    }

    /// Refuses (`AutofillError.Code.refused`) to go on with `manifest`'s provider unless only the user or
    /// root can change its files, they are the ones the user approved, and it is not quarantined. A
    /// provider enabled without a record (listed in the configuration by hand) is refused too, unless
    /// ``unapprovedProviders`` is `askAtTerminal` and the person at the terminal approves its files now.
    /// Called first thing by ``launch(_:store:userInterface:)``.
    /// Returns the fingerprint admitted: its ``PluginFingerprint/files`` are what the loader must find.
    @discardableResult
    public func admit(_ manifest: PluginManifest) throws(AutofillError) -> PluginFingerprint {
        try checkPermissions(manifest)
        let fingerprint = try currentFingerprint(of: manifest)
        let state = try trustState(of: manifest, fingerprint: fingerprint)
        guard case .notRecorded = state else {
            if let refusal = state.refusal(for: manifest) { throw refusal }
            return fingerprint
        }
        try approveAtTheTerminal(manifest, fingerprint: fingerprint)
        return fingerprint
    }

    /// Shows the person at the controlling terminal the files of a provider they never approved and asks
    /// whether to run it; records them (origin `confirmed`) on yes. Refuses without a terminal, on no, or
    /// when ``unapprovedProviders`` is `refuse`.
    private func approveAtTheTerminal(_ manifest: PluginManifest, fingerprint: PluginFingerprint) throws(AutofillError) {
        let refusal = ProviderTrustState.notRecorded.refusal(for: manifest, previousRecords: previousRecordsHint)!
        guard unapprovedProviders == .askAtTerminal else { throw refusal }
        // One question at a time, whichever thread admits a provider.
        let answer = Self.terminalQuestion.withLock { _ -> Result<Bool, UserInterfaceError>? in
            // The controlling terminal itself, never the command's UI (which may be a UI script).
            guard let terminal = TerminalUserInterface.open() else { return nil }
            let question = UserInterfaceRequest.confirm(title: "Approve a provider", message: approvalQuestion(manifest, fingerprint: fingerprint))
            return Result { () throws(UserInterfaceError) -> Bool in
                guard case .confirmed(let yes) = try terminal.present(question, providerName: "autofill") else { return false }
                return yes
            }
        }
        guard let answer else { throw refusal }
        guard case .success(true) = answer else {
            throw AutofillError(
                .refused,
                "\(Self.name(manifest)) was not run: you did not approve its files; `autofill providers trust \(manifest.identifier)` approves them")
        }
        let record = TrustRecord(fingerprint: fingerprint, bundle: manifest.bundlePath, executable: manifest.executable,
                                 recorded: .wholeSecondsNow, origin: .confirmed, permissions: manifest.sandbox.permissionKeys, grants: grantKeys(of: manifest))
        let kept = try trustRecords.saveIfAbsent(record, for: manifest.identifier)
        guard kept != record else { return }
        // Another autofill recorded files in the meantime: those are the ones to compare with.
        let changed = fingerprint.changedFiles(since: kept.fingerprint, executable: manifest.executable)
        guard !changed.isEmpty, let refusal = ProviderTrustState.changed(files: changed, record: kept).refusal(for: manifest) else { return }
        throw refusal
    }

    /// What the approval question says: the provider, where it is, and its files' SHA-256.
    func approvalQuestion(_ manifest: PluginManifest, fingerprint: PluginFingerprint) -> String {
        var lines = ["\(Self.name(manifest)) is enabled in \(catalog.file.path), but you have not approved its files:"]
        lines += fingerprint.lines(of: manifest).map { "  \($0)" }
        lines.append("It asks to:")
        lines += sandboxSummary(for: manifest).map { "  \($0)" }
        lines.append("autofill records them and refuses to run it if they change (then `autofill providers trust \(manifest.identifier)`).")
        lines.append("Approve these files and run \(manifest.displayName)?")
        return lines.joined(separator: "\n")
    }

    /// Serialises questions at the terminal across threads.
    private static let terminalQuestion = Mutex(())

    /// A trust file of an earlier autofill beside the identity stores (no longer read), for messages.
    private var previousRecordsHint: String? {
        let old = "\(stores.path)/\(TrustStore.fileName)"
        return FileManager.default.fileExists(atPath: old) ? old : nil
    }

    /// Re-records provider `id`'s files as they are now and lifts its quarantine: what the user does after
    /// checking a changed plugin, or to approve one listed in the configuration by hand. Runs none of its
    /// code. The provider must be enabled and its files safe.
    public func trust(_ id: String) throws(AutofillError) -> TrustChange {
        let enabled = catalog.enabledIDs
        guard enabled.contains(id) else {
            throw AutofillError(
                .usage,
                "\(id) is not enabled (enabled providers: \(enabled.isEmpty ? "none" : enabled.joined(separator: ", "))); `autofill providers enable \(id)` records its files as it enables it\(KeySpelling.didYouMean(id, among: enabled))")
        }
        let manifest = try catalog.manifest(for: id)
        try checkPermissions(manifest)
        let fingerprint = try PluginFingerprint(of: manifest)
        let current = TrustRecord(fingerprint: fingerprint, bundle: manifest.bundlePath, executable: manifest.executable,
                                  recorded: .wholeSecondsNow, origin: .trusted, permissions: manifest.sandbox.permissionKeys, grants: grantKeys(of: manifest))
        let previous = try trustRecords.record(for: id, bundle: manifest.bundlePath)
        // A quarantine of other files was lifted when they changed; report only one that applied.
        let lifted = try faultLedger.quarantine(for: id, bundle: manifest.bundlePath, fingerprint: fingerprint)
        try trustRecords.save(current, for: id)
        try faultLedger.clear(id, bundle: manifest.bundlePath)
        return TrustChange(manifest: manifest, previous: previous, current: current, liftedQuarantine: lifted)
    }

    /// Records a fault of `manifest`'s provider (a crash, a deadline kill, a resource-limit kill) with its
    /// files' fingerprint, and returns its quarantine if this fault (or an earlier one) quarantined it.
    ///
    /// For the transport: call it on every fault, from any thread. `message` says what the host saw and
    /// must hold no secret. It never throws: a ledger that cannot be written is logged.
    @discardableResult
    public func recordFault(_ manifest: PluginManifest, kind: ProviderFaultKind, message: String) -> ProviderQuarantine? {
        let fingerprint = try? currentFingerprint(of: manifest)
        do {
            let quarantine = try faultLedger.record(
                fault: kind, message: message, fingerprint: fingerprint, for: manifest.identifier, bundle: manifest.bundlePath)
            logger.debug("\(Self.name(manifest)) \(kind.sentence): \(message)\(quarantine == nil ? "" : "; quarantined")")
            return quarantine
        } catch {
            // Said in the context of the client whose request the fault ended (HelperConnection), so it
            // reaches that client's terminal under the agent too, not only the agent's log.
            logger.error("""
                cannot record a fault of \(Self.name(manifest)) (\(kind.sentence): \(message)) in the fault ledger \
                \(faultLedger.path): \(error); quarantine cannot count it until the ledger can be written again \
                (check the free space and the permissions of its folder)
                """)
            return nil
        }
    }

    /// For `enable`: checks the files are safe, lifts any quarantine, and records the files when the
    /// provider is new (or has no record). Returns the record to restore if enabling fails after all.
    func approveForEnable(_ manifest: PluginManifest, isEnabled: Bool) throws(AutofillError) -> (TrustRecord?, restore: Bool) {
        try checkPermissions(manifest)
        try faultLedger.clear(manifest.identifier, bundle: manifest.bundlePath)
        let previous = try trustRecords.record(for: manifest.identifier, bundle: manifest.bundlePath)
        guard !isEnabled || previous == nil else { return (previous, false) }
        try trustRecords.save(
            TrustRecord(fingerprint: try PluginFingerprint(of: manifest), bundle: manifest.bundlePath, executable: manifest.executable,
                        recorded: .wholeSecondsNow, origin: .enabled, permissions: manifest.sandbox.permissionKeys, grants: grantKeys(of: manifest)),
            for: manifest.identifier)
        return (previous, true)
    }

    /// Puts back the record `approveForEnable` replaced.
    func restoreTrust(_ previous: TrustRecord?, for manifest: PluginManifest) {
        if let previous {
            try? trustRecords.save(previous, for: manifest.identifier)
        } else {
            _ = try? trustRecords.remove(manifest.identifier, bundle: manifest.bundlePath)
        }
    }

    private func checkPermissions(_ manifest: PluginManifest) throws(AutofillError) {
        let problems = PluginPermissions.problems(bundle: manifest.bundlePath)
        guard !problems.isEmpty, let refusal = ProviderTrustState.unsafe(problems).refusal(for: manifest) else { return }
        throw refusal
    }

    static func name(_ manifest: PluginManifest) -> String { "\(manifest.displayName) (\(manifest.identifier))" }
}

extension PluginFingerprint {
    /// The bundle and each file's SHA-256, one line each, names aligned: what the approval question shows.
    public func lines(of manifest: PluginManifest) -> [String] {
        let entries: [(String, String)] = files.map { files in
            files.keys.sorted().map { path in
                let value = files[path] ?? ""
                return (path, value.hasPrefix("link:") ? "a symbolic link to \(value.dropFirst(5))" : value.hasPrefix("other:") ? "not a file" : "SHA-256 \(value)")
            }
        } ?? [(manifest.executable, "SHA-256 \(library)"), ("Info.plist", "SHA-256 \(plist)")]
        let width = (entries.map(\.0.count) + ["bundle".count]).max()! + 2
        func pad(_ text: String) -> String { text + String(repeating: " ", count: max(width - text.count, 1)) }
        return [pad("bundle") + manifest.bundlePath] + entries.map { pad(DisplayText.line($0.0, limit: 200)) + $0.1 }
    }
}
