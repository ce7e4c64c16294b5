/* peer.c — who the peer of a socket is: its confinement (see include/autofill_system.h). */
#define _GNU_SOURCE
#include "autofill_system.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* MARK: Who the peer is */

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* The helper's executable name as the kernel keeps it (TASK_COMM_LEN - 1 characters). */
static const char helper_name[] = "autofill-provid";
/* How far above the peer the walk goes before it gives up (and refuses). */
enum { max_depth = 128 };

typedef struct {
    char name[64];
    pid_t parent;
    int no_new_privs;
    int seccomp;
} process_status;

static int pidfd_open_now(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/* Whether the process `pidfd` holds has not been reaped (so its pid still names it). */
static int still_alive(int pidfd) { return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0; }

static int read_status(pid_t pid, process_status *status) {
    char path[64], text[8192];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t length = 0;
    for (;;) {
        ssize_t count = read(fd, text + length, sizeof(text) - 1 - length);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        length += (size_t)count;
        if (length == sizeof(text) - 1) break;
    }
    close(fd);
    text[length] = 0;
    memset(status, 0, sizeof(*status));
    status->parent = -1;
    status->seccomp = -1;
    int found = 0;
    for (char *line = text; line != NULL && *line; ) {
        char *end = strchr(line, '\n');
        if (end) *end = 0;
        if (strncmp(line, "Name:\t", 6) == 0) {
            snprintf(status->name, sizeof(status->name), "%s", line + 6);
            found |= 1;
        } else if (strncmp(line, "PPid:\t", 6) == 0) {
            status->parent = (pid_t)strtol(line + 6, NULL, 10);
            found |= 2;
        } else if (strncmp(line, "NoNewPrivs:\t", 12) == 0) {
            status->no_new_privs = (int)strtol(line + 12, NULL, 10);
            found |= 4;
        } else if (strncmp(line, "Seccomp:\t", 9) == 0) {
            status->seccomp = (int)strtol(line + 9, NULL, 10);
            found |= 8;
        }
        line = end ? end + 1 : NULL;
    }
    if (found != 15) {
        errno = EPROTO;
        return -1;
    }
    return 0;
}

/* The peer's pidfd and pid: SO_PEERPIDFD (Linux 6.5) holds the very process that connected, whose
 * pid SO_PEERCRED recorded (it names that process for as long as the pidfd says it lives); older
 * kernels get pidfd_open of SO_PEERCRED's pid, which a recycled pid could fool only if the peer
 * ended between connecting and this call. */
static int peer_pidfd(int fd, pid_t *pid) {
    uid_t uid;
    if (afsys_peer_credentials(fd, &uid, pid) != 0) return -1;
    int pidfd = -1;
    socklen_t length = sizeof(pidfd);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &length) == 0 && pidfd >= 0) {
        fcntl(pidfd, F_SETFD, FD_CLOEXEC);
        return pidfd;
    }
    return pidfd_open_now(*pid);
}

/* Verdicts by process: a pidfd's inode on pidfs (Linux 6.9) is unique to its process for the
 * system's life, so a client opening many connections is walked once, and a new client's walk stops
 * at the first process above it already judged (its shell, its terminal). A verdict holds for the
 * process's life: confinement and a helper above are never shed, and reparenting moves a process
 * only to a process above it already walked (a subreaper, or pid 1). A process that confines itself
 * later is no helper, and what it starts afterwards is judged on its own status first. */
#define PIDFS_MAGIC_NUMBER 0x50494446
enum { cache_size = 1024 };
static struct {
    uint64_t inode;
    int verdict;
    char why[160];
} verdict_cache[cache_size];
static size_t cache_next;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t process_identity(int pidfd) {
    struct statfs filesystem;
    struct stat status;
    if (fstatfs(pidfd, &filesystem) != 0 || filesystem.f_type != PIDFS_MAGIC_NUMBER || fstat(pidfd, &status) != 0) return 0;
    return (uint64_t)status.st_ino;
}

