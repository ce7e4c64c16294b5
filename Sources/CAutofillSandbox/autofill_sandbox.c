/* autofill_sandbox.c — Landlock, grants opened without following links, and entering the sandbox
 * (afs_apply: Landlock, then seccomp_filter.c's allowlist); see include/autofill_sandbox.h and
 * docs/SANDBOX.md. */
#define _GNU_SOURCE
#include "autofill_sandbox.h"
#include "sandbox_private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- Landlock: what Debian's older <linux/landlock.h> lacks (values from the kernel's UAPI) ---- */

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#define AFS_LANDLOCK_RULE_NET_PORT 2 /* LANDLOCK_RULE_NET_PORT */

/* The ruleset attribute as of ABI 6 (the kernel reads only the size it is given). */
struct afs_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct afs_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

#define AFS_FS_ABI1                                                                                            \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |              \
     LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |           \
     LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |               \
     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |            \
     LANDLOCK_ACCESS_FS_MAKE_SYM)

/* Rights that apply to a file (not a folder): the kernel refuses others on a file rule. */
#define AFS_FS_FILE_RIGHTS                                                                                     \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |              \
     LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

static uint64_t handled_fs(int abi) {
    uint64_t rights = AFS_FS_ABI1;
    if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return rights;
}

/* What an AFS_* access grants, before masking by the ABI and by file-or-folder. Device ioctls are
 * never granted: a provider has no business with a device's controls (terminals above all). */
static uint64_t rights_for(uint32_t access) {
    uint64_t rights = 0;
    if (access & AFS_READ) rights |= LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    if (access & AFS_WRITE)
        rights |= LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                  LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_DIR |
                  LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER;
    if (access & AFS_EXECUTE) rights |= LANDLOCK_ACCESS_FS_EXECUTE;
    return rights;
}

int afs_landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

int afs_landlock_abi_supported(void) { return 7; }

int afs_fail(char *error, size_t capacity, const char *format, ...) {
    if (error && capacity) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(error, capacity, format, arguments);
        va_end(arguments);
    }
    return -1;
}

/* The number of threads of this process (entries of /proc/self/task), or -1. */
static int thread_count(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)))
        if (entry->d_name[0] != '.') count++;
    closedir(tasks);
    return count;
}

/* ---- Grants: opened without following links ---- */

int afs_open_grant(const char *path) {
    if (!path || path[0] != '/') {
        errno = EINVAL;
        return -1;
    }
    struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    if (fd >= 0 || errno != ENOSYS) return (int)fd;
    /* No openat2 (a kernel before 5.6, or a filter that hides it): one component at a time, O_NOFOLLOW. */
    int current = open("/", O_PATH | O_CLOEXEC | O_DIRECTORY);
    if (current < 0) return -1;
    const char *cursor = path;
    while (*cursor) {
        while (*cursor == '/') cursor++;
        if (!*cursor) break;
        const char *end = strchr(cursor, '/');
        size_t length = end ? (size_t)(end - cursor) : strlen(cursor);
        char name[256];
        if (length >= sizeof name) {
            close(current);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(name, cursor, length);
        name[length] = 0;
        if (strcmp(name, "..") == 0) {
            close(current);
            errno = EINVAL;
            return -1;
        }
        int next = openat(current, name, O_PATH | O_CLOEXEC | O_NOFOLLOW);
        int code = errno;
        close(current);
        if (next < 0) {
            errno = code;
            return -1;
        }
        struct stat info;
        if (fstat(next, &info) == 0 && S_ISLNK(info.st_mode)) {
            close(next);
            errno = ELOOP;
            return -1;
        }
        current = next;
        cursor += length;
    }
    return current;
}

int afs_open_beneath(int folder, const char *name, int flags, unsigned mode) {
    if (!name || !*name || name[0] == '/' || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        errno = EINVAL;
        return -1;
    }
    struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW), .mode = (flags & O_CREAT) ? mode : 0,
                           .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    long fd = syscall(SYS_openat2, folder, name, &how, sizeof how);
    if (fd >= 0 || errno != ENOSYS) return (int)fd;
    /* No openat2: one plain component (checked above) opened with O_NOFOLLOW is the same walk. */
    return openat(folder, name, flags | O_CLOEXEC | O_NOFOLLOW, mode);
}

