internal import CAutofillSystem

/// Who is on the other end of the agent's socket (peer.c; docs/AGENT.md, "Who may talk to it").
public enum Peer {
    /// Whether a peer may drive the agent.
    public enum Confinement: Sendable, Equatable {
        /// It may.
        case allowed
        /// It may not: it, or a process above it, runs confined, is named like the provider helper,
        /// or is the agent itself; says which process and why (for the agent's log, never the peer).
        case refused(String)
        /// It cannot be told (refuse it too); says why.
        case unknown(String)
    }

    /// Whether the peer of `socket` may drive the agent whose pid is `agent` (``afsys_peer_confinement``).
    public static func confinement(of socket: Int32, agent: Int32) -> Confinement {
        var why = [CChar](repeating: 0, count: 512)
        let verdict = afsys_peer_confinement(socket, agent, &why, why.count)
        if verdict == 0 { return .allowed }
        let text = why.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return verdict == 1 ? .refused(text) : .unknown(text)
    }
}
