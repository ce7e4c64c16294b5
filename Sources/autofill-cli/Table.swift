import AutofillCore
import AutofillHost

/// A plain-text table with columns padded to their widest cell; the last column is not padded.
/// Control characters, escape sequences and bidi controls in cells (a newline in a record id) are
/// shown escaped (``DisplayText``), one row per line.
///
/// At a terminal (the client's stdout) the table fits its width: the widest columns are narrowed
/// and their longer cells cut with "…". Anywhere else (a pipe, a file) every cell is whole, so
/// scripts read the same text as ever.
struct Table {
    static func printable(_ cell: String) -> String {
        DisplayText.escaped(cell, keepingNewlines: false)
    }

    /// The narrowest a column is made to fit the terminal.
    static let narrowest = 6

    let header: [String]
    let rows: [[String]]
    /// The width to fit (nil: none); by default the terminal's that stdout is, less `margin`.
    let width: Int?

    init(header: [String], rows: [[String]], margin: Int = 0) {
        self.header = header
        self.rows = rows
        width = ClientContext.current.console.terminalSize(.output).map { $0.columns - margin }
    }

    init(header: [String], rows: [[String]], width: Int?) {
        self.header = header
        self.rows = rows
        self.width = width
    }

    var lines: [String] {
        guard !rows.isEmpty else { return [] }
        let rows = self.rows.map { $0.map(Self.printable) }
        var widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        if let width { Self.narrow(&widths, to: width) }
        return ([header] + rows).map { cells in
            cells.enumerated().map { index, cell in
                let fitted = cell.count > widths[index] ? String(cell.prefix(max(widths[index] - 1, 0))) + "…" : cell
                return index == cells.count - 1 ? fitted : fitted.padding(toLength: widths[index])
            }.joined(separator: "  ")
        }
    }

    /// Narrows the widest columns, one character at a time, until the row fits `width` (two spaces
    /// between columns) or every column is ``narrowest``.
    static func narrow(_ widths: inout [Int], to width: Int) {
        var total = widths.reduce(0, +) + 2 * (widths.count - 1)
        while total > width, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > narrowest {
            widths[widest] -= 1
            total -= 1
        }
    }
}
