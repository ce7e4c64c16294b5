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
#define AFH_FAULT_FD 4   /* write end of a pipe: one afh_fault_record when a fatal signal arrives */

/* What the fault reporter writes before the helper dies of a fatal signal. */
typedef struct afh_fault_record {
    uint32_t magic;         /* AFH_FAULT_MAGIC */
    int32_t signal;         /* the fatal signal */
    int32_t saved_errno;    /* the faulting thread's errno (for diagnostics: glibc may leave a stale ENOMEM) */
    uint32_t reserved;
    uint64_t address_space; /* the helper's virtual memory size at the time, in bytes */
} afh_fault_record;

#define AFH_FAULT_MAGIC 0x41464846u /* "AFHF" */

_Static_assert(sizeof(afh_fault_record) == 24, "afh_fault_record is part of the host-helper contract");

/*
 * Host side. Spawns `path` with `argv` and `envp` (NULL-terminated) with posix_spawn, from one
 * long-lived thread of this process created on first use: PR_SET_PDEATHSIG fires when the
 * *thread* that created the child exits, and a worker thread of the caller's pool may exit at any
 * time. In the child: fd 0 is /dev/null, 1 and 2 are `out_fd` and `err_fd`, 3 is `channel_fd`,
 * 4 is `fault_fd`; every other descriptor is closed. The caller's descriptors should all be
 * close-on-exec anyway. Returns 0 and sets *pid, or returns an errno value.
 */
int afh_spawn(const char *path, char *const argv[], char *const envp[], int channel_fd, int fault_fd, int out_fd,
              int err_fd, pid_t *pid);

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
 * (RLIMIT_AS). 0, or -1 with errno. */
int afh_limit_resources(uint64_t memory_bytes);

/* Helper side: on SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE or SIGTRAP, write one afh_fault_record to
 * `fault_fd` (async-signal-safe) and die of the signal as before. 0, or -1 with errno. */
int afh_install_fault_reporter(int fault_fd);

/* Sets close-on-exec on `fd`. 0, or -1 with errno. */
int afh_set_cloexec(int fd);

/* This process's environment (the C global `environ`, which Swift 6 cannot read safely). */
char **afh_environment(void);

/* "SEGV" for SIGSEGV (sigabbrev_np), or NULL for a number that is no signal. */
const char *afh_signal_name(int signal_number);

/* waitpid decoding (the W* macros are not importable): */
int afh_exited(int status);      /* WIFEXITED */
int afh_exit_status(int status); /* WEXITSTATUS */
int afh_signaled(int status);    /* WIFSIGNALED */
int afh_term_signal(int status); /* WTERMSIG */

#endif
