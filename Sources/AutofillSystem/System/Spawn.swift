internal import CAutofillSystem
internal import Glibc

/// Starting processes with posix_spawn (spawn.c): helpers and their sandbox holders from one long-lived
/// thread, the user's programs from any thread, the agent detached. Each returns the child's pid or
/// throws the spawn's errno; the caller reaps the child (except a detached one).
public enum Spawn {
    /// The descriptor a helper finds its protocol socket on.
    public static let channelDescriptor = Int32(AFSYS_CHANNEL_FD)
    /// The descriptor a helper finds its fault socket on (the fault reporter's note, the host's answer).
    public static let faultDescriptor = Int32(AFSYS_FAULT_FD)

    /// A provider helper (`afsys_spawn`): fd 0 `input` (/dev/null when -1), 1 and 2 `output` and
    /// `error`, 3 `channel`, 4 `fault`; a session of its own; killed when the spawning thread ends.
    public static func helper(_ path: String, arguments: [String], environment: [String], input: Int32, channel: Int32,
                              fault: Int32, output: Int32, error: Int32) throws(SystemError) -> Int32 {
        var pid: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in afsys_spawn(path, argv, envp, input, channel, fault, output, error, &pid) }
        }
        guard status == 0 else { throw SystemError("posix_spawn", code: status) }
        return pid
    }

    /// A helper's sandbox holder, bubblewrap (`afsys_spawn_holder`): fd 0, 1 and 2 `input`, `output`
    /// and `error`; from the helpers' thread (bubblewrap's --die-with-parent).
    public static func holder(_ path: String, arguments: [String], environment: [String], input: Int32, output: Int32,
                              error: Int32) throws(SystemError) -> Int32 {
        var pid: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in afsys_spawn_holder(path, argv, envp, input, output, error, &pid) }
        }
        guard status == 0 else { throw SystemError("posix_spawn", code: status) }
        return pid
    }

    /// One of the user's programs (`afsys_spawn_program`), from any thread: fd 0, 1 and 2 `input`,
    /// `output` and `error`, fd 3 `extra` unless -1; it may outlive this process.
    public static func program(_ path: String, arguments: [String], environment: [String], input: Int32, output: Int32,
                               error: Int32, extra: Int32 = -1) throws(SystemError) -> Int32 {
        var pid: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in afsys_spawn_program(path, argv, envp, input, output, error, extra, &pid) }
        }
        guard status == 0 else { throw SystemError("posix_spawn", code: status) }
        return pid
    }

    /// A program started detached (`afsys_spawn_detached`): a session of its own, 0-2 on /dev/null;
    /// the caller does not wait for it.
    public static func detached(_ path: String, arguments: [String], environment: [String]) throws(SystemError) -> Int32 {
        var pid: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in afsys_spawn_detached(path, argv, envp, &pid) }
        }
        guard status == 0 else { throw SystemError("posix_spawn", code: status) }
        return pid
    }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings (an argv or envp), freed after.
package func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
