/*
 * autofill_system.h — the libc calls of autofill's own code that Swift cannot make itself, one header
 * for the one C target of such shims (prefix afsys_, after CAutofillSystem); one .c per concept:
 *
 *   spawn.c         posix_spawn: a helper from one long-lived thread (PR_SET_PDEATHSIG belongs to the
 *                   thread), one of the user's programs, the agent detached
 *   process.c       waitpid decoding, signal names, pidfds, killing a process group, a process's address
 *                   space, dying with the parent, the helper's resource limits, hardening the agent
 *   fault.c         the helper's async-signal-safe fault reporter and the host's answer
 *   descriptors.c   pipe2 and socketpair close-on-exec, flags, send without SIGPIPE, poll, memfd,
 *                   the descriptor limit
 *   unix_socket.c   listening and connecting on a Unix socket (0600), SO_PEERCRED, SCM_RIGHTS
 *   peer.c          who is on the other end of the agent's socket (its confinement)
 *   files.c         the one-agent lock file (flock), a path's identity
 *   terminal.c      the terminal's size (TIOCGWINSZ), its settings (termios) and the echo of a secret
 *                   prompt restored on a signal
 *
 * Called only by AutofillSystem's Swift layer (Sources/AutofillSystem/System/, one Swift file per .c:
 * Spawn, Processes, FaultReporter, Descriptors, UnixSocket, Peer, Files, and TerminalSize and
 * TerminalSettings for terminal.c), which the helper's side, the host and the agent's clients use.
 * Swift cannot call variadic prctl/fcntl/ioctl, _GNU_SOURCE-only pipe2,
 * posix_spawn_file_actions_addclosefrom_np, the W* macros or CMSG_*, hold a struct termios, or install
 * an async-signal-safe handler, hence this target.
 *
 * Every function is thread-safe (but afsys_terminal_arm: one prompt at a time), retries EINTR where it
 * waits, makes every descriptor it creates close-on-exec, and allocates nothing the caller must free.
 * Errors: -1 with errno unless a function says otherwise. The sandbox's kernel calls (Landlock,
 * seccomp, entering namespaces) are not here but in CAutofillSandbox: they link libseccomp, which only
 * the helper and the host may map.
 */
#ifndef AUTOFILL_SYSTEM_H
#define AUTOFILL_SYSTEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ==== Helper processes (formerly CAutofillHelper) ==== */

/* The descriptors a helper finds open, besides 0 (/dev/null), 1 and 2 (pipes to the host's log). */
#define AFSYS_CHANNEL_FD 3 /* the protocol: a stream socket to the host */
#define AFSYS_FAULT_FD 4   /* a stream socket to the host: the fault reporter's note, the host's answer */

/*
 * Host side. Spawns `path` with `argv` and `envp` (NULL-terminated) with posix_spawn, from one
 * long-lived thread of this process created on first use: PR_SET_PDEATHSIG fires when the
 * *thread* that created the child exits, and a worker thread of the caller's pool may exit at any
 * time. In the child: fd 0 is `in_fd` (/dev/null when -1), 1 and 2 are `out_fd` and `err_fd`, 3 is `channel_fd`,
 * 4 is `fault_fd`; every other descriptor is closed. The caller's descriptors should all be
 * close-on-exec anyway. The child leads a session of its own (no controlling terminal) and so a
 * process group of its own (its pgid is its pid), so afsys_kill_group ends it with everything it forked. Returns 0 and sets *pid, or returns an errno value.
 */
int afsys_spawn(const char *path, char *const argv[], char *const envp[], int in_fd, int channel_fd, int fault_fd, int out_fd,
              int err_fd, pid_t *pid);

/*
 * Host side: spawns a helper's sandbox holder (bubblewrap running a program that waits in the
 * namespaces it made) like afsys_spawn, from the same thread (bubblewrap's --die-with-parent is a
 * PR_SET_PDEATHSIG): fd 0, 1 and 2 are `in_fd`, `out_fd` and `err_fd`, every other descriptor is
 * closed; a session of its own. Returns 0 and sets *pid, or returns an errno value.
 */
