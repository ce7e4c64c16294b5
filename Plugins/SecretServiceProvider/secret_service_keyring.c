/*
 * secret_service_keyring.c — listing: every item of every collection, read afresh, the identities
 * published from them, and unused-password reports (which publish some again, ranked last).
 */
#include "secret_service_provider.h"

#include <string.h>

/* ---- The whole keyring ---------------------------------------------------------- */

void keyring_clear(keyring *k) {
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
int keyring_load(SecretService *service, keyring *k, problem *p) {
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

/* The Secret Service, connected, with its keyring loaded into `k`; NULL after cancelling `request`
 * with why not. */
SecretService *keyring_for(af_request_id request, keyring *k) {
    problem p;
    SecretService *service = service_connect(&p);
    if (!service || keyring_load(service, k, &p) != 0) {
        cancel_with(request, &p);
        return NULL;
    }
    return service;
}

size_t keyring_logins(const keyring *k) {
    size_t n = 0;
    for (size_t i = 0; i < k->count; i++) n += k->items[i].service != NULL;
    return n;
}

/* Says (in `-v`) which items are not offered and why: one line per reason, with how many and the
 * first item's path (`secret-tool search --all` and Seahorse show its attributes). */
static void log_skipped(const keyring *k) {
    const char *reasons[16];
    size_t counts[16], firsts[16], n = 0;
    for (size_t i = 0; i < k->count; i++) {
        const login *l = &k->items[i];
        const char *why = l->service ? NULL : l->locked ? "its collection is locked (its attributes show once it is unlocked)" : l->skipped;
        size_t r = 0;
        if (!why) continue;
        while (r < n && strcmp(reasons[r], why) != 0) r++;
        if (r == n && n == 16) continue;
        if (r == n) reasons[n] = why, counts[n] = 0, firsts[n] = i, n++;
        counts[r]++;
    }
    for (size_t r = 0; r < n; r++)
        afu_log(state.host, AF_LOG_INFO, "not offered: %zu item%s (the first: %s): %s", counts[r], counts[r] == 1 ? "" : "s",
                k->items[firsts[r]].path, reasons[r]);
}

/* Writes the identities of every login. With a partial view (a locked collection hides its
 * items), only saves: a replace would drop the logins that are merely locked. */
void publish(const keyring *k) {
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
    log_skipped(k);
    int replace = !k->partial || state.host->store_get_state(&store) != AF_OK || !store.supports_incremental_updates;
    af_status s = replace ? state.host->store_replace(n ? ids : NULL, n) : (n ? state.host->store_save(ids, n) : AF_OK);
    if (s == AF_OK)
        afu_log(state.host, AF_LOG_INFO, "published %zu identities from the Secret Service%s", n,
            k->partial ? " (saved beside the earlier ones: a locked collection hides some items)" : "");
    else
        afu_log(state.host, AF_LOG_DEBUG, "writing the identity store failed (status %d); identities not published", (int)s);
    g_free(ids);
}

/* ---- Unused-password reports --------------------------------------------------------- */

/* An unused password: the user's logins at the domain are kept, their identities published again
 * below every other login's (rank -1) until the provider next writes all its identities. Passkey
 * reports name nothing this provider holds. */
void report_update(af_request_id request, const af_credential_update *update) {
    keyring k;
    size_t demoted = 0;
    if (update->kind == AF_UPDATE_UNUSED_PASSWORD && keyring_for(request, &k)) {
        char *domain = host_of(update->service.data, update->service.length);
        char *hosts[] = {domain, NULL};
        for (size_t i = 0; i < k.count; i++) {
            const login *l = &k.items[i];
            if (!l->service || strlen(l->user) != update->user.length || memcmp(l->user, update->user.data, update->user.length) != 0 ||
                !login_matches(l, hosts))
                continue;
            af_identity id = {.kind = AF_IDENTITY_PASSWORD, .service_type = l->service_type, .service = {l->service, strlen(l->service)},
                              .user = {l->user, strlen(l->user)}, .record_identifier = {l->path, strlen(l->path)}, .rank = -1};
            demoted += state.host->store_save(&id, 1) == AF_OK;
        }
        afu_log(state.host, AF_LOG_INFO, "%zu login%s of %.*s at %s marked unused (rank -1); the items are kept", demoted,
                demoted == 1 ? "" : "s", AFU_SHOW_STR(update->user), domain);
        g_free(domain);
        keyring_clear(&k);
    } else if (update->kind == AF_UPDATE_UNUSED_PASSWORD) {
        return; /* keyring_for cancelled the request */
    }
    af_status s = state.host->complete_credential_update(request);
    if (s != AF_OK) afu_log(state.host, AF_LOG_DEBUG, "complete_credential_update returned status %d", (int)s);
}
