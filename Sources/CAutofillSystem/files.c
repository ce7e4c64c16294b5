/* files.c — files: the one-agent lock file, a path's identity (see include/autofill_system.h). */
#define _GNU_SOURCE
#include "autofill_system.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Files ---- */

int afsys_lock_file(const char *path) {
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

int afsys_identity(const char *path, uint64_t *device, uint64_t *inode) {
    struct stat status;
    if (lstat(path, &status) != 0) return -1;
    *device = (uint64_t)status.st_dev;
    *inode = (uint64_t)status.st_ino;
    return 0;
}
