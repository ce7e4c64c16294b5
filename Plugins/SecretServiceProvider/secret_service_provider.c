/*
 * secret_service_provider.c — an autofill password provider that serves the logins kept by the
 * Secret Service (org.freedesktop.secrets on the D-Bus session bus: GNOME Keyring, KWallet,
 * KeePassXC), through libsecret.
 *
 * The third-party case the C ABI exists for: plain C11 against autofill_provider.h and one real
 * library, libsecret (Debian libsecret-1-dev), plus the optional helpers of Plugins/Common. The
 * source files are listed in secret_service_provider.h, their private header. Build them, then put
 * the library next to this directory's Info.plist in the bundle (Scripts/build does both):
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
 *      -I<autofill>/Sources/CAutofillProvider/include -I<autofill>/Plugins/Common \
 *      *.c <autofill>/Plugins/Common/af_provider_util.c \
 *      $(pkg-config --cflags --libs libsecret-1) -o libSecretServiceProvider.so
 *
 * Which items are logins (docs/WRITING_A_PROVIDER.md, "A real third-party provider"): the
 * attributes of an item are not secret, so its identity (service, user) is published from them;
 * the secret is read only to answer a request.
 *
 *   xdg:schema                          written by                  service                          user
 *   org.git.Password                    git-credential-libsecret    protocol://server[:port][/path]  user
 *   org.gnome.keyring.NetworkPassword   GVfs, older GNOME programs  protocol://server[:port][/object] user
 *   org.epiphany.FormPassword           GNOME Web                   uri                              username
 *   chrome_libsecret_password_schema    Chromium, Chrome            origin_url (else signon_realm)   username_value
 *   anything else                       KeePassXC, scripts, ...     url (any case: URL)              username or user (any case)
 *
 * A git item without a protocol is published as the domain server[:port]. Chromium's "never save
 * for this site" entries (blacklisted_by_user 1) are skipped. git keeps more than the password in
 * the secret since 2.41 (further lines: password_expiry_utc=, oauth_refresh_token=); only its
 * first line is filled.
 *
 * The session bus is the provider setting "SessionBusAddress", else $DBUS_SESSION_BUS_ADDRESS,
 * else $XDG_RUNTIME_DIR/bus when that socket exists. The provider opens a connection of its own to
 * it (never GDBus's process-wide session bus, which a host running several providers, or a test
 * process running several keyrings, could not share), keeps it and its Secret Service session
 * between requests (the agent keeps the provider's process alive), and opens them again when the
 * bus or the service went away.
 *
 * Saving (secret_service_save.c): network-password items git's own libsecret helper and secret-tool
 * read, in the default collection; an update replaces the secret of the item that holds exactly that
 * login, never another application's item. Generating (secret_service_generate.c) honours the
 * site's rules and saves nothing. An unused-password report ranks the login's identities last.
 *
 * A locked collection: the no-UI request answers userInteractionRequired; the UI request (and a
 * save) asks the Secret Service to unlock it (Unlock, Prompt, then the Completed signal:
 * secret_service_unlock.c), which shows the service's own prompt (the desktop's keyring dialog,
 * KeePassXC's window). A dismissed prompt is the user's cancel; when GNOME Keyring's prompter never
 * came up (no desktop: a server, an SSH login) the user is told that, and how to unlock it instead.
 *
 * Threads: the host calls one entry point at a time; every request is answered before its entry
 * point returns. Every GLib object the provider makes belongs to its own GMainContext, pushed as
 * the thread's default while an entry point runs and drained before it returns, so the signals
 * those objects receive never pile up in another context, and none of the host's threads is
 * touched by GLib.
 */
#include "secret_service_provider.h"

#include <stdio.h>
#include <string.h>

provider_state state; /* used by one entry point at a time (see "Threads") */

/* ---- Text ------------------------------------------------------------ */

void set_problem(problem *p, int32_t code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    afu_format_text(p->text, sizeof p->text, fmt, ap);
    va_end(ap);
    p->code = code;
}

void cancel_with(af_request_id request, const problem *p) {
    af_status s = state.host->cancel_request(request, p->code, p->text, strlen(p->text));
    if (s != AF_OK) afu_log(state.host, AF_LOG_DEBUG, "cancel_request returned status %d", (int)s);
}

/* ---- Configuration ---------------------------------------------------------------- */

/* Right after the user enables the provider (and `autofill unlock`): write every identity again
 * and say what was found. */
