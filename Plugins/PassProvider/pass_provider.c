/*
 * pass_provider.c — an autofill provider for the standard Unix password
 * manager, pass (https://www.passwordstore.org): passwords and one-time codes
 * from a store of GPG-encrypted files, decrypted with gpgme.
 *
 * Written as a third party would write one: plain C11 with POSIX, against
 * autofill_provider.h, gpgme (decryption) and libgcrypt (the HMAC of one-time
 * codes; every gpg installation has it), plus the optional helpers of
 * Plugins/Common. The source files are listed in pass_provider.h, their private
 * header. Build them, then put the library next to this directory's Info.plist
 * in the bundle:
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
 *      -I<autofill>/Sources/CAutofillProvider/include -I<autofill>/Plugins/Common \
 *      *.c <autofill>/Plugins/Common/af_provider_util.c \
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
 *   - for every entry, before anything is decrypted, a password identity
 *     whose record identifier is the entry's name (its path without .gpg,
 *     what the user searches by: `autofill suggest fastmail`). When the path
 *     names a site (a component that looks like a domain:
 *     `github.com/octocat` → github.com, user octocat; `example.com` →
 *     example.com, user unknown) that is its service; otherwise its service
 *     is the entry's name too (`Email/fastmail`), which names no site, until
 *     a decryption shows its `url:`;
 *   - once the user has had an entry decrypted through autofill, what that
 *     decryption showed of it, kept in identities.tsv in the provider's data
 *     folder: the user (`login:` …), the host of `url:` and its scheme, host,
 *     port and path (never its user info, query or fragment: they might hold
 *     a token; published as the identity's URL, so git's http is not its https
 *     nor one repository's token another's), and whether it has an otpauth://
 *     line, with the file's size and modification time (a changed file is
 *     forgotten). A save remembers what it wrote the same way.
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
 * Saving (pass_write.c): the entry the store holds for that user at that site gets a new first line
 * (every other line kept), else a new entry SITE/USER is made with `login:` and `url:` lines; either is
 * encrypted here to the nearest .gpg-id above it and handed to the host (add_file), which writes it
 * into the store (read-only to this provider: Info.plist declares it add-files) and commits it when
 * the store is a git repository, as `pass insert` does. Generating (pass_generate.c) makes a
 * password like `pass generate`, within the site's rules, and saves nothing. Credential-update
 * reports are not taken (SupportsCredentialUpdate is not declared): pass cannot hide an entry short of
 * deleting it.
 *
 * Every request is answered before its entry point returns.
 */
#include "pass_provider.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcrypt.h>
#include <gpgme.h>

provider_state state; /* written by the entry function; entry points run one at a time */

/* Why a ui_* call did not answer, for a reason the user reads. */
const char *ui_trouble(af_status s) {
    return s == AF_STATUS_UI_UNAVAILABLE ? "no terminal or UI script to ask in" : s == AF_STATUS_UI_CANCELED ? "cancelled" : "the host refused the question";
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
        const char *site = entry_site(&s->items[i]), *user = entry_user(&s->items[i]), *url = s->items[i].known_url;
        if (url && site == s->items[i].known_site && strlen(url) == id->service.length && !memcmp(url, id->service.data, id->service.length))
            site = url;
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
char *service_host(const af_service_identifier *sid) {
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
    .prepare_interface_for_save_password = save_password,
    .prepare_interface_for_generate_password = generate_password,
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