static int apply_landlock(const afs_policy *policy, int abi, afs_report *report, char *error, size_t capacity) {
    struct afs_ruleset_attr attr = {0};
    size_t attr_size = sizeof(uint64_t);
    attr.handled_access_fs = handled_fs(abi);
    if (abi >= 4) {
        attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
        attr_size = 2 * sizeof(uint64_t);
    }
    if (abi >= 6) {
        attr.scoped = LANDLOCK_SCOPE_SIGNAL;
        if (!(policy->flags & AFS_ALLOW_ABSTRACT_UNIX)) attr.scoped |= LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
        attr_size = 3 * sizeof(uint64_t);
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
    if (ruleset < 0) return afs_fail(error, capacity, "Landlock refused the ruleset (%s)", strerror(errno));

    for (size_t index = 0; index < policy->rule_count; index++) {
        const afs_rule *rule = &policy->rules[index];
        /* Never through a link: the host resolved every path; a link found now was swapped in since. */
        int fd = afs_open_grant(rule->path);
        if (fd < 0) {
            if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EXDEV) {
                report->skipped_rules++;
                continue;
            }
            int code = errno;
            close(ruleset);
            return afs_fail(error, capacity, "%s cannot be opened for its sandbox rule (%s)", rule->path, strerror(code));
        }
        struct stat info;
        if (fstat(fd, &info) != 0) {
            int code = errno;
            close(fd);
            close(ruleset);
            return afs_fail(error, capacity, "%s cannot be checked for its sandbox rule (%s)", rule->path, strerror(code));
        }
        uint64_t rights = rights_for(rule->access) & attr.handled_access_fs;
        if (!S_ISDIR(info.st_mode)) rights &= AFS_FS_FILE_RIGHTS;
        if (rights == 0) {
            close(fd);
            continue;
        }
        struct landlock_path_beneath_attr beneath = {.allowed_access = rights, .parent_fd = fd};
        long added = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
        int code = errno;
        close(fd);
        if (added != 0) {
            close(ruleset);
            return afs_fail(error, capacity, "Landlock refused the rule for %s (%s)", rule->path, strerror(code));
        }
    }
    if (abi >= 4 && (policy->flags & AFS_ALLOW_INET)) {
        for (size_t index = 0; index < policy->tcp_port_count; index++) {
            struct afs_net_port_attr port = {.allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP, .port = policy->tcp_ports[index]};
            if (syscall(SYS_landlock_add_rule, ruleset, AFS_LANDLOCK_RULE_NET_PORT, &port, 0) != 0) {
                int code = errno;
                close(ruleset);
                return afs_fail(error, capacity, "Landlock refused the rule for TCP port %u (%s)", (unsigned)policy->tcp_ports[index],
                            strerror(code));
            }
        }
    }
    long restricted = syscall(SYS_landlock_restrict_self, ruleset, 0);
    int code = errno;
    close(ruleset);
    if (restricted != 0) return afs_fail(error, capacity, "Landlock could not restrict the helper (%s)", strerror(code));
    report->landlock_abi = abi;
    return 0;
}

int afs_apply(const afs_policy *policy, int require_landlock, afs_report *report, char *error, size_t error_capacity) {
    if (!policy || !report) return afs_fail(error, error_capacity, "no policy");
    memset(report, 0, sizeof *report);
    int threads = thread_count();
    if (threads != 1)
        return afs_fail(error, error_capacity,
                    "the helper has %d threads; the sandbox must be entered while it has one (a Landlock domain "
                    "binds only the thread that enters it on this kernel)",
                    threads);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return afs_fail(error, error_capacity, "PR_SET_NO_NEW_PRIVS failed (%s)", strerror(errno));
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        return afs_fail(error, error_capacity, "PR_SET_DUMPABLE failed (%s)", strerror(errno));
    int abi = afs_landlock_abi();
    if (abi > afs_landlock_abi_supported()) abi = afs_landlock_abi_supported();
    if (abi <= 0) {
        if (require_landlock) return afs_fail(error, error_capacity, "this kernel has no Landlock");
    } else if (apply_landlock(policy, abi, report, error, error_capacity) != 0) {
        return -1;
    }
    return afs_apply_seccomp(policy, report, error, error_capacity);
}

int afs_harden_host(int no_new_privs) {
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return -1;
    if (no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return 0;
}
