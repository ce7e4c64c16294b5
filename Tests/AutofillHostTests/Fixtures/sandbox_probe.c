/*
 * sandbox_probe.c — applies the sandbox (autofill_sandbox.c and seccomp_filter.c, compiled in) with a small policy and
 * runs one check, for what the CLI path cannot reach (Tests/AutofillHostTests/SandboxEnforcementTests.swift):
 *   tiocsti      TIOCSTI on a pseudo-terminal opened before the sandbox
 *   threads      a thread started after the sandbox (clone3 is ENOSYS, glibc falls back to clone)
 *   two-threads  afs_apply called while a second thread runs: refused
 *   bpf, keyctl, userfaultfd, unshare, io_uring, bind
 * With a second argument "unsandboxed", the same check runs without the sandbox (the control).
 * Prints one line: "ok …" or "denied <errno name>" (or the refusal), exit 0.
 */
#define _GNU_SOURCE
#include "autofill_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *idle(void *unused) {
    (void)unused;
    sleep(5);
    return NULL;
}

static void *nothing(void *unused) { return unused; }

static int report(long result, const char *what) {
    if (result < 0) printf("denied %s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "?");
    else printf("ok %s\n", what);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 64;
    const char *check = argv[1];
    int master = -1, terminal = -1;
    if (strcmp(check, "tiocsti") == 0) {
        master = posix_openpt(O_RDWR | O_NOCTTY);
        if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return 70;
        terminal = open(ptsname(master), O_RDWR | O_NOCTTY);
        if (terminal < 0) return 70;
    }
    if (strcmp(check, "two-threads") == 0) {
        pthread_t thread;
        pthread_create(&thread, NULL, idle, NULL);
    }
    afs_rule rules[] = {{"/usr", AFS_READ}, {"/lib", AFS_READ}, {"/lib64", AFS_READ}};
    afs_policy policy = {.rules = rules, .rule_count = 3, .flags = AFS_ALLOW_INET};
    afs_report result;
    char error[512];
    int sandboxed = !(argc > 2 && strcmp(argv[2], "unsandboxed") == 0); /* the control: the same check without it */
    memset(&result, 0, sizeof result);
    if (sandboxed && afs_apply(&policy, 1, &result, error, sizeof error) != 0) {
        printf("refused: %s\n", error);
        return 0;
    }
    if (strcmp(check, "tiocsti") == 0) {
        char byte = 'x';
        return report(ioctl(terminal, TIOCSTI, &byte), "typed into the terminal");
    }
    if (strcmp(check, "threads") == 0) {
        pthread_t thread;
        int status = pthread_create(&thread, NULL, nothing, NULL);
        if (status == 0) pthread_join(thread, NULL);
        errno = status;
        return report(status == 0 ? 0 : -1, "started a thread");
    }
    if (strcmp(check, "bpf") == 0) return report(syscall(SYS_bpf, 0, NULL, 0), "bpf");
    if (strcmp(check, "keyctl") == 0) return report(syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0), "keyctl");
    if (strcmp(check, "userfaultfd") == 0) return report(syscall(SYS_userfaultfd, 0), "userfaultfd");
    if (strcmp(check, "unshare") == 0) return report(unshare(CLONE_NEWUSER), "unshare");
    if (strcmp(check, "io_uring") == 0) return report(syscall(SYS_io_uring_setup, 1, calloc(1, 120)), "io_uring_setup");
    if (strcmp(check, "bind") == 0) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) return report(-1, "socket");
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        return report(bind(fd, (struct sockaddr *)&address, sizeof address), "bound a port");
    }
    if (strcmp(check, "abi") == 0) {
        printf("ok abi %d\n", result.landlock_abi);
        return 0;
    }
    return 64;
}