int afsys_spawn_holder(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd,
                     pid_t *pid);

/*
 * Host side: a descriptor that becomes readable (poll POLLIN) when child `pid` ends, whatever
 * holds its sockets (pidfd_open, Linux 5.3). Close-on-exec. -1 with errno (ENOSYS on older kernels:
 * the caller then polls afsys_has_ended).
 */
int afsys_pidfd_open(pid_t pid);

/* Host side: 1 when child `pid` has ended (a zombie, not reaped: WNOWAIT), 0 when it still runs, -1
 * with errno. With `wait`, blocks until it has ended. Retries EINTR. */
int afsys_has_ended(pid_t pid, int wait);

/* Host side: the address space of process `pid` (the first number of /proc/PID/statm, in bytes), as
 * the kernel counts it; 0 when it cannot be read (the process is gone). */
uint64_t afsys_address_space(pid_t pid);

/* Host side: answers a fault note on the host's end of a helper's fault socket (one byte,
 * non-blocking), so the fault reporter lets the helper die. 0, or -1 with errno. */
int afsys_answer_fault(int fd);

/* Host side: SIGKILL to every process of process group `group` (a helper's pid, before it is
 * reaped: until then no other group can have that id). 0, or -1 with errno; refuses groups 0 and 1. */
int afsys_kill_group(pid_t group);

/* A connected AF_UNIX stream socket pair, both ends close-on-exec. 0, or -1 with errno. */
int afsys_socketpair(int fds[2]);

/* A pipe, both ends close-on-exec; fds[0] (the read end) non-blocking if `nonblocking_read`. 0, or -1 with errno. */
int afsys_pipe(int fds[2], int nonblocking_read);

/* send(2) with MSG_NOSIGNAL: a write to a dead peer fails with EPIPE instead of killing this process. */
ssize_t afsys_send(int fd, const void *bytes, size_t count);

/*
 * Helper side, first thing: SIGKILL this process when the thread that spawned it exits
 * (PR_SET_PDEATHSIG), then check the parent is still `expected_parent` (it may have died before
 * the prctl). 0, or -1 when the parent is gone (the caller exits).
 */
int afsys_die_with_parent(pid_t expected_parent);

/* Helper side: no core dumps (RLIMIT_CORE 0) and, if `memory_bytes` > 0, an address-space ceiling
 * (RLIMIT_AS), under which threads are made cheap enough to have hundreds: threads created with
 * default attributes (a plugin's pthread_create(…, NULL, …), Dispatch's workers) get a stack of
 * AFSYS_THREAD_STACK_BYTES instead of glibc's RLIMIT_STACK (8 MB: some 40 threads filled a 512 MB
 * ceiling, and the next pthread_create failed), and malloc keeps to AFSYS_MALLOC_ARENAS arenas (each
 * reserves 64 MB of address space). 0, or -1 with errno. */
#define AFSYS_THREAD_STACK_BYTES (1024 * 1024)
#define AFSYS_MALLOC_ARENAS 2
int afsys_limit_resources(uint64_t memory_bytes);

/* Helper side: on SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE or SIGTRAP, send one byte (a note) on
 * the socket `fault_fd` and wait, 2 s at most, for the host's answer, while the host reads this
 * process's address space itself; then die of the signal as before. The note's content means
 * nothing: the host believes only what it reads from /proc and waitpid. 0, or -1 with errno. */
int afsys_install_fault_reporter(int fault_fd);

/* Sets close-on-exec on `fd`. 0, or -1 with errno. */
int afsys_set_cloexec(int fd);

/* This process's environment (the C global `environ`, which Swift 6 cannot read safely). */
char **afsys_environment(void);

/* "SEGV" for SIGSEGV (sigabbrev_np), or NULL for a number that is no signal. */
const char *afsys_signal_name(int signal_number);

