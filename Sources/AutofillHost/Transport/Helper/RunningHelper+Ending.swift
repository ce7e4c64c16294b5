internal import AutofillCore
internal import AutofillSystem
internal import Dispatch
internal import Logging

/// How a helper ends: its process group ended, the process reaped, the ending classified and reported.
extension RunningHelper {
    /// Ends the helper's process group, reaps the process, classifies how it ended, and reports it.
    /// `ended`: the process had ended (else the channel did, and the process gets a moment to follow).
    func finish(ended: Bool, watch: Int32, output: inout HelperOutputLog, buffer: UnsafeMutableRawBufferPointer) {
        state.withLock { $0.reaping = true }
        channel.close()
        if !ended && !waitForEnd(watch: watch, milliseconds: 100) {
            state.withLock { state in
                if state.stopReason == nil { state.stopReason = .violation("it closed its protocol channel") }
            }
        }
        // Its process group (whatever the plugin forked, and the helper itself if it still runs),
        // before reaping: until then no other process group can have its id.
        try? Processes.killGroup(pid)
        try? Processes.waitUntilEnded(pid)
        let status = state.withLock { state in
            // Under the lock, so `stop` never signals the pid once it is released.
            defer { state.reaped = true }
            return Processes.reap(pid)
        }
        for (descriptor, stream) in [(spawned.output, HelperOutputLog.Stream.stdout), (spawned.errorOutput, .stderr)] {
            _ = drain(descriptor, into: &output, stream: stream, buffer: buffer)
            Descriptors.closeQuietly(descriptor)
        }
        output.finish()
        Descriptors.closeQuietly(spawned.fault)
        spawned.endSandbox(reap: true)

        let (ending, inFlight) = state.withLock { state -> (Ending, [UInt64: EntryPoint]) in
            let ending = classify(status: status, state: state)
            state.ending = ending
            let inFlight = state.inFlight
            state.inFlight = [:]
            return (ending, inFlight)
        }
        if let fault = ending.fault { logger.warning("\(fault.message)") }
        onEnd(self, ending, inFlight)
        LiveHelpers.remove(self)
        reaped.signal()
        settled.signal()
    }

    /// Waits up to `milliseconds` for the process to end; true when it has.
    private func waitForEnd(watch: Int32, milliseconds: Int32) -> Bool {
        if watch >= 0 {
            return (try? Descriptors.waitReadable(watch, timeoutMilliseconds: milliseconds)) ?? false
        }
        for _ in 0..<(milliseconds / 2) {
            if (try? Processes.hasEnded(pid)) ?? true { return true }
            SystemClock.sleep(milliseconds: 2)
        }
        return (try? Processes.hasEnded(pid)) ?? true
    }

    /// How the helper ended, from what the host saw: its wait status, the reason the host stopped it,
    /// the address space it read when the fault reporter asked it to look, and what it was doing
    /// (the host's own request list; while loading, the last stage the helper named, which can only
    /// choose between the host's phrases for the stages).
    private func classify(status ended: WaitStatus, state: State) -> Ending {
        let name = manifest.displayName
        let stage = state.load == nil ? state.stage ?? .readingPlist : nil
        // What the helper was doing: loading, answering a request, or nothing.
        let doing: String
        if let stage {
            doing = stage.during(manifest)
        } else if let entry = state.inFlight.values.min(by: { $0.rawValue < $1.rawValue }) {
            doing = "while answering \(entry.appleName)"
        } else {
            doing = "between requests"
        }
        func fault(_ kind: ProviderFault.Kind, _ what: String, _ predicate: String? = nil) -> Ending {
            let predicate = predicate ?? "\(what) \(doing)"
            return Ending(fault: ProviderFault(kind, "\(name) \(predicate)"), what: what, predicate: predicate, stage: stage)
        }
        switch state.stopReason {
        case .released?:
            return Ending(fault: nil, what: nil, predicate: nil, stage: stage)
        case .versionMismatch?:
            return Ending(fault: nil, what: "could not be started", predicate: nil, stage: stage)
        case .deadline(let entry, let deadline)?:
            return fault(.killedAtDeadline, "did not answer within \(deadline.formattedSeconds) and was stopped",
                         "did not answer \(entry.appleName) within \(deadline.formattedSeconds) and was stopped")
        case .loadDeadline?:
            return fault(.killedAtDeadline, "did not finish loading within \(options.loadDeadline.formattedSeconds) and was stopped",
                         "did not finish loading within \(options.loadDeadline.formattedSeconds) (stuck \(doing)) and was stopped")
        case .violation(let problem)?:
            return fault(.protocolViolation, "broke the helper protocol (\(problem)) and was stopped")
        case nil:
            break
        }
        // bubblewrap exits with its child's status, a signal N as 128 + N (a provider's own exit(128 + N)
        // reads as that signal too: it could as well raise it).
        let namespacedSignal = spawned.namespaced && ended.exited && (129...192).contains(ended.exitStatus)
        if ended.signaled || namespacedSignal {
            let signal = namespacedSignal ? ended.exitStatus - 128 : ended.terminationSignal
            // At its ceiling: less than 1/16 of it (at least 16 MB) of address space left when the fault
            // reporter asked the host to look. The figure is the kernel's (/proc, read by the host);
            // the helper's note only made the host look, so a forged one can at most make the host read
            // a true figure. Not the faulting thread's errno: glibc leaves a stale ENOMEM behind
            // whenever it fails to reserve a thread arena under a tight ceiling.
            let limit = options.memoryLimitBytes
            if limit > 0, let space = state.addressSpaceAtFault, space + max(16 << 20, limit / 16) >= limit {
                return fault(.exceededMemory(limitBytes: limit), "ran out of its \(options.memoryLimitMegabytes) MB memory limit")
            }
            return fault(.crashed(signal: signal), "crashed (\(ProviderFault.signalName(signal)))")
        }
        return fault(.exited(status: ended.exitStatus), "exited (status \(ended.exitStatus))")
    }
}
