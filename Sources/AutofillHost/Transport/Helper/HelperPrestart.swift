internal import Synchronization

/// One helper process started before anyone knows which provider it will serve.
///
/// A helper's fixed cost is its start: the Swift runtime and the host's libraries, 6–8 ms, before it
/// says hello. A command that will most likely run a provider (`fill`, `passkey`, `text`) starts one
/// helper as soon as it has read its configuration, so that start overlaps reading the stores and
/// ranking the suggestions; the first launch of a provider in a helper then takes it and only sends
/// it the plugin to load. The helper knows nothing until then: no plugin, no request, no secret.
/// An unused one dies with the host (`PR_SET_PDEATHSIG`), like every helper. A helper in namespaces
/// of its own (bubblewrap, docs/SANDBOX.md) is made for its provider's sandbox: one started ahead of
/// need serves only a launch with exactly the same namespaces.
public enum HelperPrestart {
    private struct Started: Sendable {
        let spawned: SpawnedHelper
        let executable: String
        let memoryLimit: UInt64
        let namespaces: HelperNamespaces?
    }

    private static let slot = Mutex<Started?>(nil)

    /// Starts one helper now with `options` (at most one waits at a time). Failing to start one costs
    /// nothing: the launch then starts its own and reports any problem there.
    public static func start(options: HelperOptions) {
        start(options: options, namespaces: nil)
    }

    /// Starts one helper now with `options`, in `namespaces` when given (made for one provider).
    static func start(options: HelperOptions, namespaces: HelperNamespaces?) {
        guard slot.withLock({ $0 == nil }),
              let executable = try? HelperSpawn.executable(options),
              let spawned = try? HelperSpawn.spawn(executable, memoryLimit: options.memoryLimitBytes, namespaces: namespaces,
                                                  files: options.singleFiles.map(\.path))
        else { return }
        let previous = slot.withLock { slot -> Started? in
            defer { slot = Started(spawned: spawned, executable: executable, memoryLimit: options.memoryLimitBytes, namespaces: namespaces) }
            return slot
        }
        if let previous { HelperSpawn.discard(previous.spawned) }
    }

    /// The process id of the helper waiting, if one is (diagnostics and tests).
    public static var waitingProcessID: Int32? {
        slot.withLock { $0?.spawned.pid }
    }

    /// The waiting helper, if it was started with this executable, memory limit and namespaces.
    static func take(executable: String, memoryLimit: UInt64, namespaces: HelperNamespaces? = nil) -> SpawnedHelper? {
        slot.withLock { slot -> SpawnedHelper? in
            guard let started = slot, started.executable == executable, started.memoryLimit == memoryLimit,
                started.namespaces == namespaces
            else { return nil }
            slot = nil
            return started.spawned
        }
    }
}
