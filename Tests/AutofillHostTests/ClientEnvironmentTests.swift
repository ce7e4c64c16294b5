import AutofillWire
import Testing

/// The small client's environment as its `environ` lists it (ClientEnvironment): read as a
/// dictionary built in order reads it, and sent to the agent so that the agent reads the same
/// dictionary as from the request `run` carries.
struct ClientEnvironmentTests {
    /// Entries as a process may have them: a name twice, an entry without `=`, a value with `=`,
    /// an empty name and an empty value.
    static let entries = ["HOME=/home/a", "PATH=/bin", "NOT A VARIABLE", "HOME=/home/b", "X=a=b", "=odd", "EMPTY="]
    static let variables = ["HOME": "/home/b", "PATH": "/bin", "X": "a=b", "": "odd", "EMPTY": ""]

    @Test func aVariableIsItsLastEntryAndAnEntryWithoutAnEqualsSignIsNone() {
        let environment = ClientEnvironment(entries: Self.entries)
        #expect(environment["HOME"] == "/home/b")
        #expect(environment["X"] == "a=b")
        #expect(environment["EMPTY"] == "")
        #expect(environment["NOT A VARIABLE"] == nil)
        #expect(environment["MISSING"] == nil)
        #expect(environment.variables == Self.variables)
        #expect(environment.variableCount == 6)
    }

    @Test func theAgentReadsTheSameRequestFromTheListAsFromTheDictionary() throws {
        let arguments = ["fill", "https://example.com", "--user", "alice"]
        let frame = AgentProtocol.Message.runFrame(arguments: arguments, environment: ClientEnvironment(entries: Self.entries),
                                                   program: "/opt/autofill/autofill-cli")
        let dictionary = AgentProtocol.Message.run(version: AgentProtocol.version, arguments: arguments, environment: Self.variables,
                                                   program: "/opt/autofill/autofill-cli")
        // Both as the agent reads them: the body after the length prefix.
        let read = try AgentProtocol.Message(body: Array(frame.dropFirst(4)))
        #expect(read == dictionary)
        #expect(try AgentProtocol.Message(body: Array(dictionary.frame.dropFirst(4))) == dictionary)
    }
}
