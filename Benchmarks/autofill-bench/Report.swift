internal import Foundation

/// The benchmark's findings: machine, data, and one measurement per figure with its aim and peers.
struct BenchmarkReport: Codable {
    struct Figure: Codable {
        var name: String
        var value: Double
        var unit: String
    }

    struct Peer: Codable {
        var name: String
        var what: String
        var figure: Figure
        /// The measurement's headline figure divided by the peer's (same statistic).
        var ratio: Double
    }

    struct Measurement: Codable {
        var id: String
        var title: String
        var samples: Int
        var figures: [Figure]
        /// The figure the aim is checked against.
        var aimFigure: String?
        var aim: Double?
        var aimText: String?
        var aimMet: Bool?
        var peers: [Peer]
        var notes: [String]

        var headline: Figure? { figures.first { $0.name == aimFigure } ?? figures.first }
    }

    var machine: MachineInfo
    var parameters: [String: Int]
    var data: [String: Double]
    var measurements: [Measurement]
    /// Supporting figures that explain the headline ones (milliseconds, kilobytes, counts).
    var breakdown: [String: Double]
    var warnings: [String]

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The readable form: a table of figures, aims, peers and ratios, then the details.
    func text() -> String {
        var lines: [String] = []
        lines.append("autofill-bench: \(machine.cpu), \(machine.cores) cores, \(machine.memoryMegabytes) MB; \(machine.system), Linux \(machine.kernel)")
        lines.append("  stores on \(machine.filesystem); SQLite library \(machine.sqliteLibrary), sqlite3 tool \(machine.sqliteTool ?? "absent"); build: \(machine.build)")
        lines.append(String(format: "  other programs used %.2f of the %d cores on average during the run (hypervisor steal %.2f)", machine.otherLoadCores, machine.cores, machine.stealCores))
        lines.append("  data: \(Self.count(data["identities"])) identities (\(Self.count(data["identitiesPerProvider"])) per provider × \(Self.count(data["providers"]))), \(Self.count(data["sites"])) sites (\(Self.count(data["hotSites"])) hot, \(Self.count(data["idnSites"])) IDN, \(Self.count(data["exactOnlySites"])) IP/localhost); \(Self.count(data["passwords"])) passwords, \(Self.count(data["passkeys"])) passkeys, \(Self.count(data["oneTimeCodes"])) one-time codes")
        let storeSizes = data.filter { $0.key.hasPrefix("storeBytes.") }.map(\.value)
        if !storeSizes.isEmpty {
            lines.append("  stores: " + storeSizes.sorted().map { Self.format($0 / 1024, "kB") }.joined(separator: ", ") + " (database + WAL, each)")
        }
        lines.append("")
        var rows: [[String]] = [["#", "Measurement", "Figure", "Aim", "Met", "Peer (same run)", "Peer figure", "Ratio"]]
        for (number, measurement) in measurements.enumerated() {
            let figures = measurement.figures.map { "\($0.name) \(Self.format($0.value, $0.unit))" }
            let met = measurement.aimMet.map { $0 ? "yes" : "NO" } ?? "-"
            let firstPeer = measurement.peers.first
            let lineCount = max(figures.count, measurement.peers.count, 1)
            for line in 0..<lineCount {
                let peer = line < measurement.peers.count ? measurement.peers[line] : nil
                rows.append([
                    line == 0 ? "\(number + 1)" : "",
                    line == 0 ? "\(measurement.title) (n=\(measurement.samples))" : "",
                    line < figures.count ? figures[line] : "",
                    line == 0 ? (measurement.aimText ?? "-") : "",
                    line == 0 ? met : "",
                    peer?.name ?? (line == 0 && firstPeer == nil ? "-" : ""),
                    peer.map { "\($0.figure.name) \(Self.format($0.figure.value, $0.figure.unit))" } ?? "",
                    peer.map { Self.ratio($0.ratio) } ?? "",
                ])
            }
        }
        lines += Self.table(rows)
        lines.append("")
        lines.append("Ratio = the measurement's \"figure\" ÷ the peer's same statistic (e.g. 1/250 = 250 times faster than the peer).")
        for (number, measurement) in measurements.enumerated() where !measurement.notes.isEmpty || !measurement.peers.isEmpty {
            lines.append("")
            lines.append("\(number + 1). \(measurement.title)")
            for peer in measurement.peers { lines.append("   peer \(peer.name): \(peer.what)") }
            for note in measurement.notes { lines.append("   \(note)") }
        }
        if !warnings.isEmpty {
            lines.append("")
            lines += warnings.map { "WARNING: \($0)" }
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double, _ unit: String) -> String {
        guard value.isFinite else { return "n/a" }
        switch unit {
        case "ms":
            let size = abs(value)
            if size >= 1000 { return String(format: "%.2f s", value / 1000) }
            if size >= 10 { return String(format: "%.1f ms", value) }
            if size >= 0.1 { return String(format: "%.2f ms", value) }
            return String(format: "%.1f µs", value * 1000)
        case "kB": return String(format: "%.1f MB", value / 1024)
        default: return String(format: "%g %@", value, unit)
        }
    }

    static func ratio(_ value: Double) -> String {
        guard value.isFinite, value > 0 else { return "n/a" }
        if value >= 1 { return String(format: "%.2f×", value) }
        let inverse = 1 / value
        return inverse >= 10 ? String(format: "1/%.0f", inverse) : String(format: "1/%.2f", inverse)
    }

    static func count(_ value: Double?) -> String {
        guard let value else { return "?" }
        let digits = String(Int(value))
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return result
    }

    static func table(_ rows: [[String]]) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.enumerated().flatMap { index, row -> [String] in
            let line = row.enumerated().map { column, cell in cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
            return index == 0 ? [line, String(repeating: "-", count: widths.reduce(0, +) + 2 * (columns - 1))] : [line]
        }
    }
}
