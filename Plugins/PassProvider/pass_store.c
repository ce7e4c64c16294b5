/*
 * pass_store.c — the password store as autofill sees it without decrypting: where it is, what an
 * entry's path says of its site and user, the walk over its .gpg files, the non-secret identity
 * cache (identities.tsv) and the identities published from them all.
 */
#include "pass_provider.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A line that may be published or cached: UTF-8 without control characters. */
static int is_plain(const char *s, size_t len) {
    if (!afu_utf8_valid(s, len)) return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7F) return 0;
    return 1;
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
char *gnupg_home(void) { return folder_from("GnuPGHome", "GNUPGHOME", "/.gnupg"); }

/* ---- Names: what a path says about the site and the user ------------- */

/* A path component that reads as a host name: letters, digits, '-', '.' (and
 * UTF-8 for international names), with a dot inside and no empty label. */
int looks_like_domain(const char *s, size_t len) {
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

/* The user a file name says: the name, without a last " (…)" that tells one login of that user at
 * the site from another ("alice (http)", as saving names a second one; pass_write.c). */
static char *path_user(const char *file) {
    size_t len = strlen(file);
    const char *open = len > 3 && file[len - 1] == ')' ? strstr(file, " (") : NULL;
    while (open && strstr(open + 2, " (")) open = strstr(open + 2, " (");
    return open && open > file ? strndup(file, (size_t)(open - file)) : strdup(file);
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
            if (*file && is_plain(file, strlen(file))) e->path_user = path_user(file);
            return;
        }
        end = start > name ? start - 1 : NULL;
    }
}

/* The site to publish: what the entry's url: said, else what its path says. */
const char *entry_site(const entry *e) { return e->known_site ? e->known_site : e->path_service; }
const char *entry_user(const entry *e) {
    return e->known_user ? e->known_user : e->path_user ? e->path_user : "";
}

/* ---- Walking the store ----------------------------------------------- */

static void entry_free(entry *e) {
    free(e->name), free(e->path_service), free(e->path_user), free(e->known_user), free(e->known_site), free(e->known_url);
    memset(e, 0, sizeof *e);
}

