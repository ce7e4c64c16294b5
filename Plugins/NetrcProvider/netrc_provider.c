/*
 * netrc_provider.c — an autofill password provider that serves the logins of
 * a .netrc file (the format of ftp(1), curl and git-credential-netrc).
 *
 * Written as a third party would write one: plain C11 with POSIX, libc only,
 * and nothing from autofill but autofill_provider.h and the optional helpers
 * of Plugins/Common (af_provider_util.{h,c}). Build it, then put the library
 * next to this directory's Info.plist in the bundle:
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
 *      -I<autofill>/Sources/CAutofillProvider/include -I<autofill>/Plugins/Common \
 *      netrc_provider.c <autofill>/Plugins/Common/af_provider_util.c \
 *      -o libNetrcProvider.so
 *
 * The file is the provider setting "NetrcFile", else $NETRC, else
 * $HOME/.netrc. It is read afresh for every request, so edits show up at once;
 * the identities in the host's store are published when the host loads the
 * plugin. Every request is answered before its entry point returns.
 */
#define _DEFAULT_SOURCE /* strdup, O_CLOEXEC */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "autofill_provider.h"
#include "af_provider_util.h"

#define NETRC_MAX_FILE_SIZE (1024u * 1024u)
/* Room kept beside machine + login for " @ " and "(no login)", so that every
 * menu item and record identifier stays within AF_MAX_STRING_LENGTH. */
#define NETRC_LABEL_SLACK 16u

typedef struct {
    afu_buf machine, login, password; /* machine is unset for `default`; login may be unset */
    int is_default;
    unsigned line;                /* where the entry starts, for log messages */
} entry;

typedef struct {
    entry *items;
    size_t count, capacity;
    char *path; /* the file read, or NULL when none could be named */
} netrc;

typedef struct { const af_host_services *host; } provider_state;

static provider_state state; /* written once, by the entry function */

/* ---- Finding and reading the file ------------------------------------ */

/* The NetrcFile setting as a malloc'd C string, or NULL when it is unset. */
static char *setting_path(const af_host_services *host) {
    char *value;
    af_status s = afu_setting(host, "NetrcFile", &value);
    if (s == AFU_SETTING_HAS_NUL) afu_log(host, AF_LOG_WARNING, "the NetrcFile setting contains a NUL byte; ignoring it");
    else if (s != AF_OK && s != AF_STATUS_NOT_FOUND && s != AF_STATUS_BUFFER_TOO_SMALL)
        afu_log(host, AF_LOG_WARNING, "reading the NetrcFile setting failed (status %d)", (int)s);
    return value;
}

static char *netrc_path(const af_host_services *host) {
    char *path = setting_path(host);
    const char *env = getenv("NETRC"), *home = getenv("HOME");
    if (path) return path;
    if (env && *env) return strdup(env);
    if (!home || !*home) {
        afu_log(host, AF_LOG_WARNING, "neither NetrcFile, NETRC nor HOME is set; no .netrc to read");
        return NULL;
    }
    return afu_join(home, "/.netrc");
}

/* Reads the whole file into a malloc'd buffer. Returns 0, or -1 (logged). */
static int read_file(const af_host_services *host, const char *path, char **out, size_t *out_len) {
    struct stat sb;
    int fd = open(path, O_RDONLY | O_CLOEXEC), err = errno;
    if (fd < 0) { /* strerror() is not reentrant; name the usual causes ourselves */
        afu_log(host, err == ENOENT ? AF_LOG_INFO : AF_LOG_WARNING, "cannot open %s: %s (errno %d); serving no logins",
            path, err == ENOENT ? "no such file" : err == EACCES ? "permission denied" : "error", err);
        return -1;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > (off_t)NETRC_MAX_FILE_SIZE) {
        afu_log(host, AF_LOG_WARNING, "%s is not a regular file of at most %u bytes; serving no logins", path,
            NETRC_MAX_FILE_SIZE);
        close(fd);
        return -1;
    }
    size_t size = (size_t)sb.st_size, len = 0;
    ssize_t n = 1;
    char *text = malloc(size + 1);
    while (text && len < size && n > 0) { /* a file that grows meanwhile is cut at its old size */
        if ((n = read(fd, text + len, size - len)) > 0) len += (size_t)n;
        else if (n < 0 && errno == EINTR) n = 1;
    }
    close(fd);
    if (!text || n < 0) {
        afu_log(host, AF_LOG_WARNING, "cannot read %s; serving no logins", path);
        if (text) afu_wipe(text, len);
        free(text);
        return -1;
    }
    *out = text;
    *out_len = len;
    return 0;
}

