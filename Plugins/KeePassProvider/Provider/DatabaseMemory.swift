import Dispatch
import Foundation
import KDBX
import Synchronization

/// The unlocked database, held in this process's memory for `timeout` seconds after the unlock.
///
/// What is held: the entries (their secrets as Swift strings, which cannot be zeroed) and the
/// composite key's hash, never the master password, so that a file KeePassXC saved meanwhile is read
/// again without asking. When the time is up (a timer, and a check at every access), both are dropped.
/// Nothing about an unlock is written to any file; ending the process (`autofill lock`) locks it too.
final class DatabaseMemory: Sendable {
    /// The default and largest `UnlockTimeoutSeconds`.
    static let defaultTimeout = 300
    static let maximumTimeout = 86_400

    /// Seconds an unlock lasts.
    let timeout: Int
    /// The longest key derivation a file read again may ask for (`MaximumUnlockSeconds`).
    let keyDerivationLimit: Duration
    private let held = Mutex<Held?>(nil)
    private let generation = Atomic<Int>(0)

    private struct Held {
        let index: KeePassIndex
        let key: CompositeKey
        let stamp: FileStamp
        let until: ContinuousClock.Instant
    }

    init(timeout: Int, keyDerivationLimit: Duration) {
        self.timeout = timeout
        self.keyDerivationLimit = keyDerivationLimit
    }

    /// The unlocked index of the database `file`, read again with the held key if the file
    /// changed; nil when locked. A changed file the held key no longer opens locks the memory.
    func index(of file: @autoclosure () -> DatabaseFile) throws(KDBXError) -> KeePassIndex? {
        let current = held.withLock { held -> Held? in
            if let found = held, found.until <= .now { held = nil }
            return held
        }
        guard let current else { return nil }
        let file = file()
        let stamp = file.stamp
        if stamp == current.stamp { return current.index }
        do {
            let index = KeePassIndex(try file.open(key: current.key, kdfLimit: keyDerivationLimit))
            held.withLock { $0 = Held(index: index, key: current.key, stamp: stamp, until: current.until) }
            return index
        } catch {
            lock()
            throw error
        }
    }

    /// Holds `index`, opened with `key` from the version `stamp` of the file, for ``timeout`` seconds.
    func hold(_ index: KeePassIndex, key: CompositeKey, stamp: FileStamp) {
        guard timeout > 0 else { return }
        let mine = generation.add(1, ordering: .relaxed).newValue
        held.withLock { $0 = Held(index: index, key: key, stamp: stamp, until: .now + .seconds(timeout)) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(timeout)) { [self] in
            if generation.load(ordering: .relaxed) == mine { lock() }
        }
    }

    /// The key held while the database is unlocked (saving reads the file again with it); nil when locked.
    func heldKey() -> CompositeKey? {
        held.withLock { held in
            if let found = held, found.until <= .now { held = nil }
            return held?.key
        }
    }

    /// Holds `index`, the database as just saved (the version `stamp`), in place of the one held (the
    /// unlock's time is not extended); nothing when locked.
    func adopt(_ index: KeePassIndex, stamp: FileStamp) {
        held.withLock { held in
            guard let current = held else { return }
            held = Held(index: index, key: current.key, stamp: stamp, until: current.until)
        }
    }

    /// Whether the database is unlocked with `key`.
    func isHeld(with key: CompositeKey) -> Bool {
        held.withLock { $0.map { $0.until > .now && $0.key.matches(key) } ?? false }
    }

    /// Drops the database and key.
    func lock() {
        held.withLock { $0 = nil }
    }

    var isUnlocked: Bool { held.withLock { $0 != nil } }
}

/// What identifies a version of a file: its inode, size and modification time.
struct FileStamp: Equatable, Sendable {
    let inode: UInt64
    let size: UInt64
    let modified: Double

    init(_ info: stat) {
        inode = UInt64(info.st_ino)
        size = UInt64(info.st_size)
        modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }

    init(_ path: String) {
        var info = stat()
        if stat(path, &info) != 0 { info = stat() }
        self.init(info)
    }
}
