internal import AutofillWire
internal import AutofillABI
internal import AutofillCore
internal import AutofillSystem
internal import CAutofillSandbox
internal import Dispatch
internal import Synchronization

/// The helper process's side: what `autofill-provider-helper` runs. Not for use in the host.
///
/// In order, before any plugin code runs: die with the host (`PR_SET_PDEATHSIG`, then check the
/// parent is still the one that spawned it), no core dumps and the memory ceiling, close-on-exec
/// on the protocol descriptors, the fault reporter. Then `hello`, the host's `load`, the plugin
/// loaded by ``PluginLoader`` with every in-process check, and requests until the host closes
/// the socket. Entry points run one at a time on the provider's serial queue, as in-process; the
/// main thread only reads frames, so a plugin blocked in a host call never blocks the replies.
public enum ProviderHelper {
    /// Exit statuses of the helper itself (the host reports them if they ever happen).
    enum ExitStatus {
        static let usage: Int32 = 64
        static let parentGone: Int32 = 69
        static let protocolError: Int32 = 76
        static let setupFailed: Int32 = 71
    }

    /// Runs the helper with its command line (`--parent PID --memory-limit BYTES [--namespaces-of PID]`) and never returns.
    public static func main(arguments: [String]) -> Never {
        var parent: Int32 = 0, memoryLimit: UInt64 = 0, bubblewrap: Int32?
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--parent": parent = rest.popFirst().flatMap { Int32($0) } ?? 0
            case "--memory-limit": memoryLimit = rest.popFirst().flatMap { UInt64($0) } ?? 0
            case "--namespaces-of": bubblewrap = rest.popFirst().flatMap { Int32($0) } ?? 0
            default: fail(ExitStatus.usage, "unknown argument \(argument)")
            }
        }
        guard parent > 0 else {
            fail(ExitStatus.usage, "\(HelperProtocol.executableName) is started by autofill, not by hand (it needs --parent PID and its descriptors)")
        }
        guard Processes.dieWithParent(parent) else { Processes.exit(ExitStatus.parentGone) }
        if let bubblewrap {
            // Executed outside bubblewrap's namespaces, so that the kernel keeps asking the initial user
            // namespace who may ptrace it (NamespaceHolder): enter them now, while single-threaded,
            // and serve from a child in the pid namespace; this process waits for it.
            var error = [CChar](repeating: 0, count: 256)
            guard bubblewrap > 0, afs_join_namespaces(bubblewrap, &error, error.count) == 0 else {
                fail(ExitStatus.setupFailed, "cannot enter the sandbox's namespaces: \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
            }
            guard afs_fork_into_namespaces() == 0 else { fail(ExitStatus.setupFailed, "fork failed") }
        }
        guard (try? Processes.limitResources(memoryBytes: memoryLimit)) != nil else { fail(ExitStatus.setupFailed, "setrlimit failed") }
        guard (try? Descriptors.setCloseOnExec(Spawn.channelDescriptor)) != nil, (try? Descriptors.setCloseOnExec(Spawn.faultDescriptor)) != nil else {
            fail(ExitStatus.setupFailed, "descriptors 3 and 4 are not open")
        }
        guard (try? FaultReporter.install(on: Spawn.faultDescriptor)) != nil else { fail(ExitStatus.setupFailed, "sigaction failed") }
        let channel = FrameChannel(descriptor: Spawn.channelDescriptor)
        _ = try? channel.send(.hello(protocolVersion: HelperProtocol.version, abiVersion: providerABIVersion))
        // Until the sandbox is in force this process stays single-threaded (a Landlock domain binds
        // only the thread that enters it on this kernel): the host's `load` is read here, on the main
        // thread, before anything starts a thread (the provider's queue, the host-service forwarding).
        var assembler = FrameAssembler()
        let (bundlePath, sandbox, pins) = awaitLoad(&assembler)
        if let sandbox {
            switch SandboxEntry.enter(sandbox) {
            case .success(let report):
                _ = try? channel.send(.sandboxed(report))
            case .failure(let failure):
                let problem = PluginProblem(
                    .loadFailed, file: bundlePath, message: "autofill could not sandbox the provider: \(failure.message)",
                    fix: "nothing of the provider ran; see docs/SANDBOX.md, or report this to autofill's authors")
                _ = try? channel.send(.loaded(problems: [problem], entryPoints: nil))
                waitForHostToClose(&assembler)
            }
        }
        Serving(channel: channel).run(loading: bundlePath, pins: pins, assembler: assembler)
    }

    /// Reads frames on this thread until the host's `load`: its bundle path and sandbox. Anything else
    /// first, or another version, is a protocol error; the host closing the channel ends the helper.
    private static func awaitLoad(_ assembler: inout FrameAssembler) -> (String, SandboxPolicy?, [String: String]?) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            do {
                if let body = try assembler.next() {
                    guard case .load(let version, let abi, let bundlePath, let sandbox, let pins) = try HelperMessage(body: body),
                        version == HelperProtocol.version, abi == providerABIVersion
                    else { Processes.exitNow(ExitStatus.protocolError) }
                    return (bundlePath, sandbox, pins)
                }
            } catch {
                Processes.exitNow(ExitStatus.protocolError)
            }
            let count = readSome(Spawn.channelDescriptor, into: buffer)
            guard count > 0 else { Processes.exitNow(0) }  // the host went away before it needed this helper
            assembler.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// After a failure reported in `loaded`: waits until the host closes the channel, then exits.
    private static func waitForHostToClose(_ assembler: inout FrameAssembler) -> Never {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
        while readSome(Spawn.channelDescriptor, into: buffer) > 0 {}
        Processes.exitNow(0)
    }

    private static func fail(_ status: Int32, _ message: String) -> Never {
        let line = Array("\(HelperProtocol.executableName): \(message)\n".utf8)
        try? Descriptors.write(2, line)
        Processes.exit(status)
    }

    /// The helper's state while it serves one plugin.
    private final class Serving: Sendable {
        let channel: FrameChannel
        let services: ForwardingHostServices
        let queue = DispatchQueue(label: "autofill.helper.provider")
        let bound = Mutex<PluginLoader.BoundProvider?>(nil)

        init(channel: FrameChannel) {
            self.channel = channel
            self.services = ForwardingHostServices(channel: channel)
        }

        /// Loads the plugin at `bundlePath` (the host's `load`, already read) and serves until the host
        /// closes the channel; `assembler` holds whatever the host sent after `load`.
        func run(loading bundlePath: String, pins: [String: String]?, assembler: consuming FrameAssembler) -> Never {
            queue.async { self.load(bundlePath, pins: pins) }
            var assembler = assembler
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
            while true {
                // Descriptors come only with the host's replies to open_file, in the order of those replies.
                var descriptors: [Int32] = [], count = -1
                while true {
                    do throws(SystemError) {
                        count = try UnixSocket.receive(Spawn.channelDescriptor, into: buffer, descriptors: &descriptors)
                    } catch {
                        if error.interrupted { continue }
                    }
                    break
                }
                services.received(descriptors)
                guard count > 0 else { break }  // the host closed the channel, or died
                assembler.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                do {
                    while let body = try assembler.next() { try handle(try HelperMessage(body: body)) }
                } catch {
                    services.abandonAll()
                    Processes.exitNow(ExitStatus.protocolError)
                }
            }
            services.abandonAll()
            // _exit: the plugin's atexit handlers and destructors are not the host's business.
            Processes.exitNow(0)
        }

        private func send(_ message: HelperMessage) {
            _ = try? channel.send(message)
        }

        private func handle(_ message: HelperMessage) throws(FrameError) {
            switch message {
            case .load:
                throw FrameError("a second load")
            case .request(let id, let request):
                queue.async { self.call(request, id: id) }
            case .reply(let id, let reply):
                guard services.deliver(reply, to: id) else { throw FrameError("a reply to no call") }
            case .hello, .loading, .loaded, .sandboxed, .log, .malformedCall, .call, .returned:
                throw FrameError("a helper message from the host")
            }
        }

        private func load(_ bundlePath: String, pins: [String: String]?) {
            let (problems, bound) = PluginLoader.checkAndBind(bundle: bundlePath, handler: services, pins: pins) { stage in
                self.send(.loading(stage))
            }
            self.bound.withLock { $0 = bound }
            send(.loaded(problems: problems, entryPoints: bound?.table.entryPoints))
        }

        private func call(_ request: ProviderRequest, id: UInt64) {
            guard let bound = bound.withLock({ $0 }), bound.table.entryPoints.contains(request.entryPoint) else {
                // The host checks entry points before sending; this answers a request for one the table lacks.
                _ = services.complete(request: id, with: .error(ExtensionError(
                    .failed, failureReason: "the provider does not implement \(request.entryPoint.appleName)")))
                return
            }
            bound.table.call(request, id: id)
            // The host's UI watchdog starts once a UI entry point returned (no-UI requests have a deadline).
            if request.entryPoint.allowsUserInterface { send(.returned(id)) }
        }
    }
}