/* ---- Tokens ---------------------------------------------------------- */

typedef struct {
    const char *p, *end;
    unsigned line;
    char *token; /* scratch space for one token (at most AF_MAX_STRING_LENGTH bytes) */
    size_t len;
    int quoted;
} lexer;

enum { TOKEN_END, TOKEN_OK, TOKEN_TOO_LONG, TOKEN_UNTERMINATED };

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static void skip_line(lexer *lx) {
    while (lx->p < lx->end && *lx->p != '\n') lx->p++;
    if (lx->p < lx->end) lx->p++, lx->line++;
}

static int next_token(lexer *lx) {
    for (;;) { /* skip blanks, and comments: a '#' that starts a token */
        while (lx->p < lx->end && is_blank(*lx->p)) lx->line += (*lx->p++ == '\n');
        if (lx->p == lx->end) return TOKEN_END;
        if (*lx->p != '#') break;
        skip_line(lx);
    }
    lx->len = 0;
    lx->quoted = (*lx->p == '"');
    lx->p += lx->quoted;
    while (lx->p < lx->end && (lx->quoted ? *lx->p != '"' : !is_blank(*lx->p))) {
        char c = *lx->p++;
        lx->line += (c == '\n');
        if (lx->quoted && c == '\\' && lx->p < lx->end) {
            c = *lx->p++;
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c; /* else \" \\ \x -> x */
        }
        if (lx->len == AF_MAX_STRING_LENGTH) return TOKEN_TOO_LONG;
        lx->token[lx->len++] = c;
    }
    if (lx->quoted && lx->p++ == lx->end) return TOKEN_UNTERMINATED;
    return TOKEN_OK;
}

/* Keywords are unquoted; their case is ignored, as curl does. */
static int is_keyword(const lexer *lx, const char *word) {
    return !lx->quoted && lx->len == strlen(word) && afu_ascii_case_eq(lx->token, word, lx->len);
}

/* A macro body runs from the line after "macdef NAME" to an empty line. */
static void skip_macdef(lexer *lx) {
    skip_line(lx);
    while (lx->p < lx->end) {
        int empty = *lx->p == '\n' || (*lx->p == '\r' && lx->p + 1 < lx->end && lx->p[1] == '\n');
        skip_line(lx);
        if (empty) break;
    }
}

/* ---- Parsing ---------------------------------------------------------- */

static void entry_free(entry *e) {
    afu_buf_free(&e->machine);
    afu_buf_free(&e->login);
    afu_buf_free(&e->password);
}

static void netrc_free(netrc *nf) {
    for (size_t i = 0; i < nf->count; i++) entry_free(&nf->items[i]);
    free(nf->items);
    free(nf->path);
    memset(nf, 0, sizeof *nf);
}

static int take_token(const lexer *lx, afu_buf *b) {
    afu_buf_free(b);
    if (!(b->data = malloc(lx->len + 1))) return -1;
    memcpy(b->data, lx->token, lx->len);
    b->data[b->len = lx->len] = '\0';
    return 0;
}

/* Moves a finished entry into the list if it is usable; frees it otherwise. */
static void finish_entry(const af_host_services *host, netrc *nf, entry *e) {
    const char *why = NULL;
    if (!e->is_default && !e->machine.data) return; /* no entry started yet */
    if (!e->password.data) why = "has no password";
    else if (!afu_utf8_valid(e->machine.data, e->machine.len) || !afu_utf8_valid(e->login.data, e->login.len) ||
             !afu_utf8_valid(e->password.data, e->password.len))
        why = "is not valid UTF-8";
    else if (e->machine.len + e->login.len + NETRC_LABEL_SLACK > AF_MAX_STRING_LENGTH) why = "is too long";
    if (!why && nf->count == nf->capacity) {
        size_t capacity = nf->capacity ? 2 * nf->capacity : 16;
        entry *items = realloc(nf->items, capacity * sizeof *items);
        if (items) nf->items = items, nf->capacity = capacity;
        else why = "does not fit in memory";
    }
    if (why) {
        afu_log(host, e->password.data ? AF_LOG_WARNING : AF_LOG_DEBUG, "%s line %u: the entry for %.*s %s; skipped",
            nf->path, e->line, AFU_SHOW(e->is_default ? "(default)" : e->machine.data, e->is_default ? 9 : e->machine.len),
            why);
        entry_free(e);
    } else {
        nf->items[nf->count++] = *e;
    }
    memset(e, 0, sizeof *e);
}

