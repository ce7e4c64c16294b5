/*
 * pass_write.c — saving a password as `pass insert` would: a new entry SITE/USER.gpg (the password on
 * line 1, then `login: USER` and `url: SITE`), or the entry the store holds for that user at that site
 * with line 1 replaced and every other line kept. An entry whose url: names another scheme, port or
 * path is another login and is never replaced: the new one is SITE/USER (WHAT DIFFERS). Encrypted here with gpgme to the recipients of the
 * nearest .gpg-id above the entry (as pass does); written by the host (add_file), since the store is
 * the provider's to read only (docs/SANDBOX.md, "add-files"): the host refuses hidden names, writes
 * atomically and commits the file when the store is a git repository.
 */
#include "pass_provider.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpgme.h>

#define PASS_MAX_RECIPIENTS 64

/* A url_site() form as one login is known by: without the scheme's default port and a trailing /
 * ("https://example.com:443/" is "https://example.com"); 0 when it does not fit `cap`. */
static int login_url(const char *url, char *out, size_t cap) {
    size_t len = strlen(url);
    if (len >= cap) return 0;
    memcpy(out, url, len + 1);
    char *authority = strstr(out, "://");
    if (authority) {
        authority += 3;
        char *end = strchr(authority, '/'), *colon = NULL;
        if (!end) end = out + len;
        for (char *p = authority; p < end; p++)
            if (*p == ':') colon = p;
        size_t port_len = colon ? (size_t)(end - colon) : 0;
        if (colon && ((!strncmp(out, "https://", 8) && port_len == 4 && !memcmp(colon, ":443", 4)) ||
                      (!strncmp(out, "http://", 7) && port_len == 3 && !memcmp(colon, ":80", 3))))
            memmove(colon, end, strlen(end) + 1);
    }
    for (len = strlen(out); len > 0 && out[len - 1] == '/'; len--) out[len - 1] = '\0';
    return 1;
}

/* Whether an entry whose url: says `known` (url_site() form, or NULL) may hold the login a save for
 * `wanted` (the same, or NULL for a bare site) names: a url: of another scheme, port or path is
 * another login (one repository's token is not another's, an http login is not the https one). */
static int same_login(const char *known, const char *wanted) {
    char a[2048], b[2048];
    if (!known || !wanted) return 1;
    return login_url(known, a, sizeof a) && login_url(wanted, b, sizeof b) && !strcmp(a, b);
}

/* The entry the store holds for `user` at `host` (its site is the host or a parent domain of it) and
 * for `url` (see same_login), known from its path, its url: or a decryption; NULL when none is.
 * Entries whose url: is not known yet are decrypted to learn it (`*cancelled` set when a decryption
 * ended the request); the old text of the entry returned is left in `old`. */
static entry *find_login(store *s, af_request_id request, const char *host, const char *user, size_t user_len,
                         const char *url, afu_buf *old, int *cancelled) {
    for (size_t i = 0; i < s->count; i++) {
        entry *e = &s->items[i];
        const char *site = entry_site(e), *known = entry_user(e);
        if (!site || !*known || strlen(known) != user_len || memcmp(known, user, user_len) != 0 ||
            !afu_domain_matches(host, strlen(host), site, strlen(site)))
            continue;
        if (e->known_url && !same_login(e->known_url, url)) continue;
        afu_buf_free(old);
        if (decrypt(s, e, request, 1, old) != DECRYPTED) {
            *cancelled = 1;
            return NULL;
        }
        entry_text t;
        parse_entry(old, &t);
        char *old_url = t.url ? url_site(t.url, t.url_len) : NULL;
        int same = same_login(old_url, url);
        free(old_url);
        if (same) return e;
    }
    afu_buf_free(old);
    return NULL;
}

/* The name of a new entry for `user` at `host`: HOST/USER, or, when another login holds that name
 * (the same user at another scheme, port or path of the site), HOST/USER (WHAT DIFFERS), e.g.
 * "example.com/alice (http)", "github.com/token (https_org_repo.git)"; malloc'd, NULL when none
 * is free. */
static char *new_entry_name(store *s, const char *host, const char *user, size_t user_len, const char *url) {
    char what[512] = "";
    if (url) { /* scheme[:port][path], / as _ */
        const char *authority = strstr(url, "://"), *rest = authority ? authority + 3 : url;
        rest += strcspn(rest, ":/");
        snprintf(what, sizeof what, "%.*s%s", authority ? (int)(authority - url) : 0, url, rest);
        for (char *p = what; *p; p++)
            if (*p == '/') *p = '_';
        size_t len = strlen(what);
        if (len > 48) /* a file name stays well under NAME_MAX; cut at a character's start */
            for (len = 48; len > 0 && ((unsigned char)what[len] & 0xC0) == 0x80; len--) {}
        what[len] = '\0';
        while (len > 0 && what[len - 1] == '_') what[--len] = '\0';
    }
    size_t cap = strlen(host) + user_len + sizeof what + 32;
    char *name = malloc(cap);
    for (int n = 0; name && n < 100; n++) {
        if (n == 0) snprintf(name, cap, "%s/%.*s", host, (int)user_len, user);
        else if (n == 1 && *what) snprintf(name, cap, "%s/%.*s (%s)", host, (int)user_len, user, what);
        else snprintf(name, cap, "%s/%.*s (%s%s%d)", host, (int)user_len, user, what, *what ? " " : "", n);
        if (!store_find(s, name, strlen(name))) return name;
    }
    free(name);
    return NULL;
}