void store_free(store *s) {
    for (size_t i = 0; i < s->count; i++) entry_free(&s->items[i]);
    free(s->items);
    free(s->root);
    free(s->gpg_ids);
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

/* Appends the recipients of the .gpg-id in the folder `dir` (at most 64 KiB of it) to s->gpg_ids. */
static void read_gpg_id(store *s, int dir) {
    char text[65536];
    int fd = openat(dir, ".gpg-id", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return;
    ssize_t n = read(fd, text, sizeof text);
    close(fd);
    if (n <= 0) return;
    char *bigger = realloc(s->gpg_ids, s->gpg_ids_len + (size_t)n + 2);
    if (!bigger) return;
    s->gpg_ids = bigger;
    memcpy(s->gpg_ids + s->gpg_ids_len, text, (size_t)n);
    s->gpg_ids_len += (size_t)n;
    s->gpg_ids[s->gpg_ids_len++] = '\n';
    s->gpg_ids[s->gpg_ids_len] = '\0';
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
        if (strcmp(d->d_name, ".gpg-id") == 0) read_gpg_id(s, dirfd(dir));
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
void store_load(store *s) {
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

entry *store_find(store *s, const char *name, size_t len) {
    for (size_t i = 0; i < s->count; i++)
        if (strlen(s->items[i].name) == len && memcmp(s->items[i].name, name, len) == 0) return &s->items[i];
    return NULL;
}

/* ---- The identity cache (non-secret; see the top of pass_provider.c) - */

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

/* Format: "# autofill pass cache 1\t<store>" then "<name>\t<mtime ns>\t<size>\t<user>\t<site>\t<otp>[\t<url>]"
 * (<url>: url_site's scheme://host[:port]/path; a line without it, as earlier versions wrote, is read too). */
static void cache_load(store *s) {
    char *path = cache_path(), line[8192];
    FILE *f = path ? fopen(path, "re") : NULL;
    free(path);
    if (!f) return;
    int first = 1, same_store = 0;
    while (fgets(line, sizeof line, f)) {
        char *fields[7];
        line[strcspn(line, "\n")] = '\0';
        if (first) {
            first = 0;
            same_store = split_tabs(line, fields, 2) == 2 && strcmp(fields[0], "# autofill pass cache 1") == 0 &&
                         strcmp(fields[1], s->root) == 0;
            if (!same_store) break; /* another store's cache: forgotten */
            continue;
        }
        int n = split_tabs(line, fields, 7);
        if (n != 6 && n != 7) continue;
        entry *e = store_find(s, fields[0], strlen(fields[0]));
        if (!e || atoll(fields[1]) != e->mtime_ns || atoll(fields[2]) != e->size) continue; /* changed since */
        if (*fields[3]) e->known_user = strdup(fields[3]);
        if (*fields[4]) e->known_site = strdup(fields[4]);
        e->known_otp = fields[5][0] == '1';
        if (n == 7 && *fields[6]) e->known_url = strdup(fields[6]);
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
        ok = fprintf(f, "%s\t%lld\t%lld\t%s\t%s\t%d\t%s\n", e->name, e->mtime_ns, e->size, e->known_user ? e->known_user : "",
                     e->known_site ? e->known_site : "", e->known_otp, e->known_url ? e->known_url : "") > 0;
    }
    if (f && fclose(f) != 0) ok = 0;
    if (ok && rename(temporary, path) != 0) ok = 0;
    if (!ok && path) afu_log(state.host, AF_LOG_WARNING, "cannot write %s (errno %d); decrypted entries are not remembered", path, errno);
    if (!ok && temporary) unlink(temporary);
    free(path), free(temporary);
}

/* ---- Identities -------------------------------------------------------- */

void publish_identities(const store *s) {
    const af_host_services *host = state.host;
    size_t n = 0;
    af_identity *ids = calloc(2 * s->count + 1, sizeof *ids);
    if (!ids) {
        afu_log(state.host, AF_LOG_ERROR, "out of memory; no identities published");
        return;
    }
    for (size_t i = 0; i < s->count; i++) {
        const entry *e = &s->items[i];
        /* Every entry, by its name: one whose path names no site (Email/fastmail) has its name as the
         * service, which names no site, so a search by name finds it before anything is decrypted. */
        const char *site = entry_site(e), *user = entry_user(e), *service = site ? site : e->name;
        if (!is_plain(e->name, strlen(e->name))) continue;
        /* With the scheme (and path) its url: gave, when a decryption or a save showed it: git's http
         * is not its https, nor one repository's token another's. */
        int url = e->known_url && site == e->known_site;
        if (url) service = e->known_url;
        af_identity id = {.kind = AF_IDENTITY_PASSWORD, .service_type = url ? AF_SERVICE_URL : AF_SERVICE_DOMAIN,
                          .service = {service, strlen(service)},
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

/* Remembers what this decryption showed (never a secret) and republishes when it changed. */
void remember(store *s, entry *e, const entry_text *t) {
    char *user = t->user && is_plain(t->user, t->user_len) && t->user_len < 1024 ? strndup(t->user, t->user_len) : NULL;
    char *site = t->url ? url_host(t->url, t->url_len) : NULL, *url = site ? url_site(t->url, t->url_len) : NULL;
    int otp = t->otpauth != NULL;
    int same = e->known_otp == otp && !strcmp(user ? user : "", e->known_user ? e->known_user : "") &&
               !strcmp(site ? site : "", e->known_site ? e->known_site : "") && !strcmp(url ? url : "", e->known_url ? e->known_url : "");
    if (same) {
        free(user), free(site), free(url);
        return;
    }
    free(e->known_user), free(e->known_site), free(e->known_url);
    e->known_user = user, e->known_site = site, e->known_url = url, e->known_otp = otp;
    char *path = cache_path();
    if (!path) return; /* in process: no folder of its own to remember in */
    free(path);
    cache_save(s);
    publish_identities(s);
}