static void prepare_configuration(void *context, af_request_id request) {
    (void)context;
    keyring k;
    if (!keyring_for(request, &k)) return;
    publish(&k);
    GString *text = g_string_new(NULL);
    size_t logins = keyring_logins(&k);
    g_string_append_printf(text, "The Secret Service holds %zu login%s autofill can fill.", logins, logins == 1 ? "" : "s");
    if (k.locked_labels[0]) {
        char *locked = g_strjoinv("\", \"", k.locked_labels);
        g_string_append_printf(text, " Locked: \"%s\"; a fill from it asks the Secret Service to unlock it.", locked);
        g_free(locked);
    }
    keyring_clear(&k);
    /* The message is a courtesy: without a terminal the configuration still completes. */
    af_status s = state.host->ui_message(request, LIT("Secret Service"), text->str, text->len);
    g_string_free(text, TRUE);
    if (s == AF_STATUS_UI_CANCELED) state.host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
    else state.host->complete_configuration(request);
}

/* ---- Entry points: each runs in the provider's own GLib context ----------------------- */

static void drain(void) {
    while (g_main_context_iteration(state.context, FALSE)) {} /* the signals our objects received */
}

static void enter(void) {
    g_main_context_push_thread_default(state.context);
    drain();
}

static void leave(void) {
    drain();
    g_main_context_pop_thread_default(state.context);
}

static void entry_list(void *c, af_request_id r, const af_service_identifier *s, size_t n) {
    enter(), prepare_credential_list(c, r, s, n), leave();
}
static void entry_without_ui(void *c, af_request_id r, const af_credential_request *cr) {
    (void)c;
    enter(), provide(r, cr, 0), leave();
}
static void entry_with_ui(void *c, af_request_id r, const af_credential_request *cr) {
    (void)c;
    enter(), provide(r, cr, 1), leave();
}
static void entry_configuration(void *c, af_request_id r) { enter(), prepare_configuration(c, r), leave(); }
/* Whether the host has the completions of the save, generate and update requests (a host built
 * against the earlier ABI 1 header sends none of them); cancels `r` when not. */
static int host_completes(af_request_id r) {
    if (AF_TABLE_HAS(af_host_services, state.host, complete_credential_update)) return 1;
    afu_cancel(state.host, r, AF_ERROR_FAILED, "this host cannot complete saves, generated passwords or updates (an older ABI 1 host)");
    return 0;
}
static void entry_save(void *c, af_request_id r, const af_save_password_request *save) {
    (void)c;
    if (host_completes(r)) enter(), save_password(r, save), leave();
}
static void entry_generate(void *c, af_request_id r, const af_generate_password_request *generate) {
    (void)c;
    if (host_completes(r)) generate_password(r, generate); /* no keyring: generating saves nothing */
}
static void entry_update(void *c, af_request_id r, const af_credential_update *update) {
    (void)c;
    if (host_completes(r)) enter(), report_update(r, update), leave();
}

static const af_provider provider_table = {
    .abi_version = AF_ABI_VERSION,
    .size = sizeof(af_provider),
    .context = &state,
    .prepare_credential_list = entry_list,
    .provide_credential_without_user_interaction = entry_without_ui,
    .prepare_interface_to_provide_credential = entry_with_ui,
    .prepare_interface_for_extension_configuration = entry_configuration,
    .prepare_interface_for_save_password = entry_save,
    .prepare_interface_for_generate_password = entry_generate,
    .report_credential_update = entry_update,
};

AF_EXPORT const af_provider *secret_service_provider_entry(uint32_t host_abi_version, const af_host_services *host) {
    problem p;
    keyring k;
    if (!afu_host_usable(host_abi_version, host)) return NULL;
    state.host = host;
    state.context = g_main_context_new();
    enter();
    /* Publish what the keyring holds now. Nothing reachable is no reason to refuse to load: every
     * request then says why (no bus, no service), and a later load publishes. */
    gint64 start = g_get_monotonic_time();
    SecretService *service = service_connect(&p);
    if (service && keyring_load(service, &k, &p) == 0) {
        gint64 read = g_get_monotonic_time();
        publish(&k);
        afu_log(state.host, AF_LOG_DEBUG, "loading: connected and read %zu items in %.1f ms, published in %.1f ms", k.count,
            (double)(read - start) / 1000, (double)(g_get_monotonic_time() - read) / 1000);
        keyring_clear(&k);
    } else {
        afu_log(state.host, AF_LOG_INFO, "%s; no identities published", p.text); /* every request says it again, to the user */
    }
    leave();
    return &provider_table;
}
