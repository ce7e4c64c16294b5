/* autofill_helper.c — see include/autofill_helper.h. */
#define _GNU_SOURCE
#include "autofill_helper.h"

#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- Spawning from one long-lived thread ---- */

typedef struct afh_spawn_job {
    const char *path;
    char *const *argv;
    char *const *envp;
    int channel_fd, fault_fd, out_fd, err_fd;
    int in_fd; /* the child's standard input; -1: /dev/null */
    pid_t pid;
    int result;
    int done;
    struct afh_spawn_job *next;
} afh_spawn_job;

static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t spawn_wake = PTHREAD_COND_INITIALIZER;  /* a job was queued */
static pthread_cond_t spawn_done = PTHREAD_COND_INITIALIZER;  /* a job finished */
static afh_spawn_job *spawn_queue = NULL;
static int spawner_started = 0;

/* posix_spawn with default signal handling and an empty mask, whatever the calling thread has, in a
 * session (and so a process group) of the child's own. */
static int spawn_in_session(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions, char *const argv[],
                            char *const envp[]) {
    posix_spawnattr_t attributes;
    int status = posix_spawnattr_init(&attributes);
    if (status != 0) return status;
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSID);
    status = posix_spawn(pid, path, actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    return status;
}

static int spawn_now(afh_spawn_job *job) {
    posix_spawn_file_actions_t actions;
    int status = posix_spawn_file_actions_init(&actions);
    if (status != 0) return status;
    /* dup2 clears close-on-exec on the new descriptor; the sources are close-on-exec and vanish. */
    if (job->channel_fd < 0) {
        /* A holder: its standard input and output only. */
        if ((status = posix_spawn_file_actions_adddup2(&actions, job->in_fd, 0)) == 0 &&
            (status = posix_spawn_file_actions_adddup2(&actions, job->out_fd, 1)) == 0 &&
            (status = posix_spawn_file_actions_adddup2(&actions, job->err_fd, 2)) == 0 &&
            (status = posix_spawn_file_actions_addclosefrom_np(&actions, 3)) == 0)
            status = spawn_in_session(&job->pid, job->path, &actions, job->argv, job->envp);
    } else if ((status = job->in_fd >= 0 ? posix_spawn_file_actions_adddup2(&actions, job->in_fd, 0)
                                         : posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)) == 0 &&
        (status = posix_spawn_file_actions_adddup2(&actions, job->out_fd, 1)) == 0 &&
        (status = posix_spawn_file_actions_adddup2(&actions, job->err_fd, 2)) == 0 &&
        (status = posix_spawn_file_actions_adddup2(&actions, job->channel_fd, AFH_CHANNEL_FD)) == 0 &&
        (status = posix_spawn_file_actions_adddup2(&actions, job->fault_fd, AFH_FAULT_FD)) == 0 &&
        (status = posix_spawn_file_actions_addclosefrom_np(&actions, AFH_FAULT_FD + 1)) == 0) {
        /* A session of its own (setsid: no controlling terminal, so /dev/tty opens nothing) and
         * so a process group of its own (its pgid is its pid): the host ends whatever the plugin
         * forked along with it (its sandbox cannot leave the group), and the terminal's signals
         * (Ctrl-C) go to the host alone. */
        status = spawn_in_session(&job->pid, job->path, &actions, job->argv, job->envp);
    }
    posix_spawn_file_actions_destroy(&actions);
    return status;
}

static void *spawner_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&spawn_lock);
    for (;;) {
        while (spawn_queue == NULL) pthread_cond_wait(&spawn_wake, &spawn_lock);
        afh_spawn_job *job = spawn_queue;
        spawn_queue = job->next;
        pthread_mutex_unlock(&spawn_lock);
        int result = spawn_now(job);
        pthread_mutex_lock(&spawn_lock);
        job->result = result;
        job->done = 1;
        pthread_cond_broadcast(&spawn_done);
    }
    return NULL;
}

static int spawn_on_spawner(afh_spawn_job *job, pid_t *pid);

int afh_spawn(const char *path, char *const argv[], char *const envp[], int in_fd, int channel_fd, int fault_fd, int out_fd,
              int err_fd, pid_t *pid) {
    afh_spawn_job job = {path, argv, envp, channel_fd, fault_fd, out_fd, err_fd, in_fd, 0, 0, 0, NULL};
    return spawn_on_spawner(&job, pid);
}

int afh_spawn_holder(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd,
                     pid_t *pid) {
    afh_spawn_job job = {path, argv, envp, -1, -1, out_fd, err_fd, in_fd, 0, 0, 0, NULL};
    return spawn_on_spawner(&job, pid);
}

static int spawn_on_spawner(afh_spawn_job *job, pid_t *pid) {
    pthread_mutex_lock(&spawn_lock);
    if (!spawner_started) {
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attributes, 256 * 1024);
        /* The thread must not take signals meant for others: block them all while creating it. */
        sigset_t all, previous;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &previous);
        int status = pthread_create(&thread, &attributes, spawner_main, NULL);
        pthread_sigmask(SIG_SETMASK, &previous, NULL);
        pthread_attr_destroy(&attributes);
        if (status != 0) {
            pthread_mutex_unlock(&spawn_lock);
            return status;
        }
        spawner_started = 1;
    }
    afh_spawn_job **tail = &spawn_queue;
    while (*tail != NULL) tail = &(*tail)->next;
    *tail = job;
    pthread_cond_signal(&spawn_wake);
    while (!job->done) pthread_cond_wait(&spawn_done, &spawn_lock);
    pthread_mutex_unlock(&spawn_lock);
    if (job->result == 0) *pid = job->pid;
    return job->result;
}