/* Why `user` cannot name a file of the store, or NULL. */
static const char *user_name_problem(const char *user, size_t len) {
    if (len == 0) return "it is empty";
    if (len > 200) return "it is longer than 200 bytes";
    if (user[0] == '.') return "it starts with a dot (a hidden file, which pass and autofill never write)";
    if (memchr(user, '/', len)) return "it holds a /";
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)user[i] < 0x20 || user[i] == 0x7F) return "it holds a control character";
    return afu_utf8_valid(user, len) ? NULL : "it is not UTF-8";
}

/* The recipients of the nearest .gpg-id at or above the folder of entry `name` (relative, without
 * .gpg), as its text; malloc'd, or NULL when there is none. */
static char *recipients_for(const store *s, const char *name) {
    size_t cap = strlen(s->root) + strlen(name) + 16;
    char *folder = strdup(name), *path = malloc(cap), *found = NULL;
    static char text[65536];
    while (folder && path && !found) {
        char *slash = strrchr(folder, '/');
        int last = !slash;
        if (slash) *slash = '\0';
        else folder[0] = '\0';
        snprintf(path, cap, "%s%s%s/.gpg-id", s->root, *folder ? "/" : "", folder);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd >= 0) {
            ssize_t n = read(fd, text, sizeof text - 1);
            close(fd);
            text[n > 0 ? n : 0] = '\0';
            found = strdup(text);
        }
        if (last) break;
    }
    free(folder), free(path);
    return found;
}

/* Encrypts `plain` to the recipients of the .gpg-id for entry `name` into `cipher` (malloc'd); a
 * reason on failure (written into `why`), never the plaintext. */
static int encrypt_entry(const store *s, const char *name, const char *plain, size_t plain_len, afu_buf *cipher, char *why, size_t why_size) {
    char *home = gnupg_home(), *ids = recipients_for(s, name);
    gpgme_key_t keys[PASS_MAX_RECIPIENTS + 1] = {0};
    size_t nkeys = 0;
    gpgme_ctx_t ctx = NULL;
    gpgme_data_t in = NULL, out = NULL;
    gpgme_error_t err;
    int ok = 0;
    if (!home || !ids) {
        snprintf(why, why_size, "no .gpg-id names the keys to encrypt %s to (run `pass init KEY`)", name);
        goto done;
    }
    if ((err = gpgme_new(&ctx)) || (err = gpgme_set_protocol(ctx, GPGME_PROTOCOL_OpenPGP)) ||
        (err = gpgme_ctx_set_engine_info(ctx, GPGME_PROTOCOL_OpenPGP, NULL, home))) {
        snprintf(why, why_size, "gpgme: %s", gpgme_strerror(err));
        goto done;
    }
    for (char *line = ids, *end; line && *line && nkeys < PASS_MAX_RECIPIENTS; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end) *end = '\0';
        line += strspn(line, " \t");
        line[strcspn(line, " \t\r#")] = '\0';
        if (!*line) continue;
        if ((err = gpgme_get_key(ctx, line, &keys[nkeys], 0)) != 0 || !keys[nkeys]) {
            afu_sanitize(line, strlen(line));
            snprintf(why, why_size, "the key %s of the .gpg-id for %s is not in the GnuPG home %s (%s)", line, name, home,
                     err ? gpgme_strerror(err) : "not found");
            keys[nkeys] = NULL;
            goto done;
        }
        nkeys++;
    }
    if (nkeys == 0) {
        snprintf(why, why_size, "the .gpg-id for %s names no key", name);
        goto done;
    }
    if ((err = gpgme_data_new_from_mem(&in, plain, plain_len, 0)) || (err = gpgme_data_new(&out)) ||
        (err = gpgme_op_encrypt(ctx, keys, GPGME_ENCRYPT_ALWAYS_TRUST | GPGME_ENCRYPT_NO_ENCRYPT_TO, in, out))) {
        snprintf(why, why_size, "cannot encrypt %s: %s", name, gpgme_strerror(err));
        goto done;
    }
    size_t len = 0;
    char *data = gpgme_data_release_and_get_mem(out, &len);
    out = NULL;
    if (data && (cipher->data = malloc(len + 1))) {
        memcpy(cipher->data, data, len);
        cipher->len = len;
        ok = 1;
    } else {
        snprintf(why, why_size, "out of memory");
    }
    gpgme_free(data);
done:
    for (size_t i = 0; i < nkeys; i++) gpgme_key_unref(keys[i]);
    if (in) gpgme_data_release(in);
    if (out) gpgme_data_release(out);
    if (ctx) gpgme_release(ctx);
    free(home), free(ids);
    return ok;
}

