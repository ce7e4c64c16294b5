/*
 * secret_service_save.c — saving a password as git-credential-libsecret and secret-tool read it.
 *
 * What a save writes (docs/WRITING_A_PROVIDER.md, "Saving"): the network-password item git's own
 * libsecret helper writes and searches, from the site of the request:
 *
 *   xdg:schema  org.gnome.keyring.NetworkPassword (libsecret's SECRET_SCHEMA_COMPAT_NETWORK)
 *   protocol    the URL's scheme (none for a domain)
 *   server      the host
 *   port        the port, when the site names one
 *   object      the path without its leading slash, unescaped (git's name for it), when there is one
 *   user        the user
 *
 * labelled as git labels its items ("Git: https://example.com/"; user@host for a domain) or by the
 * request's title, in the default collection (the `default` alias), unlocked through the service's
 * prompt when locked. Older git-credential-libsecret (Debian bookworm's, git 2.39) writes and
 * searches exactly this schema and finds nothing else; newer ones write org.git.Password with the
 * same attributes and search without matching the schema name (for these older items), so every git
 * finds what autofill saved, and so does `secret-tool lookup server HOST user USER`.
 *
 * An update: the secret of the item that already holds the login is replaced, and no second item is
 * made. An item holds the login only when its attributes are these and no others (xdg:schema one of
 * the two above, or none, as secret-tool writes them), each equal to the save's; user and server must
 * be there (a domain save has no protocol to compare). An item with any other attribute belongs to
 * another application (GVfs's domain, GNOME Web's, Chromium's, KeePassXC's) and is never changed: the
 * Secret Service's own ReplaceExisting matches items that have *at least* the given attributes, so it
 * is not used.
 */
#include "secret_service_provider.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define SAVE_SCHEMA "org.gnome.keyring.NetworkPassword"

/* ---- The site --------------------------------------------------------------------- */

/* The attributes a save for `service` and `user` writes, without xdg:schema (g_free'd values);
 * NULL with p set when the site names no host. `label` gets git's label for the item. */
static GHashTable *save_attributes(const af_service_identifier *service, af_str user, char **label, problem *p) {
    char *text = g_strndup(service->identifier.data, service->identifier.length);
    const char *rest = text, *scheme_end = strstr(text, "://");
    GHashTable *a = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
    char *protocol = NULL, *port = NULL, *object = NULL;
    if (scheme_end && service->type == AF_SERVICE_URL) {
        protocol = g_ascii_strdown(text, scheme_end - text);
        rest = scheme_end + 3;
    }
    size_t authority_length = strcspn(rest, "/?#");
    char *authority = g_strndup(rest, authority_length);
    const char *at = strrchr(authority, '@'), *host = at ? at + 1 : authority;
    const char *host_end = host[0] == '[' ? strchr(host, ']') : strrchr(host, ':');
    if (host[0] == '[' && host_end) host_end++;
    if (!host_end || (*host_end && *host_end != ':')) host_end = host + strlen(host);
    if (*host_end == ':' && host_end[1]) {
        char *end = NULL;
        long number = strtol(host_end + 1, &end, 10);
        if (*end || number <= 0 || number > 65535) {
            set_problem(p, AF_ERROR_FAILED, "the site %s has a port that is not a number from 1 to 65535", text);
            goto fail;
        }
        port = g_strdup_printf("%ld", number);
    }
    if (host_end == host) {
        set_problem(p, AF_ERROR_FAILED, "the site \"%s\" names no host to save the password for", text);
        goto fail;
    }
    if (rest[authority_length] == '/') {
        const char *path = rest + authority_length + 1;
        object = g_uri_unescape_segment(path, path + strcspn(path, "?#"), NULL);
        if (object && !*object) g_clear_pointer(&object, g_free);
    }
    g_hash_table_insert(a, "user", g_strndup(user.data ? user.data : "", user.length));
    g_hash_table_insert(a, "server", g_strndup(host, (gsize)(host_end - host)));
    if (protocol) g_hash_table_insert(a, "protocol", protocol);
    if (port) g_hash_table_insert(a, "port", port);
    if (object) g_hash_table_insert(a, "object", object);
    /* git's make_label: "Git: protocol://host[:port]/path". */
    *label = protocol ? g_strdup_printf("Git: %s://%s%s%s/%s", protocol, (char *)g_hash_table_lookup(a, "server"),
                                        port ? ":" : "", port ? port : "", object ? object : "")
                      : g_strdup_printf("%s@%s%s%s", (char *)g_hash_table_lookup(a, "user"),
                                        (char *)g_hash_table_lookup(a, "server"), port ? ":" : "", port ? port : "");
    g_free(authority);
    g_free(text);
    return a;
fail:
    g_free(protocol), g_free(port), g_free(authority), g_free(text);
    g_hash_table_unref(a);
    return NULL;
}

/* Whether an item's attributes `item` (a{ss}) hold exactly the login `wanted` (the rule at the top):
 * how many of its attributes matched, or 0 when it is not the login's. */
