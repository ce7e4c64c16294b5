internal import CAutofillSystem

/// The size of a terminal (terminal.c, TIOCGWINSZ).
public enum TerminalSize {
    /// The width in columns of the terminal open on `descriptor`; 0 when unknown.
    public static func columns(_ descriptor: Int32) -> Int { Int(afsys_terminal_columns(descriptor)) }

    /// The height in rows of the terminal open on `descriptor`; 0 when unknown.
    public static func rows(_ descriptor: Int32) -> Int { Int(afsys_terminal_rows(descriptor)) }
}
