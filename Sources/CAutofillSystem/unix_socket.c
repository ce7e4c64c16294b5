/* unix_socket.c — Unix stream sockets: listen, accept, connect, the peer's credentials, descriptors with a message (see include/autofill_system.h). */
#define _GNU_SOURCE
#include "autofill_system.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
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

int afsys_listen(const char *path) {
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

int afsys_accept(int listen_fd) {
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0 || errno != EINTR) return fd;
    }
}

int afsys_connect(const char *path) {
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

int afsys_peer_credentials(int fd, uid_t *uid, pid_t *pid) {
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *pid = credentials.pid;
    return 0;
}

int afsys_send_with_fds(int fd, const void *bytes, size_t count, const int *fds, size_t fd_count) {
    if (fd_count > AFSYS_MAX_FDS || count == 0) {
        errno = EINVAL;
        return -1;
    }
    const char *cursor = bytes;
    size_t left = count;
    union {
        char buffer[CMSG_SPACE(sizeof(int) * AFSYS_MAX_FDS)];
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

static ssize_t receive_with_fds(int fd, void *bytes, size_t capacity, int *fds, size_t max_fds, size_t *fd_count, int flags) {
    union {
        char buffer[CMSG_SPACE(sizeof(int) * AFSYS_MAX_FDS)];
        struct cmsghdr align;
    } control;
    *fd_count = 0;
    for (;;) {
        struct iovec vector = {.iov_base = bytes, .iov_len = capacity};
        struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1,
                                 .msg_control = control.buffer, .msg_controllen = sizeof(control.buffer)};
        ssize_t received = recvmsg(fd, &message, MSG_CMSG_CLOEXEC | flags);
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

ssize_t afsys_receive_with_fds(int fd, void *bytes, size_t capacity, int *fds, size_t max_fds, size_t *fd_count) {
    return receive_with_fds(fd, bytes, capacity, fds, max_fds, fd_count, 0);
}

ssize_t afsys_receive_with_fds_now(int fd, void *bytes, size_t capacity, int *fds, size_t max_fds, size_t *fd_count) {
    return receive_with_fds(fd, bytes, capacity, fds, max_fds, fd_count, MSG_DONTWAIT);
}
