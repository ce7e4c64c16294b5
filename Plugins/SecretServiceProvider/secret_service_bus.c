/*
 * secret_service_bus.c — the provider's own connection to the session bus and the Secret Service
 * proxy on it: where the bus is (without ever starting one), keeping both between requests, and
 * opening them again when the bus or the service went away.
 */
#include "secret_service_provider.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- The session bus and the service ----------------------------------------- */

/* SecretService's own constructor ties the proxy to GDBus's process-wide session bus (it sets
 * "g-bus-type"), which reads the environment once per process. This subclass undoes that after
 * the parent constructor ran, so the proxy uses the connection passed as "g-connection": GDBusProxy
 * documents that a g-bus-type of G_BUS_TYPE_NONE means exactly that. libsecret supports
 * subclassing SecretService (secret_service_open takes a GType). */
static GObject *(*secret_service_constructor)(GType, guint, GObjectConstructParam *);

static GObject *own_bus_service_constructor(GType type, guint count, GObjectConstructParam *params) {
    GObject *object = secret_service_constructor(type, count, params);
    g_object_set(object, "g-bus-type", G_BUS_TYPE_NONE, NULL);
    return object;
}

static void own_bus_service_class_init(gpointer klass, gpointer data) {
    (void)data;
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    secret_service_constructor = object_class->constructor;
    object_class->constructor = own_bus_service_constructor;
}

static GType own_bus_service_type(void) {
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        /* One name per loaded copy of this library: a process may load two copies (two bundles),
         * and a type name can be registered once. The library is never unloaded (RTLD_NODELETE). */
        char name[64];
        snprintf(name, sizeof name, "AutofillSecretService%" PRIxPTR, (uintptr_t)&type);
        GType registered = g_type_register_static_simple(SECRET_TYPE_SERVICE, g_intern_string(name),
                                                         sizeof(SecretServiceClass), own_bus_service_class_init,
                                                         sizeof(SecretService), NULL, 0);
        g_once_init_leave(&type, registered);
    }
    return (GType)type;
}

/* Where the session bus is, as GLib would find it but without ever starting one (GLib's last
 * resort runs dbus-launch): the setting, the environment, $XDG_RUNTIME_DIR/bus. NULL: nowhere. */
static char *session_bus_address(const char **from) {
    char *address;
    const char *env = getenv("DBUS_SESSION_BUS_ADDRESS"), *runtime = getenv("XDG_RUNTIME_DIR");
    struct stat sb;
    if (afu_setting(state.host, SETTING_BUS, &address) == AF_OK) { *from = "the " SETTING_BUS " setting"; return address; }
    if (env && *env) { *from = "DBUS_SESSION_BUS_ADDRESS"; return strdup(env); }
    if (runtime && *runtime == '/') {
        char *socket = g_strdup_printf("%s/bus", runtime);
        int found = stat(socket, &sb) == 0 && S_ISSOCK(sb.st_mode);
        address = found ? g_strdup_printf("unix:path=%s", socket) : NULL;
        g_free(socket);
        if (address) { /* malloc'd like the others */
            char *copy = strdup(address);
            g_free(address);
            *from = "$XDG_RUNTIME_DIR/bus";
            return copy;
        }
    }
    return NULL;
}

static void disconnect(void) {
    g_clear_object(&state.service);
    if (state.bus) g_dbus_connection_close_sync(state.bus, NULL, NULL);
    g_clear_object(&state.bus);
    free(state.address);
    state.address = NULL;
    g_free(state.owner);
    state.owner = NULL;
}

/* Whether `name` has an owner on our bus, or (with `activatable`) could be started by the bus. */
int bus_knows_name(const char *name, int activatable) {
    GVariant *reply = g_dbus_connection_call_sync(
        state.bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
        activatable ? "ListActivatableNames" : "NameHasOwner", activatable ? NULL : g_variant_new("(s)", name),
        NULL, G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
    int known = 0;
    if (!reply) return 0;
    if (!activatable) {
        gboolean owned = FALSE;
        g_variant_get(reply, "(b)", &owned);
        known = owned;
    } else {
        GVariantIter *names;
        const gchar *each;
        g_variant_get(reply, "(as)", &names);
        while (!known && g_variant_iter_next(names, "&s", &each)) known = strcmp(each, name) == 0;
        g_variant_iter_free(names);
    }
    g_variant_unref(reply);
    return known;
}

/* A method call to the Secret Service (the program that owned its name when we connected), waited
 * for: its reply of `reply_type`, or NULL with `error` set. */
GVariant *service_call(const char *path, const char *interface, const char *method, GVariant *arguments, const char *reply_type,
                       GError **error) {
    return g_dbus_connection_call_sync(state.bus, state.owner, path, interface, method, arguments, G_VARIANT_TYPE(reply_type),
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, NULL, error);
}

/* The unique name owning `name` on our bus, g_malloc'd; NULL when none does. */
static gchar *name_owner(const char *name) {
    GVariant *reply = g_dbus_connection_call_sync(state.bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus", "GetNameOwner", g_variant_new("(s)", name),
                                                  G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
    gchar *owner = NULL;
    if (reply) g_variant_get(reply, "(s)", &owner);
    if (reply) g_variant_unref(reply);
    return owner;
}

/* The Secret Service, connected (again) when needed; NULL with `p` set when it cannot be reached. */
SecretService *service_connect(problem *p) {
    const char *from = NULL;
    char *address = session_bus_address(&from);
    GError *error = NULL;
    if (!address) {
        disconnect();
        set_problem(p, AF_ERROR_FAILED,
                    "there is no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus. "
                    "The Secret Service (GNOME Keyring, KWallet, KeePassXC) lives on your desktop session's bus: run autofill "
                    "in that session, or set this provider's " SETTING_BUS " setting to the bus's address");
        return NULL;
    }
    /* The same bus, still open, and the same program owning the service name (asked of the bus
     * itself: the proxy hears of a new owner only through a signal it may not have handled yet):
     * keep it all, the Secret Service session included. */
    if (state.service && strcmp(address, state.address) == 0 && !g_dbus_connection_is_closed(state.bus)) {
        gchar *owner = name_owner(SERVICE_NAME);
        int same = owner && state.owner && strcmp(owner, state.owner) == 0;
        g_free(owner);
        if (same) {
            free(address);
            return state.service;
        }
    }
    disconnect();
    state.bus = g_dbus_connection_new_for_address_sync(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL,
        &error);
    if (!state.bus) {
        set_problem(p, AF_ERROR_FAILED,
                    "cannot connect to the D-Bus session bus at %s (from %s): %s. Is your desktop session running? The "
                    "Secret Service lives on its bus", address, from, error->message);
        g_error_free(error);
        free(address);
        return NULL;
    }
    state.address = address;
    state.service = g_initable_new(own_bus_service_type(), NULL, &error, "g-connection", state.bus, NULL);
    if (!state.service) {
        set_problem(p, AF_ERROR_FAILED, "cannot reach the Secret Service on the session bus at %s: %s", address,
                    error->message);
        g_error_free(error);
        disconnect();
        return NULL;
    }
    state.owner = g_dbus_proxy_get_name_owner(G_DBUS_PROXY(state.service)); /* GDBusProxy started it if it could */
    if (!state.owner) {
        set_problem(p, AF_ERROR_FAILED,
                    "no Secret Service on the session bus at %s (from %s): nothing provides " SERVICE_NAME ". Start "
                    "GNOME Keyring (gnome-keyring-daemon --components=secrets), KWallet, or KeePassXC with its Secret "
                    "Service integration on", address, from);
        disconnect();
        return NULL;
    }
    return state.service;
}
