package import AutofillCore
internal import AutofillWire

/// The protocol between the host and a provider helper process (`autofill-provider-helper`).
///
/// Version 2. One stream socket on the helper's descriptor 3 carries frames both ways:
/// `u32 length` + `u8 tag` + fields (``FrameWriter``). The helper speaks first (`hello`: its
/// protocol and C ABI versions); the host checks both, then sends `load` with its own; the helper
/// checks them, reads and loads the plugin with the in-process loader's checks, reporting each
/// stage (`loading`), and answers `loaded` with the problems found and the entry points offered.
/// Afterwards the host sends `request`s; the helper sends the plugin's host-service calls (`call`,
/// answered by `reply` where the C call returns something; `log` and `malformedCall` are one-way),
/// and `returned` when a UI entry point returned (the host's UI watchdog starts from there).
/// Version 2 added `returned`; version 5 the `addFile` call; version 6 `replaceFile` and its chunks; version 7 `openFile` (its
/// reply `added`, the descriptor attached to it with SCM_RIGHTS when the status is ok).
public enum HelperProtocol {
    /// The version this build speaks; both sides refuse any other.
    public static let version: UInt32 = 7
    /// The largest frame either side accepts (a `store_replace` of many identities is the big one).
    public static let maximumFrameBytes = Wire.maximumFrameBytes
    /// The largest string or byte field (the C ABI's own limit for byte buffers, `AF_MAX_BYTES_LENGTH`).
    static let maximumFieldBytes = Wire.maximumFieldBytes
    /// The most bytes of a file's new contents one `replaceFileChunk` carries (`replace_file` takes up to
    /// `AF_MAX_REPLACE_FILE_LENGTH`, far over one field or frame).
    static let replaceChunkBytes = 8 << 20
    /// The environment variable naming the helper executable, for tests and unusual installs.
    public static let executableEnvironmentKey = Wire.helperExecutableKey
    /// The helper executable's file name, looked for next to the running executable.
    public static let executableName = "autofill-provider-helper"
}

/// How far a helper got loading its plugin, for a message that says where it died or hung.
package enum LoadStage: UInt8, Sendable {
    /// Reading and checking Info.plist (no plugin code has run).
    case readingPlist = 0
    /// `dlopen`: the library's constructors run.
    case openingLibrary = 1
    /// Calling the entry function.
    case callingEntry = 2
    /// Checking the table the entry returned.
    case checkingTable = 3

    /// "while loading its library (its constructors ran)"...
    package func during(_ manifest: PluginManifest) -> String {
        switch self {
        case .readingPlist: "while reading its Info.plist"
        case .openingLibrary: "while its library \(manifest.executable) was being loaded (in its constructors)"
        case .callingEntry: "in its entry function \(manifest.entrySymbol)"
        case .checkingTable: "while its provider table was being checked"
        }
    }
}

/// One host-service call from the plugin, carried from the helper to the host.
package enum HostCall: Sendable, Equatable {
    case setting(String)
    case storeState
    case storeSave([CredentialIdentity])
    case storeRemove([CredentialIdentity])
    case storeReplace([CredentialIdentity])
    case storeRemoveAll
    case complete(request: UInt64, ProviderAnswer)
    case present(request: UInt64, UserInterfaceRequest)
    /// `add_file`: the host writes the file (``FileGrantWriter``).
    case addFile(request: UInt64, folder: String, name: String, contents: [UInt8])
    /// `replace_file`, announced: the file, the digest the change is based on and the contents' length.
    /// Answered `added`: `ok` to send the contents, else why not.
    case replaceFile(request: UInt64, path: String, expectedSHA256: [UInt8], length: UInt64)
    /// The next piece of the announced contents (at most ``HelperProtocol/replaceChunkBytes``), answered
    /// `added`: `ok` for more, and after the last piece, the outcome of the replace (``FileGrantWriter``).
    case replaceFileChunk(request: UInt64, bytes: [UInt8])
    /// `open_file`: answered with `added`, and when ok the descriptor attached to that reply's frame.
    case openFile(path: String)
}

/// The host's answer to a ``HostCall``.
package enum HostReply: Sendable, Equatable {
    /// `setting`: the value, if any.
    case setting(String?)
    /// A store write: nil when it succeeded, else the store error's code.
    case store(IdentityStoreError.Code?)
    /// `storeState`.
    case storeState(Result<IdentityStoreState, StoreFailure>)
    /// `complete`: the `af_status` the C call returns.
    case status(Int32)
    /// `present`: the user's answer or why there was none.
    case userInterface(Result<UserInterfaceAnswer, UserInterfaceError>)
    /// `addFile`, `replaceFile`, `replaceFileChunk`: the `af_status` and the reason when refused or failed.
    case added(Int32, String)

    /// A store error code as an `Error`, for `Result`.
    package struct StoreFailure: Error, Equatable {
        package let code: IdentityStoreError.Code
        package init(code: IdentityStoreError.Code) { self.code = code }
    }
}

/// Every message of the protocol.
package enum HelperMessage: Sendable, Equatable {
    // Helper → host.
    case hello(protocolVersion: UInt32, abiVersion: UInt32)
    case loading(LoadStage)
    case loaded(problems: [PluginProblem], entryPoints: EntryPoints?)
    /// The sandbox is in force (sent once, after `load` and before the plugin's library is read):
    /// the only message the host believes about the sandbox, since the plugin's code is not running yet.
    case sandboxed(SandboxReport)
    case log(ProviderLogLevel, String)
    case malformedCall(service: String, problem: String)
    case call(UInt64, HostCall)
    /// The entry point called for this request returned (sent for UI entry points only).
    case returned(UInt64)
    // Host → helper.
    /// Load the plugin at `bundlePath`, first applying `sandbox` (nil: none, for `unsandboxed`); each
    /// library loaded must have the SHA-256 `pins` gives for its path in the bundle (nil: not compared).
    case load(protocolVersion: UInt32, abiVersion: UInt32, bundlePath: String, sandbox: SandboxPolicy?, pins: [String: String]?)
    case request(UInt64, ProviderRequest)
    case reply(UInt64, HostReply)
}
