/*
 * autofill_sandbox.h — the provider sandbox's kernel calls: Landlock, seccomp (libseccomp), prctl, and a
 * helper's entry into the namespaces bubblewrap made (namespace_join.c).
 *
 * The host decides what a provider may reach (AutofillHost/Sandbox/SandboxPolicy.swift) and sends
 * it to the provider's helper process; the helper calls afs_apply once, while it is still
 * single-threaded and before the plugin's library is opened. Nothing here decides policy: it turns
 * a list of paths and a few switches into kernel rules. Everything is documented for users in
 * docs/SANDBOX.md, including the seccomp allowlist and why each call is on it.
 *
 * No function allocates memory the caller must free. Error text never contains anything but the
 * paths and numbers the caller passed in.
 */
#ifndef AUTOFILL_SANDBOX_H
#define AUTOFILL_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

/* What a path rule grants beneath its path (a file, or a folder and everything in it). */
#define AFS_READ 1u    /* read files; list folders */
#define AFS_WRITE 2u   /* write and truncate files; create, rename and remove files and folders */
#define AFS_EXECUTE 4u /* execve the file (or files beneath the folder) */

typedef struct afs_rule {
    const char *path; /* absolute, resolved; a missing path, or one with a link in it, is skipped (afs_report.skipped_rules) */
    uint32_t access;  /* AFS_READ | AFS_WRITE | AFS_EXECUTE */
} afs_rule;

/* Switches (afs_policy.flags). Without a switch, the thing is denied. */
#define AFS_ALLOW_INET 1u         /* AF_INET/AF_INET6 sockets (TCP connect only to tcp_ports, by Landlock), NETLINK_ROUTE */
#define AFS_ALLOW_UNIX_SOCKETS 2u /* socket(AF_UNIX) (the session bus, a program's agent) */
#define AFS_ALLOW_ABSTRACT_UNIX 4u /* connect to abstract Unix sockets outside the sandbox (a session bus may be one) */
#define AFS_ALLOW_EXEC 8u          /* fork, vfork, clone of processes (never into new namespaces), execve (Landlock still limits what) */

typedef struct afs_policy {
    const afs_rule *rules;
    size_t rule_count;
    const uint16_t *tcp_ports; /* TCP ports it may connect to (with AFS_ALLOW_INET); binding is always denied */
    size_t tcp_port_count;
    uint32_t flags;
} afs_policy;

typedef struct afs_report {
    int landlock_abi;       /* the Landlock ABI used (the kernel's, capped at what this file knows), 0 if none */
    int seccomp_rules;      /* rules in the seccomp filter (allowed calls and argument checks) */
    size_t skipped_rules;   /* rules whose path did not exist or held a link */
} afs_report;

/*
 * Opens `path` (absolute) as an O_PATH descriptor without following any symbolic link or /proc magic
 * link on the way (openat2 with RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS; one component at a time
 * with O_NOFOLLOW where openat2 is missing). Every Landlock rule is added on such a descriptor: the
 * host resolved the path before checking it, so a link there now was swapped in after the check, and
 * its rule is skipped (counted in afs_report.skipped_rules). The descriptor, or -1 with errno (ELOOP
 * for a link).
 */
int afs_open_grant(const char *path);

/*
 * Opens `name`, one component (no `/`, never `.` or `..`), in the folder `folder` (a descriptor)
 * without following a symbolic or magic link and without leaving `folder` (openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, and O_NOFOLLOW; openat with O_NOFOLLOW
 * where openat2 is missing). `mode` is used with O_CREAT. The host's writes into add-files folders
 * (FileGrantWriter) take every step with it. The descriptor, or -1 with errno (ELOOP for a link).
 */
int afs_open_beneath(int folder, const char *name, int flags, unsigned mode);

/* The kernel's Landlock ABI version, 0 when Landlock is missing or disabled. */
int afs_landlock_abi(void);

/* The highest Landlock ABI this file knows how to use. */
int afs_landlock_abi_supported(void);

/*
 * In the helper, single-threaded, before the plugin is opened: PR_SET_NO_NEW_PRIVS,
 * PR_SET_DUMPABLE 0, the Landlock ruleset of `policy` (every access right the ABI knows is
 * handled; signals and abstract Unix sockets scoped from ABI 6), then the seccomp allowlist (a call
 * not allowed fails with EPERM, one newer than libseccomp knows with ENOSYS).
 * Refuses (returns -1) when the process has more than one thread (a Landlock domain binds only
 * the calling thread on this kernel), when Landlock is missing and `require_landlock` is set, or
 * when any step fails; `error` then holds a sentence (at most `error_capacity` bytes, terminated).
 * On success returns 0 and fills `report`. There is no undo: the process stays sandboxed.
 */
int afs_apply(const afs_policy *policy, int require_landlock, afs_report *report, char *error, size_t error_capacity);

/*
 * In the host: PR_SET_DUMPABLE 0 (no ptrace attach, /proc/PID/mem or core dump by processes
 * that are not root), and PR_SET_NO_NEW_PRIVS when `no_new_privs` (which stops setuid helpers such
 * as PAM's unix_chkpwd from working: the host leaves it off when its policy is pam). 0, or -1 with errno.
 */
int afs_harden_host(int no_new_privs);

/*
 * In a helper that runs in namespaces bubblewrap made (docs/SANDBOX.md, "A helper in namespaces and
 * your other programs"), first thing, while single-threaded: PR_SET_DUMPABLE 0; wait until bubblewrap's
 * command echoes a byte into standard input (then /dev/null again); enter the user, mount, ipc, uts,
 * network, cgroup and (for children) pid namespaces and the root of that command, found below
 * `bubblewrap` (autofill's child, this process's sibling); and drop every capability entering them gave. The helper was
 * executed outside, so the kernel keeps judging who may ptrace it or read its memory in the initial
 * user namespace (mm->user_ns is fixed at execve): not the user's other programs, though they own the
 * sandbox's user namespace. 0, or -1 with errno and a sentence in `error`.
 */
int afs_join_namespaces(int bubblewrap, char *error, size_t error_capacity);

/*
 * After afs_join_namespaces: forks the helper that serves, a member of the pid namespace, and returns
 * 0 in it (it dies with this process: PR_SET_PDEATHSIG). This process closes descriptors 3 and 4,
 * waits for it and exits with its status, a signal N as 128 + N (as bubblewrap reports one), and never
 * returns. -1 with errno when fork fails.
 */
int afs_fork_into_namespaces(void);

#endif