static int holds_login(GVariant *item, GHashTable *wanted) {
    GVariantIter iter;
    const gchar *key, *value;
    int matched = 0, has_server = 0, has_user = 0;
    g_variant_iter_init(&iter, item);
    while (g_variant_iter_next(&iter, "{&s&s}", &key, &value)) {
        if (strcmp(key, "xdg:schema") == 0) {
            if (strcmp(value, "org.git.Password") != 0 && strcmp(value, "org.gnome.keyring.NetworkPassword") != 0) return 0;
            continue;
        }
        const char *mine = g_hash_table_lookup(wanted, key);
        if (strcmp(key, "protocol") == 0 && !mine) continue; /* a domain save: any protocol */
        if (!mine || strcmp(mine, value) != 0) return 0;     /* another application's attribute, or another login */
        has_server |= strcmp(key, "server") == 0;
        has_user |= strcmp(key, "user") == 0;
        matched++;
    }
    return has_server && has_user ? matched : 0;
}

/* ---- The keyring ------------------------------------------------------------------- */

/* A property of the object at `path` (the reply's value, to unref), or NULL. */
static GVariant *property(const char *path, const char *interface, const char *name) {
    GVariant *reply = service_call(path, "org.freedesktop.DBus.Properties", "Get", g_variant_new("(ss)", interface, name), "(v)", NULL);
    GVariant *value = NULL;
    if (reply) g_variant_get(reply, "(v)", &value), g_variant_unref(reply);
    return value;
}

/* The default collection's path (g_free), unlocked (asking through the service's prompt); NULL with p set. */
static char *default_collection(SecretService *service, problem *p) {
    GError *error = NULL;
    char *path = NULL;
    GVariant *reply = service_call("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "ReadAlias",
                                   g_variant_new("(s)", "default"), "(o)", &error);
    if (!reply) {
        set_problem(p, AF_ERROR_FAILED, "the Secret Service did not name its default collection: %s", error->message);
        g_error_free(error);
        return NULL;
    }
    g_variant_get(reply, "(o)", &path);
    g_variant_unref(reply);
    if (strcmp(path, "/") == 0) {
        set_problem(p, AF_ERROR_FAILED,
                    "the Secret Service has no default collection (no collection has the alias \"default\") to save in: make "
                    "one the default in Seahorse (Passwords and Keys) or your keyring's settings, then save again");
        g_free(path);
        return NULL;
    }
    GVariant *locked = property(path, "org.freedesktop.Secret.Collection", "Locked");
    int is_locked = locked && g_variant_is_of_type(locked, G_VARIANT_TYPE_BOOLEAN) && g_variant_get_boolean(locked);
    if (locked) g_variant_unref(locked);
    if (is_locked) {
        char *label = collection_label(service, path), *what = g_strdup_printf("the collection \"%s\"", label);
        const char *paths[] = {path};
        int failed = unlock_paths(paths, 1, what, p) != 0;
        g_free(what), g_free(label);
        if (failed) g_clear_pointer(&path, g_free);
    }
    return path;
}

/* Sets *found to the path (g_free) of the item that holds the login `wanted` (the rule at the top),
 * or NULL when none does, unlocking the candidates that are locked; -1 with p set on failure. */
static int login_item(GHashTable *wanted, char **found, problem *p) {
    GError *error = NULL;
    GVariantBuilder search;
    g_variant_builder_init(&search, G_VARIANT_TYPE("a{ss}"));
    g_variant_builder_add(&search, "{ss}", "server", (char *)g_hash_table_lookup(wanted, "server"));
    g_variant_builder_add(&search, "{ss}", "user", (char *)g_hash_table_lookup(wanted, "user"));
    GVariant *reply = service_call("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "SearchItems",
                                   g_variant_new("(a{ss})", &search), "(aoao)", &error);
    if (!reply) {
        set_problem(p, AF_ERROR_FAILED, "the Secret Service did not search its items: %s", error->message);
        g_error_free(error);
        return -1;
    }
    const gchar **unlocked = NULL, **locked = NULL;
    g_variant_get(reply, "(^a&o^a&o)", &unlocked, &locked);
    char *best = NULL;
    int best_matched = 0, result = 0;
    if (locked[0]) {
        guint n = g_strv_length((gchar **)locked);
        char *what = g_strdup_printf("%u item%s for this login in a locked collection", n, n == 1 ? "" : "s");
        result = unlock_paths(locked, n, what, p);
        g_free(what);
        if (result != 0) goto done;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (const gchar **each = pass == 0 ? unlocked : locked; *each; each++) {
            GVariant *attributes = property(*each, "org.freedesktop.Secret.Item", "Attributes");
            int matched = attributes && g_variant_is_of_type(attributes, G_VARIANT_TYPE("a{ss}")) ? holds_login(attributes, wanted) : 0;
            if (attributes) g_variant_unref(attributes);
            if (matched > best_matched) {
                g_free(best);
                best = g_strdup(*each), best_matched = matched;
            }
        }
    }
done:
    g_free(unlocked), g_free(locked);
    g_variant_unref(reply);
    *found = best;
    return result;
}

