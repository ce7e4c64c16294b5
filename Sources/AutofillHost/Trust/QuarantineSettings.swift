/// The `Quarantine` dictionary of the host configuration: how many faults in how long quarantine a provider.
public struct QuarantineSettings: Codable, Equatable, Sendable {
    /// Faults (crashes, deadline kills, resource-limit kills) that quarantine a provider when they all
    /// fall within the window.
    public static let defaultFaultCount = 3
    /// The window, in minutes.
    public static let defaultWindowMinutes = 10.0

    /// `FaultCount`: default 3; 1 quarantines on the first fault.
    public var faultCount: Int?
    /// `WindowMinutes`: default 10.
    public var windowMinutes: Double?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case faultCount = "FaultCount"
        case windowMinutes = "WindowMinutes"
    }

    /// Creates settings; nil takes the default.
    public init(faultCount: Int? = nil, windowMinutes: Double? = nil) {
        self.faultCount = faultCount
        self.windowMinutes = windowMinutes
    }

    /// The policy these settings describe, defaults filled in.
    public var policy: QuarantinePolicy {
        QuarantinePolicy(
            faultCount: faultCount ?? Self.defaultFaultCount,
            windowSeconds: (windowMinutes ?? Self.defaultWindowMinutes) * 60)
    }

    /// Problems that make the settings unusable, as sentences naming the key.
    public func problems() -> [String] {
        var problems: [String] = []
        if let faultCount, !(1...1000).contains(faultCount) {
            problems.append("Quarantine.FaultCount is \(faultCount); give a number of faults from 1 to 1000")
        }
        if let windowMinutes, !(windowMinutes > 0 && windowMinutes <= 7 * 24 * 60) {
            problems.append("Quarantine.WindowMinutes is \(windowMinutes); give a number of minutes above 0 and at most 10080 (a week)")
        }
        return problems
    }
}

/// When faults quarantine a provider: `faultCount` of them within `windowSeconds`.
public struct QuarantinePolicy: Equatable, Sendable {
    /// How many faults.
    public var faultCount: Int
    /// Within how many seconds.
    public var windowSeconds: Double

    /// Creates a policy.
    public init(faultCount: Int = QuarantineSettings.defaultFaultCount, windowSeconds: Double = QuarantineSettings.defaultWindowMinutes * 60) {
        self.faultCount = faultCount
        self.windowSeconds = windowSeconds
    }

    /// "10 minutes", "90 seconds", "1.5 minutes".
    public var windowDescription: String {
        let minutes = windowSeconds / 60
        if minutes >= 1 {
            let text = minutes == minutes.rounded() ? String(Int(minutes)) : String(minutes)
            return "\(text) minute\(minutes == 1 ? "" : "s")"
        }
        let seconds = windowSeconds == windowSeconds.rounded() ? String(Int(windowSeconds)) : String(windowSeconds)
        return "\(seconds) second\(windowSeconds == 1 ? "" : "s")"
    }
}
