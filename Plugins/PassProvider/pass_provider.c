/*
 * pass_provider.c — an autofill provider for the standard Unix password
 * manager, pass (https://www.passwordstore.org): passwords and one-time codes
 * from a store of GPG-encrypted files, decrypted with gpgme.
 *
 * Written as a third party would write one: plain C11 with POSIX, against
 * autofill_provider.h, gpgme (decryption) and libgcrypt (the HMAC of one-time
 * codes; every gpg installation has it). Build it, then put the library next
 * to this directory's Info.plist in the bundle:
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
 *      -I<autofill>/Sources/CAutofillProvider/include -I<autofill>/Plugins/Common \
 *      pass_provider.c <autofill>/Plugins/Common/af_provider_util.c \
 *      -o libPassProvider.so -lgpgme -lgcrypt
 *
 * The store is the setting PasswordStoreDir, else $PASSWORD_STORE_DIR, else
 * ~/.password-store; GnuPG's home is the setting GnuPGHome, else $GNUPGHOME,
 * else ~/.gnupg (the variables only when absolute: the order Info.plist
 * declares, so the sandbox grants exactly the folders the provider opens). An entry is a file NAME.gpg beneath the store, laid out as
 * pass users do: the first line is the password; later lines may say
 * `login:`, `user:`, `username:`, `email:` (the user) and `url:` (the site),
 * and an `otpauth://totp/...` line (pass-otp) gives one-time codes.
 *
 * What is published (the identities the host keeps, never a secret):
 *   - for every entry whose path names a site (a component that looks like a
 *     domain: `github.com/octocat` → github.com, user octocat;
 *     `example.com` → example.com, user unknown): a password identity with
 *     that service and user, and the entry's name as record identifier;
 *   - once the user has had an entry decrypted through autofill, what that
 *     decryption showed of it, kept in identities.tsv in the provider's data
 *     folder: the user (`login:` …), the host of `url:` (scheme and host only:
 *     a query might hold a token) and whether it has an otpauth:// line, with
 *     the file's size and modification time (a changed file is forgotten).
 *     Never a password, a one-time-code secret, or any other line.
 *
 * Decrypting needs gpg-agent running for that GnuPG home (a desktop session
 * starts it; `gpgconf --launch gpg-agent` does too): inside its sandbox the
 * provider can run gpg but cannot start a daemon that outlives it. A no-UI
 * request decrypts only if gpg-agent has the key's passphrase cached, and
 * otherwise answers userInteractionRequired; a UI request asks the passphrase
 * through the host (ui_prompt, secret) and hands it to gpg-agent with the
 * loopback pinentry, which then caches it as usual.
 *
 * Every request is answered before its entry point returns.
 */
#define _DEFAULT_SOURCE /* strdup, O_CLOEXEC, fstatat, dirfd */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gcrypt.h>
#include <gpgme.h>

#include "autofill_provider.h"
#include "af_provider_util.h"

#define PASS_MAX_ENTRY_SIZE (1024u * 1024u) /* decrypted text, and the encrypted file */
#define PASS_MAX_ENTRIES 100000u
#define PASS_MAX_DEPTH 32
#define PASS_MAX_PASSPHRASE 1024u
#define PASS_PASSPHRASE_TRIES 3
#define PASS_CACHE_FILE "identities.tsv"

extern char **environ;

/* One .gpg file of the store, and what is known of it without decrypting. */
typedef struct {
    char *name;         /* relative path without .gpg: "github.com/octocat" */
    char *path_service; /* lower-cased domain the path names, or NULL */
    char *path_user;    /* the file name when a folder names the domain, or NULL */
    long long mtime_ns, size;
    /* From the cache (a decryption the user made), or NULL / -1 when unknown. */
    char *known_user, *known_site;
    int known_otp; /* 1 has an otpauth line, 0 has none, -1 unknown */
} entry;

typedef struct {
    entry *items;
    size_t count, capacity;
    char *root; /* the store folder */
    int missing; /* the folder is not there (or cannot be read) */
} store;

typedef struct {
    const af_host_services *host;
    char *agent_home, *agent_socket; /* the last gpgconf answer, for this GnuPG home */
} provider_state;

static provider_state state; /* written by the entry function; entry points run one at a time */

/* ---- Small helpers -------------------------------------------------- */

/* A line that may be published or cached: UTF-8 without control characters. */
static int is_plain(const char *s, size_t len) {
    if (!afu_utf8_valid(s, len)) return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7F) return 0;
    return 1;
}

/* Why a ui_* call did not answer, for a reason the user reads. */
static const char *ui_trouble(af_status s) {
    return s == AF_STATUS_UI_UNAVAILABLE ? "no terminal or UI script to ask in" : s == AF_STATUS_UI_CANCELED ? "cancelled" : "the host refused the question";
}

/* ---- Settings and folders ------------------------------------------- */

/* The setting, else the environment variable, else $HOME/fallback; NULL without HOME. */
static char *folder_from(const char *key, const char *variable, const char *fallback) {
    char *value;
    const char *env = getenv(variable), *home = getenv("HOME");
    if (afu_setting(state.host, key, &value) == AF_OK) return value;
    if (env && *env == '/') return strdup(env); /* as the sandbox resolves it: absolute paths only */
    if (!home || !*home) return NULL;
    return afu_join(home, fallback);
}

static char *store_folder(void) { return folder_from("PasswordStoreDir", "PASSWORD_STORE_DIR", "/.password-store"); }
static char *gnupg_home(void) { return folder_from("GnuPGHome", "GNUPGHOME", "/.gnupg"); }