static void parse(const af_host_services *host, netrc *nf, const char *text, size_t len) {
    entry cur = {0};
    size_t scratch = len < AF_MAX_STRING_LENGTH ? len : AF_MAX_STRING_LENGTH; /* no token is longer */
    lexer lx = {text, text + len, 1, malloc(scratch + 1), 0, 0};
    int r = TOKEN_END, oom = !lx.token;
    while (!oom && (r = next_token(&lx)) == TOKEN_OK) {
        int machine = is_keyword(&lx, "machine"), is_default = is_keyword(&lx, "default");
        int macdef = is_keyword(&lx, "macdef"), account = is_keyword(&lx, "account");
        afu_buf *field = is_keyword(&lx, "login") ? &cur.login : is_keyword(&lx, "password") ? &cur.password : NULL;
        if (machine || is_default) {
            finish_entry(host, nf, &cur);
            cur.line = lx.line;
            cur.is_default = is_default;
        } else if (!field && !macdef && !account) {
            /* Never log the token itself: a misplaced one may be a password. */
            afu_log(host, AF_LOG_DEBUG, "%s line %u: ignoring an unknown keyword", nf->path, lx.line);
            continue;
        }
        if (is_default) continue;
        if ((r = next_token(&lx)) != TOKEN_OK) break; /* every other keyword takes a value */
        if (machine) oom = take_token(&lx, &cur.machine) != 0;
        else if (macdef) skip_macdef(&lx);
        else if (field && (cur.is_default || cur.machine.data)) /* ignored before the first entry */
            oom = take_token(&lx, field) != 0;
    }
    if (r == TOKEN_END && !oom) {
        finish_entry(host, nf, &cur);
    } else {
        afu_log(host, AF_LOG_WARNING, "%s line %u: %s; ignoring the rest of the file", nf->path, lx.line,
            oom ? "out of memory" : r == TOKEN_TOO_LONG ? "a token is too long" :
            r == TOKEN_UNTERMINATED ? "a quoted token is not closed" : "a keyword lacks its value");
        entry_free(&cur);
    }
    if (lx.token) afu_wipe(lx.token, scratch + 1);
    free(lx.token);
}

/* Reads the configured file afresh. Problems are logged; nf may stay empty. */
static void netrc_load(const af_host_services *host, netrc *nf) {
    char *text = NULL;
    size_t len = 0;
    memset(nf, 0, sizeof *nf);
    if (!(nf->path = netrc_path(host)) || read_file(host, nf->path, &text, &len) != 0) return;
    parse(host, nf, text, len);
    afu_wipe(text, len);
    free(text);
}

static const char *shown_path(const netrc *nf) { return nf->path ? nf->path : "~/.netrc"; }

/* ---- Identities and lookups ------------------------------------------ */

static size_t record_id_length(const entry *e) { return e->machine.len + 1 + e->login.len; }

/* `default` and `machine ""` have no service to be published under. */
static int is_published(const entry *e) { return !e->is_default && e->machine.len > 0; }

static void publish_identities(const af_host_services *host, const netrc *nf) {
    size_t n = 0, total = 0;
    for (size_t i = 0; i < nf->count; i++) total += record_id_length(&nf->items[i]);
    af_identity *ids = calloc(nf->count + 1, sizeof *ids);
    char *keys = malloc(total + 1), *k = keys;
    for (size_t i = 0; ids && keys && i < nf->count; i++) {
        const entry *e = &nf->items[i];
        if (!is_published(e)) continue;
        memcpy(k, e->machine.data, e->machine.len); /* record identifier: "<machine>\n<login>" */
        k[e->machine.len] = '\n';
        if (e->login.len) memcpy(k + e->machine.len + 1, e->login.data, e->login.len);
        ids[n++] = (af_identity){.kind = AF_IDENTITY_PASSWORD, .service_type = AF_SERVICE_DOMAIN,
                                 .service = {e->machine.data, e->machine.len}, .user = {e->login.data, e->login.len},
                                 .record_identifier = {k, record_id_length(e)}, .rank = 0};
        k += record_id_length(e);
    }
    if (!ids || !keys) afu_log(host, AF_LOG_ERROR, "out of memory; no identities published");
    else {
        af_status s = host->store_replace(n ? ids : NULL, n); /* n == 0 also clears stale ones */
        if (s == AF_OK) afu_log(host, AF_LOG_INFO, "published %zu identities from %s", n, shown_path(nf));
        else afu_log(host, AF_LOG_DEBUG, "store_replace failed (status %d); identities not published", (int)s);
    }
    free(ids);
    free(keys);
}

