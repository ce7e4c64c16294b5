/*
 * secret_service_provider.c — an autofill password provider that serves the logins kept by the
 * Secret Service (org.freedesktop.secrets on the D-Bus session bus: GNOME Keyring, KWallet,
 * KeePassXC), through libsecret.
 *
 * The third-party case the C ABI exists for: plain C11 against autofill_provider.h and one real
 * library, libsecret (Debian libsecret-1-dev). Build it, then put the library next to this
 * directory's Info.plist in the bundle (Scripts/build does both):
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
 *      -I<autofill>/Sources/CAutofillProvider/include -I<autofill>/Plugins/Common \
 *      secret_service_provider.c <autofill>/Plugins/Common/af_provider_util.c \
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
 * A locked collection: the no-UI request answers userInteractionRequired; the UI request asks the
 * Secret Service to unlock it (secret_service_unlock_sync), which shows the service's own prompt
 * (the desktop's keyring dialog, KeePassXC's window). Without one (no desktop: a server, an SSH
 * login) the unlock is dismissed at once, and the user is told how to unlock the keyring instead.
 *
 * Threads: the host calls one entry point at a time; every request is answered before its entry
 * point returns. Every GLib object the provider makes belongs to its own GMainContext, pushed as
 * the thread's default while an entry point runs and drained before it returns, so the signals
 * those objects receive never pile up in another context, and none of the host's threads is
 * touched by GLib.
 */
#define _DEFAULT_SOURCE /* strdup */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The object-path calls (secret_item_new_for_dbus_path_sync, ...) are in libsecret's "unstable"
 * part (secret-paths.h; unchanged since libsecret 0.2, 2012). They let a fill read the one item
 * it needs by its path, instead of loading every item of every collection to find it. */
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>

#include "autofill_provider.h"
#include "af_provider_util.h"

#define LIT(s) (s), sizeof(s) - 1
#define SETTING_BUS "SessionBusAddress"
#define SERVICE_NAME "org.freedesktop.secrets"
/* gnome-keyring asks this name to show its prompts (gcr's prompter, or GNOME Shell). */
#define GNOME_KEYRING_NAME "org.gnome.keyring"
#define GNOME_PROMPTER_NAME "org.gnome.keyring.SystemPrompter"

typedef struct {
    const af_host_services *host;
    GMainContext *context;    /* the provider's own; see "Threads" above */
    GDBusConnection *bus;     /* our connection to the session bus, or NULL */
    SecretService *service;   /* the Secret Service proxy on `bus`, or NULL */
    char *address;            /* the address `bus` was opened with */
    char *owner;              /* the unique name that owned org.freedesktop.secrets then */
} provider_state;

static provider_state state; /* used by one entry point at a time (see "Threads") */

/* ---- Text ------------------------------------------------------------ */

/* Why a request failed: an AF_ERROR_* code and the reason the user reads. Never a secret. */
typedef struct {
    int32_t code;
    char text[900];
} problem;

__attribute__((format(printf, 3, 4)))
static void set_problem(problem *p, int32_t code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    afu_format_text(p->text, sizeof p->text, fmt, ap);
    va_end(ap);
    p->code = code;
}

static void cancel_with(af_request_id request, const problem *p) {
    af_status s = state.host->cancel_request(request, p->code, p->text, strlen(p->text));
    if (s != AF_OK) afu_log(state.host, AF_LOG_DEBUG, "cancel_request returned status %d", (int)s);
}

