internal import FoundationEssentials

/// Trust and quarantine: no code of a provider runs unless its files are the ones the user approved,
/// only the user (or root) can change them, and it is not quarantined. See docs/ARCHITECTURE.md,
/// "Trust and quarantine".
extension ProviderSetup {
    /// This configuration's trust records (`trust.json` next to its identity stores).
    public var trustRecords: TrustStore { TrustStore(folder: stores) }

    /// Digests of plugin files by their stat stamp, so an unchanged library is not hashed at every launch.
    var digestCache: DigestCache { DigestCache(folder: stores) }

    /// The fingerprint of `manifest`'s files as they are now (unchanged files' digests from the cache).
    func currentFingerprint(of manifest: PluginManifest) throws(AutofillError) -> PluginFingerprint {
        try PluginFingerprint(of: manifest, cache: digestCache)
    }

    /// This configuration's fault ledger (`faults.json` next to its identity stores), with its `Quarantine` policy.
    public var faultLedger: FaultLedger {
        FaultLedger(folder: stores, policy: (catalog.file.configuration.quarantine ?? QuarantineSettings()).policy)
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
        let record = try trustRecords.record(for: manifest.identifier)
        if let record {
            let changed = fingerprint.changedFiles(since: record.fingerprint, executable: manifest.executable)
            if !changed.isEmpty { return .changed(files: changed, record: record) }
        }
        if let quarantine = try faultLedger.quarantine(for: manifest.identifier, fingerprint: fingerprint) {
            return .quarantined(quarantine)
        }
        return record.map { .trusted($0) } ?? .notRecorded
    }

    /// Refuses (`AutofillError.Code.refused`) to go on with `manifest`'s provider unless only the user or
    /// root can change its files, they are the ones recorded, and it is not quarantined. A provider
    /// enabled without a record (a hand-edited configuration) gets its files recorded now, with a notice
    /// (trust on first use). Called first thing by ``launch(_:store:userInterface:)``.
    public func admit(_ manifest: PluginManifest) throws(AutofillError) {
        try checkPermissions(manifest)
        let fingerprint = try currentFingerprint(of: manifest)
        let state = try trustState(of: manifest, fingerprint: fingerprint)
        guard case .notRecorded = state else {
            if let refusal = state.refusal(for: manifest) { throw refusal }
            return
        }
        let record = TrustRecord(fingerprint: fingerprint, bundle: manifest.bundlePath, executable: manifest.executable,
                                 recorded: .wholeSecondsNow, origin: .firstUse)
        let kept = try trustRecords.saveIfAbsent(record, for: manifest.identifier)
        guard kept == record else {
            // Another autofill recorded files in the meantime: those are the ones to compare with.
            let changed = fingerprint.changedFiles(since: kept.fingerprint, executable: manifest.executable)
            guard !changed.isEmpty, let refusal = ProviderTrustState.changed(files: changed, record: kept).refusal(for: manifest) else { return }
            throw refusal
        }
        notice("trusting \(Self.name(manifest)) as it is now: it was enabled without `autofill providers enable` (the SHA-256 of \(manifest.executable) and Info.plist are recorded in \(trustRecords.path))")
    }

    /// Re-records provider `id`'s files as they are now and lifts its quarantine: what the user does after
    /// checking a changed plugin. Runs none of its code. The provider must be enabled and its files safe.
    public func trust(_ id: String) throws(AutofillError) -> TrustChange {
        let enabled = catalog.enabledIDs
        guard enabled.contains(id) else {
            throw AutofillError(
                .usage,
                "\(id) is not enabled (enabled providers: \(enabled.isEmpty ? "none" : enabled.joined(separator: ", "))); `autofill providers enable \(id)` records its files as it enables it")
        }
        let manifest = try catalog.manifest(for: id)
        try checkPermissions(manifest)
        let fingerprint = try PluginFingerprint(of: manifest)
        let current = TrustRecord(fingerprint: fingerprint, bundle: manifest.bundlePath, executable: manifest.executable,
                                  recorded: .wholeSecondsNow, origin: .trusted)
        let previous = try trustRecords.record(for: id)
        // A quarantine of other files was lifted when they changed; report only one that applied.
        let lifted = try faultLedger.quarantine(for: id, fingerprint: fingerprint)
        try trustRecords.save(current, for: id)
        try faultLedger.clear(id)
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
            let quarantine = try faultLedger.record(fault: kind, message: message, fingerprint: fingerprint, for: manifest.identifier)
            logger.debug("\(Self.name(manifest)) \(kind.sentence): \(message)\(quarantine == nil ? "" : "; quarantined")")
            return quarantine
        } catch {
            logger.error("cannot record a fault of \(Self.name(manifest)) (\(kind.sentence): \(message)): \(error)")
            return nil
        }
    }

    /// For `enable`: checks the files are safe, lifts any quarantine, and records the files when the
    /// provider is new (or has no record). Returns the record to restore if enabling fails after all.
    func approveForEnable(_ manifest: PluginManifest, isEnabled: Bool) throws(AutofillError) -> (TrustRecord?, restore: Bool) {
        try checkPermissions(manifest)
        try faultLedger.clear(manifest.identifier)
        let previous = try trustRecords.record(for: manifest.identifier)
        guard !isEnabled || previous == nil else { return (previous, false) }
        try trustRecords.save(
            TrustRecord(fingerprint: try PluginFingerprint(of: manifest), bundle: manifest.bundlePath, executable: manifest.executable,
                        recorded: .wholeSecondsNow, origin: .enabled),
            for: manifest.identifier)
        return (previous, true)
    }

    /// Puts back the record `approveForEnable` replaced.
    func restoreTrust(_ previous: TrustRecord?, for id: String) {
        if let previous { try? trustRecords.save(previous, for: id) } else { _ = try? trustRecords.remove(id) }
    }

    /// For `disable`: forgets the provider's record and faults (enabling it again records its files afresh).
    func forgetTrust(_ id: String) {
        do {
            try trustRecords.remove(id)
            try faultLedger.clear(id)
        } catch {
            logger.warning("\(id) is disabled, but its trust record or faults could not be removed: \(error)")
        }
    }

    private func checkPermissions(_ manifest: PluginManifest) throws(AutofillError) {
        let problems = PluginPermissions.problems(bundle: manifest.bundlePath)
        guard !problems.isEmpty, let refusal = ProviderTrustState.unsafe(problems).refusal(for: manifest) else { return }
        throw refusal
    }

    private func notice(_ text: String) {
        if let notify { notify(text) } else { logger.warning("\(text)") }
    }

    static func name(_ manifest: PluginManifest) -> String { "\(manifest.displayName) (\(manifest.identifier))" }
}