static int entry_is(const entry *e, const af_identity *id) {
    const af_str *rid = &id->record_identifier;
    size_t m = e->machine.len;
    if (rid->length)
        return rid->length == record_id_length(e) && memcmp(rid->data, e->machine.data, m) == 0 &&
               rid->data[m] == '\n' && (e->login.len == 0 || memcmp(rid->data + m + 1, e->login.data, e->login.len) == 0);
    return id->service.length == m && afu_ascii_case_eq(id->service.data, e->machine.data, m) &&
           id->user.length == e->login.len && (e->login.len == 0 || memcmp(id->user.data, e->login.data, e->login.len) == 0);
}

static void complete_with(const af_host_services *host, af_request_id request, const entry *e) {
    af_status s = host->complete_password(request, e->login.data, e->login.len, e->password.data, e->password.len);
    if (s != AF_OK) afu_log(host, AF_LOG_DEBUG, "complete_password returned status %d", (int)s);
}

/* The no-UI path and the UI path alike: a .netrc needs no unlocking. */
static void provide_credential(void *context, af_request_id request, const af_credential_request *cr) {
    const af_host_services *host = ((const provider_state *)context)->host;
    const entry *found = NULL;
    netrc nf;
    if (!cr || cr->kind != AF_REQUEST_PASSWORD) {
        afu_cancel(host, request, AF_ERROR_FAILED, "the .netrc provider has only passwords (request kind %d)",
               cr ? (int)cr->kind : -1);
        return;
    }
    netrc_load(host, &nf);
    for (size_t i = 0; !found && i < nf.count; i++) /* the first match wins, as in curl */
        if (is_published(&nf.items[i]) && entry_is(&nf.items[i], &cr->identity)) found = &nf.items[i];
    if (found) complete_with(host, request, found);
    else afu_cancel(host, request, AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND, "no entry for %.*s at %.*s in %s",
                AFU_SHOW_STR(cr->identity.user), AFU_SHOW_STR(cr->identity.service), shown_path(&nf));
    netrc_free(&nf);
}

/* ---- The credential list ---------------------------------------------- */

/* The host of a service identifier, lower-cased and without a trailing dot;
 * for a URL, without scheme://, userinfo@, :port, [brackets] and path. */
static afu_buf service_host(const af_service_identifier *s) {
    const char *start;
    size_t len = afu_host_span(s->identifier.data, s->identifier.length, s->type == AF_SERVICE_URL, &start);
    afu_buf host = {afu_lower_copy(start, len), len};
    return host;
}

/* Whether a machine is one of the hosts, or a parent domain of one. */
static int entry_matches(const entry *e, const afu_buf *hosts, size_t count) {
    for (size_t i = 0; !e->is_default && i < count; i++)
        if (afu_domain_matches(hosts[i].data, hosts[i].len, e->machine.data, e->machine.len)) return 1;
    return 0;
}

/* "login @ machine", "login @ (default)" or "(no login) @ machine" */
static af_str entry_label(const entry *e) {
    const char *login = e->login.len ? e->login.data : "(no login)";
    const char *machine = e->is_default ? "(default)" : e->machine.data;
    size_t login_len = e->login.len ? e->login.len : 10, machine_len = e->is_default ? 9 : e->machine.len;
    char *text = malloc(login_len + machine_len + 4);
    if (text) snprintf(text, login_len + machine_len + 4, "%.*s @ %.*s", (int)login_len, login, (int)machine_len, machine);
    /* Tokens may hold NUL bytes (snprintf stops there) or tabs and newlines (they would break the menu). */
    return (af_str){text, text ? afu_sanitize(text, strlen(text)) : 0};
}

