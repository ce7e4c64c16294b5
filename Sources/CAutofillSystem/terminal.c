/* terminal.c — the terminal's size (see include/autofill_system.h). */
#define _GNU_SOURCE
#include "autofill_system.h"

#include <sys/ioctl.h>

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