/* The verdict kept for `identity` (its reason to `why`), or -1. */
static int cached_verdict(uint64_t identity, char *why, size_t why_size) {
    if (identity == 0) return -1;
    int verdict = -1;
    pthread_mutex_lock(&cache_lock);
    for (size_t index = 0; index < cache_size; index++) {
        if (verdict_cache[index].inode != identity) continue;
        verdict = verdict_cache[index].verdict;
        snprintf(why, why_size, "%s", verdict_cache[index].why);
        break;
    }
    pthread_mutex_unlock(&cache_lock);
    return verdict;
}

static void keep_verdict(const uint64_t *identities, size_t count, int verdict, const char *why) {
    pthread_mutex_lock(&cache_lock);
    for (size_t index = 0; index < count; index++) {
        if (identities[index] == 0) continue;
        verdict_cache[cache_next].inode = identities[index];
        verdict_cache[cache_next].verdict = verdict;
        snprintf(verdict_cache[cache_next].why, sizeof(verdict_cache[cache_next].why), "%s", why);
        cache_next = (cache_next + 1) % cache_size;
    }
    pthread_mutex_unlock(&cache_lock);
}

int afsys_peer_confinement(int fd, pid_t agent, char *why, size_t why_size) {
    if (why_size > 0) why[0] = 0;
    pid_t pid = 0;
    int pidfd = peer_pidfd(fd, &pid);
    if (pidfd < 0) {
        snprintf(why, why_size, "the peer's process cannot be held (%s)", strerror(errno));
        return -1;
    }
    uint64_t visited[max_depth];
    size_t count = 0;
    int verdict = -1, retries = 0;
    for (int depth = 0; depth < max_depth; depth++) {
        const char *whose = depth == 0 ? "the peer" : "a process above the peer";
        uint64_t identity = process_identity(pidfd);
        char kept[160];
        int known = cached_verdict(identity, kept, sizeof(kept));
        if (known >= 0) {
            if (known == 1) snprintf(why, why_size, "%s, pid %d, was judged before: %s", whose, (int)pid, kept);
            verdict = known;
            break;
        }
        visited[count++] = identity;
        if (pid == agent) {
            snprintf(why, why_size, "%s, pid %d, is the agent itself (the peer is one of its helpers or runs under one)", whose, (int)pid);
            verdict = 1;
            break;
        }
        process_status status;
        if (read_status(pid, &status) != 0 || !still_alive(pidfd)) {
            snprintf(why, why_size, "%s, pid %d, ended while it was checked", whose, (int)pid);
            break;
        }
        if (status.no_new_privs == 1 && status.seccomp == 2) {
            snprintf(why, why_size, "%s, pid %d (%s), runs confined (no_new_privs and a seccomp filter, as every provider helper and what it starts)",
                     whose, (int)pid, status.name);
            verdict = 1;
            break;
        }
        if (strncmp(status.name, helper_name, sizeof(helper_name) - 1) == 0) {
            snprintf(why, why_size, "%s, pid %d, is named %s, as the provider helper is", whose, (int)pid, status.name);
            verdict = 1;
            break;
        }
        if (pid == 1 || status.parent <= 0) {
            verdict = 0;
            break;
        }
        int parentfd = pidfd_open_now(status.parent);
        process_status again;
        int same = parentfd >= 0 && read_status(pid, &again) == 0 && again.parent == status.parent && still_alive(pidfd);
        if (!same) {
            /* The parent ended meanwhile (the child was reparented): look again, a few times. */
            if (parentfd >= 0) close(parentfd);
            count--;
            if (++retries > 8) {
                snprintf(why, why_size, "the parents above pid %d keep changing", (int)pid);
                break;
            }
            depth--;
            continue;
        }
        close(pidfd);
        pidfd = parentfd;
        pid = status.parent;
    }
    if (verdict == -1 && why[0] == 0) snprintf(why, why_size, "over %d processes above the peer", max_depth);
    close(pidfd);
    if (verdict >= 0) keep_verdict(visited, count, verdict, why);
    return verdict;
}
