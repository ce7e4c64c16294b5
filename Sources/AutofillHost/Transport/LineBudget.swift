/// How many lines one provider may put in the host's log: the first ``maximumLines`` are kept, the
/// rest counted, so a chatty or hostile provider can neither flood the user's terminal nor the log.
///
/// Used for both ways a provider writes lines: `af_host_services.log` (``ProviderSession``) and,
/// in a helper process, what the plugin prints to stdout and stderr (``HelperOutputLog``). The
/// owner reports the count of dropped lines once, with ``takeDropped()``, when a request ends or
/// the helper does.
struct LineBudget {
    /// Lines kept per provider session or helper, as docs/WRITING_A_PROVIDER.md says.
    static let maximumLines = 1000

    private var kept = 0
    private var dropped = 0

    /// Counts one line; false when it is over the budget and must be dropped.
    mutating func admit() -> Bool {
        guard kept < Self.maximumLines else {
            dropped += 1
            return false
        }
        kept += 1
        return true
    }

    /// How many lines were dropped since the last call; resets the count.
    mutating func takeDropped() -> Int {
        defer { dropped = 0 }
        return dropped
    }

    /// The line that reports `count` dropped lines of `what` ("log lines", "lines of its output").
    static func droppedMessage(_ count: Int, _ what: String) -> String {
        "\(count) more \(what) of the provider were dropped (it wrote over \(maximumLines))"
    }
}
