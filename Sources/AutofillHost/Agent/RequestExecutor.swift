internal import Dispatch

/// Runs one agent request's task on a serial queue of its own.
///
/// A command blocks its thread at times: reading the client's terminal, a PAM conversation, SQLite.
/// On the shared cooperative pool (as many threads as cores: two on a small machine) two clients
/// waiting at prompts would stop every other client. A serial queue's thread comes from Dispatch's
/// overcommitting pool, so each request blocks only itself.
final class RequestExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
