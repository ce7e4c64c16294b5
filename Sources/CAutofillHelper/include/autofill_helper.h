/*
 * autofill_helper.h — the libc calls of provider helper processes that Swift cannot make itself.
 *
 * Used by AutofillHost's helper-process transport (Transport/Helper/), on both sides:
 * the host spawns a helper with afh_spawn; the helper, before it loads any plugin code,
 * calls afh_die_with_parent, afh_limit_resources and afh_install_fault_reporter.
 * Every function is thread-safe; none allocates memory the caller must free.
 * Swift cannot call variadic prctl, _GNU_SOURCE-only pipe2, posix_spawn_file_actions_addclosefrom_np
 * or install an async-signal-safe handler, hence this file.
 */
#ifndef AUTOFILL_HELPER_H
#define AUTOFILL_HELPER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The descriptors a helper finds open, besides 0 (/dev/null), 1 and 2 (pipes to the host's log). */
#define AFH_CHANNEL_FD 3 /* the protocol: a stream socket to the host */
#define AFH_FAULT_FD 4   /* a stream socket to the host: the fault reporter's note, the host's answer */

/*
 * Host side. Spawns `path` with `argv` and `envp` (NULL-terminated) with posix_spawn, from one
 * long-lived thread of this process created on first use: PR_SET_PDEATHSIG fires when the
 * *thread* that created the child exits, and a worker thread of the caller's pool may exit at any
 * time. In the child: fd 0 is `in_fd` (/dev/null when -1), 1 and 2 are `out_fd` and `err_fd`, 3 is `channel_fd`,
 * 4 is `fault_fd`; every other descriptor is closed. The caller's descriptors should all be
 * close-on-exec anyway. The child leads a session of its own (no controlling terminal) and so a
 * process group of its own (its pgid is its pid), so afh_kill_group ends it with everything it forked. Returns 0 and sets *pid, or returns an errno value.
 */
int afh_spawn(const char *path, char *const argv[], char *const envp[], int in_fd, int channel_fd, int fault_fd, int out_fd,
              int err_fd, pid_t *pid);

/*
 * Host side: spawns a helper's sandbox holder (bubblewrap running a program that waits in the
 * namespaces it made) like afh_spawn, from the same thread (bubblewrap's --die-with-parent is a
 * PR_SET_PDEATHSIG): fd 0, 1 and 2 are `in_fd`, `out_fd` and `err_fd`, every other descriptor is
 * closed; a session of its own. Returns 0 and sets *pid, or returns an errno value.
 */
int afh_spawn_holder(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd,
                     pid_t *pid);

/*
 * Host side: a descriptor that becomes readable (poll POLLIN) when child `pid` ends, whatever
 * holds its sockets (pidfd_open, Linux 5.3). Close-on-exec. -1 with errno (ENOSYS on older kernels:
 * the caller then polls afh_has_ended).
 */
int afh_pidfd_open(pid_t pid);

/* Host side: 1 when child `pid` has ended (a zombie, not reaped: WNOWAIT), 0 when it still runs, -1
 * with errno. With `wait`, blocks until it has ended. Retries EINTR. */
int afh_has_ended(pid_t pid, int wait);

/* Host side: the address space of process `pid` (the first number of /proc/PID/statm, in bytes), as
 * the kernel counts it; 0 when it cannot be read (the process is gone). */
uint64_t afh_address_space(pid_t pid);

/* Host side: answers a fault note on the host's end of a helper's fault socket (one byte,
 * non-blocking), so the fault reporter lets the helper die. 0, or -1 with errno. */
int afh_answer_fault(int fd);

/* Host side: SIGKILL to every process of process group `group` (a helper's pid, before it is
 * reaped: until then no other group can have that id). 0, or -1 with errno; refuses groups 0 and 1. */
int afh_kill_group(pid_t group);

/* A connected AF_UNIX stream socket pair, both ends close-on-exec. 0, or -1 with errno. */
int afh_socketpair(int fds[2]);

/* A pipe, both ends close-on-exec; fds[0] (the read end) non-blocking if `nonblocking_read`. 0, or -1 with errno. */
int afh_pipe(int fds[2], int nonblocking_read);

/* send(2) with MSG_NOSIGNAL: a write to a dead peer fails with EPIPE instead of killing this process. */
ssize_t afh_send(int fd, const void *bytes, size_t count);

/*
 * Helper side, first thing: SIGKILL this process when the thread that spawned it exits
 * (PR_SET_PDEATHSIG), then check the parent is still `expected_parent` (it may have died before
 * the prctl). 0, or -1 when the parent is gone (the caller exits).
 */
int afh_die_with_parent(pid_t expected_parent);

/* Helper side: no core dumps (RLIMIT_CORE 0) and, if `memory_bytes` > 0, an address-space ceiling
 * (RLIMIT_AS), under which threads are made cheap enough to have hundreds: threads created with
 * default attributes (a plugin's pthread_create(…, NULL, …), Dispatch's workers) get a stack of
 * AFH_THREAD_STACK_BYTES instead of glibc's RLIMIT_STACK (8 MB: some 40 threads filled a 512 MB
 * ceiling, and the next pthread_create failed), and malloc keeps to AFH_MALLOC_ARENAS arenas (each
 * reserves 64 MB of address space). 0, or -1 with errno. */
#define AFH_THREAD_STACK_BYTES (1024 * 1024)
#define AFH_MALLOC_ARENAS 2
int afh_limit_resources(uint64_t memory_bytes);

/* Helper side: on SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE or SIGTRAP, send one byte (a note) on
 * the socket `fault_fd` and wait, 2 s at most, for the host's answer, while the host reads this
 * process's address space itself; then die of the signal as before. The note's content means
 * nothing: the host believes only what it reads from /proc and waitpid. 0, or -1 with errno. */
int afh_install_fault_reporter(int fault_fd);

/* Sets close-on-exec on `fd`. 0, or -1 with errno. */
int afh_set_cloexec(int fd);

/* This process's environment (the C global `environ`, which Swift 6 cannot read safely). */
char **afh_environment(void);

/* "SEGV" for SIGSEGV (sigabbrev_np), or NULL for a number that is no signal. */
const char *afh_signal_name(int signal_number);

/* The width of the terminal open on `fd` in columns (TIOCGWINSZ), 0 when unknown. */
int afh_terminal_columns(int fd);

/* The height of the terminal open on `fd` in rows (TIOCGWINSZ), 0 when unknown. */
int afh_terminal_rows(int fd);

/*
 * Host side: runs one of the user's programs (a clipboard tool, the clipboard's clearer) with
 * posix_spawn, called from any thread (no PR_SET_PDEATHSIG: such a program may outlive this one).
 * In the child: fd 0, 1 and 2 are `in_fd`, `out_fd` and `err_fd`, fd 3 is `extra_fd` when it is not
 * -1; every other descriptor is closed; default signal handling; a session of its own. Returns 0
 * and sets *pid, or returns an errno value. The caller reaps it.
 */
int afh_spawn_program(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd,
                      int extra_fd, pid_t *pid);

/* An anonymous in-memory file (memfd_create, close-on-exec): somewhere a program's error output can
 * go when a process it forks keeps the descriptor open. The descriptor, or -1 with errno. */
int afh_memfd(const char *name);

/* waitpid decoding (the W* macros are not importable): */
int afh_exited(int status);      /* WIFEXITED */
int afh_exit_status(int status); /* WEXITSTATUS */
int afh_signaled(int status);    /* WIFSIGNALED */
int afh_term_signal(int status); /* WTERMSIG */

#endif
