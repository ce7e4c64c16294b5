/* autofill_sandbox.c — see include/autofill_sandbox.h and docs/SANDBOX.md. */
#define _GNU_SOURCE
#include "autofill_sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
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

static int fail(char *error, size_t capacity, const char *format, ...) {
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
    if (ruleset < 0) return fail(error, capacity, "Landlock refused the ruleset (%s)", strerror(errno));

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
            return fail(error, capacity, "%s cannot be opened for its sandbox rule (%s)", rule->path, strerror(code));
        }
        struct stat info;
        if (fstat(fd, &info) != 0) {
            int code = errno;
            close(fd);
            close(ruleset);
            return fail(error, capacity, "%s cannot be checked for its sandbox rule (%s)", rule->path, strerror(code));
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
            return fail(error, capacity, "Landlock refused the rule for %s (%s)", rule->path, strerror(code));
        }
    }
    if (abi >= 4 && (policy->flags & AFS_ALLOW_INET)) {
        for (size_t index = 0; index < policy->tcp_port_count; index++) {
            struct afs_net_port_attr port = {.allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP, .port = policy->tcp_ports[index]};
            if (syscall(SYS_landlock_add_rule, ruleset, AFS_LANDLOCK_RULE_NET_PORT, &port, 0) != 0) {
                int code = errno;
                close(ruleset);
                return fail(error, capacity, "Landlock refused the rule for TCP port %u (%s)", (unsigned)policy->tcp_ports[index],
                            strerror(code));
            }
        }
    }
    long restricted = syscall(SYS_landlock_restrict_self, ruleset, 0);
    int code = errno;
    close(ruleset);
    if (restricted != 0) return fail(error, capacity, "Landlock could not restrict the helper (%s)", strerror(code));
    report->landlock_abi = abi;
    return 0;
}

/* ---- seccomp: an allowlist ----
 *
 * Every system call is denied unless listed here; docs/SANDBOX.md lists the same groups with why.
 * A call this libseccomp knows but the list leaves out fails with EPERM (libseccomp's default
 * action); a number above the highest it knows (a call newer than the filter) fails with ENOSYS, as
 * on an older kernel, so the C library falls back to an older call the filter can judge: a guard
 * of six instructions put before libseccomp's program says so (load_with_guard). Calls allowed
 * only with some arguments are filtered on those arguments; arguments the kernel reads as 32 bits
 * are compared on their low 32 bits, so nothing in the upper half gets past a rule. */

/* Whatever the policy. */
static const char *const allowed_always[] = {
    /* memory */
    "brk", "mmap", "munmap", "mprotect", "mremap", "madvise", "mincore", "msync", "mlock", "munlock", "mlock2",
    "membarrier", "memfd_create",
    /* threads, waiting, ending (not sched_getattr: GLib would then copy its threads' scheduler settings
     * with sched_setattr, which can renice your other processes; denied, GLib skips that quietly) */
    "futex", "futex_waitv", "set_robust_list", "set_tid_address", "rseq", "sched_yield", "sched_getaffinity",
    "sched_getparam", "sched_getscheduler", "sched_get_priority_min", "sched_get_priority_max", "nanosleep",
    "clock_nanosleep", "getcpu", "exit", "exit_group", "wait4", "waitid", "restart_syscall", "arch_prctl",
    /* signals (Landlock keeps them inside the sandbox) */
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait", "rt_sigsuspend",
    "sigaltstack", "signalfd", "signalfd4", "pause", "kill", "tkill", "tgkill", "rt_sigqueueinfo",
    "rt_tgsigqueueinfo", "pidfd_open", "pidfd_send_signal",
    /* time */
    "clock_gettime", "clock_getres", "gettimeofday", "time", "timer_create", "timer_settime", "timer_gettime",
    "timer_getoverrun", "timer_delete", "timerfd_create", "timerfd_settime", "timerfd_gettime", "alarm",
    "getitimer", "setitimer",
    /* descriptors it holds */
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2",
    "close", "close_range", "dup", "dup2", "dup3", "fcntl", "lseek", "pipe", "pipe2", "eventfd", "eventfd2",
    "poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
    "epoll_pwait", "epoll_pwait2", "sendfile", "copy_file_range", "flock", "fsync", "fdatasync",
    "sync_file_range", "syncfs", "ftruncate", "fallocate", "fadvise64", "readahead", "fstat", "fstatfs",
    "getdents", "getdents64", "fchmod", "fchown", "fgetxattr", "flistxattr", "fsetxattr", "fremovexattr",
    "socketpair", "connect", "bind", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg",
    "shutdown", "getsockname", "getpeername", "getsockopt", "setsockopt",
    /* files by path: Landlock decides which */
    "open", "openat", "openat2", "creat", "stat", "lstat", "newfstatat", "statx", "statfs", "access",
    "faccessat", "faccessat2", "readlink", "readlinkat", "getcwd", "chdir", "fchdir", "mkdir", "mkdirat",
    "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link", "linkat", "symlink",
    "symlinkat", "truncate", "getxattr", "lgetxattr", "listxattr", "llistxattr", "umask",
    /* who and where it is */
    "getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid",
    "getgroups", "getpgrp", "getpgid", "getsid", "uname", "sysinfo", "getrlimit", "setrlimit", "getrusage",
    "times", "getpriority", "capget", "getrandom",
    NULL,
};

