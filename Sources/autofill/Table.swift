import AutofillCore

/// A plain-text table with columns padded to their widest cell; the last column is not padded.
/// Control characters, escape sequences and bidi controls in cells (a newline in a record id) are
/// shown escaped (``DisplayText``), one row per line.
struct Table {
    static func printable(_ cell: String) -> String {
        DisplayText.escaped(cell, keepingNewlines: false)
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