/* The width of the terminal open on `fd` in columns (TIOCGWINSZ), 0 when unknown. */
int afsys_terminal_columns(int fd);

/* The height of the terminal open on `fd` in rows (TIOCGWINSZ), 0 when unknown. */
int afsys_terminal_rows(int fd);

/* A terminal's settings (a struct termios, which Swift can hold only through this target), as
 * afsys_terminal_get read them. */
#define AFSYS_TERMINAL_SETTINGS_SIZE 128
typedef struct {
    _Alignas(8) unsigned char bytes[AFSYS_TERMINAL_SETTINGS_SIZE];
} afsys_terminal_settings;

/* Reads the settings of the terminal open on `fd` (tcgetattr); ENOTTY when it is no terminal. */
int afsys_terminal_get(int fd, afsys_terminal_settings *settings);

/* Applies `settings` to the terminal open on `fd` once what was typed is discarded (tcsetattr
 * TCSAFLUSH), retrying EINTR. */
int afsys_terminal_set(int fd, const afsys_terminal_settings *settings);

/* Whether `settings` echo typed characters (ECHO). */
int afsys_terminal_echoes(const afsys_terminal_settings *settings);

/* Clears ECHO in `settings`; sets ECHONL (the Enter still shows as a new line) when `echo_newline`. */
void afsys_terminal_without_echo(afsys_terminal_settings *settings, int echo_newline);

/*
 * While a secret is typed with echo off: SIGINT and SIGTERM (and SIGHUP when `with_hangup`) restore
 * `settings` on `fd` (writing "\n" there first when `write_newline`) and _exit(128 + the signal), from
 * an async-signal-safe handler. One prompt at a time per process: call from the thread that prompts,
 * never in the agent (whose signals are its own). The handlers stay installed after
 * afsys_terminal_disarm (they then only _exit) unless it is asked to restore the defaults. 0, or -1
 * with errno when sigaction failed.
 */
int afsys_terminal_arm(int fd, const afsys_terminal_settings *settings, int write_newline, int with_hangup);

/* Ends afsys_terminal_arm's restoring; with `restore_defaults`, the signals it handled get SIG_DFL again. */
void afsys_terminal_disarm(int restore_defaults);

/*
 * Host side: runs one of the user's programs (a clipboard tool, the clipboard's clearer) with
 * posix_spawn, called from any thread (no PR_SET_PDEATHSIG: such a program may outlive this one).
 * In the child: fd 0, 1 and 2 are `in_fd`, `out_fd` and `err_fd`, fd 3 is `extra_fd` when it is not
 * -1; every other descriptor is closed; default signal handling; a session of its own. Returns 0
 * and sets *pid, or returns an errno value. The caller reaps it.
 */
int afsys_spawn_program(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd,
                      int extra_fd, pid_t *pid);

/* An anonymous in-memory file (memfd_create, close-on-exec): somewhere a program's error output can
 * go when a process it forks keeps the descriptor open. The descriptor, or -1 with errno. */
int afsys_memfd(const char *name);

/* waitpid decoding (the W* macros are not importable): */
int afsys_exited(int status);      /* WIFEXITED */
int afsys_exit_status(int status); /* WEXITSTATUS */
int afsys_signaled(int status);    /* WIFSIGNALED */
int afsys_term_signal(int status); /* WTERMSIG */

/* ==== The agent and its clients: sockets, descriptors, the lock file (formerly CAutofillAgent) ==== */

/* The most descriptors one message carries. */
#define AFSYS_MAX_FDS 8

/* A listening stream socket bound to `path` (which must not exist), mode 0600, backlog 128.
 * Returns the descriptor. */
int afsys_listen(const char *path);

/* Accepts one connection on `listen_fd`; the new descriptor, or -1 with errno. */
int afsys_accept(int listen_fd);

