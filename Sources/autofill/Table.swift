/// A plain-text table with columns padded to their widest cell; the last column is not padded.
/// Control characters in cells (a newline in a record id) are shown escaped, one row per line.
struct Table {
    static func printable(_ cell: String) -> String {
        guard cell.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return cell }
        return cell.unicodeScalars.map { scalar in
            switch scalar {
            case "\n": "\\n"
            case "\t": "\\t"
            case "\r": "\\r"
            default: scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }
        }.joined()
    }

    let header: [String]
    let rows: [[String]]

    var lines: [String] {
        guard !rows.isEmpty else { return [] }
        let rows = self.rows.map { $0.map(Self.printable) }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { cells in
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index])
            }.joined(separator: "  ")
        }
    }
}
