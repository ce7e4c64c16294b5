/*
 * secret_service_unlock.c — unlocking through the service's own prompt (Unlock, then Prompt, then
 * its Completed signal), and telling apart why a collection stays locked: the user dismissed the
 * prompt, or nothing could show it (GNOME Keyring without a desktop: its prompter never came up).
 */
#include "secret_service_provider.h"

#include <string.h>

/* How long a prompt may stay open before it is dismissed: a person at a desktop dialog. */
#define PROMPT_SECONDS 600

typedef struct {
    int completed, dismissed, timed_out;
    int prompter_seen; /* org.gnome.keyring.SystemPrompter had an owner while we waited */
} prompt_wait;

static void on_completed(GDBusConnection *bus, const gchar *sender, const gchar *path, const gchar *interface,
                         const gchar *signal, GVariant *parameters, gpointer data) {
    (void)bus, (void)sender, (void)path, (void)interface, (void)signal;
    prompt_wait *wait = data;
    gboolean dismissed = TRUE;
    if (g_variant_is_of_type(parameters, G_VARIANT_TYPE("(bv)"))) g_variant_get(parameters, "(bv)", &dismissed, NULL);
    wait->dismissed = dismissed;
    wait->completed = 1;
}

/* NameOwnerChanged for the prompter's name (the bus sends it before anything the prompter causes,
 * so it arrives before the Completed it leads to). */
static void on_prompter(GDBusConnection *bus, const gchar *sender, const gchar *path, const gchar *interface,
                        const gchar *signal, GVariant *parameters, gpointer data) {
    (void)bus, (void)sender, (void)path, (void)interface, (void)signal;
    prompt_wait *wait = data;
    const gchar *name, *old_owner, *new_owner;
    if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sss)"))) return;
    g_variant_get(parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
    if (*new_owner) wait->prompter_seen = 1;
}

static gboolean on_timeout(gpointer data) {
    ((prompt_wait *)data)->timed_out = 1;
    return G_SOURCE_REMOVE;
}

/* Shows the prompt at `prompt` and waits for its Completed signal, noting whether the prompter
 * came up. 0 when it completed (see wait->dismissed), -1 with p set when it could not be shown. */
static int run_prompt(const char *prompt, prompt_wait *wait, problem *p) {
    GError *error = NULL;
    guint completed = g_dbus_connection_signal_subscribe(state.bus, state.owner, "org.freedesktop.Secret.Prompt", "Completed",
                                                         prompt, NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_completed, wait, NULL);
    guint prompter = g_dbus_connection_signal_subscribe(state.bus, "org.freedesktop.DBus", "org.freedesktop.DBus",
                                                        "NameOwnerChanged", "/org/freedesktop/DBus", GNOME_PROMPTER_NAME,
                                                        G_DBUS_SIGNAL_FLAGS_NONE, on_prompter, wait, NULL);
    wait->prompter_seen = bus_knows_name(GNOME_PROMPTER_NAME, 0); /* GNOME Shell's is there all along */
    GVariant *reply = service_call(prompt, "org.freedesktop.Secret.Prompt", "Prompt", g_variant_new("(s)", ""), "()", &error);
    int result = 0;
    if (!reply) {
        set_problem(p, AF_ERROR_FAILED, "the Secret Service did not show its unlock prompt: %s", error->message);
        g_error_free(error);
        result = -1;
    } else {
        g_variant_unref(reply);
        GSource *timeout = g_timeout_source_new_seconds(PROMPT_SECONDS);
        g_source_set_callback(timeout, on_timeout, wait, NULL);
        g_source_attach(timeout, state.context);
        while (!wait->completed && !wait->timed_out && !g_dbus_connection_is_closed(state.bus))
            g_main_context_iteration(state.context, TRUE);
        g_source_destroy(timeout);
        g_source_unref(timeout);
        if (!wait->completed && g_dbus_connection_is_closed(state.bus)) {
            set_problem(p, AF_ERROR_FAILED, "the session bus went away while the Secret Service's unlock prompt was open");
            result = -1;
        } else if (!wait->completed) {
            GVariant *dismissed = service_call(prompt, "org.freedesktop.Secret.Prompt", "Dismiss", NULL, "()", NULL);
            if (dismissed) g_variant_unref(dismissed);
            set_problem(p, AF_ERROR_FAILED, "the Secret Service's unlock prompt got no answer in %d minutes (dismissed)",
                        PROMPT_SECONDS / 60);
            result = -1;
        }
    }
    g_dbus_connection_signal_unsubscribe(state.bus, completed);
    g_dbus_connection_signal_unsubscribe(state.bus, prompter);
    while (g_main_context_iteration(state.context, FALSE)) {} /* the subscriptions' last callbacks */
    return result;
}

int unlock_paths(const char *const *paths, size_t count, const char *what, problem *p) {
    GError *error = NULL;
    const gchar *prompt = NULL;
    prompt_wait wait = {0};
    GVariant *objects = g_variant_new_objv(paths, (gssize)count);
    afu_log(state.host, AF_LOG_NOTICE, "asking the Secret Service to unlock %s (it shows its own prompt)", what);
    GVariant *reply = service_call("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "Unlock", g_variant_new_tuple(&objects, 1),
                           "(aoo)", &error);
    if (!reply) {
        set_problem(p, AF_ERROR_FAILED, "the Secret Service could not unlock %s: %s", what, error->message);
        g_error_free(error);
        return -1;
    }
    g_variant_get(reply, "(@ao&o)", NULL, &prompt);
    int result = strcmp(prompt, "/") == 0 ? 0 : run_prompt(prompt, &wait, p);
    g_variant_unref(reply);
    if (result != 0 || strcmp(prompt, "/") == 0 || !wait.dismissed) return result;
    /* Dismissed. GNOME Keyring dismisses at once when its prompter cannot come up (no desktop: gcr's
     * prompter cannot open a display, or there is none): tell that apart from a user who said no. */
    if (bus_knows_name(GNOME_KEYRING_NAME, 0) && !wait.prompter_seen && !bus_knows_name(GNOME_PROMPTER_NAME, 0)) {
        set_problem(p, AF_ERROR_FAILED,
                    "%s is locked, and GNOME Keyring cannot ask for its password here: its prompter (" GNOME_PROMPTER_NAME
                    ") %s. Unlock it from your desktop, or run gnome-keyring-daemon --replace --unlock "
                    "--components=secrets with the keyring's password on its standard input (README: \"GNOME Keyring, "
                    "KWallet, KeePassXC\"); then try again", what,
                    bus_knows_name(GNOME_PROMPTER_NAME, 1) ? "did not come up (no desktop session to show it on)"
                                                           : "is not installed on this session bus (no desktop session)");
        return -1;
    }
    set_problem(p, AF_ERROR_USER_CANCELED, "%s stays locked: its unlock prompt was dismissed", what);
    return -1;
}