/* A stream socket connected to `path`; the descriptor, or -1 with errno (ENOENT: no socket;
 * ECONNREFUSED: a socket nobody listens on). */
int afsys_connect(const char *path);

/* The connected peer's uid and pid, as the kernel recorded them when it connected (SO_PEERCRED). */
int afsys_peer_credentials(int fd, uid_t *uid, pid_t *pid);

/* Why the peer of `fd` may not drive the agent whose pid is `agent` (docs/AGENT.md, "Who may talk
 * to it"): the peer, or any process above it up to pid 1, runs confined (NoNewPrivs 1 and a
 * seccomp filter, Seccomp 2: every provider helper and everything it starts), is named like the
 * provider helper ("autofill-provid", the kernel's 15 characters of autofill-provider-helper), or
 * is the agent itself (the peer descends from it). Each process is held by a pidfd (the peer's from
 * SO_PEERPIDFD, else pidfd_open of SO_PEERCRED's pid) while its /proc/PID/status is read, and is
 * checked to be alive afterwards, so a pid recycled meanwhile cannot answer for it; a parent is
 * taken only when its child still names it afterwards. 0: it may (nothing written); 1: it may not;
 * -1: it cannot be told (refuse it too). For 1 and -1, `why` says which process and why (for the
 * agent's own log, never for the peer). */
int afsys_peer_confinement(int fd, pid_t agent, char *why, size_t why_size);

/* Sets or clears O_NONBLOCK on `fd`. */
int afsys_set_nonblocking(int fd, int on);

/* Raises this process's soft limit of open descriptors to `wanted` (or to the hard limit, if lower). */
int afsys_raise_descriptor_limit(uint64_t wanted);

/* Sends `count` bytes with `fd_count` descriptors (at most AFSYS_MAX_FDS) attached to the first byte,
 * then the rest of the bytes; MSG_NOSIGNAL. 0 when everything was sent. */
int afsys_send_with_fds(int fd, const void *bytes, size_t count, const int *fds, size_t fd_count);

/* Receives up to `capacity` bytes; descriptors attached to them (at most `max_fds`) go to `fds` and
 * their number to *fd_count (received close-on-exec; any beyond `max_fds` are closed). The byte
 * count, 0 at end of stream. */
ssize_t afsys_receive_with_fds(int fd, void *bytes, size_t capacity, int *fds, size_t max_fds, size_t *fd_count);

/* The same without waiting: -1 with EAGAIN when nothing is there yet. */
ssize_t afsys_receive_with_fds_now(int fd, void *bytes, size_t capacity, int *fds, size_t max_fds, size_t *fd_count);

/* Waits until `fd` is readable or hung up, or `timeout_ms` passes (-1: forever). 1 readable, 0
 * timed out. */
int afsys_wait_readable(int fd, int timeout_ms);

/* Waits until `first` or `second` is readable or hung up (-1 forever). Bit 1: first, bit 2: second;
 * 0 timed out. */
int afsys_wait_either(int first, int second, int timeout_ms);

/* Opens (creating, 0600) `path` and takes an exclusive flock on it without waiting. The descriptor
 * (kept open to hold the lock), -2 when another process holds it, or -1 with errno. */
int afsys_lock_file(const char *path);

/* Starts `path` with `argv` and `envp` detached: a session of its own, descriptors 0-2 on
 * /dev/null, every other descriptor closed, default signal handling. Returns 0 and sets *pid, or an
 * errno value. The caller does not wait for it: it is reparented when the caller exits. */
int afsys_spawn_detached(const char *path, char *const argv[], char *const envp[], pid_t *pid);

/* The agent's own hardening: not dumpable (no ptrace or /proc/PID/mem by the user's other
 * processes) and no core dumps (RLIMIT_CORE 0). */
int afsys_harden(void);

/* The inode and device of `path` without following a final symbolic link; 0, or -1 with errno. */
int afsys_identity(const char *path, uint64_t *device, uint64_t *inode);


#endif