/* ---- Descriptors ---- */

int afh_socketpair(int fds[2]) { return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds); }

int afh_pipe(int fds[2], int nonblocking_read) {
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    if (nonblocking_read) {
        int flags = fcntl(fds[0], F_GETFL);
        if (flags < 0 || fcntl(fds[0], F_SETFL, flags | O_NONBLOCK) != 0) {
            int saved = errno;
            close(fds[0]);
            close(fds[1]);
            errno = saved;
            return -1;
        }
    }
    return 0;
}

ssize_t afh_send(int fd, const void *bytes, size_t count) { return send(fd, bytes, count, MSG_NOSIGNAL); }

int afh_set_cloexec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

extern char **environ;
char **afh_environment(void) { return environ; }

const char *afh_signal_name(int signal_number) { return sigabbrev_np(signal_number); }

int afh_exited(int status) { return WIFEXITED(status); }
int afh_exit_status(int status) { return WEXITSTATUS(status); }
int afh_signaled(int status) { return WIFSIGNALED(status); }
int afh_term_signal(int status) { return WTERMSIG(status); }

/* ---- Watching and reaping ---- */

int afh_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int afh_has_ended(pid_t pid, int wait) {
    siginfo_t info;
    for (;;) {
        memset(&info, 0, sizeof info);
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT | (wait ? 0 : WNOHANG)) == 0) return info.si_pid == pid ? 1 : 0;
        if (errno != EINTR) return -1;
    }
}

int afh_kill_group(pid_t group) {
    if (group <= 1) {
        errno = EINVAL;
        return -1;
    }
    return kill(-group, SIGKILL);
}

uint64_t afh_address_space(pid_t pid) {
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

int afh_answer_fault(int fd) {
    unsigned char answer = 1;
    return send(fd, &answer, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1 ? 0 : -1;
}

/* ---- Helper side ---- */

int afh_die_with_parent(pid_t expected_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) return -1;
    return getppid() == expected_parent ? 0 : -1;
}

int afh_limit_resources(uint64_t memory_bytes) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    if (memory_bytes > 0) {
        struct rlimit memory = {(rlim_t)memory_bytes, (rlim_t)memory_bytes};
        if (setrlimit(RLIMIT_AS, &memory) != 0) return -1;
        pthread_attr_t attributes;
        if (pthread_getattr_default_np(&attributes) != 0) return -1;
        int failed = pthread_attr_setstacksize(&attributes, AFH_THREAD_STACK_BYTES) != 0 ||
                     pthread_setattr_default_np(&attributes) != 0;
        pthread_attr_destroy(&attributes);
        if (failed || mallopt(M_ARENA_MAX, AFH_MALLOC_ARENAS) != 1) return -1;
    }
    return 0;
}

static int fault_fd = -1;

/* Tells the host a fatal signal arrived, and waits (2 s at most) until it answers: meanwhile the
 * host reads this process's address space from /proc itself. Nothing this writes is believed: the
 * note only asks the host to look. Async-signal-safe calls only. */
static void report_fault(int signal_number) {
    int saved_errno = errno;
    unsigned char note = (unsigned char)signal_number, answer;
    while (recv(fault_fd, &answer, 1, MSG_DONTWAIT) > 0) {
        /* answers to notes nobody waited for */
    }
    if (send(fault_fd, &note, 1, MSG_NOSIGNAL) == 1) {
        struct pollfd reply = {fault_fd, POLLIN, 0};
        if (poll(&reply, 1, 2000) > 0) {
            ssize_t ignored = recv(fault_fd, &answer, 1, 0);
            (void)ignored;
        }
    }
    errno = saved_errno;
    /* SA_RESETHAND restored the default action: returning re-runs the faulting instruction (or
     * abort() raises again), and the process dies of the signal, which the host sees in waitpid. */
}

int afh_install_fault_reporter(int fd) {
    fault_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = report_fault;
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    const int signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTRAP};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
    }
    return 0;
}

/* ---- The terminal's width ---- */

int afh_terminal_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 0;
    return size.ws_col;
}

int afh_terminal_rows(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_row == 0) return 0;
    return size.ws_row;
}

/* ---- Running a program of the user's (the clipboard tools, the clipboard's clearer) ---- */

int afh_spawn_program(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd,
                      int extra_fd, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    int status = posix_spawn_file_actions_init(&actions);
    if (status != 0) return status;
    /* dup2 clears close-on-exec on the new descriptor; everything else is closed in the child. */
    if ((status = posix_spawn_file_actions_adddup2(&actions, in_fd, 0)) == 0 &&
        (status = posix_spawn_file_actions_adddup2(&actions, out_fd, 1)) == 0 &&
        (status = posix_spawn_file_actions_adddup2(&actions, err_fd, 2)) == 0 &&
        (extra_fd < 0 || (status = posix_spawn_file_actions_adddup2(&actions, extra_fd, 3)) == 0) &&
        (status = posix_spawn_file_actions_addclosefrom_np(&actions, extra_fd < 0 ? 3 : 4)) == 0) {
        /* A session of its own: a clipboard owner outlives the terminal that started it, and the
         * terminal's signals (Ctrl-C, its hangup) never reach it. */
        status = spawn_in_session(pid, path, &actions, argv, envp);
    }
    posix_spawn_file_actions_destroy(&actions);
    return status;
}

int afh_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC); }
