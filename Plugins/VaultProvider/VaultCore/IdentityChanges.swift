public import AutofillCore

/// What to write to an identity store after a vault changed: the identities to save (new or
/// changed) and those to remove (gone, or whose key changed).
public struct IdentityChanges: Hashable, Sendable {
    /// New identities, and identities whose rank changed (saving replaces them).
    public var save: [CredentialIdentity]
    /// Identities whose key is gone (entry removed, or its service, user or label changed).
    public var remove: [CredentialIdentity]

    /// The changes that turn the identities `old` into `new`.
    public init(from old: [CredentialIdentity], to new: [CredentialIdentity]) {
        let oldSet = Set(old)
        let newKeys = Set(new.map(IdentityKey.init))
        save = new.filter { !oldSet.contains($0) }
        remove = old.filter { !newKeys.contains(IdentityKey($0)) }
    }

    /// Whether there is nothing to write.
    public var isEmpty: Bool { save.isEmpty && remove.isEmpty }
}

/// Keeps a provider's identity store in step with its vault (used by the provider and autofill-vault).
public enum IdentityPublisher {
    /// What a publish wrote.
    public enum Outcome: Hashable, Sendable, CustomStringConvertible {
        /// Nothing had changed.
        case unchanged
        /// Saved and removed this many identities.
        case incremental(saved: Int, removed: Int)
        /// Wrote the full list (the store wanted it, or it was asked for).
        case replaced(count: Int)

        public var description: String {
            switch self {
            case .unchanged: "identity store already up to date"
            case .incremental(let saved, let removed): "identity store updated: \(saved) saved, \(removed) removed"
            case .replaced(let count): "identity store replaced: \(count) \(count == 1 ? "identity" : "identities")"
            }
        }
    }

    /// Writes `changes` to `store`, or the full list `all` with `replace` when the store does not
    /// support incremental updates (after a wipe).
    public static func publish(
        _ changes: IdentityChanges, all: [CredentialIdentity], to store: any CredentialIdentityStore
    ) throws(IdentityStoreError) -> Outcome {
        guard try store.state().supportsIncrementalUpdates else {
            try store.replace(with: all)
            return .replaced(count: all.count)
        }
        guard !changes.isEmpty else { return .unchanged }
        if !changes.remove.isEmpty { try store.remove(changes.remove) }
        if !changes.save.isEmpty { try store.save(changes.save) }
        return .incremental(saved: changes.save.count, removed: changes.remove.count)
    }

    /// Writes the full list `all` with `replace`.
    public static func replace(with all: [CredentialIdentity], in store: any CredentialIdentityStore) throws(IdentityStoreError)
        -> Outcome
    {
        try store.replace(with: all)
        return .replaced(count: all.count)
    }
}
