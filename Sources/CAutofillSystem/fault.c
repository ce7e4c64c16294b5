/* fault.c — the helper's async-signal-safe fault reporter and the host's answer (see include/autofill_system.h). */
#define _GNU_SOURCE
#include "autofill_system.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- The fault reporter ---- */

int afsys_answer_fault(int fd) {
    unsigned char answer = 1;
    return send(fd, &answer, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1 ? 0 : -1;
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

int afsys_install_fault_reporter(int fd) {
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
