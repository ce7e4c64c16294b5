/*
 * secret_service_logins.c — which items are logins: an item's identity (service, user) read from its
 * attributes by schema (the table at the top of secret_service_provider.c). Attributes are not
 * secret; the secret is read only to answer a request.
 */
#include "secret_service_provider.h"

#include <string.h>

/* Whether the counted string is `text`. */
static int str_is(af_str s, const char *text) {
    size_t n = strlen(text);
    return s.length == n && (n == 0 || memcmp(s.data, text, n) == 0);
}

/* ---- Logins: what an item's attributes say ------------------------------------ */

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

/* The login of a network-password item (git's, GVfs's, secret-tool's `server … user …`): its
 * service from protocol, server, port and object (git's name for the path; "path" is read too), and
 * its user. NULL service when it has no server. */
static void read_network_login(login *l, GHashTable *a) {
    const char *object = nonempty(attribute(a, "object", 0)) ? attribute(a, "object", 0) : attribute(a, "path", 0);
    if (!nonempty(attribute(a, "server", 0))) return;
    l->service = server_url(attribute(a, "protocol", 0), attribute(a, "server", 0), attribute(a, "port", 0), object,
                            &l->service_type);
}

/* Fills the login fields of `l` from its item's attributes `a` (see the table at the top), or says
 * in l->skipped why the item is no login. */
static void read_login(login *l, GHashTable *a) {
    const char *schema = a ? g_hash_table_lookup(a, "xdg:schema") : NULL, *service = NULL, *user = NULL;
    l->service_type = AF_SERVICE_URL;
    if (!a) return;
    if (schema && strcmp(schema, "org.git.Password") == 0) {
        read_network_login(l, a);
        user = attribute(a, "user", 0);
        l->first_line_only = 1;
        if (!l->service) l->skipped = "a git item without a server attribute";
    } else if (schema && strcmp(schema, "org.gnome.keyring.NetworkPassword") == 0) {
        read_network_login(l, a);
        user = attribute(a, "user", 0);
        if (!l->service) l->skipped = "a network password without a server attribute";
    } else if (schema && strcmp(schema, "org.epiphany.FormPassword") == 0) {
        service = attribute(a, "uri", 0);
        user = attribute(a, "username", 0);
        if (!nonempty(service)) l->skipped = "a GNOME Web item without a uri attribute";
    } else if (schema && strcmp(schema, "chrome_libsecret_password_schema") == 0) {
        const char *never = attribute(a, "blacklisted_by_user", 0);
        if (!(never && strcmp(never, "1") == 0)) {
            service = nonempty(attribute(a, "origin_url", 0)) ? attribute(a, "origin_url", 0) : attribute(a, "signon_realm", 0);
            user = attribute(a, "username_value", 0);
        } else {
            l->skipped = "Chromium's \"never save\" entry for a site";
        }
    } else if (nonempty(attribute(a, "url", 1))) {
        service = attribute(a, "url", 1);
        user = nonempty(attribute(a, "username", 1)) ? attribute(a, "username", 1) : attribute(a, "user", 1);
        if (!nonempty(user)) service = NULL, l->skipped = "a url attribute without a username or user attribute";
    } else if (nonempty(attribute(a, "server", 0))) {
        /* secret-tool store --label=NAS server nas.home.arpa user admin, and scripts like it. */
        user = attribute(a, "user", 0);
        if (nonempty(user)) read_network_login(l, a);
        else l->skipped = "a server attribute without a user attribute";
    } else {
        l->skipped = "no url, uri or server attribute (not a login: an application's own secret)";
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
        l->skipped = "its attributes are longer than autofill keeps";
    }
}

static void login_start(login *l, const char *path) {
    const char *slash = strrchr(path, '/');
    memset(l, 0, sizeof *l);
    l->path = g_strdup(path);
    l->collection = g_strndup(path, slash && slash > path ? (size_t)(slash - path) : strlen(path));
}

/* A login from libsecret's object for the item (which it keeps). */
void login_take_item(login *l, SecretItem *item) {
    login_start(l, g_dbus_proxy_get_object_path(G_DBUS_PROXY(item)));
    l->item = item;
    l->label = secret_item_get_label(item);
    l->locked = secret_item_get_locked(item);
    GHashTable *attributes = secret_item_get_attributes(item);
    if (attributes) read_login(l, attributes);
    if (attributes) g_hash_table_unref(attributes);
}

/* A login from the item's attributes (a{ss}), in a collection that is `locked` or not. */
void login_from_attributes(login *l, const char *path, GVariant *attributes, int locked) {
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

/* The login an item with `attributes` (not yet created: no path) would be; for publishing a save. */
void login_from_table(login *l, const char *path, GHashTable *attributes) {
    login_start(l, path);
    read_login(l, attributes);
}

void login_clear(login *l) {
    g_clear_object(&l->item);
    g_free(l->path), g_free(l->collection), g_free(l->label), g_free(l->service), g_free(l->user);
    memset(l, 0, sizeof *l);
}

/* libsecret's object for the login's item, made now if needed; NULL with `p` set when it is gone. */
SecretItem *item_of(SecretService *service, login *l, problem *p) {
    GError *error = NULL;
    if (!l->item) l->item = secret_item_new_for_dbus_path_sync(service, l->path, SECRET_ITEM_NONE, NULL, &error);
    if (!l->item) {
        set_problem(p, AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND, "the Secret Service item %s is gone: %s", l->path, error->message);
        g_error_free(error);
    }
    return l->item;
}

int login_is(const login *l, const af_identity *id) {
    return l->service && l->service_type == id->service_type && str_is(id->service, l->service) && str_is(id->user, l->user);
}
