internal import AutofillSystem

/// The desktop's clipboard, through the user's own tools: `wl-copy`/`wl-paste` on Wayland, else
/// `xclip` or `xsel` on X11 (what `pass -c` uses).
///
/// A secret reaches a tool through a pipe on its standard input only: never in its arguments or
/// environment (which other processes of the user can read in /proc), never in a file. The tools run
/// with the client's display variables (``environment(from:)``), in a session of their own, so the
/// one that keeps serving the clipboard outlives the command and its terminal.
public struct Clipboard: Sendable {
    /// A clipboard tool.
    public enum Tool: String, Sendable, CaseIterable {
        case wlCopy = "wl-copy", xclip, xsel

        /// Copies standard input to the clipboard.
        var copy: [String] {
            switch self {
            case .wlCopy: ["wl-copy"]
            case .xclip: ["xclip", "-selection", "clipboard", "-in"]
            case .xsel: ["xsel", "--clipboard", "--input"]
            }
        }

        /// Prints the clipboard's contents as they are.
        var paste: [String] {
            switch self {
            case .wlCopy: ["wl-paste", "--no-newline"]
            case .xclip: ["xclip", "-selection", "clipboard", "-out"]
            case .xsel: ["xsel", "--clipboard", "--output"]
            }
        }

        /// Empties the clipboard (xclip has no such option: it copies nothing).
        var clear: [String]? {
            switch self {
            case .wlCopy: ["wl-copy", "--clear"]
            case .xclip: nil
            case .xsel: ["xsel", "--clipboard", "--clear"]
            }
        }
    }

    /// The tool this clipboard uses.
    public let tool: Tool
    /// The environment the tools run with.
    let environment: [String: String]

    /// The variables the clipboard tools get from the client: where the display is, and nothing else
    /// of its environment.
    static let passedVariables: Set<String> = [
        "PATH", "HOME", "USER", "LOGNAME", "LANG", "DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR",
    ]

    /// `environment` reduced to what the clipboard tools need.
    static func environment(from environment: [String: String]) -> [String: String] {
        environment.filter { passedVariables.contains($0.key) || $0.key.hasPrefix("LC_") }
    }

    /// The clipboard of the session `environment` describes: `wl-copy` when `WAYLAND_DISPLAY` is set
    /// and it is on `PATH`, else `xclip`, else `xsel` when `DISPLAY` is set. An ``AutofillError``
    /// (`providerUnavailable`, exit 69) naming what to install, or that there is no display, otherwise.
    public static func find(environment: [String: String]) throws(AutofillError) -> Clipboard {
        let environment = Self.environment(from: environment)
        let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        let x11 = !(environment["DISPLAY"] ?? "").isEmpty
        var candidates: [Tool] = []
        if wayland { candidates.append(.wlCopy) }
        if x11 { candidates += [.xclip, .xsel] }
        for tool in candidates where [tool.copy[0], tool.paste[0]].allSatisfy({ Self.executable($0, environment: environment) != nil }) {
            return Clipboard(tool: tool, environment: environment)
        }
        let reason: String
        switch (wayland, x11) {
        case (false, false):
            reason = "there is no display to copy to (neither WAYLAND_DISPLAY nor DISPLAY is set): --clip works in a desktop session; without it the secret is printed"
        case (true, false):
            reason = "no clipboard tool for Wayland: install wl-clipboard (wl-copy and wl-paste) on PATH"
        case (false, true):
            reason = "no clipboard tool for X11: install xclip or xsel on PATH"
        case (true, true):
            reason = "no clipboard tool: install wl-clipboard (wl-copy and wl-paste) for Wayland, or xclip or xsel for X11, on PATH"
        }
        throw AutofillError(.providerUnavailable, "cannot copy to the clipboard: \(reason)")
    }

    /// The absolute path of `name` on `environment`'s PATH, or nil.
    static func executable(_ name: String, environment: [String: String]) -> String? {
        for folder in (environment["PATH"] ?? "").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = "\(folder)/\(name)"
            if Paths.isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    /// Puts `secret` on the clipboard (the tool keeps serving it in the background).
    public func copy(_ secret: [UInt8]) throws(AutofillError) {
        let outcome = run(tool.copy, input: secret)
        guard outcome.status == 0 else {
            throw AutofillError(.providerUnavailable, "cannot copy to the clipboard: \(tool.rawValue) failed\(outcome.reason)")
        }
    }

    /// The clipboard's contents now, or nil when they cannot be read (no owner, no display).
    func contents() -> [UInt8]? {
        let outcome = run(tool.paste, input: nil, captureOutput: true)
        return outcome.status == 0 ? outcome.output : nil
    }

    /// Empties the clipboard.
    func clear() {
        if let clear = tool.clear {
            _ = run(clear, input: nil)
        } else {
            _ = run(tool.copy, input: [])
        }
    }

    /// How a tool ended: its status (-1 when it could not run), what it printed, and why it failed.
    struct Outcome {
        var status: Int32
        var output: [UInt8]
        var reason: String
    }

    /// Runs `arguments` (the first found on PATH) with `input` on its standard input (nil: /dev/null);
    /// its output is read when `captureOutput`, its error output kept in memory for the reason. A tool
    /// that takes over 10 s is killed.
    func run(_ arguments: [String], input: [UInt8]?, captureOutput: Bool = false) -> Outcome {
        guard let path = Self.executable(arguments[0], environment: environment) else {
            return Outcome(status: -1, output: [], reason: " (\(arguments[0]) is not on PATH)")
        }
        let process = ToolProcess(path: path, arguments: arguments, environment: environment, input: input, captureOutput: captureOutput)
        return process.wait()
    }
}