/* ---- Names: what a path says about the site and the user ------------- */

/* A path component that reads as a host name: letters, digits, '-', '.' (and
 * UTF-8 for international names), with a dot inside and no empty label. */
static int looks_like_domain(const char *s, size_t len) {
    int dot = 0;
    if (len < 3 || s[0] == '.' || s[len - 1] == '.' || s[0] == '-') return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '.') {
            if (s[i + 1] == '.') return 0;
            dot = 1;
        } else if (!(c >= 0x80 || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            return 0;
        }
    }
    return dot && afu_utf8_valid(s, len);
}

/* `github.com/octocat` → github.com + octocat; `example.com` → example.com;
 * `work/github.com/octocat` → github.com + octocat; `Email/work` → nothing. */
static void name_site(entry *e) {
    const char *name = e->name, *last = strrchr(name, '/');
    const char *file = last ? last + 1 : name;
    if (looks_like_domain(file, strlen(file))) {
        e->path_service = afu_lower_copy(file, strlen(file));
        return;
    }
    for (const char *end = last; end && end > name;) { /* folders, the deepest first */
        const char *start = end;
        while (start > name && start[-1] != '/') start--;
        if (looks_like_domain(start, (size_t)(end - start))) {
            e->path_service = afu_lower_copy(start, (size_t)(end - start));
            if (*file && is_plain(file, strlen(file))) e->path_user = strdup(file);
            return;
        }
        end = start > name ? start - 1 : NULL;
    }
}

/* The site to publish: what the entry's url: said, else what its path says. */
static const char *entry_site(const entry *e) { return e->known_site ? e->known_site : e->path_service; }
static const char *entry_user(const entry *e) {
    return e->known_user ? e->known_user : e->path_user ? e->path_user : "";
}

/* ---- Walking the store ----------------------------------------------- */

static void entry_free(entry *e) {
    free(e->name), free(e->path_service), free(e->path_user), free(e->known_user), free(e->known_site);
    memset(e, 0, sizeof *e);
}

static void store_free(store *s) {
    for (size_t i = 0; i < s->count; i++) entry_free(&s->items[i]);
    free(s->items);
    free(s->root);
    memset(s, 0, sizeof *s);
}

static int add_entry(store *s, const char *relative, size_t len, const struct stat *sb) {
    if (s->count == PASS_MAX_ENTRIES) return -1;
    if (s->count == s->capacity) {
        size_t capacity = s->capacity ? 2 * s->capacity : 64;
        entry *items = realloc(s->items, capacity * sizeof *items);
        if (!items) return -1;
        s->items = items, s->capacity = capacity;
    }
    entry *e = &s->items[s->count];
    memset(e, 0, sizeof *e);
    if (!(e->name = malloc(len + 1))) return -1;
    memcpy(e->name, relative, len);
    e->name[len] = '\0';
    e->mtime_ns = (long long)sb->st_mtim.tv_sec * 1000000000LL + sb->st_mtim.tv_nsec;
    e->size = (long long)sb->st_size;
    e->known_otp = -1;
    name_site(e);
    s->count++;
    return 0;
}

