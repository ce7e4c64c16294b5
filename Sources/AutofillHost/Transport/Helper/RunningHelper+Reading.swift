internal import AutofillWire
internal import AutofillABI
internal import AutofillCore
internal import AutofillSystem
internal import Logging

/// The reader thread: the helper's frames, its output, and its process ending, watched together.
extension RunningHelper {
    func readLoop() {
        let handler = self.handler
        var output = HelperOutputLog(logger: logger) { level, line in handler.printed(line, level: level) }
        var assembler = FrameAssembler()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        defer { buffer.deallocate() }
        // Readable when the process ends, whoever else holds its socket; -1 before Linux 5.3, where
        // the loop asks waitid every 50 ms instead.
        let watch = (try? Processes.endDescriptor(of: pid)) ?? -1
        defer { if watch >= 0 { Descriptors.closeQuietly(watch) } }
        // The channel, stdout, stderr, the end watch and the fault socket; -1 once at end-of-file.
        var descriptors = [spawned.channel, spawned.output, spawned.errorOutput, watch, spawned.fault]
        var ended = false
        while true {
            guard let ready = try? Descriptors.waitReadable(any: descriptors, timeoutMilliseconds: watch >= 0 ? -1 : 50) else { break }
            for index in 1...2 where ready[index] {
                if !drain(descriptors[index], into: &output, stream: index == 1 ? .stdout : .stderr, buffer: buffer) {
                    descriptors[index] = -1  // end-of-file: the plugin closed it; the protocol goes on
                }
            }
            if ready[4] && !noteFault(buffer: buffer) {
                descriptors[4] = -1  // end-of-file
            }
            if watch >= 0 ? ready[3] : (try? Processes.hasEnded(pid)) == true {
                ended = true
                break
            }
            guard ready[0] else { continue }
            let count = readSome(spawned.channel, into: buffer)
            guard count > 0, receive(count, from: buffer, into: &assembler) else { break }
        }
        if ended {
            state.withLock { $0.reaping = true }  // no new requests, no UI for it
            readLastFrames(into: &assembler, buffer: buffer)
        }
        finish(ended: ended, watch: watch, output: &output, buffer: buffer)
    }

    /// The fault reporter says a fatal signal arrived and waits: read the helper's address space
    /// (the kernel's figure, not anything the helper wrote), then let it die. What the note says is
    /// never read: at most it makes the host look. False at end-of-file.
    private func noteFault(buffer: UnsafeMutableRawBufferPointer) -> Bool {
        let count = readSome(spawned.fault, into: buffer)
        guard count != 0 else { return false }
        guard count > 0 else { return true }  // EAGAIN
        state.withLock { state in
            guard !state.reaped else { return }
            state.addressSpaceAtFault = Processes.addressSpace(of: state.namespacedHelper ?? pid)
        }
        try? FaultReporter.answer(on: spawned.fault)
        return true
    }

    /// Handles the frames `count` bytes of `buffer` complete; false to stop reading (the helper is being stopped).
    private func receive(_ count: Int, from buffer: UnsafeMutableRawBufferPointer, into assembler: inout FrameAssembler) -> Bool {
        assembler.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        do {
            while let body = try assembler.next() {
                guard handle(try HelperMessage(body: body)) else { return false }
            }
            return true
        } catch {
            stop(.violation(error.message))
            return false
        }
    }

    /// After the process ended: the frames it sent before (a completion, a last log line), as far as
    /// they are in the socket now. At most 4 MB: more is a forked child still writing, not the helper.
    private func readLastFrames(into assembler: inout FrameAssembler, buffer: UnsafeMutableRawBufferPointer) {
        guard (try? Descriptors.setNonblocking(spawned.channel, true)) != nil else { return }
        var budget = 4 << 20
        while budget > 0 {
            let count = readSome(spawned.channel, into: buffer)
            guard count > 0, receive(count, from: buffer, into: &assembler) else { return }
            budget -= count
        }
    }

    /// Reads what `descriptor` has into the output log; false at end-of-file.
    /// At most 1 MB a time: a writer that never stops (a child the plugin forked) cannot hold the reader.
    func drain(_ descriptor: Int32, into output: inout HelperOutputLog, stream: HelperOutputLog.Stream,
                       buffer: UnsafeMutableRawBufferPointer) -> Bool {
        var budget = 1 << 20
        while budget > 0 {
            let count: Int
            do {
                count = try Descriptors.read(descriptor, into: buffer)
            } catch {
                return error.wouldBlock
            }
            guard count > 0 else { return false }
            output.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), from: stream)
            budget -= count
        }
        return true
    }

    /// Handles one message from the helper; false to stop reading (the helper is being stopped).
    private func handle(_ message: HelperMessage) -> Bool {
        let helloSeen = state.withLock { $0.helloSeen }
        if !helloSeen {
            guard case .hello(let version, let abi) = message else {
                stop(.violation("it spoke before its hello"))
                return false
            }
            return hello(version: version, abi: abi)
        }
        switch message {
        case .hello:
            stop(.violation("a second hello"))
            return false
        case .loading(let stage):
            state.withLock { $0.stage = stage }
        case .sandboxed(let report):
            // Believed only before the plugin's library is opened: after that, its code could send anything.
            let accepted = state.withLock { state -> Bool in
                guard options.sandbox != nil, state.loadSent, state.stage == nil, state.sandbox == nil, state.load == nil else { return false }
                state.sandbox = report
                return true
            }
            guard accepted else {
                stop(.violation("a sandbox report out of turn"))
                return false
            }
            logger.info("\(manifest.displayName) (\(manifest.identifier)) \(report.summary(kind: BubblewrapSupport.kind(namespaces: spawned.namespaced)))")
        case .loaded(let problems, let entryPoints):
            enum Verdict { case first, second, unsandboxed }
            let verdict = state.withLock { state -> Verdict in
                guard state.load == nil else { return .second }
                if entryPoints != nil && options.sandbox != nil && state.sandbox == nil { return .unsandboxed }
                state.load = LoadResult(problems: problems, entryPoints: entryPoints)
                return .first
            }
            switch verdict {
            case .first: break
            case .second:
                stop(.violation("a second load result"))
                return false
            case .unsandboxed:
                stop(.violation("it loaded the plugin without reporting its sandbox"))
                return false
            }
            settled.signal()
        case .log(let level, let text):
            handler.log(level: level, message: text)
        case .malformedCall(let service, let problem):
            handler.reportMalformedCall(service, problem)
        case .call(let id, let call):
            serve(call, id: id)
        case .returned(let id):
            handler.entryPointReturned(id)
        case .load, .request, .reply:
            stop(.violation("it sent a host message"))
            return false
        }
        return true
    }

    func hello(version: UInt32, abi: UInt32) -> Bool {
        guard version == HelperProtocol.version, abi == providerABIVersion else {
            let problem = PluginProblem(
                .loadFailed, file: HelperSpawn.selfExecutable(),
                message: "the provider helper speaks protocol version \(version) and C ABI version \(abi); this autofill speaks \(HelperProtocol.version) and \(providerABIVersion)",
                fix: "reinstall autofill: the helper (\(HelperProtocol.executableName)) must come from the same build as autofill")
            stop(.versionMismatch(problem))
            return false
        }
        // Before the plugin runs, the helper is the only process in its namespaces: find it now.
        let inner = spawned.namespaced ? HelperSpawn.namespacedHelper(of: pid) : nil
        sendLoadIfReady { state in
            state.helloSeen = true
            state.namespacedHelper = inner
        }
        return true
    }
}
