/*
 * autofill_agent.h — the libc calls of the autofill agent and its clients that Swift cannot make
 * itself: Unix-socket listening and connecting, the peer's credentials (SO_PEERCRED), descriptors
 * passed with a message (SCM_RIGHTS), an exclusive lock file, and starting the agent detached.
 *
 * Used by AutofillHost's agent (Agent/): the agent listens on a socket in a 0700 folder under
 * $XDG_RUNTIME_DIR/autofill/, accepts only peers of its own uid, and receives with each request the
 * client's standard descriptors and terminal. Every function is thread-safe, retries EINTR, makes
 * every descriptor it creates close-on-exec, and allocates nothing the caller must free.
 * Errors: -1 with errno unless a function says otherwise.
 */
#ifndef AUTOFILL_AGENT_H
#define AUTOFILL_AGENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The most descriptors one message carries. */
#define AFA_MAX_FDS 8

/* A listening stream socket bound to `path` (which must not exist), mode 0600, backlog 128.
 * Returns the descriptor. */
int afa_listen(const char *path);

/* Accepts one connection on `listen_fd`; the new descriptor, or -1 with errno. */
int afa_accept(int listen_fd);

/* A stream socket connected to `path`; the descriptor, or -1 with errno (ENOENT: no socket;
 * ECONNREFUSED: a socket nobody listens on). */
int afa_connect(const char *path);

/* The connected peer's uid and pid, as the kernel recorded them when it connected (SO_PEERCRED). */
int afa_peer_credentials(int fd, uid_t *uid, pid_t *pid);

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
int afa_peer_confinement(int fd, pid_t agent, char *why, size_t why_size);

/* Sets or clears O_NONBLOCK on `fd`. */
int afa_set_nonblocking(int fd, int on);

/* Raises this process's soft limit of open descriptors to `wanted` (or to the hard limit, if lower). */
int afa_raise_descriptor_limit(uint64_t wanted);

/* Sends `count` bytes with `fd_count` descriptors (at most AFA_MAX_FDS) attached to the first byte,
 * then the rest of the bytes; MSG_NOSIGNAL. 0 when everything was sent. */
int afa_send_with_fds(int fd, const void *bytes, size_t count, const int *fds, size_t fd_count);

/* Receives up to `capacity` bytes; descriptors attached to them (at most `max_fds`) go to `fds` and
 * their number to *fd_count (received close-on-exec; any beyond `max_fds` are closed). The byte
 * count, 0 at end of stream. */
ssize_t afa_receive_with_fds(int fd, void *bytes, size_t capacity, int *fds, size_t max_fds, size_t *fd_count);

/* The same without waiting: -1 with EAGAIN when nothing is there yet. */
ssize_t afa_receive_with_fds_now(int fd, void *bytes, size_t capacity, int *fds, size_t max_fds, size_t *fd_count);

/* Waits until `fd` is readable or hung up, or `timeout_ms` passes (-1: forever). 1 readable, 0
 * timed out. */
int afa_wait_readable(int fd, int timeout_ms);

/* Waits until `first` or `second` is readable or hung up (-1 forever). Bit 1: first, bit 2: second;
 * 0 timed out. */
int afa_wait_either(int first, int second, int timeout_ms);

/* Opens (creating, 0600) `path` and takes an exclusive flock on it without waiting. The descriptor
 * (kept open to hold the lock), -2 when another process holds it, or -1 with errno. */
int afa_lock_file(const char *path);

/* Starts `path` with `argv` and `envp` detached: a session of its own, descriptors 0-2 on
 * /dev/null, every other descriptor closed, default signal handling. Returns 0 and sets *pid, or an
 * errno value. The caller does not wait for it: it is reparented when the caller exits. */
int afa_spawn_detached(const char *path, char *const argv[], char *const envp[], pid_t *pid);

/* The agent's own hardening: not dumpable (no ptrace or /proc/PID/mem by the user's other
 * processes) and no core dumps (RLIMIT_CORE 0). */
int afa_harden(void);

/* The inode and device of `path` without following a final symbolic link; 0, or -1 with errno. */
int afa_identity(const char *path, uint64_t *device, uint64_t *inode);

/* This process's environment (the C global `environ`, which Swift 6 cannot read safely). */
char **afa_environment(void);

#endif
