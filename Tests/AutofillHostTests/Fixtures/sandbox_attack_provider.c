/*
 * sandbox_attack_provider.c — a provider that attacks what a sandbox must keep from it, for the
 * tests of the provider sandbox (Tests/autofillCLITests/SandboxAttackTests.swift, docs/SANDBOX.md).
 *
 * At load it saves one password identity: service "attack.test", user "attacker". Its no-UI
 * password request runs the attack named by the setting "Attack" on the setting "Target" and
 * completes the fill with the result as the "password": "ok <detail>" or "denied <errno name>".
 * The test reads it from `autofill fill attack.test --format json`; the fill completing at all
 * proves the host was not stopped, frozen or killed.
 *
 * Attacks:
 *   read-file       open and read Target
 *   write-file      create Target (O_CREAT|O_WRONLY|O_APPEND) and write a line
 *   list-data       list its working folder (its data folder: must work)
 *   ptrace-parent   PTRACE_ATTACH the host (getppid()), then detach
 *   read-parent-mem open /proc/<host>/mem and read at a mapped address of the host
 *   signal-parent   kill(host, SIGWINCH): harmless if it lands
 *   open-tty        open /dev/tty (or Target, a terminal path) read-write
 *   fork-daemon     fork; the child tries setsid (reporting it through a pipe) and sleeps 60 s;
 *                   reports "ok fork <child pid> setsid <the child's result>"
 *   connect         TCP connect to 127.0.0.1:Target
 *   exec            fork + execv(Target) with no arguments; reports the child's exit status
 *   run             fork + /bin/sh -c Target; reports "ok ran, status N: <the first line of its output>"
 *   connect-unix    connect to the Unix socket at the path Target
 */
#define _GNU_SOURCE
#include "autofill_provider.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const af_host_services *host;
static char attack[64];
static char target[1024];

#define LIT(s) (s), sizeof(s) - 1

static void setting(const char *key, char *value, size_t capacity) {
    size_t length = 0;
    value[0] = '\0';
    if (host->get_setting(key, strlen(key), value, capacity - 1, &length) == AF_OK) value[length] = '\0';
}

static void denied(char *out, size_t size, const char *what) {
    snprintf(out, size, "denied %s %s", strerrorname_np(errno) ? strerrorname_np(errno) : "?", what);
}