/* Adds every NAME.gpg beneath the folder `fd` (which it closes); `prefix` is its relative path. */
static void walk(store *s, int fd, char *prefix, size_t prefix_len, int depth) {
    DIR *dir = fdopendir(fd);
    struct dirent *d;
    if (!dir) {
        close(fd);
        return;
    }
    while ((d = readdir(dir))) {
        size_t len = strlen(d->d_name);
        struct stat sb;
        if (d->d_name[0] == '.') continue; /* ., .., .git, .gpg-id, .extensions */
        if (prefix_len + len + 2 > 4096 || fstatat(dirfd(dir), d->d_name, &sb, 0) != 0) continue;
        memcpy(prefix + prefix_len, d->d_name, len + 1);
        if (S_ISDIR(sb.st_mode) && depth < PASS_MAX_DEPTH) {
            int sub = openat(dirfd(dir), d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
            prefix[prefix_len + len] = '/';
            if (sub >= 0) walk(s, sub, prefix, prefix_len + len + 1, depth + 1);
        } else if (S_ISREG(sb.st_mode) && len > 4 && strcmp(d->d_name + len - 4, ".gpg") == 0) {
            if (add_entry(s, prefix, prefix_len + len - 4, &sb) != 0) break;
        }
    }
    closedir(dir);
}

static int by_name(const void *a, const void *b) { return strcmp(((const entry *)a)->name, ((const entry *)b)->name); }

static void cache_load(store *s);

/* Reads the store's file names (not their contents) and what the cache knows of them. */
static void store_load(store *s) {
    char prefix[4096];
    memset(s, 0, sizeof *s);
    if (!(s->root = store_folder())) {
        afu_log(state.host, AF_LOG_WARNING, "neither PasswordStoreDir, PASSWORD_STORE_DIR nor HOME is set; no password store to read");
        s->missing = 1;
        return;
    }
    int fd = open(s->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        s->missing = 1;
        afu_log(state.host, errno == ENOENT ? AF_LOG_INFO : AF_LOG_WARNING, "cannot open the password store %s (errno %d)", s->root, errno);
        return;
    }
    walk(s, fd, prefix, 0, 0);
    qsort(s->items, s->count, sizeof *s->items, by_name);
    cache_load(s);
}

static entry *store_find(store *s, const char *name, size_t len) {
    for (size_t i = 0; i < s->count; i++)
        if (strlen(s->items[i].name) == len && memcmp(s->items[i].name, name, len) == 0) return &s->items[i];
    return NULL;
}

/* ---- The identity cache (non-secret; see the top of this file) -------- */

/* The cache file in the provider's own data folder, or NULL when it has none (run in process). */
static char *cache_path(void) {
    const char *data = getenv("AUTOFILL_PROVIDER_DATA_DIR");
    return data && *data == '/' ? afu_join(data, "/" PASS_CACHE_FILE) : NULL;
}

/* Splits `line` at tabs into at most `max` fields; returns how many. */
static int split_tabs(char *line, char **fields, int max) {
    int n = 0;
    for (char *p = line; n < max; n++) {
        fields[n] = p;
        if (!(p = strchr(p, '\t'))) return n + 1;
        *p++ = '\0';
    }
    return n;
}

/* Format: "# autofill pass cache 1\t<store>" then "<name>\t<mtime ns>\t<size>\t<user>\t<site>\t<otp>". */
static void cache_load(store *s) {
    char *path = cache_path(), line[8192];
    FILE *f = path ? fopen(path, "re") : NULL;
    free(path);
    if (!f) return;
    int first = 1, same_store = 0;
    while (fgets(line, sizeof line, f)) {
        char *fields[6];
        line[strcspn(line, "\n")] = '\0';
        if (first) {
            first = 0;
            same_store = split_tabs(line, fields, 2) == 2 && strcmp(fields[0], "# autofill pass cache 1") == 0 &&
                         strcmp(fields[1], s->root) == 0;
            if (!same_store) break; /* another store's cache: forgotten */
            continue;
        }
        if (split_tabs(line, fields, 6) != 6) continue;
        entry *e = store_find(s, fields[0], strlen(fields[0]));
        if (!e || atoll(fields[1]) != e->mtime_ns || atoll(fields[2]) != e->size) continue; /* changed since */
        if (*fields[3]) e->known_user = strdup(fields[3]);
        if (*fields[4]) e->known_site = strdup(fields[4]);
        e->known_otp = fields[5][0] == '1';
    }
    fclose(f);
}

/* Writes the cache atomically (a temporary file renamed over it). */
static void cache_save(const store *s) {
    char *path = cache_path(), *temporary = path ? afu_join(path, ".new") : NULL;
    FILE *f = temporary ? fopen(temporary, "we") : NULL;
    int ok = f != NULL;
    if (f) fchmod(fileno(f), 0600);
    if (ok) ok = fprintf(f, "# autofill pass cache 1\t%s\n", s->root) > 0;
    for (size_t i = 0; ok && i < s->count; i++) {
        const entry *e = &s->items[i];
        if (e->known_otp < 0 || strchr(e->name, '\t') || strchr(e->name, '\n')) continue;
        ok = fprintf(f, "%s\t%lld\t%lld\t%s\t%s\t%d\n", e->name, e->mtime_ns, e->size, e->known_user ? e->known_user : "",
                     e->known_site ? e->known_site : "", e->known_otp) > 0;
    }
    if (f && fclose(f) != 0) ok = 0;
    if (ok && rename(temporary, path) != 0) ok = 0;
    if (!ok && path) afu_log(state.host, AF_LOG_WARNING, "cannot write %s (errno %d); decrypted entries are not remembered", path, errno);
    if (!ok && temporary) unlink(temporary);
    free(path), free(temporary);
}

/* ---- Identities -------------------------------------------------------- */

static void publish_identities(const store *s) {
    const af_host_services *host = state.host;
    size_t n = 0;
    af_identity *ids = calloc(2 * s->count + 1, sizeof *ids);
    if (!ids) {
        afu_log(state.host, AF_LOG_ERROR, "out of memory; no identities published");
        return;
    }
    for (size_t i = 0; i < s->count; i++) {
        const entry *e = &s->items[i];
        const char *site = entry_site(e), *user = entry_user(e);
        if (!site || !is_plain(e->name, strlen(e->name))) continue;
        af_identity id = {.kind = AF_IDENTITY_PASSWORD, .service_type = AF_SERVICE_DOMAIN, .service = {site, strlen(site)},
                          .user = {user, strlen(user)}, .record_identifier = {e->name, strlen(e->name)}};
        ids[n++] = id;
        if (e->known_otp == 1) { /* the label: the user, else the entry's name */
            id.kind = AF_IDENTITY_ONE_TIME_CODE;
            if (!*user) id.user = id.record_identifier;
            ids[n++] = id;
        }
    }
    af_status st = host->store_replace(n ? ids : NULL, n); /* n == 0 also clears stale ones */
    if (st == AF_OK) afu_log(state.host, AF_LOG_INFO, "published %zu identities from %zu entries of %s", n, s->count, s->root);
    else afu_log(state.host, AF_LOG_DEBUG, "store_replace failed (status %d); identities not published", (int)st);
    free(ids);
}

/* ---- gpg-agent -------------------------------------------------------- */

/* Runs `gpgconf --homedir HOME --list-dirs agent-socket`; the socket path, malloc'd, or NULL. */
static char *agent_socket_of(const char *home) {
    char out[4096];
    size_t len = 0;
    int fds[2];
    pid_t pid;
    posix_spawn_file_actions_t actions;
    char *argv[] = {"gpgconf", "--homedir", (char *)home, "--list-dirs", "agent-socket", NULL};
    if (pipe(fds) != 0) return NULL;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    int spawned = posix_spawnp(&pid, "gpgconf", &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    for (ssize_t n = 1; spawned == 0 && n > 0 && len < sizeof out - 1;)
        if ((n = read(fds[0], out + len, sizeof out - 1 - len)) > 0) len += (size_t)n;
        else if (n < 0 && errno == EINTR) n = 1;
    close(fds[0]);
    int status = 0;
    if (spawned == 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (spawned != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || len == 0) return NULL;
    out[len] = '\0';
    out[strcspn(out, "\n")] = '\0';
    /* gpgconf percent-escapes some characters (%3a for ':'): undo it. */
    char *p = out, *q = out;
    for (; *p; p++) {
        unsigned hi, lo;
        if (*p == '%' && sscanf(p + 1, "%1x%1x", &hi, &lo) == 2) *q++ = (char)(hi * 16 + lo), p += 2;
        else *q++ = *p;
    }
    *q = '\0';
    return strdup(out);
}

/* Whether gpg-agent listens for GnuPG home `home`. Without one, gpg would try to start it, which
 * the sandbox forbids (it would outlive the provider), and wait seconds for it. */
static int agent_running(const char *home, char **socket_out) {
    if (!state.agent_home || strcmp(state.agent_home, home) != 0) {
        free(state.agent_home), free(state.agent_socket);
        state.agent_home = strdup(home);
        state.agent_socket = agent_socket_of(home);
    }
    *socket_out = state.agent_socket;
    if (!state.agent_socket) return 0;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(state.agent_socket) >= sizeof address.sun_path) return 0;
    strcpy(address.sun_path, state.agent_socket);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), ok = 0;
    if (fd >= 0) ok = connect(fd, (struct sockaddr *)&address, sizeof address) == 0;
    if (fd >= 0) close(fd);
    return ok;
}

/* ---- Decrypting --------------------------------------------------------- */

/* Where gpgme writes the plaintext: our buffer, wiped whenever it moves or is freed. */
static ssize_t plain_write(void *handle, const void *data, size_t size) {
    afu_buf *b = handle;
    if (size > PASS_MAX_ENTRY_SIZE - b->len) {
        errno = EFBIG;
        return -1;
    }
    char *bigger = malloc(b->len + size + 1);
    if (!bigger) {
        errno = ENOMEM;
        return -1;
    }
    if (b->len) memcpy(bigger, b->data, b->len);
    memcpy(bigger + b->len, data, size);
    afu_buf_free(&(afu_buf){b->data, b->len});
    b->data = bigger;
    b->len += size;
    b->data[b->len] = '\0';
    return (ssize_t)size;
}

typedef struct {
    af_request_id request;
    int may_ask;     /* a UI request: ask through ui_prompt; otherwise refuse */
    int asked;       /* gpg wanted the passphrase */
    int answered;    /* ... and we gave one */
    int tries;       /* passphrases given in this request */
    int ui_status;   /* the ui_prompt status that stopped us, or AF_OK */
    const char *entry_name;
} passphrase_ask;

static gpgme_error_t passphrase_cb(void *hook, const char *uid_hint, const char *info, int prev_was_bad, int fd) {
    static const char title[] = "Unlock your GnuPG key";
    passphrase_ask *ask = hook;
    char message[768], key[256], name[256], answer[PASS_MAX_PASSPHRASE + 1];
    size_t answer_len = 0;
    (void)info;
    ask->asked = 1;
    if (!ask->may_ask) return gpg_error(GPG_ERR_CANCELED);
    /* uid_hint is "LONGKEYID User Name <email>": names the key, so the user knows which passphrase. */
    const char *space = uid_hint ? strchr(uid_hint, ' ') : NULL;
    snprintf(key, sizeof key, "%s", space ? space + 1 : uid_hint ? uid_hint : "");
    snprintf(name, sizeof name, "%s", ask->entry_name);
    afu_sanitize(key, strlen(key)), afu_sanitize(name, strlen(name));
    int n = snprintf(message, sizeof message, "%sPassphrase of the GnuPG key %s%sto decrypt %s",
                     prev_was_bad || ask->tries > 0 ? "Wrong passphrase; try again. " : "", key, *key ? " " : "", name);
    size_t message_len = n < 0 ? 0 : (size_t)n < sizeof message ? (size_t)n : sizeof message - 1;
    af_status s = state.host->ui_prompt(ask->request, title, sizeof title - 1, message, message_len, AF_UI_PROMPT_SECRET,
                                        answer, PASS_MAX_PASSPHRASE, &answer_len);
    if (s != AF_OK) {
        ask->ui_status = s;
        return gpg_error(GPG_ERR_CANCELED);
    }
    answer[answer_len] = '\n';
    int written = gpgme_io_writen(fd, answer, answer_len + 1);
    afu_wipe(answer, sizeof answer);
    ask->answered = 1;
    ask->tries++;
    return written == 0 ? 0 : gpg_error_from_syserror();
}

typedef enum { DECRYPTED, LOCKED, FAILED } decrypt_result;

static void describe_recipients(gpgme_ctx_t ctx, char *out, size_t capacity) {
    gpgme_decrypt_result_t result = gpgme_op_decrypt_result(ctx);
    size_t used = 0;
    out[0] = '\0';
    for (gpgme_recipient_t r = result ? result->recipients : NULL; r && used + 24 < capacity; r = r->next) {
        int n = snprintf(out + used, capacity - used, "%s0x%s", used ? ", " : "", r->keyid ? r->keyid : "?");
        if (n > 0) used += (size_t)n;
    }
    if (!used) snprintf(out, capacity, "a key");
}

/* Decrypts `e` into `plain`. On failure the request is cancelled (LOCKED: userInteractionRequired). */
static decrypt_result decrypt(const store *s, const entry *e, af_request_id request, int may_ask, afu_buf *plain) {
    char *home = gnupg_home(), *socket_path = NULL, *path = NULL, keys[256];
    decrypt_result result = FAILED;
    gpgme_ctx_t ctx = NULL;
    gpgme_data_t cipher = NULL, out = NULL;
    struct gpgme_data_cbs cbs = {NULL, plain_write, NULL, NULL};
    passphrase_ask ask = {.request = request, .may_ask = may_ask, .ui_status = AF_OK, .entry_name = e->name};
    gpgme_error_t err;
    int fd = -1;

    if (!home) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: neither GnuPGHome, GNUPGHOME nor HOME is set", e->name);
        return FAILED;
    }
    if (!agent_running(home, &socket_path)) {
        afu_cancel(state.host, request, AF_ERROR_FAILED,
               "cannot decrypt %s: gpg-agent is not running for the GnuPG home %s%s%s; start it with "
               "`gpgconf --launch gpg-agent` (a provider's sandbox cannot start it)",
               e->name, home, socket_path ? " (no agent at " : "", socket_path ? socket_path : "");
        goto done;
    }
    if (!(path = malloc(strlen(s->root) + strlen(e->name) + 6))) goto oom;
    sprintf(path, "%s/%s.gpg", s->root, e->name);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        afu_cancel(state.host, request, AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND, "the entry %s is no longer in the password store %s",
               e->name, s->root);
        goto done;
    }
    if ((err = gpgme_new(&ctx)) || (err = gpgme_set_protocol(ctx, GPGME_PROTOCOL_OpenPGP)) ||
        (err = gpgme_ctx_set_engine_info(ctx, GPGME_PROTOCOL_OpenPGP, NULL, home)) ||
        (err = gpgme_set_pinentry_mode(ctx, GPGME_PINENTRY_MODE_LOOPBACK)) || (err = gpgme_data_new_from_fd(&cipher, fd)) ||
        (err = gpgme_data_new_from_cbs(&out, &cbs, plain))) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: gpgme: %s", e->name, gpgme_strerror(err));
        goto done;
    }
    gpgme_set_passphrase_cb(ctx, passphrase_cb, &ask);
    for (;;) {
        err = gpgme_op_decrypt(ctx, cipher, out);
        int bad = gpgme_err_code(err) == GPG_ERR_BAD_PASSPHRASE ||
                  (ask.answered && gpgme_err_code(err) != GPG_ERR_CANCELED && gpgme_err_code(err) != GPG_ERR_NO_ERROR);
        if (!bad || ask.tries >= PASS_PASSPHRASE_TRIES || ask.ui_status != AF_OK) break;
        afu_buf_free(plain); /* ask again: gpg-agent's loopback asks once per decryption */
        gpgme_data_seek(cipher, 0, SEEK_SET);
        ask.answered = 0;
    }
    gpgme_error_t code = gpgme_err_code(err);
    if (!err) {
        result = DECRYPTED;
    } else if (ask.ui_status == AF_STATUS_UI_CANCELED) {
        state.host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
    } else if (ask.asked && !may_ask) {
        afu_cancel(state.host, request, AF_ERROR_USER_INTERACTION_REQUIRED, "%s: gpg-agent has not cached the passphrase of its key",
               e->name);
        result = LOCKED;
    } else if (ask.ui_status != AF_OK) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "decrypting %s needs your key's passphrase, and autofill could not ask (%s)", e->name,
               ui_trouble(ask.ui_status));
    } else if (ask.answered || code == GPG_ERR_BAD_PASSPHRASE) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: wrong passphrase (%d tries)", e->name, ask.tries);
    } else if (code == GPG_ERR_NO_SECKEY) {
        describe_recipients(ctx, keys, sizeof keys);
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: it is encrypted to %s, whose secret key is not in the GnuPG home %s",
               e->name, keys, home);
    } else if (code == GPG_ERR_NO_DATA) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: %s is not OpenPGP data", e->name, path);
    } else {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: %s", e->name, gpgme_strerror(err));
    }
    goto done;
