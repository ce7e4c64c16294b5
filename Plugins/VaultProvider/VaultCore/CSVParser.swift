/// A CSV parser for RFC 4180: comma-separated fields, records ending in CRLF or LF, fields in double
/// quotes holding commas, newlines and doubled quotes (`""`).
///
/// A malformed record (text after a closing quote, a quote never closed) becomes a problem for its
/// row; the others are still read. Problems never quote field contents: a field may be a password.
enum CSVParser {
    /// One record: its row number (the header is row 1, as in a spreadsheet), the line it starts on
    /// (blank lines and quoted line breaks count) and its fields.
    struct Record: Hashable, Sendable {
        var row: Int
        var line: Int
        var fields: [String]
    }

    /// A record that could not be read.
    struct Problem: Hashable, Sendable {
        var row: Int
        var message: String
    }

    /// The records of `text` (a leading byte-order mark is ignored; blank lines are skipped).
    static func parse(_ text: String) -> (records: [Record], problems: [Problem]) {
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        var records: [Record] = []
        var problems: [Problem] = []
        var index = 0
        var row = 0
        var line = 1, lineCountedTo = 0
        while index < scalars.count {
            row += 1
            line += lineBreaks(in: scalars[lineCountedTo..<index])
            lineCountedTo = index
            var fields: [String] = []
            var field = String.UnicodeScalarView()
            var problem: String?
            var endOfRecord = false
            var atFieldStart = true
            while index < scalars.count && !endOfRecord {
                let scalar = scalars[index]
                if atFieldStart && scalar == "\"" {
                    // A quoted field: up to the closing quote; "" is a quote.
                    index += 1
                    var closed = false
                    while index < scalars.count {
                        if scalars[index] == "\"" {
                            if index + 1 < scalars.count && scalars[index + 1] == "\"" {
                                field.append("\"")
                                index += 2
                                continue
                            }
                            index += 1
                            closed = true
                            break
                        }
                        field.append(scalars[index])
                        index += 1
                    }
                    if !closed {
                        problem = "a quoted field is never closed (a \" is missing); the rest of the file was read as this field"
                        break
                    }
                    atFieldStart = false
                    if index < scalars.count && !["," as Unicode.Scalar, "\r", "\n"].contains(scalars[index]) {
                        problem = "text follows a closing quote in field \(fields.count + 1); write a quote inside a quoted field as \"\""
                        while index < scalars.count && scalars[index] != "\n" { index += 1 }
                        index += 1
                        endOfRecord = true
                    }
                    continue
                }
                switch scalar {
                case ",":
                    fields.append(String(field))
                    field = String.UnicodeScalarView()
                    atFieldStart = true
                    index += 1
                case "\r" where index + 1 < scalars.count && scalars[index + 1] == "\n":
                    index += 2
                    endOfRecord = true
                case "\n", "\r":
                    index += 1
                    endOfRecord = true
                default:
                    field.append(scalar)
                    atFieldStart = false
                    index += 1
                }
            }
            fields.append(String(field))
            if let problem {
                problems.append(Problem(row: row, message: problem))
            } else if fields.count == 1 && fields[0].isEmpty {
                row -= 1  // a blank line is not a row
            } else {
                records.append(Record(row: row, line: line, fields: fields))
            }
        }
        return (records, problems)
    }

    /// The line breaks in `scalars`: LF, CRLF and a lone CR each count once.
    static func lineBreaks(in scalars: ArraySlice<Unicode.Scalar>) -> Int {
        var count = 0
        var previous: Unicode.Scalar?
        for scalar in scalars {
            if scalar == "\r" || (scalar == "\n" && previous != "\r") { count += 1 }
            previous = scalar
        }
        return count
    }
}
