/* spawn.c — spawning: helpers from one long-lived thread, the user's programs, the agent detached (see include/autofill_system.h). */
#define _GNU_SOURCE
#include "autofill_system.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- Spawning from one long-lived thread ---- */

typedef struct afsys_spawn_job {
    const char *path;
    char *const *argv;
    char *const *envp;
    int channel_fd, fault_fd, out_fd, err_fd;
    int in_fd; /* the child's standard input; -1: /dev/null */
    pid_t pid;
    int result;
    int done;
    struct afsys_spawn_job *next;
} afsys_spawn_job;

static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t spawn_wake = PTHREAD_COND_INITIALIZER;  /* a job was queued */
static pthread_cond_t spawn_done = PTHREAD_COND_INITIALIZER;  /* a job finished */
static afsys_spawn_job *spawn_queue = NULL;
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

static int spawn_now(afsys_spawn_job *job) {
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
        (status = posix_spawn_file_actions_adddup2(&actions, job->channel_fd, AFSYS_CHANNEL_FD)) == 0 &&
        (status = posix_spawn_file_actions_adddup2(&actions, job->fault_fd, AFSYS_FAULT_FD)) == 0 &&
        (status = posix_spawn_file_actions_addclosefrom_np(&actions, AFSYS_FAULT_FD + 1)) == 0) {
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
        afsys_spawn_job *job = spawn_queue;
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

static int spawn_on_spawner(afsys_spawn_job *job, pid_t *pid);

int afsys_spawn(const char *path, char *const argv[], char *const envp[], int in_fd, int channel_fd, int fault_fd, int out_fd,
              int err_fd, pid_t *pid) {
    afsys_spawn_job job = {path, argv, envp, channel_fd, fault_fd, out_fd, err_fd, in_fd, 0, 0, 0, NULL};
    return spawn_on_spawner(&job, pid);
}

int afsys_spawn_holder(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd,
                     pid_t *pid) {
    afsys_spawn_job job = {path, argv, envp, -1, -1, out_fd, err_fd, in_fd, 0, 0, 0, NULL};
    return spawn_on_spawner(&job, pid);
}

static int spawn_on_spawner(afsys_spawn_job *job, pid_t *pid) {
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
    afsys_spawn_job **tail = &spawn_queue;
    while (*tail != NULL) tail = &(*tail)->next;
    *tail = job;
    pthread_cond_signal(&spawn_wake);
    while (!job->done) pthread_cond_wait(&spawn_done, &spawn_lock);
    pthread_mutex_unlock(&spawn_lock);
    if (job->result == 0) *pid = job->pid;
    return job->result;
}

/* ---- Running a program of the user's (the clipboard tools, the clipboard's clearer) ---- */

int afsys_spawn_program(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd,
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

/* ---- Starting the agent detached ---- */

int afsys_spawn_detached(const char *path, char *const argv[], char *const envp[], pid_t *pid) {
    posix_spawn_file_actions_t actions;
    int status = posix_spawn_file_actions_init(&actions);
    if (status != 0) return status;
    posix_spawnattr_t attributes;
    if ((status = posix_spawnattr_init(&attributes)) != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return status;
    }
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setsigmask(&attributes, &none);
    if ((status = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)) == 0 &&
        (status = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)) == 0 &&
        (status = posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)) == 0 &&
        (status = posix_spawn_file_actions_addclosefrom_np(&actions, 3)) == 0 &&
        (status = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)) == 0) {
        status = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    }
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return status;
}