oom:
    afu_cancel(state.host, request, AF_ERROR_FAILED, "out of memory");
done:
    if (result != DECRYPTED) afu_buf_free(plain);
    gpgme_data_release(out);
    gpgme_data_release(cipher);
    gpgme_release(ctx);
    if (fd >= 0) close(fd);
    free(path), free(home);
    return result;
}

/* ---- What an entry says ------------------------------------------------ */

typedef struct {
    const char *password; size_t password_len; /* the first line */
    const char *user; size_t user_len;         /* login:, user:, username:, email: (the first) */
    const char *url; size_t url_len;           /* url: */
    const char *otpauth; size_t otpauth_len;   /* an otpauth:// line */
} entry_text;

static void trim(const char **s, size_t *len) {
    while (*len && (**s == ' ' || **s == '\t')) (*s)++, (*len)--;
    while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' || (*s)[*len - 1] == '\r')) (*len)--;
}

/* The value of "key: value" when `line` has that key (any case), else NULL. */
static const char *field(const char *line, size_t len, const char *key, size_t *value_len) {
    size_t k = strlen(key);
    if (len <= k || line[k] != ':' || !afu_ascii_case_eq(line, key, k)) return NULL;
    const char *value = line + k + 1;
    *value_len = len - k - 1;
    trim(&value, value_len);
    return value;
}

