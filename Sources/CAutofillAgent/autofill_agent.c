/* autofill_agent.c — see include/autofill_agent.h. */
#define _GNU_SOURCE
#include "autofill_agent.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int fill_address(struct sockaddr_un *address, const char *path) {
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof(address->sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memset(address, 0, sizeof(*address));
    address->sun_family = AF_UNIX;
    memcpy(address->sun_path, path, length);
    return 0;
}

int afa_listen(const char *path) {
    struct sockaddr_un address;
    if (fill_address(&address, path) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    /* The folder is 0700, so nobody else can reach the socket between bind and chmod; the umask
     * makes it 0600 from the start anyway. umask is per process: bind happens before any thread
     * that creates files runs. */
    mode_t previous = umask(0177);
    int bound = bind(fd, (struct sockaddr *)&address, sizeof(address));
    umask(previous);
    if (bound != 0 || chmod(path, 0600) != 0 || listen(fd, 128) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int afa_accept(int listen_fd) {
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0 || errno != EINTR) return fd;
    }
}

int afa_connect(const char *path) {
    struct sockaddr_un address;
    if (fill_address(&address, path) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    for (;;) {
        if (connect(fd, (struct sockaddr *)&address, sizeof(address)) == 0) return fd;
        if (errno == EINTR) continue;
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
}

int afa_peer_credentials(int fd, uid_t *uid, pid_t *pid) {
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *pid = credentials.pid;
    return 0;
}

int afa_send_with_fds(int fd, const void *bytes, size_t count, const int *fds, size_t fd_count) {
    if (fd_count > AFA_MAX_FDS || count == 0) {
        errno = EINVAL;
        return -1;
    }
    const char *cursor = bytes;
    size_t left = count;
    union {
        char buffer[CMSG_SPACE(sizeof(int) * AFA_MAX_FDS)];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof(control));
    while (left > 0) {
        struct iovec vector = {.iov_base = (void *)cursor, .iov_len = left};
        struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1};
        if (fd_count > 0 && cursor == bytes) {
            message.msg_control = control.buffer;
            message.msg_controllen = CMSG_SPACE(sizeof(int) * fd_count);
            struct cmsghdr *header = CMSG_FIRSTHDR(&message);
            header->cmsg_level = SOL_SOCKET;
            header->cmsg_type = SCM_RIGHTS;
            header->cmsg_len = CMSG_LEN(sizeof(int) * fd_count);
            memcpy(CMSG_DATA(header), fds, sizeof(int) * fd_count);
        }
        ssize_t sent = sendmsg(fd, &message, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        cursor += sent;
        left -= (size_t)sent;
    }
    return 0;
}

ssize_t afa_receive_with_fds(int fd, void *bytes, size_t capacity, int *fds, size_t max_fds, size_t *fd_count) {
    union {
        char buffer[CMSG_SPACE(sizeof(int) * AFA_MAX_FDS)];
        struct cmsghdr align;
    } control;
    *fd_count = 0;
    for (;;) {
        struct iovec vector = {.iov_base = bytes, .iov_len = capacity};
        struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1,
                                 .msg_control = control.buffer, .msg_controllen = sizeof(control.buffer)};
        ssize_t received = recvmsg(fd, &message, MSG_CMSG_CLOEXEC);
        if (received < 0 && errno == EINTR) continue;
        if (received < 0) return -1;
        for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
            if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
            size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            int *passed = (int *)CMSG_DATA(header);
            for (size_t index = 0; index < count; index++) {
                if (*fd_count < max_fds) fds[(*fd_count)++] = passed[index];
                else close(passed[index]);
            }
        }
        if (message.msg_flags & MSG_CTRUNC) {
            /* More descriptors than the buffer holds: the kernel closed the rest. Refuse the message. */
            for (size_t index = 0; index < *fd_count; index++) close(fds[index]);
            *fd_count = 0;
            errno = EMSGSIZE;
            return -1;
        }
        return received;
    }
}

int afa_wait_readable(int fd, int timeout_ms) {
    struct pollfd entry = {.fd = fd, .events = POLLIN};
    for (;;) {
        int ready = poll(&entry, 1, timeout_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return -1;
        return ready > 0 ? 1 : 0;
    }
}

int afa_wait_either(int first, int second, int timeout_ms) {
    struct pollfd entries[2] = {{.fd = first, .events = POLLIN}, {.fd = second, .events = POLLIN}};
    for (;;) {
        int ready = poll(entries, 2, timeout_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return -1;
        return (entries[0].revents ? 1 : 0) | (entries[1].revents ? 2 : 0);
    }
}

int afa_lock_file(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return -1;
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
        if (errno == EINTR) continue;
        int saved = errno;
        close(fd);
        if (saved == EWOULDBLOCK) return -2;
        errno = saved;
        return -1;
    }
}

int afa_spawn_detached(const char *path, char *const argv[], char *const envp[], pid_t *pid) {
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

int afa_harden(void) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int afa_identity(const char *path, uint64_t *device, uint64_t *inode) {
    struct stat status;
    if (lstat(path, &status) != 0) return -1;
    *device = (uint64_t)status.st_dev;
    *inode = (uint64_t)status.st_ino;
    return 0;
}

extern char **environ;

char **afa_environment(void) { return environ; }
