internal import AutofillSystem
internal import Synchronization

/// The helper processes of this process that are not reaped yet, so that none ends unreported.
///
/// When the process exits (`exit`, or returning from `main`), every helper still running is killed
/// with its process group (the host is done with it: no fault; not waited for, so an exit costs one
/// `kill` per helper), and every helper that ended on its own is waited for until its ending is
/// reported, a few seconds at most: a helper that crashed just before is in the fault ledger before
/// the command's exit status is. Without this, `PR_SET_PDEATHSIG` would end the helpers, but not what
/// their plugins forked, and a fault being recorded would race the exit.
enum LiveHelpers {
    private static let helpers = Mutex<[ObjectIdentifier: RunningHelper]>([:])
    /// How long the exit waits for endings in progress.
    static let exitTimeout: Duration = .seconds(3)
    private static let exitHandlerInstalled: Bool = Processes.atExit { LiveHelpers.endAll(within: LiveHelpers.exitTimeout) }

    /// Adds a helper just spawned (and, the first time, the exit handler).
    static func add(_ helper: RunningHelper) {
        _ = exitHandlerInstalled
        helpers.withLock { $0[ObjectIdentifier(helper)] = helper }
    }

    /// Removes a helper whose ending was reported.
    static func remove(_ helper: RunningHelper) {
        _ = helpers.withLock { $0.removeValue(forKey: ObjectIdentifier(helper)) }
    }

    /// Kills every helper still running, with its group, and waits, up to `timeout` in all, until the
    /// ending of each helper that ended on its own is reported.
    static func endAll(within timeout: Duration) {
        let ending = helpers.withLock { Array($0.values) }.filter { $0.stopAtExit() }
        let deadline = ContinuousClock.now + timeout
        for helper in ending { helper.waitUntilReaped(timeout: max(.zero, deadline - .now)) }
    }
}