static void parse_entry(const afu_buf *plain, entry_text *t) {
    const char *p = plain->data, *end = p + plain->len;
    memset(t, 0, sizeof *t);
    for (int first = 1; p < end; first = 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *line = p, *v;
        size_t len = (size_t)((nl ? nl : end) - p), vlen;
        p = nl ? nl + 1 : end;
        if (first) { /* the password is the whole first line, but for a trailing CR */
            t->password = line;
            t->password_len = len && line[len - 1] == '\r' ? len - 1 : len;
            continue;
        }
        trim(&line, &len);
        if (!t->user && ((v = field(line, len, "login", &vlen)) || (v = field(line, len, "user", &vlen)) ||
                         (v = field(line, len, "username", &vlen)) || (v = field(line, len, "email", &vlen))) && vlen)
            t->user = v, t->user_len = vlen;
        else if (!t->url && (v = field(line, len, "url", &vlen)) && vlen)
            t->url = v, t->url_len = vlen;
        else if (!t->otpauth && len > 10 && afu_ascii_case_eq(line, "otpauth://", 10))
            t->otpauth = line, t->otpauth_len = len;
    }
}

/* "https://user@Host.example:8443/x" → "host.example"; "example.com/login" → "example.com". */
static char *url_host(const char *url, size_t len) {
    const char *host;
    size_t host_len = afu_host_span(url, len, 1, &host);
    return looks_like_domain(host, host_len) ? afu_lower_copy(host, host_len) : NULL;
}

