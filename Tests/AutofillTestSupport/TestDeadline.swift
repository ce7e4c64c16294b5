/// How long the tests let a real provider take to answer a request that is expected to be answered.
///
/// Generous on purpose: on a loaded 2-core machine (CI shares its machine) a gpg decryption, a
/// D-Bus round trip or an Argon2 unlock can take seconds, and a deadline that passes turns a correct
/// answer into a failed test. Tests of the deadline itself use a provider that never answers and a
/// short deadline of their own.
public enum TestDeadline {
    /// A request a test expects a real provider to answer.
    public static let answer: Duration = .seconds(60)
}
