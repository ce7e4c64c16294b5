// `autofill-browser-host`: the native-messaging host of autofill's WebExtension (docs/BROWSER.md).
// A browser starts it with the caller's identity as arguments and speaks native messaging on its
// standard input and output; it answers only the project's extension, and runs each request as a
// client of the agent (CommandRun), with no authority of its own.
import AutofillWire
internal import AutofillSystem

let arguments = Array(CommandLine.arguments.dropFirst())
guard BrowserExtension.callerIsTheExtension(arguments) else {
    ClientProcess.writeError("""
        autofill-browser-host: answers only autofill's extension (\(BrowserExtension.chromiumOrigin), or \(BrowserExtension.firefoxID) \
        in Firefox); it was started for another caller. Browsers start it for the extension named in its manifest \
        (`autofill browser install`).

        """)
    Processes.exit(77)
}
var host = BrowserHost(environment: ClientProcess.environment())
// The prompt window: the extension connected a port (it marks its requests `"port":true`), so a UI
// request of the command goes to it as `{"type":"ui","request":…}` and the next message is the answer.
host.prompt = { line in
    guard NativeMessaging.write(#"{"type":"ui","request":"# + line + "}"), let reply = try? NativeMessaging.read() else { return nil }
    return PromptAnswer.line(reply)
}
while true {
    let message: String?
    do {
        message = try NativeMessaging.read()
    } catch {
        let reason: String
        switch error {
        case .tooLarge(let length): reason = "a message of \(length) bytes is larger than the 64 MiB a browser may send"
        case .truncated: reason = "the input ended inside a message"
        case .notText: reason = "a message is not UTF-8 text"
        }
        _ = NativeMessaging.write(BrowserHost.encode(.refused(reason)))
        ClientProcess.writeError("autofill-browser-host: \(reason); ending\n")
        Processes.exit(65)
    }
    guard let message else { Processes.exit(0) }
    var answer = host.answer(message, canPrompt: PromptAnswer.fromPort(message))
    if answer.utf8.count > NativeMessaging.maximumOutgoingBytes {
        answer = BrowserHost.encode(.refused("the answer is larger than the 1 MB a browser accepts from a host"))
    }
    guard NativeMessaging.write(answer) else { Processes.exit(0) }
}
