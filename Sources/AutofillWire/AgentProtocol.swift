internal import AutofillSystem

/// The protocol between `autofill` and its agent (docs/AGENT.md): the helper protocol's framing
/// (``FrameWriter``: `u32 length` + `u8 tag` + fields, the same limits), with tags of its own so
/// neither side can mistake one protocol for the other.
///
/// One request per connection. The client sends `run` with its standard input, output and error
/// and, when it has one, its controlling terminal attached (SCM_RIGHTS); the agent runs the command
/// line as `autofill` itself would, writing to those descriptors and asking on that terminal, and
/// answers `exit` with the status. `runHere` tells the client to run the command itself (the agent
/// does not run it for this client); `busy` that the agent serves as many requests as it may. The
/// client sends nothing else: its closing the connection cancels the request.
package enum AgentProtocol {
    /// The version this build speaks; the agent answers any other with `runHere`.
    /// 2: `run` names the program the client would run itself. 3: `run` carries the client's whole
    /// environment; `busy`.
    package static let version: UInt32 = 3
    /// The environment variable that turns the agent off (`off`) for a command.
    package static let switchEnvironmentKey = "AUTOFILL_AGENT"
    /// The largest request the agent reads (the kernel bounds a command line and environment to a
    /// few megabytes; a request is both, plus a little).
    package static let maximumRequestBytes = 4 << 20
    /// How long the agent waits for a whole request after a client connects.
    package static let requestDeadline: Duration = .seconds(5)

    /// The variables an agent a client starts runs with: the ones autofill reads. Nothing else of the
    /// client's environment (which may hold other programs' tokens) stays in the agent for its life;
    /// each request brings its own (``Message/run(version:arguments:environment:program:)``).
    package static func startEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.filter { key, _ in
            startKeys.contains(key) || key.hasPrefix("AUTOFILL_") || key.hasPrefix("XDG_") || key.hasPrefix("LC_")
        }
    }

    package static let startKeys: Set<String> = [
        "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR", "COLUMNS", "LINES", "LD_DEBUG", "LD_DEBUG_OUTPUT",
        "DBUS_SYSTEM_BUS_ADDRESS", "DBUS_SESSION_BUS_ADDRESS",
        "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",  // where `--clip` copies to
    ]

    /// Every message.
    package enum Message: Equatable {
        /// Client → agent: run `arguments` (without the program name; file options made absolute) for
        /// a client whose environment is `environment` (all of it: a provider's declared variables,
        /// such as pass's `GNUPGHOME`, come from the request) and which would
        /// otherwise run `program` (its `autofill-cli`, symbolic links resolved): an agent that is not
        /// that program (another installation, another build) has the client run it itself.
        case run(version: UInt32, arguments: [String], environment: [String: String], program: String)
        /// Agent → client: the command ended with `status`.
        case exit(status: Int32)
        /// Agent → client: run the command in your own process, because `reason`.
        case runHere(reason: String)
        /// Agent → client: the agent serves as many requests as it may; try again (`reason` says so).
        case busy(reason: String)

        private enum Tag: UInt8 {
            case run = 0xA1, exit = 0xA2, runHere = 0xA3, busy = 0xA4
        }

        package var frame: [UInt8] {
            switch self {
            case .run(let version, let arguments, let environment, let program):
                let sorted = environment.sorted { $0.key < $1.key }
                return Self.runFrame(version: version, program: program, arguments: arguments, variableCount: sorted.count) { write in
                    for (key, value) in sorted { write(key[...], value[...]) }
                }
            case .exit(let status):
                var writer = FrameWriter(tag: Tag.exit.rawValue)
                writer.i32(status)
                return writer.frame
            case .runHere(let reason):
                var writer = FrameWriter(tag: Tag.runHere.rawValue)
                writer.string(reason)
                return writer.frame
            case .busy(let reason):
                var writer = FrameWriter(tag: Tag.busy.rawValue)
                writer.string(reason)
                return writer.frame
            }
        }

        /// The frame of ``run(version:arguments:environment:program:)`` whose environment is
        /// `variableCount` variables, which `variables` writes with the function it is given, in order.
        static func runFrame(version: UInt32, program: String, arguments: [String], variableCount: Int,
                             variables: ((Substring, Substring) -> Void) -> Void) -> [UInt8] {
            var writer = FrameWriter(tag: Tag.run.rawValue)
            writer.u32(version)
            writer.string(program)
            writer.array(arguments) { $0.string($1) }
            writer.u32(UInt32(variableCount))
            variables { key, value in
                writer.string(key)
                writer.string(value)
            }
            return writer.frame
        }

        /// The frame of ``run(version:arguments:environment:program:)`` (this build's version) of a
        /// client whose environment is `environment`, its variables in their order: the agent reads
        /// them into the same dictionary as ``run``'s (of two of one name, the later), and the client
        /// builds none (``ClientEnvironment``).
        package static func runFrame(arguments: [String], environment: ClientEnvironment, program: String) -> [UInt8] {
            runFrame(version: AgentProtocol.version, program: program, arguments: arguments, variableCount: environment.variableCount) { write in
                environment.forEachVariable(write)
            }
        }

        package init(body: [UInt8]) throws(FrameError) {
            var reader = FrameReader(body: body)
            switch Tag(rawValue: try reader.u8("tag")) {
            case .run:
                let version = try reader.u32("version")
                guard version == AgentProtocol.version else {
                    // Another version's fields may differ: the agent answers it with `runHere`.
                    self = .run(version: version, arguments: [], environment: [:], program: "")
                    return
                }
                let program = try reader.string("program")
                let arguments = try reader.array("arguments", minimumElementSize: 4) { reader throws(FrameError) in try reader.string("argument") }
                var environment: [String: String] = [:]
                for (key, value) in try reader.array("environment", minimumElementSize: 8, { reader throws(FrameError) in
                    (try reader.string("variable"), try reader.string("value"))
                }) {
                    environment[key] = value
                }
                self = .run(version: version, arguments: arguments, environment: environment, program: program)
            case .exit:
                self = .exit(status: try reader.i32("status"))
            case .runHere:
                self = .runHere(reason: try reader.string("reason"))
            case .busy:
                self = .busy(reason: try reader.string("reason"))
            case nil:
                throw FrameError("not a message of the agent protocol")
            }
            try reader.finish("the agent message")
        }
    }
}