/* Remembers what this decryption showed (never a secret) and republishes when it changed. */
static void remember(store *s, entry *e, const entry_text *t) {
    char *user = t->user && is_plain(t->user, t->user_len) && t->user_len < 1024 ? strndup(t->user, t->user_len) : NULL;
    char *site = t->url ? url_host(t->url, t->url_len) : NULL;
    int otp = t->otpauth != NULL;
    int same = e->known_otp == otp && !strcmp(user ? user : "", e->known_user ? e->known_user : "") &&
               !strcmp(site ? site : "", e->known_site ? e->known_site : "");
    if (same) {
        free(user), free(site);
        return;
    }
    free(e->known_user), free(e->known_site);
    e->known_user = user, e->known_site = site, e->known_otp = otp;
    char *path = cache_path();
    if (!path) return; /* in process: no folder of its own to remember in */
    free(path);
    cache_save(s);
    publish_identities(s);
}

/* ---- One-time codes (RFC 6238 TOTP, as pass-otp and oathtool compute them) ---- */

static int base32_decode(const char *in, size_t len, unsigned char *out, size_t capacity, size_t *out_len) {
    unsigned long long bits = 0;
    int count = 0;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        int v;
        if (c == '=' || c == ' ' || c == '-') continue;
        if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        if (c >= 'A' && c <= 'Z') v = c - 'A';
        else if (c >= '2' && c <= '7') v = c - '2' + 26;
        else return -1;
        bits = (bits << 5) | (unsigned)v;
        if ((count += 5) >= 8) {
            if (n == capacity) return -1;
            out[n++] = (unsigned char)(bits >> (count - 8));
            count -= 8;
        }
    }
    *out_len = n;
    return n ? 0 : -1;
}

/* The value of query parameter `name` (any case) in [query, end), percent-decoded into out. */
static int query_value(const char *query, const char *end, const char *name, char *out, size_t capacity) {
    size_t k = strlen(name);
    for (const char *p = query; p < end;) {
        const char *amp = memchr(p, '&', (size_t)(end - p)), *item_end = amp ? amp : end;
        if ((size_t)(item_end - p) > k && p[k] == '=' && afu_ascii_case_eq(p, name, k)) {
            size_t n = 0;
            for (const char *v = p + k + 1; v < item_end && n + 1 < capacity; v++) {
                unsigned hi, lo;
                if (*v == '%' && item_end - v >= 3 && sscanf(v + 1, "%1x%1x", &hi, &lo) == 2) out[n++] = (char)(hi * 16 + lo), v += 2;
                else out[n++] = *v;
            }
            out[n] = '\0';
            return 1;
        }
        p = amp ? amp + 1 : end;
    }
    return 0;
}