/* Hands the host `cipher` for entry `name`; the host's reason in `why` on failure. */
static int add_entry_file(const store *s, af_request_id request, const char *name, const afu_buf *cipher, char *why, size_t why_size) {
    char *file = afu_join(name, ".gpg");
    size_t why_len = 0;
    if (!file) return snprintf(why, why_size, "out of memory"), 0;
    af_status st = AF_TABLE_HAS(af_host_services, state.host, add_file)
        ? state.host->add_file(request, s->root, strlen(s->root), file, strlen(file), (const uint8_t *)cipher->data, cipher->len, why,
                               why_size - 1, &why_len)
        : AF_STATUS_REFUSED;
    free(file);
    if (st == AF_OK) return 1;
    if (!AF_TABLE_HAS(af_host_services, state.host, add_file)) why_len = (size_t)snprintf(why, why_size, "this autofill cannot write files for providers");
    else if (why_len == 0) why_len = (size_t)snprintf(why, why_size, "the host refused the file (status %d)", (int)st);
    why[why_len < why_size ? why_len : why_size - 1] = '\0';
    return 0;
}

/* The text of the entry: a new one, or `old` (decrypted) with its first line replaced. */
static int entry_text_for(const afu_buf *old, const af_save_password_request *save, afu_buf *text) {
    const char *rest = "";
    size_t rest_len = 0;
    if (old) {
        const char *nl = memchr(old->data, '\n', old->len);
        rest = nl ? nl : "\n", rest_len = nl ? old->len - (size_t)(nl - old->data) : 1;
    }
    size_t cap = save->password.length + rest_len + save->user.length + save->service.identifier.length + 32;
    if (!(text->data = malloc(cap))) return 0;
    memcpy(text->data, save->password.data, save->password.length);
    text->len = save->password.length;
    if (old) {
        memcpy(text->data + text->len, rest, rest_len), text->len += rest_len;
    } else {
        text->len += (size_t)snprintf(text->data + text->len, cap - text->len, "\nlogin: %.*s\nurl: %.*s\n", AFU_SHOW_STR(save->user),
                                      AFU_SHOW_STR(save->service.identifier));
    }
    return 1;
}

void save_password(void *context, af_request_id request, const af_save_password_request *save) {
    (void)context;
    store s;
    char why[1024] = "", *host = NULL, *name = NULL, *url = NULL;
    afu_buf old = {0}, text = {0}, cipher = {0};
    store_load(&s);
    if (s.missing) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "there is no password store at %s (run `pass init KEY`, or set PasswordStoreDir)",
                   s.root ? s.root : "~/.password-store");
        goto done;
    }
    if (memchr(save->password.data, '\n', save->password.length) || memchr(save->password.data, '\r', save->password.length)) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "pass keeps the password on an entry's first line: one with a line break cannot be saved");
        goto done;
    }
    if (!(host = service_host(&save->service))) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "%.*s names no site pass can name an entry after", AFU_SHOW_STR(save->service.identifier));
        goto done;
    }
    url = url_site(save->service.identifier.data, save->service.identifier.length);
    int cancelled = 0;
    entry *e = find_login(&s, request, host, save->user.data, save->user.length, url, &old, &cancelled);
    if (cancelled) goto done; /* a decryption ended the request and said why */
    if (e) { /* an update: line 1 replaced, every other line kept */
        name = strdup(e->name);
    } else {
        const char *problem = user_name_problem(save->user.data, save->user.length);
        if (problem) {
            afu_cancel(state.host, request, AF_ERROR_FAILED, "pass names an entry SITE/USER, and the user %.*s cannot name a file: %s",
                       AFU_SHOW_STR(save->user), problem);
            goto done;
        }
        name = new_entry_name(&s, host, save->user.data, save->user.length, url);
    }
    if (!name) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "no free entry name for %.*s at %s: the store holds a hundred logins of that user there",
                   AFU_SHOW_STR(save->user), host);
        goto done;
    }
    if (!entry_text_for(e ? &old : NULL, save, &text)) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "out of memory");
        goto done;
    }
    if (!encrypt_entry(&s, name, text.data, text.len, &cipher, why, sizeof why) ||
        !add_entry_file(&s, request, name, &cipher, why, sizeof why)) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot save %s in the password store: %s", name, why);
        goto done;
    }
    afu_log(state.host, AF_LOG_INFO, "%s %s in %s", e ? "replaced the password of" : "added", name, s.root);
    store_free(&s);
    store_load(&s); /* publish the store as it is now, the new entry with it */
    entry *written = store_find(&s, name, strlen(name));
    if (written) { /* what it says is known without decrypting it: its user and url:, for the next fill */
        entry_text t;
        parse_entry(&text, &t);
        remember(&s, written, &t);
    }
    publish_identities(&s);
    state.host->complete_save_password(request);
done:
    afu_buf_free(&old), afu_buf_free(&text), free(cipher.data);
    free(host), free(name), free(url);
    store_free(&s);
}