/* With Executables: new processes and programs (Landlock decides which programs). */
static const char *const allowed_with_exec[] = {"fork", "vfork", "execve", "execveat", NULL};

/* Namespaces a clone may not make (CLONE_NEWTIME is a clone3 flag; clone reads that bit as part of
 * the exit signal). */
#define AFS_NEW_NAMESPACES                                                                                     \
    (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

/* prctl options that only ask, or change nothing that protects the helper. PR_SET_DUMPABLE is
 * allowed only to 0 (it already is); the death signal, dumpability, seccomp, the Yama ptracer and
 * every other option fail with EPERM. */
#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif
#ifndef PR_GET_AUXV
#define PR_GET_AUXV 0x41555856
#endif
static const scmp_datum_t prctl_allowed[] = {
    PR_GET_PDEATHSIG, PR_GET_DUMPABLE, PR_GET_KEEPCAPS, PR_SET_NAME, PR_GET_NAME, PR_GET_SECCOMP,
    PR_CAPBSET_READ, PR_GET_SECUREBITS, PR_SET_TIMERSLACK, PR_GET_TIMERSLACK, PR_MCE_KILL_GET,
    PR_GET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS, PR_GET_THP_DISABLE,
    PR_GET_SPECULATION_CTRL, PR_SET_VMA, PR_GET_AUXV,
};

/* Terminal requests never allowed: typing into a terminal's input, driving the Linux console. */
static const uint32_t denied_ioctls[] = {TIOCSTI, TIOCLINUX};

typedef struct afs_filter {
    scmp_filter_ctx context;
    int rules;
    int status;
} afs_filter;

/* Adds a rule for `name` (skipped when this architecture has no such call) unless an earlier rule
 * failed. */
static void rule(afs_filter *filter, uint32_t action, const char *name, unsigned count, const struct scmp_arg_cmp *args) {
    if (filter->status != 0) return;
    int number = seccomp_syscall_resolve_name(name);
    if (number < 0) return; /* __NR_SCMP_ERROR or a pseudo-number: not on this architecture */
    filter->status = seccomp_rule_add_array(filter->context, action, number, count, args);
    if (filter->status == 0) filter->rules++;
}

static void allow_all(afs_filter *filter, const char *const *names) {
    for (; *names; names++) rule(filter, SCMP_ACT_ALLOW, *names, 0, NULL);
}

/* The low 32 bits of argument `index`, masked by `mask`, equal `value`. */
static struct scmp_arg_cmp low32(unsigned index, uint32_t mask, uint32_t value) {
    return (struct scmp_arg_cmp){.arg = index, .op = SCMP_CMP_MASKED_EQ, .datum_a = mask, .datum_b = value & mask};
}

/* Argument `index` is exactly `value` (all 64 bits). */
static struct scmp_arg_cmp exactly(unsigned index, scmp_datum_t value) {
    return (struct scmp_arg_cmp){.arg = index, .op = SCMP_CMP_EQ, .datum_a = value};
}

/* ioctl: allowed unless the request's low 32 bits are one of `denied_ioctls`. libseccomp cannot
 * say "not equal" under a mask, so the allowed rest is spelled out as rules that each match only
 * requests unlike every denied one: one per bit on which the denied requests agree (the request
 * differs there), and one per other combination of the few bits on which they disagree. */
static void ioctl_rules(afs_filter *filter) {
    const size_t count = sizeof denied_ioctls / sizeof denied_ioctls[0];
    uint32_t agree = 0xffffffffu;
    for (size_t index = 1; index < count; index++) agree &= ~(denied_ioctls[index] ^ denied_ioctls[0]);
    uint32_t common = denied_ioctls[0] & agree;
    for (int bit = 0; bit < 32; bit++) {
        uint32_t mask = 1u << bit;
        if (!(agree & mask)) continue;
        struct scmp_arg_cmp differs = low32(1, mask, ~common);
        rule(filter, SCMP_ACT_ALLOW, "ioctl", 1, &differs);
    }
    uint32_t spread = ~agree;
    for (uint32_t subset = spread;; subset = (subset - 1) & spread) {
        uint32_t request = common | subset;
        int is_denied = 0;
        for (size_t index = 0; index < count; index++) is_denied |= request == denied_ioctls[index];
        struct scmp_arg_cmp exact = low32(1, 0xffffffffu, request);
        if (!is_denied) rule(filter, SCMP_ACT_ALLOW, "ioctl", 1, &exact);
        if (subset == 0) break;
    }
}

/* socket: the families the policy allows (netlink only NETLINK_ROUTE, with the internet); every
 * other family fails with EACCES, like a Landlock denial; another netlink protocol with EPERM. */
static void socket_rules(afs_filter *filter, uint32_t flags) {
    for (int family = 0; family < AF_MAX; family++) {
        int allowed = 0;
        if ((family == AF_INET || family == AF_INET6) && (flags & AFS_ALLOW_INET)) allowed = 1;
        if (family == AF_UNIX && (flags & AFS_ALLOW_UNIX_SOCKETS)) allowed = 1;
        struct scmp_arg_cmp domain = low32(0, 0xffffffffu, (uint32_t)family);
        if (family == AF_NETLINK && (flags & AFS_ALLOW_INET)) {
            /* NETLINK_ROUTE answers getaddrinfo's AI_ADDRCONFIG; the other protocols (netfilter's
             * nf_tables above all) are kernel attack surface. */
            struct scmp_arg_cmp route[] = {domain, low32(2, 0xffffffffu, NETLINK_ROUTE)};
            rule(filter, SCMP_ACT_ALLOW, "socket", 2, route);
            continue;
        }
        rule(filter, allowed ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(EACCES), "socket", 1, &domain);
    }
}

static void argument_rules(afs_filter *filter, int processes) {
    /* clone: never with a CLONE_NEW* flag; without Executables, only threads (CLONE_THREAD). */
    uint32_t checked = AFS_NEW_NAMESPACES | (processes ? 0 : CLONE_THREAD);
    struct scmp_arg_cmp clone_flags = low32(0, checked, processes ? 0 : CLONE_THREAD);
    rule(filter, SCMP_ACT_ALLOW, "clone", 1, &clone_flags);
    for (size_t index = 0; index < sizeof prctl_allowed / sizeof prctl_allowed[0]; index++) {
        struct scmp_arg_cmp option = low32(0, 0xffffffffu, (uint32_t)prctl_allowed[index]);
        rule(filter, SCMP_ACT_ALLOW, "prctl", 1, &option);
    }
    struct scmp_arg_cmp dumpable_off[] = {low32(0, 0xffffffffu, PR_SET_DUMPABLE), exactly(1, 0)};
    rule(filter, SCMP_ACT_ALLOW, "prctl", 2, dumpable_off);
    /* prlimit64 on itself (pid 0): getrlimit and setrlimit are made of it. */
    struct scmp_arg_cmp self = exactly(0, 0);
    rule(filter, SCMP_ACT_ALLOW, "prlimit64", 1, &self);
    /* utimensat without a path (futimens): by path, Landlock would not check it. */
    struct scmp_arg_cmp no_path = exactly(1, 0);
    rule(filter, SCMP_ACT_ALLOW, "utimensat", 1, &no_path);
    /* personality: only asking (0xffffffff), never another execution domain. */
    struct scmp_arg_cmp query = exactly(0, 0xffffffffu);
    rule(filter, SCMP_ACT_ALLOW, "personality", 1, &query);
    /* setpriority of itself (Dispatch sets its worker threads'); PRIO_USER would renice all of yours. */
    struct scmp_arg_cmp own_priority[] = {exactly(0, PRIO_PROCESS), exactly(1, 0)};
    rule(filter, SCMP_ACT_ALLOW, "setpriority", 2, own_priority);
    /* landlock_create_ruleset only to ask the kernel's ABI version (the report's "the kernel offers"). */
    struct scmp_arg_cmp version = exactly(2, LANDLOCK_CREATE_RULESET_VERSION);
    rule(filter, SCMP_ACT_ALLOW, "landlock_create_ruleset", 1, &version);
    /* clone3's flags are in memory a filter cannot read: ENOSYS, and glibc falls back to clone. */
    rule(filter, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL);
}

/* The highest system call number this libseccomp knows on this architecture. */
static int highest_known_syscall(void) {
    for (int number = 1023; number > 0; number--) {
        char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, number);
        if (name) {
            free(name);
            return number;
        }
    }
    return 0;
}

