/*
 * secret_service_answer.c — answering: finding the login a request names, unlocking its collection
 * through the service's own prompt, completing with its password, and the credential list.
 */
#include "secret_service_provider.h"

#include <string.h>

/* ---- One login's password ----------------------------------------------------------- */

/* The label of the collection at `path`, g_malloc'd (its path when it has none or cannot be read). */
char *collection_label(SecretService *service, const char *path) {
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
    char *label = collection_label(service, l->collection);
    char *what = g_strdup_printf("the collection \"%s\"", label);
    const char *paths[] = {l->collection};
    int result = unlock_paths(paths, 1, what, p);
    g_free(what);
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
void provide(af_request_id request, const af_credential_request *cr, int ui) {
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
char *host_of(const char *text, size_t length) {
    const char *host;
    size_t host_length = afu_host_span(text, length, 1, &host);
    return g_ascii_strdown(host, (gssize)host_length);
}

/* Whether the login's host is one of the hosts, or a parent domain of one. */
int login_matches(const login *l, char **hosts) {
    char *mine = host_of(l->service, strlen(l->service));
    int match = 0;
    for (size_t i = 0; !match && hosts[i]; i++) match = afu_domain_matches(hosts[i], strlen(hosts[i]), mine, strlen(mine));
    g_free(mine);
    return match;
}

void prepare_credential_list(void *context, af_request_id request, const af_service_identifier *services,
                             size_t service_count) {
    (void)context;
    problem p;
    keyring k;
    SecretService *service = keyring_for(request, &k);
    if (!service) return;
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
