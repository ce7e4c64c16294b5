/* descriptors.c — descriptors: pipes and socket pairs, flags, sending, waiting, limits, memfd (see include/autofill_system.h). */
#define _GNU_SOURCE
#include "autofill_system.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- Descriptors ---- */

int afsys_socketpair(int fds[2]) { return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds); }

int afsys_pipe(int fds[2], int nonblocking_read) {
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

ssize_t afsys_send(int fd, const void *bytes, size_t count) { return send(fd, bytes, count, MSG_NOSIGNAL); }

int afsys_set_cloexec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

int afsys_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

/* ---- Waiting ---- */

int afsys_wait_readable(int fd, int timeout_ms) {
    struct pollfd entry = {.fd = fd, .events = POLLIN};
    for (;;) {
        int ready = poll(&entry, 1, timeout_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return -1;
        return ready > 0 ? 1 : 0;
    }
}

int afsys_wait_either(int first, int second, int timeout_ms) {
    struct pollfd entries[2] = {{.fd = first, .events = POLLIN}, {.fd = second, .events = POLLIN}};
    for (;;) {
        int ready = poll(entries, 2, timeout_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return -1;
        return (entries[0].revents ? 1 : 0) | (entries[1].revents ? 2 : 0);
    }
}

/* ---- Flags and limits ---- */

int afsys_set_nonblocking(int fd, int on) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK));
}

int afsys_raise_descriptor_limit(uint64_t wanted) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    rlim_t target = (rlim_t)wanted < limit.rlim_max ? (rlim_t)wanted : limit.rlim_max;
    if (limit.rlim_cur >= target) return 0;
    limit.rlim_cur = target;
    return setrlimit(RLIMIT_NOFILE, &limit);
}