static void choose_and_complete(const af_host_services *host, af_request_id request, const netrc *nf,
                                const size_t *order, const af_str *items) {
    static const char title[] = "Choose a .netrc login";
    size_t chosen = 0;
    af_status s = host->ui_choose(request, title, sizeof title - 1, items, nf->count, &chosen);
    if (s == AF_OK && chosen < nf->count) complete_with(host, request, &nf->items[order[chosen]]);
    else if (s == AF_OK) afu_cancel(host, request, AF_ERROR_FAILED, "the host chose item %zu of %zu", chosen, nf->count);
    else if (s == AF_STATUS_UI_CANCELED) host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
    else if (s == AF_STATUS_UI_UNAVAILABLE) afu_cancel(host, request, AF_ERROR_FAILED, "choosing a login needs the terminal UI");
    else afu_cancel(host, request, AF_ERROR_FAILED, "choosing a login needs the terminal UI (status %d)", (int)s);
}

static void prepare_credential_list(void *context, af_request_id request, const af_service_identifier *services,
                                    size_t service_count) {
    const af_host_services *host = ((const provider_state *)context)->host;
    netrc nf;
    netrc_load(host, &nf);
    if (nf.count == 0) {
        afu_cancel(host, request, AF_ERROR_FAILED, "no entries in %s", shown_path(&nf));
        netrc_free(&nf);
        return;
    }
    afu_buf *hosts = calloc(service_count + 1, sizeof *hosts);
    size_t *order = calloc(nf.count, sizeof *order), n = 0;
    af_str *items = calloc(nf.count, sizeof *items);
    int ok = hosts && order && items;
    for (size_t i = 0; ok && i < service_count; i++) ok = (hosts[i] = service_host(&services[i])).data != NULL;
    for (int pass = 0; ok && pass < 2; pass++) /* matching entries first, file order within each group */
        for (size_t i = 0; i < nf.count; i++)
            if (entry_matches(&nf.items[i], hosts, service_count) == (pass == 0)) order[n++] = i;
    for (size_t i = 0; ok && i < nf.count; i++) ok = (items[i] = entry_label(&nf.items[order[i]])).data != NULL;
    if (ok) choose_and_complete(host, request, &nf, order, items);
    else afu_cancel(host, request, AF_ERROR_FAILED, "out of memory");
    for (size_t i = 0; hosts && i < service_count; i++) free(hosts[i].data);
    for (size_t i = 0; items && i < nf.count; i++) free((char *)items[i].data);
    free(hosts), free(order), free(items);
    netrc_free(&nf);
}

/* ---- Configuration ----------------------------------------------------- */

/* Right after the user enables the provider: read the file again, write the full identity list
 * (the store may have just been created or wiped), say what was found, and complete. */
static void prepare_configuration(void *context, af_request_id request) {
    const af_host_services *host = ((const provider_state *)context)->host;
    netrc nf;
    netrc_load(host, &nf);
    publish_identities(host, &nf);
    char line[160];
    snprintf(line, sizeof line, "Netrc serves %zu login%s from its .netrc file.", nf.count, nf.count == 1 ? "" : "s");
    netrc_free(&nf);
    /* The message is a courtesy: without a terminal the configuration still completes; a user
     * who cancels it has cancelled the configuration. */
    if (host->ui_message(request, "Netrc", 5, line, strlen(line)) == AF_STATUS_UI_CANCELED) {
        host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
        return;
    }
    host->complete_configuration(request);
}

/* ---- Entry ----------------------------------------------------------- */

static const af_provider provider_table = {
    .abi_version = AF_ABI_VERSION,
    .size = sizeof(af_provider),
    .context = &state,
    .prepare_credential_list = prepare_credential_list,
    .provide_credential_without_user_interaction = provide_credential,
    .prepare_interface_to_provide_credential = provide_credential,
    .prepare_interface_for_extension_configuration = prepare_configuration,
};

AF_EXPORT const af_provider *netrc_provider_entry(uint32_t host_abi_version, const af_host_services *host) {
    netrc nf;
    if (!afu_host_usable(host_abi_version, host)) return NULL;
    state.host = host;
    netrc_load(host, &nf); /* a missing file is logged at INFO and publishes nothing */
    publish_identities(host, &nf);
    netrc_free(&nf);
    return &provider_table;
}