/* The current code of a totp URI into code[9]; NULL, or why not (never quoting the secret). */
static const char *totp_code(const char *uri, size_t len, time_t now, char code[9]) {
    const char *end = uri + len, *type = uri + 10, *query = memchr(uri, '?', len);
    char value[512], secret[512];
    unsigned char key[320], mac_out[64];
    size_t key_len = 0;
    int algorithm = GCRY_MAC_HMAC_SHA1;
    unsigned long digits = 6, period = 30;
    if ((size_t)(end - type) >= 5 && afu_ascii_case_eq(type, "hotp/", 5))
        return "it has an HOTP (counter) otpauth:// line, which needs the counter written back; only TOTP is served";
    if ((size_t)(end - type) < 5 || !afu_ascii_case_eq(type, "totp/", 5)) return "its otpauth:// line is neither totp nor hotp";
    if (!query) return "its otpauth:// line has no parameters (no secret)";
    query++;
    if (!query_value(query, end, "secret", secret, sizeof secret)) return "its otpauth:// line has no secret";
    int bad_secret = base32_decode(secret, strlen(secret), key, sizeof key, &key_len) != 0;
    afu_wipe(secret, sizeof secret);
    if (bad_secret) return "the secret of its otpauth:// line is not Base32";
    if (query_value(query, end, "algorithm", value, sizeof value)) {
        if (!strcasecmp(value, "SHA1")) algorithm = GCRY_MAC_HMAC_SHA1;
        else if (!strcasecmp(value, "SHA256")) algorithm = GCRY_MAC_HMAC_SHA256;
        else if (!strcasecmp(value, "SHA512")) algorithm = GCRY_MAC_HMAC_SHA512;
        else return "its otpauth:// line names an algorithm other than SHA1, SHA256 or SHA512";
    }
    if (query_value(query, end, "digits", value, sizeof value) && ((digits = strtoul(value, NULL, 10)) < 6 || digits > 8))
        return "its otpauth:// line asks for digits other than 6, 7 or 8";
    if (query_value(query, end, "period", value, sizeof value) && ((period = strtoul(value, NULL, 10)) == 0 || period > 86400))
        return "its otpauth:// line has a period that is not 1 to 86400 seconds";

    unsigned long long counter = (unsigned long long)now / period;
    unsigned char message[8];
    for (int i = 7; i >= 0; i--, counter >>= 8) message[i] = (unsigned char)(counter & 0xFF);
    gcry_mac_hd_t mac;
    size_t mac_len = gcry_mac_get_algo_maclen(algorithm);
    int failed = gcry_mac_open(&mac, algorithm, GCRY_MAC_FLAG_SECURE, NULL) != 0;
    if (!failed) {
        failed = gcry_mac_setkey(mac, key, key_len) || gcry_mac_write(mac, message, sizeof message) ||
                 gcry_mac_read(mac, mac_out, &mac_len) || mac_len < 20;
        gcry_mac_close(mac);
    }
    afu_wipe(key, sizeof key);
    if (failed) {
        afu_wipe(mac_out, sizeof mac_out);
        return "libgcrypt could not compute the HMAC";
    }
    unsigned offset = mac_out[mac_len - 1] & 0x0F; /* RFC 4226 §5.3: dynamic truncation */
    unsigned long binary = ((unsigned long)(mac_out[offset] & 0x7F) << 24) | ((unsigned long)mac_out[offset + 1] << 16) |
                           ((unsigned long)mac_out[offset + 2] << 8) | mac_out[offset + 3];
    afu_wipe(mac_out, sizeof mac_out);
    for (unsigned long i = digits; i-- > 0; binary /= 10) code[i] = (char)('0' + binary % 10); /* leading zeros kept */
    code[digits] = '\0';
    binary = 0;
    return NULL;
}

/* ---- Answering ----------------------------------------------------------- */

/* Decrypts `e` and completes `request` (of `kind`) with its password or current code. */
static void fill(store *s, entry *e, af_request_id request, int32_t kind, int may_ask) {
    afu_buf plain = {0};
    entry_text t;
    if (decrypt(s, e, request, may_ask, &plain) != DECRYPTED) return;
    if (!afu_utf8_valid(plain.data, plain.len) || memchr(plain.data, '\0', plain.len)) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "%s is not UTF-8 text; autofill fills only text entries", e->name);
        afu_buf_free(&plain);
        return;
    }
    parse_entry(&plain, &t);
    remember(s, e, &t);
    if (kind == AF_REQUEST_ONE_TIME_CODE) {
        char code[9] = {0};
        const char *why = t.otpauth ? totp_code(t.otpauth, t.otpauth_len, time(NULL), code)
                                    : "it has no otpauth:// line (add one with pass otp)";
        if (why) afu_cancel(state.host, request, AF_ERROR_FAILED, "no one-time code in %s: %s", e->name, why);
        else state.host->complete_one_time_code(request, code, strlen(code));
        afu_wipe(code, sizeof code);
    } else if (t.password_len == 0) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "%s has no password: its first line is empty", e->name);
    } else {
        const char *user = t.user ? t.user : entry_user(e);
        size_t user_len = t.user ? t.user_len : strlen(user);
        af_status st = state.host->complete_password(request, user, user_len, t.password, t.password_len);
        if (st != AF_OK) afu_log(state.host, AF_LOG_WARNING, "the host refused the password of %s (status %d)", e->name, (int)st);
    }
    afu_buf_free(&plain);
}

/* The entry an identity names: by record identifier (the entry's name), else by site and user. */
static entry *find_identity(store *s, const af_identity *id) {
    const af_str *rid = &id->record_identifier;
    if (rid->length) return store_find(s, rid->data, rid->length);
    for (size_t i = 0; i < s->count; i++) {
        const char *site = entry_site(&s->items[i]), *user = entry_user(&s->items[i]);
        if (site && strlen(site) == id->service.length && afu_ascii_case_eq(site, id->service.data, id->service.length) &&
            strlen(user) == id->user.length && memcmp(user, id->user.data, id->user.length) == 0)
            return &s->items[i];
    }
    return NULL;
}

static void provide(af_request_id request, const af_credential_request *cr, int may_ask) {
    store s;
    if (!cr || (cr->kind != AF_REQUEST_PASSWORD && cr->kind != AF_REQUEST_ONE_TIME_CODE)) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "pass has only passwords and one-time codes (request kind %d)", cr ? (int)cr->kind : -1);
        return;
    }
    store_load(&s);
    entry *e = find_identity(&s, &cr->identity);
    if (e) fill(&s, e, request, cr->kind, may_ask);
    else afu_cancel(state.host, request, AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND, "no entry %.*s in the password store %s",
                AFU_SHOW(cr->identity.record_identifier.length ? cr->identity.record_identifier.data : cr->identity.service.data,
                     cr->identity.record_identifier.length ? cr->identity.record_identifier.length : cr->identity.service.length),
                s.root ? s.root : "~/.password-store");
    store_free(&s);
}

static void provide_without_ui(void *context, af_request_id request, const af_credential_request *cr) {
    (void)context;
    provide(request, cr, 0);
}