/* Loads libseccomp's program behind a guard: on this architecture, a number above `highest` (and
 * below the x32 range, which libseccomp's program kills) fails with ENOSYS; everything else goes on
 * to libseccomp's program. 0 or a negative errno. */
#define AFS_BPF_MAX 4096
static int load_with_guard(scmp_filter_ctx context, int highest) {
    enum { guard = 6 };
    struct sock_filter program[AFS_BPF_MAX];
    uint32_t native = seccomp_arch_native();
    struct sock_filter head[guard] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, native, 0, 4),                     /* another architecture: on */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, (uint32_t)highest, 0, 2),          /* known: on */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 1, 0),                /* x32 (or -1): on */
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
    };
    memcpy(program, head, sizeof head);
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return -errno;
    /* The program is at most 32 KiB: it fits in the pipe's buffer, so exporting never blocks. */
    int status = seccomp_export_bpf(context, pipe_fds[1]);
    close(pipe_fds[1]);
    size_t length = 0;
    while (status == 0) {
        ssize_t count = read(pipe_fds[0], (char *)(program + guard) + length, sizeof program - sizeof head - length);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) status = -errno;
        if (count <= 0) break;
        length += (size_t)count;
    }
    close(pipe_fds[0]);
    if (status != 0) return status;
    if (length == 0 || length % sizeof(struct sock_filter) != 0 || length == sizeof program - sizeof head) return -E2BIG;
    struct sock_fprog loaded = {.len = (unsigned short)(guard + length / sizeof(struct sock_filter)), .filter = program};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &loaded) != 0) return -errno;
    return 0;
}

