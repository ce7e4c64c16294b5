/* seccomp_filter.c — the helper's seccomp allowlist (libseccomp); see include/autofill_sandbox.h and
 * docs/SANDBOX.md. Entered by afs_apply (autofill_sandbox.c) after Landlock. */
#define _GNU_SOURCE
#include "autofill_sandbox.h"
#include "sandbox_private.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

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

int afs_apply_seccomp(const afs_policy *policy, afs_report *report, char *error, size_t capacity) {
    int highest = highest_known_syscall();
    afs_filter filter = {.context = seccomp_init(SCMP_ACT_ERRNO(EPERM))};
    if (!filter.context || highest == 0) return afs_fail(error, capacity, "libseccomp could not start a filter");
    seccomp_attr_set(filter.context, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);

    allow_all(&filter, allowed_always);
    int processes = (policy->flags & AFS_ALLOW_EXEC) != 0;
    if (processes) allow_all(&filter, allowed_with_exec);
    ioctl_rules(&filter);
    socket_rules(&filter, policy->flags);
    argument_rules(&filter, processes);
    int status = filter.status == 0 ? load_with_guard(filter.context, highest) : 0;
    seccomp_release(filter.context);
    if (filter.status != 0) return afs_fail(error, capacity, "libseccomp refused a rule (%s)", strerror(-filter.status));
    if (status != 0) return afs_fail(error, capacity, "the seccomp filter could not be loaded (%s)", strerror(-status));
    report->seccomp_rules = filter.rules;
    return 0;
}

