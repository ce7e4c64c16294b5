/* terminal.c — the terminal's size and the echo of a secret prompt (see include/autofill_system.h). */
#define _GNU_SOURCE
#include "autofill_system.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* ---- The terminal's width ---- */

int afsys_terminal_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 0;
    return size.ws_col;
}

int afsys_terminal_rows(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_row == 0) return 0;
    return size.ws_row;
}

/* ---- Echo ---- */

_Static_assert(sizeof(struct termios) <= AFSYS_TERMINAL_SETTINGS_SIZE, "afsys_terminal_settings holds a struct termios");

int afsys_terminal_get(int fd, afsys_terminal_settings *settings) {
    memset(settings, 0, sizeof *settings);
    return tcgetattr(fd, (struct termios *)settings->bytes);
}

int afsys_terminal_set(int fd, const afsys_terminal_settings *settings) {
    int status;
    do {
        status = tcsetattr(fd, TCSAFLUSH, (const struct termios *)settings->bytes);
    } while (status != 0 && errno == EINTR);
    return status;
}

int afsys_terminal_echoes(const afsys_terminal_settings *settings) {
    return (((const struct termios *)settings->bytes)->c_lflag & ECHO) != 0;
}

void afsys_terminal_without_echo(afsys_terminal_settings *settings, int echo_newline) {
    struct termios *raw = (struct termios *)settings->bytes;
    raw->c_lflag &= ~(tcflag_t)ECHO;
    if (echo_newline) raw->c_lflag |= ECHONL;
}

/* What the handler restores: written only while `armed` is 0, read by the handler when it is 1. */
static struct termios armed_settings;
static int armed_fd = -1;
static volatile sig_atomic_t armed = 0;
static volatile sig_atomic_t armed_newline = 0;
static int installed = 0, installed_hangup = 0;

static void restore_and_exit(int signal_number) {
    if (armed) {
        tcsetattr(armed_fd, TCSAFLUSH, &armed_settings);
        if (armed_newline) (void)!write(armed_fd, "\n", 1);
    }
    _exit(128 + signal_number);
}

int afsys_terminal_arm(int fd, const afsys_terminal_settings *settings, int write_newline, int with_hangup) {
    armed = 0;
    memcpy(&armed_settings, settings->bytes, sizeof armed_settings);
    armed_fd = fd;
    armed_newline = write_newline;
    armed = 1;
    if (installed) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = restore_and_exit;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGINT, &action, NULL) != 0 || sigaction(SIGTERM, &action, NULL) != 0) return -1;
    if (with_hangup && sigaction(SIGHUP, &action, NULL) != 0) return -1;
    installed = 1;
    installed_hangup = with_hangup;
    return 0;
}

void afsys_terminal_disarm(int restore_defaults) {
    armed = 0;
    if (!restore_defaults || !installed) return;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (installed_hangup) signal(SIGHUP, SIG_DFL);
    installed = installed_hangup = 0;
}