static void provide_with_ui(void *context, af_request_id request, const af_credential_request *cr) {
    (void)context;
    provide(request, cr, 1);
}

/* ---- The lists ------------------------------------------------------------ */

/* The host of a service identifier, lower-cased, without a trailing dot, scheme, port or path. */
static char *service_host(const af_service_identifier *sid) {
    const char *host;
    size_t len = afu_host_span(sid->identifier.data, sid->identifier.length, sid->type == AF_SERVICE_URL, &host);
    if (sid->type == AF_SERVICE_URL && !looks_like_domain(host, len)) return NULL;
    return afu_lower_copy(host, len);
}

/* Whether `site` is one of the hosts or a parent domain of one. */
static int site_matches(const char *site, char **hosts, size_t count) {
    for (size_t i = 0; site && i < count; i++)
        if (hosts[i] && afu_domain_matches(hosts[i], strlen(hosts[i]), site, strlen(site))) return 1;
    return 0;
}

static void list(af_request_id request, const af_service_identifier *services, size_t service_count, int32_t kind) {
    static const char title_passwords[] = "Choose a pass entry", title_codes[] = "Choose a pass entry for a one-time code";
    store s;
    store_load(&s);
    char **hosts = calloc(service_count + 1, sizeof *hosts);
    size_t *order = calloc(s.count + 1, sizeof *order), n = 0, chosen = 0;
    af_str *items = calloc(s.count + 1, sizeof *items);
    if (!hosts || !order || !items) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < service_count; i++) hosts[i] = service_host(&services[i]);
    for (int pass = 0; pass < 2; pass++) /* matching entries first, in name order within each group */
        for (size_t i = 0; i < s.count; i++) {
            const entry *e = &s.items[i];
            if (kind == AF_REQUEST_ONE_TIME_CODE && e->known_otp == 0) continue; /* known to have no code */
            int match = site_matches(e->known_site, hosts, service_count) || site_matches(e->path_service, hosts, service_count);
            if (match == (pass == 0)) order[n++] = i;
        }
    if (n == 0) {
        if (s.missing) afu_cancel(state.host, request, AF_ERROR_FAILED, "there is no password store at %s (run `pass init`, or set PasswordStoreDir)",
                              s.root ? s.root : "~/.password-store");
        else if (s.count == 0) afu_cancel(state.host, request, AF_ERROR_FAILED, "the password store %s is empty: it has no .gpg entries", s.root);
        else afu_cancel(state.host, request, AF_ERROR_FAILED, "no entry of the password store %s has a one-time code", s.root);
        goto done;
    }
    for (size_t i = 0; i < n; i++) { /* names are file names: any bytes, so shown sanitized */
        const char *name = s.items[order[i]].name;
        char *text = strdup(name);
        items[i] = (af_str){text, text ? afu_sanitize(text, strlen(text)) : 0};
        if (!text) {
            afu_cancel(state.host, request, AF_ERROR_FAILED, "out of memory");
            goto done;
        }
    }
    const char *title = kind == AF_REQUEST_ONE_TIME_CODE ? title_codes : title_passwords;
    af_status st = state.host->ui_choose(request, title, strlen(title), items, n, &chosen);
    if (st == AF_OK && chosen < n) fill(&s, &s.items[order[chosen]], request, kind, 1);
    else if (st == AF_OK) afu_cancel(state.host, request, AF_ERROR_FAILED, "the host chose item %zu of %zu", chosen, n);
    else if (st == AF_STATUS_UI_CANCELED) state.host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
    else afu_cancel(state.host, request, AF_ERROR_FAILED, "choosing a pass entry needs the terminal UI (%s)", ui_trouble(st));
done:
    for (size_t i = 0; hosts && i < service_count; i++) free(hosts[i]);
    for (size_t i = 0; items && i < n; i++) free((char *)items[i].data);
    free(hosts), free(order), free(items);
    store_free(&s);
}

static void prepare_credential_list(void *context, af_request_id request, const af_service_identifier *services,
                                    size_t service_count) {
    (void)context;
    list(request, services, service_count, AF_REQUEST_PASSWORD);
}

static void prepare_one_time_code_list(void *context, af_request_id request, const af_service_identifier *services,
                                       size_t service_count) {
    (void)context;
    list(request, services, service_count, AF_REQUEST_ONE_TIME_CODE);
}

/* ---- Entry --------------------------------------------------------------- */

static const af_provider provider_table = {
    .abi_version = AF_ABI_VERSION,
    .size = sizeof(af_provider),
    .context = &state,
    .prepare_credential_list = prepare_credential_list,
    .prepare_one_time_code_list = prepare_one_time_code_list,
    .provide_credential_without_user_interaction = provide_without_ui,
    .prepare_interface_to_provide_credential = provide_with_ui,
};

AF_EXPORT const af_provider *pass_provider_entry(uint32_t host_abi_version, const af_host_services *host) {
    store s;
    if (!afu_host_usable(host_abi_version, host)) return NULL;
    state.host = host;
    if (!gpgme_check_version(GPGME_VERSION) || !gcry_check_version(GCRYPT_VERSION)) {
        afu_log(state.host, AF_LOG_ERROR, "gpgme %s and libgcrypt %s or later are needed; not loading", GPGME_VERSION, GCRYPT_VERSION);
        return NULL;
    }
    store_load(&s); /* file names only: nothing is decrypted at load */
    if (!s.missing) publish_identities(&s);
    else host->store_replace(NULL, 0);
    store_free(&s);
    return &provider_table;
}
