/* namespace_join.c — a helper joins the namespaces bubblewrap made for it: see include/autofill_sandbox.h. */
#define _GNU_SOURCE
#include "autofill_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int join_fail(char *error, size_t capacity, const char *format, ...) {
    int saved = errno;
    if (error != NULL && capacity > 0) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(error, capacity, format, arguments);
        va_end(arguments);
    }
    errno = saved;
    return -1;
}

/* Whether two descriptors are the same namespace (nsfs: the same inode). */
static int same_namespace(int a, int b) {
    struct stat first, second;
    return fstat(a, &first) == 0 && fstat(b, &second) == 0 && first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

static void close_all(int *fds, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (fds[i] >= 0) close(fds[i]);
}

/* The namespaces besides the user namespaces, in the order they are entered (pid: for children only). */
static const struct {
    const char *name;
    int type;
} kinds[] = {{"mnt", CLONE_NEWNS}, {"ipc", CLONE_NEWIPC}, {"uts", CLONE_NEWUTS},
             {"net", CLONE_NEWNET}, {"cgroup", CLONE_NEWCGROUP}, {"pid", CLONE_NEWPID}};
#define KIND_COUNT (sizeof kinds / sizeof kinds[0])

/* The first child of `pid` (the kernel's list, in /proc), or -1. */
static pid_t first_child(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    FILE *file = fopen(path, "re");
    if (file == NULL) return -1;
    int child = -1;
    if (fscanf(file, "%d", &child) != 1) child = -1;
    fclose(file);
    return child;
}

int afs_join_namespaces(int bubblewrap, char *error, size_t capacity) {
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return join_fail(error, capacity, "PR_SET_DUMPABLE failed (%s)", strerror(errno));
    /* bubblewrap's command echoes the host's byte into this process's standard input once it runs:
     * every mount is made. Then standard input is /dev/null again. */
    char byte;
    ssize_t count;
    while ((count = read(0, &byte, 1)) < 0 && errno == EINTR) {}
    if (count != 1) return join_fail(error, capacity, "bubblewrap ended before it made them (its own message, if any, is above)");
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0) return join_fail(error, capacity, "opening /dev/null failed (%s)", strerror(errno));
    close(null);
    /* bubblewrap (a sibling: autofill's child), its init (pid 1 there), its command. */
    pid_t init = first_child(bubblewrap), holder = init > 0 ? first_child(init) : -1;
    if (holder <= 0) return join_fail(error, capacity, "bubblewrap's command (under process %d) is not there", bubblewrap);
    /* Everything is opened while this process is still outside, then checked to be the holder's: a
     * pidfd pins the process, so the pid cannot have been reused once it still answers. */
    int pidfd = (int)syscall(SYS_pidfd_open, holder, 0);
    if (pidfd < 0) return join_fail(error, capacity, "the sandbox's process %d is gone (%s)", holder, strerror(errno));
    int theirs[KIND_COUNT], ours[KIND_COUNT], user = -1, owner = -1, root = -1;
    for (size_t i = 0; i < KIND_COUNT; i++) theirs[i] = ours[i] = -1;
    char path[64];
    int failed = 0;
    snprintf(path, sizeof path, "/proc/%d/ns/user", holder);
    if ((user = open(path, O_RDONLY | O_CLOEXEC)) < 0) failed = 1;
    for (size_t i = 0; i < KIND_COUNT && !failed; i++) {
        snprintf(path, sizeof path, "/proc/%d/ns/%s", holder, kinds[i].name);
        theirs[i] = open(path, O_RDONLY | O_CLOEXEC);
        snprintf(path, sizeof path, "/proc/self/ns/%s", kinds[i].name);
        ours[i] = open(path, O_RDONLY | O_CLOEXEC);
        if (theirs[i] < 0 || ours[i] < 0) failed = 1;
    }
    snprintf(path, sizeof path, "/proc/%d/root", holder);
    if (!failed && (root = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) failed = 1;
    /* bubblewrap's first user namespace owns the others; its second, inside it (--disable-userns),
     * is the one the sandbox runs in. The mount namespace names its owner. */
    if (!failed && (owner = ioctl(theirs[0], NS_GET_USERNS)) < 0) failed = 1;
    int alive = (int)syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
    close(pidfd);
    int saved = errno;
    int result = 0;
    if (failed || !alive) {
        errno = failed ? saved : ESRCH;
        result = join_fail(error, capacity, "cannot open the namespaces of the sandbox's process %d (%s)", holder, strerror(errno));
        goto done;
    }
    if (setns(owner, CLONE_NEWUSER) != 0) {
        result = join_fail(error, capacity, "setns into the sandbox's user namespace failed (%s)", strerror(errno));
        goto done;
    }
    for (size_t i = 0; i < KIND_COUNT; i++) {
        if (same_namespace(theirs[i], ours[i])) continue; /* shared with the host (the network, with ports) */
        if (setns(theirs[i], kinds[i].type) != 0) {
            result = join_fail(error, capacity, "setns into the sandbox's %s namespace failed (%s)", kinds[i].name, strerror(errno));
            goto done;
        }
    }
    if (fchdir(root) != 0 || chroot(".") != 0 || chdir("/") != 0) {
        result = join_fail(error, capacity, "entering the sandbox's root failed (%s)", strerror(errno));
        goto done;
    }
    if (!same_namespace(owner, user) && setns(user, CLONE_NEWUSER) != 0) {
        result = join_fail(error, capacity, "setns into the sandbox's inner user namespace failed (%s)", strerror(errno));
        goto done;
    }
    /* Entering a user namespace gave every capability in it: none is kept, none can come back. */
    for (int capability = 0; capability <= 63; capability++) {
        if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 && errno != EINVAL) {
            result = join_fail(error, capacity, "dropping capability %d failed (%s)", capability, strerror(errno));
            goto done;
        }
    }
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 || syscall(SYS_capset, &header, data) != 0) {
        result = join_fail(error, capacity, "dropping capabilities failed (%s)", strerror(errno));
        goto done;
    }
done:
    close_all(theirs, KIND_COUNT);
    close_all(ours, KIND_COUNT);
    int others[] = {user, owner, root};
    close_all(others, 3);
    return result;
}

int afs_fork_into_namespaces(void) {
    pid_t child = fork();
    if (child < 0) return -1;
    if (child == 0) {
        /* Dies with the process that waits for it; that one is outside this pid namespace, where
         * getppid() says 0 (after its death the parent would be the namespace's init). */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != 0) _exit(69);
        return 0;
    }
    /* The protocol is the child's: the host sees its end when the child's ends. */
    close(3);
    close(4);
    int status;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) _exit(71);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 71);
}