/* CreateItem in the collection at `path`, without ReplaceExisting (the rule at the top), the secret
 * sent in the Secret Service session: the new item's path (g_free), or NULL with `error` set. By path,
 * not through a libsecret collection object, which would read the collection's every property (the
 * paths of all its items) first. */
static char *create_item(SecretService *service, const char *path, GHashTable *attributes, const char *label, SecretValue *value,
                         GError **error) {
    GHashTableIter iter;
    gpointer key, text;
    GVariantBuilder pairs;
    g_variant_builder_init(&pairs, G_VARIANT_TYPE("a{ss}"));
    g_hash_table_iter_init(&iter, attributes);
    while (g_hash_table_iter_next(&iter, &key, &text)) g_variant_builder_add(&pairs, "{ss}", (char *)key, (char *)text);
    GHashTable *properties = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_variant_unref);
    g_hash_table_insert(properties, "org.freedesktop.Secret.Item.Label", g_variant_ref_sink(g_variant_new_string(label)));
    g_hash_table_insert(properties, "org.freedesktop.Secret.Item.Attributes", g_variant_ref_sink(g_variant_builder_end(&pairs)));
    char *created = secret_service_create_item_dbus_path_sync(service, path, properties, value, SECRET_ITEM_CREATE_NONE, NULL, error);
    g_hash_table_unref(properties);
    return created;
}

/* Publishes the identity of the item (its attributes as read now). */
static void publish_item(SecretItem *item) {
    login l;
    login_take_item(&l, g_object_ref(item));
    if (l.service) {
        af_identity id = {.kind = AF_IDENTITY_PASSWORD, .service_type = l.service_type, .service = {l.service, strlen(l.service)},
                          .user = {l.user, strlen(l.user)}, .record_identifier = {l.path, strlen(l.path)}};
        af_status s = state.host->store_save(&id, 1);
        if (s != AF_OK) afu_log(state.host, AF_LOG_DEBUG, "writing the identity store failed (status %d)", (int)s);
    }
    login_clear(&l);
}

/* ---- Entry points ---------------------------------------------------------------------- */

void save_password(af_request_id request, const af_save_password_request *save) {
    problem p = {AF_ERROR_FAILED, ""};
    char *label = NULL, *collection = NULL, *path = NULL;
    SecretService *service = service_connect(&p);
    GHashTable *wanted = service ? save_attributes(&save->service, save->user, &label, &p) : NULL;
    SecretValue *value = NULL;
    SecretItem *item = NULL;
    GError *error = NULL;
    if (!wanted) goto done;
    if (!save->password.length || !afu_utf8_valid(save->password.data, save->password.length) ||
        memchr(save->password.data, '\0', save->password.length)) {
        set_problem(&p, AF_ERROR_FAILED, "the password to save is empty or not text");
        goto done;
    }
    if (!(collection = default_collection(service, &p))) goto done;
    if (login_item(wanted, &path, &p) != 0) goto done;
    value = secret_value_new(save->password.data, (gssize)save->password.length, "text/plain");
    if (path) {
        item = secret_item_new_for_dbus_path_sync(service, path, SECRET_ITEM_NONE, NULL, &error);
        if (item && secret_item_set_secret_sync(item, value, NULL, &error))
            afu_log(state.host, AF_LOG_INFO, "saved the new password in the item %s", path);
        else g_clear_object(&item);
    } else {
        int has_title = save->size >= offsetof(af_save_password_request, title) + sizeof save->title && save->title.length;
        char *title = has_title ? g_strndup(save->title.data, save->title.length) : NULL;
        g_hash_table_insert(wanted, "xdg:schema", g_strdup(SAVE_SCHEMA));
        char *created = create_item(service, collection, wanted, title ? title : label, value, &error);
        if (created) item = secret_item_new_for_dbus_path_sync(service, created, SECRET_ITEM_NONE, NULL, &error);
        if (item) afu_log(state.host, AF_LOG_INFO, "added the item %s (" SAVE_SCHEMA ") to %s", created, collection);
        g_free(title), g_free(created);
    }
    if (!item) {
        set_problem(&p, AF_ERROR_FAILED, "the Secret Service did not save the password: %s", error ? error->message : "no reason given");
        goto done;
    }
    publish_item(item);
    p.text[0] = '\0';
    af_status s = state.host->complete_save_password(request);
    if (s != AF_OK) afu_log(state.host, AF_LOG_DEBUG, "complete_save_password returned status %d", (int)s);
done:
    if (p.text[0]) cancel_with(request, &p);
    if (error) g_error_free(error);
    if (value) secret_value_unref(value); /* libsecret wipes it */
    g_clear_object(&item);
    if (wanted) g_hash_table_unref(wanted);
    g_free(label), g_free(collection), g_free(path);
}
