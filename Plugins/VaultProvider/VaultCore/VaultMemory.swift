internal import Dispatch
internal import Synchronization

/// The provider's memory of its unlocked vault: after an unlock, the key (in ``LockedBytes``) and
/// the decrypted, indexed entries, held until `UnlockTimeoutSeconds` pass; then a timer drops the
/// entries and zeroes the key, whether or not a request comes. Nothing is written to any file.
///
/// * **Expiry.** The timer starts at the unlock and is not extended by use. When it fires while a
///   request is being served (``serving(_:)``), the vault is locked as that request ends, so a
///   request never loses its key halfway (a passkey's counter being saved, say). A timeout of 0
///   holds the vault for the request that unlocked it only.
/// * **A changed file.** Every request compares the vault file's ``FileStamp`` (one `stat`) with the
///   one read. When it differs (autofill-vault saved an entry, say), the file is read again and
///   decrypted with the key in memory: the key stays valid while the salt and the key derivation's
///   parameters are unchanged. When they changed (`autofill-vault passwd` writes a new salt; a vault
///   created anew at the same path), or the key no longer opens the file, the vault is locked and
///   must be unlocked again: the provider never decrypts with a stale key.
/// * **Locking** zeroes the key bytes and drops the entries. Decoded entries are Swift strings in
///   the ordinary heap, which cannot be zeroed reliably: they are freed, and the memory goes back to
///   the kernel when the provider's helper process ends (docs/VAULT.md, "What is in memory").
///
/// Thread-safe: requests come one at a time on a host thread, the timer fires on a queue of its own.
public final class VaultMemory: Sendable {
    /// What happened, for the provider's log (never a secret).
    public enum Event: Sendable, Equatable {
        /// A vault was unlocked for this many seconds (0: for the current request only).
        case unlocked(seconds: Int)
        /// The vault was locked: its key zeroed, its entries dropped.
        case locked(LockReason)
        /// The vault file changed on disk and was read again with the key in memory.
        case reread
        /// The key's pages could not be locked in memory (`mlock`'s errno: `RLIMIT_MEMLOCK` is too
        /// small); they may be swapped out. Reported once.
        case keyNotMemoryLocked(errno: Int32)
    }

    /// Why the vault was locked.
    public enum LockReason: String, Sendable, Equatable {
        /// `UnlockTimeoutSeconds` passed since the unlock.
        case timeout
        /// `UnlockTimeoutSeconds` is 0: the request that unlocked it ended.
        case requestEnded
        /// The vault file now has another salt or other key-derivation parameters (a new master password, or created anew).
        case keyChanged
        /// The key in memory no longer opens the vault file (changed or damaged), or the file cannot be read.
        case fileUnusable
        /// The provider was asked to (another vault unlocked, or a test).
        case requested
    }

    /// The default of `UnlockTimeoutSeconds`.
    public static let defaultTimeout = 300
    /// The longest `UnlockTimeoutSeconds` allowed (one day).
    public static let maximumTimeout = 86_400

    /// How long an unlock lasts, in seconds; 0 for the current request only.
    public let timeout: Int
    private let onEvent: @Sendable (Event) -> Void
    private let queue = DispatchQueue(label: "org.autofill.vault.lock-timer")
    private let state = Mutex(State())

    private struct State {
        var unlocked: UnlockedVault?
        /// Changes at every unlock and lock: a timer or a re-read of an older unlock does nothing.
        var generation = 0
        var timer: (any DispatchSourceTimer)?
        /// Requests being served (``serving(_:)``).
        var requests = 0
        /// The timer fired while a request was being served.
        var expired = false
        var reportedMemoryLock = false
    }

    /// A memory holding nothing yet; `onEvent` hears of unlocks, locks and re-reads.
    public init(timeout: Int, onEvent: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.timeout = timeout
        self.onEvent = onEvent
    }

    deinit {
        state.withLock { state in
            state.timer?.cancel()
            state.unlocked?.vault.key.wipe()
        }
    }

    /// Whether a vault is held.
    public var isUnlocked: Bool { state.withLock { $0.unlocked != nil } }

    /// Whether the timer fired during the request being served (it locks when that ends).
    var expiredDuringRequest: Bool { state.withLock { $0.expired } }