static void run_attack(char *out, size_t size) {
    pid_t parent = getppid();
    if (strcmp(attack, "read-file") == 0) {
        int fd = open(target, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return denied(out, size, "open");
        char buffer[64] = {0};
        ssize_t count = read(fd, buffer, sizeof buffer - 1);
        close(fd);
        if (count < 0) return denied(out, size, "read");
        snprintf(out, size, "ok read %zd bytes", count);
    } else if (strcmp(attack, "write-file") == 0) {
        int fd = open(target, O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0600);
        if (fd < 0) return denied(out, size, "open");
        ssize_t count = write(fd, "attacked\n", 9);
        close(fd);
        if (count < 0) return denied(out, size, "write");
        snprintf(out, size, "ok wrote");
    } else if (strcmp(attack, "list-data") == 0) {
        DIR *folder = opendir(".");
        if (!folder) return denied(out, size, "opendir");
        int entries = 0;
        while (readdir(folder)) entries++;
        closedir(folder);
        snprintf(out, size, "ok listed %d", entries);
    } else if (strcmp(attack, "ptrace-parent") == 0) {
        if (ptrace(PTRACE_ATTACH, parent, NULL, NULL) != 0) return denied(out, size, "ptrace");
        waitpid(parent, NULL, __WALL);
        ptrace(PTRACE_DETACH, parent, NULL, NULL);
        snprintf(out, size, "ok attached");
    } else if (strcmp(attack, "read-parent-mem") == 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/maps", (int)parent);
        unsigned long start = 0;
        FILE *maps = fopen(path, "r");
        if (maps) {
            if (fscanf(maps, "%lx-", &start) != 1) start = 0;
            fclose(maps);
        }
        snprintf(path, sizeof path, "/proc/%d/mem", (int)parent);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return denied(out, size, "open");
        char byte;
        ssize_t count = pread(fd, &byte, 1, (off_t)start);
        close(fd);
        if (count != 1) return denied(out, size, "pread");
        snprintf(out, size, "ok read the host's memory");
    } else if (strcmp(attack, "signal-parent") == 0) {
        if (kill(parent, SIGWINCH) != 0) return denied(out, size, "kill");
        snprintf(out, size, "ok signalled");
    } else if (strcmp(attack, "open-tty") == 0) {
        int fd = open(target[0] ? target : "/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) return denied(out, size, "open");
        close(fd);
        snprintf(out, size, "ok opened");
    } else if (strcmp(attack, "fork-daemon") == 0) {
        int report[2];
        if (pipe2(report, O_CLOEXEC) != 0) return denied(out, size, "pipe");
        pid_t child = fork();
        if (child < 0) return denied(out, size, "fork");
        if (child == 0) {
            /* Leave the helper's session and group, as a daemon does, and say how that went. */
            const char *result = setsid() < 0 ? (strerrorname_np(errno) ? strerrorname_np(errno) : "?") : "ok";
            ssize_t ignored = write(report[1], result, strlen(result));
            (void)ignored;
            close(report[1]);
            for (int i = 0; i < 600; i++) usleep(100000);
            _exit(0);
        }
        close(report[1]);
        char session[32] = {0};
        ssize_t count = read(report[0], session, sizeof session - 1);
        close(report[0]);
        if (count <= 0) snprintf(session, sizeof session, "?");
        snprintf(out, size, "ok fork %d setsid %s", (int)child, session);
    } else if (strcmp(attack, "connect") == 0) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return denied(out, size, "socket");
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(target))};
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int status = connect(fd, (struct sockaddr *)&address, sizeof address);
        int code = errno;
        close(fd);
        errno = code;
        if (status != 0) return denied(out, size, "connect");
        snprintf(out, size, "ok connected");
    } else if (strcmp(attack, "exec") == 0) {
        pid_t child = fork();
        if (child < 0) return denied(out, size, "fork");
        if (child == 0) {
            char *const argv[] = {target, NULL};
            execv(target, argv);
            _exit(errno == EACCES ? 126 : errno == EPERM ? 125 : 127);
        }
        int status = 0;
        waitpid(child, &status, 0);
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (code == 126 || code == 125) {
            errno = code == 126 ? EACCES : EPERM;
            return denied(out, size, "execv");
        }
        snprintf(out, size, "ok ran, status %d", code);
    } else if (strcmp(attack, "run") == 0) {
        int output[2];
        if (pipe2(output, O_CLOEXEC) != 0) return denied(out, size, "pipe");
        pid_t child = fork();
        if (child < 0) return denied(out, size, "fork");
        if (child == 0) {
            dup2(output[1], 1);
            dup2(output[1], 2);
            char *const argv[] = {"sh", "-c", target, NULL};
            execv("/bin/sh", argv);
            _exit(errno == EACCES ? 126 : 127);
        }
        close(output[1]);
        char text[256] = {0};
        size_t used = 0;
        ssize_t count;
        while (used < sizeof text - 1 && (count = read(output[0], text + used, sizeof text - 1 - used)) > 0) used += (size_t)count;
        close(output[0]);
        int status = 0;
        waitpid(child, &status, 0);
        text[strcspn(text, "\n")] = '\0';
        snprintf(out, size, "ok ran, status %d: %s", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), text);
    } else if (strcmp(attack, "connect-unix") == 0) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return denied(out, size, "socket");
        struct sockaddr_un address = {.sun_family = AF_UNIX};
        if (strlen(target) >= sizeof address.sun_path) {
            close(fd);
            errno = ENAMETOOLONG;
            return denied(out, size, "connect");
        }
        memcpy(address.sun_path, target, strlen(target) + 1);
        int status = connect(fd, (struct sockaddr *)&address, sizeof address);
        int code = errno;
        close(fd);
        errno = code;
        if (status != 0) return denied(out, size, "connect");
        snprintf(out, size, "ok connected");
    } else {
        snprintf(out, size, "unknown attack %s", attack);
    }
}

static void provide(void *context, af_request_id request, const af_credential_request *credential_request) {
    (void)context;
    (void)credential_request;
    char result[512];
    run_attack(result, sizeof result);
    host->complete_password(request, LIT("attacker"), result, strlen(result));
}

/* The UI and list entry points ProvidesPasswords requires: they do the same, without any UI. */
static void provide_with_ui(void *context, af_request_id request, const af_credential_request *credential_request) {
    provide(context, request, credential_request);
}

static void list(void *context, af_request_id request, const af_service_identifier *services, size_t count) {
    (void)context;
    (void)services;
    (void)count;
    host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
}

static af_provider table = {
    .abi_version = AF_ABI_VERSION,
    .size = sizeof(af_provider),
    .context = NULL,
    .prepare_credential_list = list,
    .provide_credential_without_user_interaction = provide,
    .prepare_interface_to_provide_credential = provide_with_ui,
};

AF_EXPORT const af_provider *attack_provider_entry(uint32_t host_abi_version, const af_host_services *services) {
    if (host_abi_version != AF_ABI_VERSION || services == NULL) return NULL;
    host = services;
    setting("Attack", attack, sizeof attack);
    setting("Target", target, sizeof target);
    af_identity identity = {0};
    identity.kind = AF_IDENTITY_PASSWORD;
    identity.service_type = AF_SERVICE_DOMAIN;
    identity.service = (af_str){LIT("attack.test")};
    identity.user = (af_str){LIT("attacker")};
    host->store_save(&identity, 1);
    return &table;
}