extension AgentProtocol.Message {
    /// Reads one whole message from `socket`, collecting descriptors passed with it (each received
    /// close-on-exec); nil at end of stream before any byte.
    package static func receive(from socket: Int32, descriptors: inout [Int32]) throws(FrameError) -> Self? {
        var assembler = FrameAssembler()
        // Not zeroed: only the bytes a read wrote are used (zeroing 64 KiB was a tenth of the small
        // client's own time, docs/PERFORMANCE.md, Run R).
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
        defer { buffer.deallocate() }
        var received = false
        while true {
            let count: Int
            do throws(SystemError) {
                count = try UnixSocket.receive(socket, into: buffer, descriptors: &descriptors)
            } catch {
                throw FrameError("cannot read the agent socket (\(error.reason))")
            }
            if count == 0 {
                if received { throw FrameError("the connection ended in the middle of a message") }
                return nil
            }
            received = true
            assembler.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            if let body = try assembler.next() {
                guard !assembler.isMidFrame else { throw FrameError("bytes after the message") }
                return try Self(body: body)
            }
        }
    }

    /// Sends this message on `socket` with `descriptors` attached; false when the peer is gone.
    package func send(on socket: Int32, descriptors: [Int32] = []) -> Bool {
        Self.send(frame, on: socket, descriptors: descriptors)
    }

    /// Sends `frame` on `socket` with `descriptors` attached; false when the peer is gone.
    package static func send(_ frame: [UInt8], on socket: Int32, descriptors: [Int32] = []) -> Bool {
        frame.withUnsafeBytes { raw in (try? UnixSocket.send(socket, raw, descriptors: descriptors)) != nil }
    }
}