    /// Runs `body` as one request: a timer firing meanwhile locks when it returns, and with a
    /// timeout of 0 the vault unlocked during the request is locked when it returns.
    public func serving<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        state.withLock { $0.requests += 1 }
        defer {
            let reason = state.withLock { state -> LockReason? in
                state.requests -= 1
                guard state.requests == 0, state.unlocked != nil else { return nil }
                if state.expired { return .timeout }
                return timeout == 0 ? .requestEnded : nil
            }
            if let reason { lock(reason) }
        }
        return try body()
    }

    /// The unlocked vault at `path`, read again first if the file changed on disk; nil when no
    /// vault is held, another one is, or it had to be locked (``LockReason/keyChanged``,
    /// ``LockReason/fileUnusable``). Throws, after locking, when the file is gone or damaged.
    public func unlocked(at path: String) throws(VaultError) -> UnlockedVault? {
        let snapshot = state.withLock { state in state.unlocked.map { (held: $0, generation: state.generation) } }
        guard let snapshot, snapshot.held.path == path else { return nil }
        let (held, generation) = snapshot
        let stamp: FileStamp
        do {
            stamp = try FileStamp(path: path)
        } catch {
            lock(.fileUnusable, ifGeneration: generation)
            throw error
        }
        if stamp == held.vault.stamp { return held }
        let reread: Vault
        do throws(VaultError) {
            let (file, stamp) = try AtomicFile.readStamped(path)
            let header = try VaultHeader(reading: file, path: path)
            guard header.salt == held.vault.header.salt, header.keyDerivation == held.vault.header.keyDerivation else {
                lock(.keyChanged, ifGeneration: generation)
                return nil
            }
            reread = try Vault.open(file: file, header: header, key: held.vault.key, path: path, stamp: stamp)
        } catch where error.code == .wrongPasswordOrModified {
            lock(.fileUnusable, ifGeneration: generation)
            return nil
        } catch {
            lock(.fileUnusable, ifGeneration: generation)
            throw error
        }
        let fresh = UnlockedVault(reread)
        let kept = state.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.unlocked = fresh
            return true
        }
        guard kept else { return nil }  // locked meanwhile
        onEvent(.reread)
        return fresh
    }

    /// Holds `vault` (just opened with its master password) for ``timeout`` seconds, replacing and
    /// locking any vault held before, and starts the timer.
    @discardableResult
    public func hold(_ vault: Vault) -> UnlockedVault {
        let unlocked = UnlockedVault(vault)
        var events: [Event] = []
        let previous = state.withLock { state -> UnlockedVault? in
            let previous = state.unlocked
            state.timer?.cancel()
            state.timer = nil
            state.generation += 1
            state.expired = false
            state.unlocked = unlocked
            if timeout > 0 {
                let generation = state.generation
                let timer = DispatchSource.makeTimerSource(queue: queue)
                timer.schedule(deadline: .now() + .seconds(timeout))
                timer.setEventHandler { [weak self] in self?.expire(generation: generation) }
                timer.resume()
                state.timer = timer
            } else if state.requests == 0 {
                state.unlocked = nil  // no request to hold it for: the caller's copy is all there is
            }
            if let error = vault.key.memoryLockError, !state.reportedMemoryLock {
                state.reportedMemoryLock = true
                events.append(.keyNotMemoryLocked(errno: error))
            }
            return previous
        }
        if let previous, previous.vault.key.storage !== vault.key.storage { previous.vault.key.wipe() }
        onEvent(.unlocked(seconds: timeout))
        for event in events { onEvent(event) }
        return unlocked
    }

    /// Replaces the held entries with `vault`, the same vault saved by this provider under the same
    /// key (a passkey registered or counted), so the next request need not read the file again.
    /// Does nothing when that vault is no longer held.
    @discardableResult
    public func adopt(_ vault: Vault) -> UnlockedVault {
        let fresh = UnlockedVault(vault)
        state.withLock { state in
            guard let held = state.unlocked, held.path == vault.path, held.vault.key.storage === vault.key.storage else { return }
            state.unlocked = fresh
        }
        return fresh
    }

    /// Locks now: zeroes the key, drops the entries, stops the timer. Does nothing when locked.
    public func lock(_ reason: LockReason = .requested) {
        lock(reason, ifGeneration: nil)
    }

    private func lock(_ reason: LockReason, ifGeneration generation: Int?) {
        let dropped = state.withLock { state -> UnlockedVault? in
            guard let held = state.unlocked, generation == nil || generation == state.generation else { return nil }
            state.timer?.cancel()
            state.timer = nil
            state.generation += 1
            state.expired = false
            state.unlocked = nil
            return held
        }
        guard let dropped else { return }
        dropped.vault.key.wipe()
        onEvent(.locked(reason))
    }

    /// The timer of unlock `generation` fired: lock now, or when the request being served ends.
    private func expire(generation: Int) {
        let now = state.withLock { state -> Bool in
            guard state.generation == generation, state.unlocked != nil else { return false }
            state.timer?.cancel()
            state.timer = nil
            guard state.requests == 0 else {
                state.expired = true
                return false
            }
            return true
        }
        if now { lock(.timeout, ifGeneration: generation) }
    }
}