static int str_is(af_str s, const char *text) {
    size_t n = strlen(text);
    return s.length == n && (n == 0 || memcmp(s.data, text, n) == 0);
}

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
static int bus_knows_name(const char *name, int activatable) {
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
static SecretService *service_connect(problem *p) {
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

/* ---- Logins: what an item's attributes say ------------------------------------ */

typedef struct {
    SecretItem *item;      /* libsecret's object for it, made when its secret is needed (item_of), or NULL */
    char *path;            /* its D-Bus object path: the record identifier */
    char *label;           /* g_malloc'd */
    char *collection;      /* the path of its collection */
    char *service, *user;  /* g_malloc'd; NULL when the item is no login (or locked and unreadable) */
    int32_t service_type;  /* AF_SERVICE_* */
    int first_line_only;   /* git: the password is the secret's first line */
    int locked;
} login;

/* An attribute by name; with `any_case`, the first whose name matches ignoring ASCII case. */
static const char *attribute(GHashTable *attributes, const char *name, int any_case) {
    const char *value = g_hash_table_lookup(attributes, name);
    if (value || !any_case) return value;
    GHashTableIter iter;
    gpointer key, found;
    g_hash_table_iter_init(&iter, attributes);
    while (g_hash_table_iter_next(&iter, &key, &found))
        if (g_ascii_strcasecmp(key, name) == 0) return found;
    return NULL;
}

static int nonempty(const char *s) { return s && *s; }

/* protocol://server[:port][/path], or server[:port][/path] without a protocol. */
static char *server_url(const char *protocol, const char *server, const char *port, const char *path, int32_t *type) {
    GString *url = g_string_new(NULL);
    if (nonempty(protocol)) g_string_append_printf(url, "%s://", protocol);
    g_string_append(url, server);
    if (nonempty(port) && strcmp(port, "0") != 0) g_string_append_printf(url, ":%s", port);
    if (nonempty(path)) g_string_append_printf(url, "%s%s", path[0] == '/' ? "" : "/", path);
    *type = nonempty(protocol) || nonempty(path) ? AF_SERVICE_URL : AF_SERVICE_DOMAIN;
    return g_string_free(url, FALSE);
}

/* Fills the login fields of `l` from its item's attributes `a` (see the table at the top). */
static void read_login(login *l, GHashTable *a) {
    const char *schema = a ? g_hash_table_lookup(a, "xdg:schema") : NULL, *service = NULL, *user = NULL;
    l->service_type = AF_SERVICE_URL;
    if (!a) return;
    if (schema && strcmp(schema, "org.git.Password") == 0) {
        if (nonempty(attribute(a, "server", 0))) {
            l->service = server_url(attribute(a, "protocol", 0), attribute(a, "server", 0), attribute(a, "port", 0),
                                    attribute(a, "path", 0), &l->service_type);
            user = attribute(a, "user", 0);
            l->first_line_only = 1;
        }
    } else if (schema && strcmp(schema, "org.gnome.keyring.NetworkPassword") == 0) {
        if (nonempty(attribute(a, "server", 0))) {
            l->service = server_url(attribute(a, "protocol", 0), attribute(a, "server", 0), attribute(a, "port", 0),
                                    attribute(a, "object", 0), &l->service_type);
            user = attribute(a, "user", 0);
        }
    } else if (schema && strcmp(schema, "org.epiphany.FormPassword") == 0) {
        service = attribute(a, "uri", 0);
        user = attribute(a, "username", 0);
    } else if (schema && strcmp(schema, "chrome_libsecret_password_schema") == 0) {
        const char *never = attribute(a, "blacklisted_by_user", 0);
        if (!(never && strcmp(never, "1") == 0)) {
            service = nonempty(attribute(a, "origin_url", 0)) ? attribute(a, "origin_url", 0) : attribute(a, "signon_realm", 0);
            user = attribute(a, "username_value", 0);
        }
    } else {
        service = attribute(a, "url", 1);
        user = nonempty(attribute(a, "username", 1)) ? attribute(a, "username", 1) : attribute(a, "user", 1);
        if (!nonempty(user)) service = NULL; /* a url alone names no login */
    }
    if (nonempty(service)) {
        l->service = g_strdup(service);
        l->service_type = strstr(service, "://") ? AF_SERVICE_URL : AF_SERVICE_DOMAIN;
    }
    if (l->service) l->user = g_strdup(user ? user : "");
    /* D-Bus strings are UTF-8 already; only the length can be over the ABI's limit. */
    if (l->service && (strlen(l->service) + strlen(l->user) + strlen(l->path) > AF_MAX_STRING_LENGTH)) {
        g_clear_pointer(&l->service, g_free);
        g_clear_pointer(&l->user, g_free);
    }
}

static void login_start(login *l, const char *path) {
    const char *slash = strrchr(path, '/');
    memset(l, 0, sizeof *l);
    l->path = g_strdup(path);
    l->collection = g_strndup(path, slash && slash > path ? (size_t)(slash - path) : strlen(path));
}

/* A login from libsecret's object for the item (which it keeps). */
static void login_take_item(login *l, SecretItem *item) {
    login_start(l, g_dbus_proxy_get_object_path(G_DBUS_PROXY(item)));
    l->item = item;
    l->label = secret_item_get_label(item);
    l->locked = secret_item_get_locked(item);
    GHashTable *attributes = secret_item_get_attributes(item);
    if (attributes) read_login(l, attributes);
    if (attributes) g_hash_table_unref(attributes);
}

/* A login from the item's attributes (a{ss}), in a collection that is `locked` or not. */
static void login_from_attributes(login *l, const char *path, GVariant *attributes, int locked) {
    GHashTable *table = g_hash_table_new(g_str_hash, g_str_equal);
    GVariantIter iter;
    const gchar *key, *value;
    login_start(l, path);
    l->locked = locked;
    g_variant_iter_init(&iter, attributes);
    while (g_variant_iter_next(&iter, "{&s&s}", &key, &value)) g_hash_table_insert(table, (gpointer)key, (gpointer)value);
    read_login(l, table);
    g_hash_table_unref(table);
}

static void login_clear(login *l) {
    g_clear_object(&l->item);
    g_free(l->path), g_free(l->collection), g_free(l->label), g_free(l->service), g_free(l->user);
    memset(l, 0, sizeof *l);
}

/* libsecret's object for the login's item, made now if needed; NULL with `p` set when it is gone. */
static SecretItem *item_of(SecretService *service, login *l, problem *p) {
    GError *error = NULL;
    if (!l->item) l->item = secret_item_new_for_dbus_path_sync(service, l->path, SECRET_ITEM_NONE, NULL, &error);
    if (!l->item) {
        set_problem(p, AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND, "the Secret Service item %s is gone: %s", l->path, error->message);
        g_error_free(error);
    }
    return l->item;
}

static int login_is(const login *l, const af_identity *id) {
    return l->service && l->service_type == id->service_type && str_is(id->service, l->service) && str_is(id->user, l->user);
}

/* ---- The whole keyring ---------------------------------------------------------- */

typedef struct {
    login *items;
    size_t count;
    char **locked_labels; /* labels of the locked collections (NULL-terminated) */
    int partial;          /* a locked collection hides its items, or some of their attributes */
} keyring;

static void keyring_clear(keyring *k) {
    for (size_t i = 0; i < k->count; i++) login_clear(&k->items[i]);
    g_free(k->items);
    g_strfreev(k->locked_labels);
    memset(k, 0, sizeof *k);
}

/* At most this many item reads in flight: a bus limits the calls awaiting a reply per connection
 * (dbus-daemon's max_replies_per_connection: 128 on a system-style bus), and a keyring of
 * thousands read all at once would see some refused. */
#define ITEM_READS_IN_FLIGHT 64

typedef struct {
    SecretService *service;
    int pending;               /* reads in flight */
    GPtrArray *collections;    /* collections read (SecretCollection *) */
    GError *error;             /* the first collection that could not be read */
    char **item_paths;         /* every item, in the collections' order */
    GVariant **items;          /* each item's attributes (a{ss}), or NULL */
    size_t item_count, next;   /* items; the next one to ask for */
    size_t failed;             /* items that could not be read */
    GError *item_error;        /* the first of them */
} keyring_read;

static void on_collection(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    keyring_read *read = data;
    GError *error = NULL;
    SecretCollection *collection = secret_collection_new_for_dbus_path_finish(result, &error);
    if (collection) g_ptr_array_add(read->collections, collection);
    else if (!read->error) read->error = error;
    else g_error_free(error);
    read->pending--;
}

typedef struct {
    keyring_read *read;
    size_t index;
} item_read;

static void read_next_item(keyring_read *read);

static void on_item(GObject *source, GAsyncResult *result, gpointer data) {
    item_read *one = data;
    keyring_read *read = one->read;
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error), *value = NULL;
    if (reply) g_variant_get(reply, "(v)", &value);
    if (value && g_variant_is_of_type(value, G_VARIANT_TYPE("a{ss}"))) {
        read->items[one->index] = value;
    } else {
        if (!error) error = g_error_new_literal(G_DBUS_ERROR, G_DBUS_ERROR_INVALID_SIGNATURE, "its Attributes are not a{ss}");
        if (value) g_variant_unref(value);
        read->failed++;
        if (!read->item_error) read->item_error = error;
        else g_error_free(error);
    }
    g_free(one);
    read->pending--;
    read_next_item(read);
}

static void read_next_item(keyring_read *read) {
    while (read->next < read->item_count && read->pending < ITEM_READS_IN_FLIGHT) {
        item_read *one = g_new0(item_read, 1);
        *one = (item_read){read, read->next++};
        read->pending++;
        g_dbus_connection_call(state.bus, state.owner, read->item_paths[one->index], "org.freedesktop.DBus.Properties", "Get",
                               g_variant_new("(ss)", "org.freedesktop.Secret.Item", "Attributes"), G_VARIANT_TYPE("(v)"),
                               G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, NULL, on_item, one);
    }
}

/* Every item of every collection, read afresh (never from a cache a missed signal could leave stale):
 * the collections at once, then their items' properties, ITEM_READS_IN_FLIGHT at a time, all in our
 * context. Of each item only its Attributes are asked for (Properties.Get), and not through a
 * libsecret object, which reads every property and subscribes to the item's signals: GNOME Keyring
 * spends about a millisecond of CPU on each call whatever it asks, and a property read costs it
 * about as much as a call, so reading 1,000 items as libsecret objects took 0.9 s. An item that
 * cannot be read is left out, and makes the view partial. */
static int keyring_load(SecretService *service, keyring *k, problem *p) {
    GError *error = NULL;
    memset(k, 0, sizeof *k);
    GVariant *reply = g_dbus_proxy_call_sync(G_DBUS_PROXY(service), "org.freedesktop.DBus.Properties.Get",
                                             g_variant_new("(ss)", "org.freedesktop.Secret.Service", "Collections"),
                                             G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
    if (!reply) {
        set_problem(p, AF_ERROR_FAILED, "the Secret Service did not list its collections: %s", error->message);
        g_error_free(error);
        return -1;
    }
    GVariant *value = NULL;
    g_variant_get(reply, "(v)", &value);
    keyring_read read = {.service = service, .collections = g_ptr_array_new_with_free_func(g_object_unref)};
    GVariantIter iter;
    const gchar *path;
    if (g_variant_is_of_type(value, G_VARIANT_TYPE_OBJECT_PATH_ARRAY)) {
        g_variant_iter_init(&iter, value);
        while (g_variant_iter_next(&iter, "&o", &path)) {
            read.pending++;
            secret_collection_new_for_dbus_path(service, path, SECRET_COLLECTION_NONE, NULL, on_collection, &read);
        }
    }
    while (read.pending) g_main_context_iteration(state.context, TRUE);
    g_variant_unref(value);
    g_variant_unref(reply);
    if (read.error) {
        set_problem(p, AF_ERROR_FAILED, "the Secret Service did not give its collections: %s", read.error->message);
        g_error_free(read.error);
        g_ptr_array_unref(read.collections);
        return -1;
    }
    /* The items, in each collection's order. */
    GPtrArray *paths = g_ptr_array_new();
    guint *first = g_new0(guint, read.collections->len + 1); /* where each collection's items start */
    for (guint c = 0; c < read.collections->len; c++) {
        GVariant *items = g_dbus_proxy_get_cached_property(G_DBUS_PROXY(read.collections->pdata[c]), "Items");
        first[c] = paths->len;
        if (items && g_variant_is_of_type(items, G_VARIANT_TYPE_OBJECT_PATH_ARRAY)) {
            g_variant_iter_init(&iter, items);
            while (g_variant_iter_next(&iter, "&o", &path)) g_ptr_array_add(paths, g_strdup(path));
        }
        if (items) g_variant_unref(items);
    }
    first[read.collections->len] = paths->len;
    read.item_count = paths->len;
    g_ptr_array_add(paths, NULL);
    read.item_paths = (char **)g_ptr_array_free(paths, FALSE);
    read.items = g_new0(GVariant *, read.item_count + 1);
    read_next_item(&read);
    while (read.pending) g_main_context_iteration(state.context, TRUE);
    if (read.failed) {
        afu_log(state.host, AF_LOG_WARNING, "%zu of %zu items of the Secret Service could not be read (the first: %s); left out", read.failed,
            read.item_count, read.item_error->message);
        g_error_free(read.item_error);
        k->partial = 1;
    }

    GPtrArray *locked = g_ptr_array_new();
    GArray *logins = g_array_new(FALSE, TRUE, sizeof(login));
    for (guint c = 0; c < read.collections->len; c++) {
        SecretCollection *collection = read.collections->pdata[c];
        int hidden = first[c] == first[c + 1];
        for (guint i = first[c]; i < first[c + 1]; i++) {
            login l;
            if (!read.items[i]) continue;
            /* An item's lock is its collection's in practice; a fill reads the item itself again. */
            login_from_attributes(&l, read.item_paths[i], read.items[i], secret_collection_get_locked(collection));
            g_variant_unref(read.items[i]);
            hidden |= l.locked && !l.service;
            g_array_append_val(logins, l);
        }
        if (secret_collection_get_locked(collection)) {
            char *label = secret_collection_get_label(collection);
            g_ptr_array_add(locked, g_strdup(nonempty(label) ? label : g_dbus_proxy_get_object_path(G_DBUS_PROXY(collection))));
            g_free(label);
            k->partial |= hidden;
        }
    }
    g_ptr_array_add(locked, NULL);
    k->locked_labels = (char **)g_ptr_array_free(locked, FALSE);
    k->count = logins->len;
    k->items = (login *)(void *)g_array_free(logins, FALSE);
    g_free(read.items);
    g_strfreev(read.item_paths);
    g_free(first);
    g_ptr_array_unref(read.collections);
    return 0;
}

static size_t keyring_logins(const keyring *k) {
    size_t n = 0;
    for (size_t i = 0; i < k->count; i++) n += k->items[i].service != NULL;
    return n;
}

/* Writes the identities of every login. With a partial view (a locked collection hides its
 * items), only saves: a replace would drop the logins that are merely locked. */
static void publish(const keyring *k) {
    af_store_state store = {0};
    af_identity *ids = g_new0(af_identity, k->count + 1);
    size_t n = 0;
    for (size_t i = 0; i < k->count; i++) {
        const login *l = &k->items[i];
        if (!l->service) continue;
        ids[n++] = (af_identity){.kind = AF_IDENTITY_PASSWORD, .service_type = l->service_type,
                                 .service = {l->service, strlen(l->service)}, .user = {l->user, strlen(l->user)},
                                 .record_identifier = {l->path, strlen(l->path)}, .rank = 0};
    }
    int replace = !k->partial || state.host->store_get_state(&store) != AF_OK || !store.supports_incremental_updates;
    af_status s = replace ? state.host->store_replace(n ? ids : NULL, n) : (n ? state.host->store_save(ids, n) : AF_OK);
    if (s == AF_OK)
        afu_log(state.host, AF_LOG_INFO, "published %zu identities from the Secret Service%s", n,
            k->partial ? " (saved beside the earlier ones: a locked collection hides some items)" : "");
    else
        afu_log(state.host, AF_LOG_DEBUG, "writing the identity store failed (status %d); identities not published", (int)s);
    g_free(ids);
}

/* ---- One login's password ----------------------------------------------------------- */

/* The label of the collection at `path`, g_malloc'd (its path when it has none or cannot be read). */
static char *collection_label(SecretService *service, const char *path) {
    SecretCollection *collection = secret_collection_new_for_dbus_path_sync(service, path, SECRET_COLLECTION_NONE, NULL, NULL);
    char *label = collection ? secret_collection_get_label(collection) : NULL;
    g_clear_object(&collection);
    if (nonempty(label)) return label;
    g_free(label);
    return g_strdup(path);
}

/* The login the request names: its record identifier (the item's path), checked against its
 * service and user; else the first item that has them (the path of a re-created item changes).
 * A locked item whose attributes are hidden counts by its path alone: unlocking shows them. */
static int find_login(SecretService *service, const af_identity *id, login *found, problem *p) {
    char *path = id->record_identifier.length ? g_strndup(id->record_identifier.data, id->record_identifier.length) : NULL;
    if (path && g_variant_is_object_path(path)) {
        SecretItem *item = secret_item_new_for_dbus_path_sync(service, path, SECRET_ITEM_NONE, NULL, NULL);
        if (item) {
            login_take_item(found, item);
            if (login_is(found, id) || (found->locked && !found->service)) {
                g_free(path);
                return 0;
            }
            login_clear(found);
        }
    }
    g_free(path);
    keyring k;
    if (keyring_load(service, &k, p) != 0) return -1;
    for (size_t i = 0; i < k.count; i++) {
        if (login_is(&k.items[i], id)) {
            *found = k.items[i];
            memset(&k.items[i], 0, sizeof k.items[i]);
            keyring_clear(&k);
            return 0;
        }
    }
    keyring_clear(&k);
    set_problem(p, AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND, "the Secret Service has no item for %.*s at %.*s any more",
                AFU_SHOW_STR(id->user), AFU_SHOW_STR(id->service));
    return -1;
}

/* Unlocks the collection of `l` through the service's own prompt; 0 when it is unlocked. */
static int unlock(SecretService *service, const login *l, problem *p) {
    GError *error = NULL;
    GList *unlocked = NULL;
    char *label = collection_label(service, l->collection);
    SecretCollection *collection = secret_collection_new_for_dbus_path_sync(service, l->collection, SECRET_COLLECTION_NONE,
                                                                            NULL, NULL);
    /* The collection, as its prompt names it. */
    GList *objects = collection ? g_list_append(NULL, collection) : NULL;
    if (!collection) {
        set_problem(p, AF_ERROR_FAILED, "the Secret Service did not give the collection \"%s\" to unlock", label);
        g_free(label);
        return -1;
    }
    afu_log(state.host, AF_LOG_NOTICE, "asking the Secret Service to unlock the collection \"%s\" (it shows its own prompt)", label);
    gint count = secret_service_unlock_sync(service, objects, NULL, &unlocked, &error);
    g_list_free(objects);
    g_list_free_full(unlocked, g_object_unref);
    g_clear_object(&collection);
    int result = 0;
    if (count <= 0 && error) {
        set_problem(p, AF_ERROR_FAILED, "the Secret Service could not unlock the collection \"%s\": %s", label, error->message);
        result = -1;
    } else if (count <= 0) {
        /* Dismissed. gnome-keyring dismisses at once when nothing can show its prompt (no desktop):
         * tell that apart from a user who said no. */
        if (bus_knows_name(GNOME_KEYRING_NAME, 0) && !bus_knows_name(GNOME_PROMPTER_NAME, 0) &&
            !bus_knows_name(GNOME_PROMPTER_NAME, 1))
            set_problem(p, AF_ERROR_FAILED,
                        "the collection \"%s\" is locked, and GNOME Keyring cannot ask for its password here (no desktop "
                        "session: nothing provides " GNOME_PROMPTER_NAME "). Unlock it from your desktop, or run "
                        "gnome-keyring-daemon --replace --unlock --components=secrets with the keyring's password on its "
                        "standard input (README: \"GNOME Keyring, KWallet, KeePassXC\"); then try again", label);
        else
            set_problem(p, AF_ERROR_USER_CANCELED,
                        "the collection \"%s\" stays locked: its unlock prompt was dismissed, or could not be shown. Unlock "
                        "it with your desktop's keyring (or KeePassXC, KWallet), then try again", label);
        result = -1;
    }
    if (error) g_error_free(error);
    g_free(label);
    return result;
}

/* Completes `request` with the password of `l` (loading it now); an item without one is said. */
static void complete_with(SecretService *service, af_request_id request, login *l) {
    GError *error = NULL;
    problem p = {AF_ERROR_FAILED, ""};
    if (item_of(service, l, &p) && !l->label) l->label = secret_item_get_label(l->item);
    const char *label = l->label ? l->label : l->path;
    if (!l->item) {
        /* p says why */
    } else if (!secret_item_load_secret_sync(l->item, NULL, &error)) {
        set_problem(&p, AF_ERROR_FAILED, "the Secret Service did not give the password of \"%s\": %s", label, error->message);
        g_error_free(error);
    } else {
        SecretValue *value = secret_item_get_secret(l->item);
        gsize length = 0;
        const gchar *secret = value ? secret_value_get(value, &length) : NULL;
        if (secret && l->first_line_only) {
            const char *newline = memchr(secret, '\n', length);
            if (newline) length = (gsize)(newline - secret);
        }
        if (!secret || length == 0)
            set_problem(&p, AF_ERROR_FAILED, "the item \"%s\" (%s at %s) has no password", label, l->user, l->service);
        else if (!g_utf8_validate_len(secret, length, NULL) || memchr(secret, '\0', length))
            set_problem(&p, AF_ERROR_FAILED, "the password of \"%s\" is not UTF-8 text; autofill fills text only", label);
        else if (length > AF_MAX_STRING_LENGTH)
            set_problem(&p, AF_ERROR_FAILED, "the password of \"%s\" is longer than autofill fills", label);
        else {
            af_status s = state.host->complete_password(request, l->user, strlen(l->user), secret, length);
            if (s != AF_OK) afu_log(state.host, AF_LOG_DEBUG, "complete_password returned status %d", (int)s);
            p.text[0] = '\0';
        }
        if (value) secret_value_unref(value); /* libsecret keeps secrets in memory it wipes when freed */
    }
    if (p.text[0]) cancel_with(request, &p);
}

/* The no-UI request (ui 0) and the UI one after userInteractionRequired (ui 1): the same, but
 * only the UI one unlocks. */
static void provide(af_request_id request, const af_credential_request *cr, int ui) {
    problem p;
    login l;
    SecretService *service;
    if (!cr || cr->kind != AF_REQUEST_PASSWORD) {
        set_problem(&p, AF_ERROR_FAILED, "the Secret Service provider has only passwords (request kind %d)", cr ? (int)cr->kind : -1);
        cancel_with(request, &p);
        return;
    }
    if (!(service = service_connect(&p)) || find_login(service, &cr->identity, &l, &p) != 0) {
        cancel_with(request, &p);
        return;
    }
    if (l.locked && !ui) {
        char *label = collection_label(service, l.collection);
        set_problem(&p, AF_ERROR_USER_INTERACTION_REQUIRED, "the Secret Service collection \"%s\" is locked", label);
        g_free(label);
        cancel_with(request, &p);
    } else if (l.locked && unlock(service, &l, &p) != 0) {
        cancel_with(request, &p);
    } else if (l.locked) { /* unlocked now: read it again, with its attributes */
        char *path = g_strdup(l.path);
        SecretItem *item = secret_item_new_for_dbus_path_sync(service, path, SECRET_ITEM_NONE, NULL, NULL);
        login_clear(&l);
        if (item) login_take_item(&l, item);
        if (item && login_is(&l, &cr->identity)) complete_with(service, request, &l);
        else {
            set_problem(&p, AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND, "the Secret Service item %s is not %.*s at %.*s any more",
                        path, AFU_SHOW_STR(cr->identity.user), AFU_SHOW_STR(cr->identity.service));
            cancel_with(request, &p);
        }
        g_free(path);
    } else {
        complete_with(service, request, &l);
    }
    login_clear(&l);
}

/* ---- The credential list ------------------------------------------------------------- */

/* The host of a URL or domain, lower-cased, without scheme, userinfo, port, path or a final dot. */
static char *host_of(const char *text, size_t length) {
    const char *host;
    size_t host_length = afu_host_span(text, length, 1, &host);
    return g_ascii_strdown(host, (gssize)host_length);
}

/* Whether the login's host is one of the hosts, or a parent domain of one. */
static int login_matches(const login *l, char **hosts) {
    char *mine = host_of(l->service, strlen(l->service));
    int match = 0;
    for (size_t i = 0; !match && hosts[i]; i++) match = afu_domain_matches(hosts[i], strlen(hosts[i]), mine, strlen(mine));
    g_free(mine);
    return match;
}

static void prepare_credential_list(void *context, af_request_id request, const af_service_identifier *services,
                                    size_t service_count) {
    (void)context;
    problem p;
    keyring k;
    SecretService *service = service_connect(&p);
    if (!service || keyring_load(service, &k, &p) != 0) {
        cancel_with(request, &p);
        return;
    }
    size_t count = keyring_logins(&k), n = 0, chosen = 0;
    if (count == 0) {
        set_problem(&p, AF_ERROR_FAILED,
                    "the Secret Service holds no logins autofill can fill (git, GNOME Web and Chromium items, and items "
                    "with url and username attributes)%s", k.locked_labels[0] ? "; some collections are locked" : "");
        cancel_with(request, &p);
        keyring_clear(&k);
        return;
    }
    char **hosts = g_new0(char *, service_count + 1);
    for (size_t i = 0; i < service_count; i++) hosts[i] = host_of(services[i].identifier.data, services[i].identifier.length);
    size_t *order = g_new0(size_t, count);
    af_str *items = g_new0(af_str, count);
    for (int pass = 0; pass < 2; pass++) /* matching logins first, the keyring's order within each group */
        for (size_t i = 0; i < k.count; i++)
            if (k.items[i].service && login_matches(&k.items[i], hosts) == (pass == 0)) order[n++] = i;
    for (size_t i = 0; i < count; i++) {
        const login *l = &k.items[order[i]];
        char *text = g_strdup_printf("%s @ %s%s", *l->user ? l->user : "(no user)", l->service, l->locked ? " (locked)" : "");
        items[i] = (af_str){text, strlen(text)};
    }
    af_status s = state.host->ui_choose(request, LIT("Choose a login from the Secret Service"), items, count, &chosen);
    if (s == AF_OK && chosen < count) {
        login *l = &k.items[order[chosen]];
        if (l->locked && unlock(service, l, &p) != 0) cancel_with(request, &p);
        else complete_with(service, request, l);
    } else if (s == AF_STATUS_UI_CANCELED) {
        state.host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
    } else {
        set_problem(&p, AF_ERROR_FAILED, "choosing a login needs the terminal UI (status %d)", (int)s);
        cancel_with(request, &p);
    }
    for (size_t i = 0; i < count; i++) g_free((char *)items[i].data);
    g_free(items), g_free(order);
    g_strfreev(hosts);
    keyring_clear(&k);
}

/* ---- Configuration ---------------------------------------------------------------- */

/* Right after the user enables the provider (and `autofill unlock`): write every identity again
 * and say what was found. */
static void prepare_configuration(void *context, af_request_id request) {
    (void)context;
    problem p;
    keyring k;
    SecretService *service = service_connect(&p);
    if (!service || keyring_load(service, &k, &p) != 0) {
        cancel_with(request, &p);
        return;
    }
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

static const af_provider provider_table = {
    .abi_version = AF_ABI_VERSION,
    .size = sizeof(af_provider),
    .context = &state,
    .prepare_credential_list = entry_list,
    .provide_credential_without_user_interaction = entry_without_ui,
    .prepare_interface_to_provide_credential = entry_with_ui,
    .prepare_interface_for_extension_configuration = entry_configuration,
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
