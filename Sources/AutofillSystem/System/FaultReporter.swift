internal import CAutofillSystem

/// The helper's fault reporter and the host's answer (fault.c). The reporter itself is C: it runs in a
/// signal handler, where only async-signal-safe calls may be made.
public enum FaultReporter {
    /// Helper side: on a fatal signal, send a note on `descriptor` and wait (2 s at most) for the host's
    /// answer before dying of the signal.
    public static func install(on descriptor: Int32) throws(SystemError) {
        guard afsys_install_fault_reporter(descriptor) == 0 else { throw .current("sigaction") }
    }

    /// Host side: answers a fault note on the host's end of a helper's fault socket, so the helper may die.
    public static func answer(on descriptor: Int32) throws(SystemError) {
        guard afsys_answer_fault(descriptor) == 0 else { throw .current("write") }
    }
}
