/* process.c — processes: wait statuses, signals, watching and reaping, dying with the parent, limits, hardening (see include/autofill_system.h). */
#define _GNU_SOURCE
#include "autofill_system.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
char **afsys_environment(void) { return environ; }

const char *afsys_signal_name(int signal_number) { return sigabbrev_np(signal_number); }

int afsys_exited(int status) { return WIFEXITED(status); }
int afsys_exit_status(int status) { return WEXITSTATUS(status); }
int afsys_signaled(int status) { return WIFSIGNALED(status); }
int afsys_term_signal(int status) { return WTERMSIG(status); }

/* ---- Watching and reaping ---- */

int afsys_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int afsys_has_ended(pid_t pid, int wait) {
    siginfo_t info;
    for (;;) {
        memset(&info, 0, sizeof info);
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT | (wait ? 0 : WNOHANG)) == 0) return info.si_pid == pid ? 1 : 0;
        if (errno != EINTR) return -1;
    }
}

int afsys_kill_group(pid_t group) {
    if (group <= 1) {
        errno = EINVAL;
        return -1;
    }
    return kill(-group, SIGKILL);
}

uint64_t afsys_address_space(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char text[64];
    ssize_t count = read(fd, text, sizeof text - 1);
    close(fd);
    uint64_t pages = 0;
    for (ssize_t i = 0; i < count && text[i] >= '0' && text[i] <= '9'; i++) pages = pages * 10 + (uint64_t)(text[i] - '0');
    return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* ---- Helper side ---- */

int afsys_die_with_parent(pid_t expected_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) return -1;
    return getppid() == expected_parent ? 0 : -1;
}

int afsys_limit_resources(uint64_t memory_bytes) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    if (memory_bytes > 0) {
        struct rlimit memory = {(rlim_t)memory_bytes, (rlim_t)memory_bytes};
        if (setrlimit(RLIMIT_AS, &memory) != 0) return -1;
        pthread_attr_t attributes;
        if (pthread_getattr_default_np(&attributes) != 0) return -1;
        int failed = pthread_attr_setstacksize(&attributes, AFSYS_THREAD_STACK_BYTES) != 0 ||
                     pthread_setattr_default_np(&attributes) != 0;
        pthread_attr_destroy(&attributes);
        if (failed || mallopt(M_ARENA_MAX, AFSYS_MALLOC_ARENAS) != 1) return -1;
    }
    return 0;
}

/* ---- Hardening a long-lived process (the agent) ---- */

int afsys_harden(void) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