static int apply_seccomp(const afs_policy *policy, afs_report *report, char *error, size_t capacity) {
    int highest = highest_known_syscall();
    afs_filter filter = {.context = seccomp_init(SCMP_ACT_ERRNO(EPERM))};
    if (!filter.context || highest == 0) return fail(error, capacity, "libseccomp could not start a filter");
    seccomp_attr_set(filter.context, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);

    allow_all(&filter, allowed_always);
    int processes = (policy->flags & AFS_ALLOW_EXEC) != 0;
    if (processes) allow_all(&filter, allowed_with_exec);
    ioctl_rules(&filter);
    socket_rules(&filter, policy->flags);
    argument_rules(&filter, processes);
    int status = filter.status == 0 ? load_with_guard(filter.context, highest) : 0;
    seccomp_release(filter.context);
    if (filter.status != 0) return fail(error, capacity, "libseccomp refused a rule (%s)", strerror(-filter.status));
    if (status != 0) return fail(error, capacity, "the seccomp filter could not be loaded (%s)", strerror(-status));
    report->seccomp_rules = filter.rules;
    return 0;
}

int afs_apply(const afs_policy *policy, int require_landlock, afs_report *report, char *error, size_t error_capacity) {
    if (!policy || !report) return fail(error, error_capacity, "no policy");
    memset(report, 0, sizeof *report);
    int threads = thread_count();
    if (threads != 1)
        return fail(error, error_capacity,
                    "the helper has %d threads; the sandbox must be entered while it has one (a Landlock domain "
                    "binds only the thread that enters it on this kernel)",
                    threads);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return fail(error, error_capacity, "PR_SET_NO_NEW_PRIVS failed (%s)", strerror(errno));
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        return fail(error, error_capacity, "PR_SET_DUMPABLE failed (%s)", strerror(errno));
    int abi = afs_landlock_abi();
    if (abi > afs_landlock_abi_supported()) abi = afs_landlock_abi_supported();
    if (abi <= 0) {
        if (require_landlock) return fail(error, error_capacity, "this kernel has no Landlock");
    } else if (apply_landlock(policy, abi, report, error, error_capacity) != 0) {
        return -1;
    }
    return apply_seccomp(policy, report, error, error_capacity);
}

int afs_harden_host(int no_new_privs) {
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return -1;
    if (no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return 0;
}
