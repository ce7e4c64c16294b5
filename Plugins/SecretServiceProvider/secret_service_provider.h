/*
 * secret_service_provider.h — private to the Secret Service provider: its types and the functions
 * its source files share. Not for other providers; the contract is autofill_provider.h.
 *
 *   secret_service_provider.c  the entry function, the entry points (each in the provider's own
 *                              GLib context), configuration, and text for the user
 *   secret_service_bus.c       the session bus and the Secret Service on it
 *   secret_service_logins.c    the schemas: which items are logins, and as what
 *   secret_service_keyring.c   listing every item, publishing the identities, unused-password reports
 *   secret_service_answer.c    one login's password (unlocking as needed), the credential list
 *   secret_service_unlock.c    unlocking through the service's prompt; dismissed or cannot prompt
 *   secret_service_save.c      saving a password (a new item, or the login's own)
 *   secret_service_generate.c  a password that honours a site's rules
 */
#ifndef SECRET_SERVICE_PROVIDER_H
#define SECRET_SERVICE_PROVIDER_H

#define _DEFAULT_SOURCE /* strdup */

#include <stddef.h>
#include <stdint.h>

/* The object-path calls (secret_item_new_for_dbus_path_sync, ...) are in libsecret's "unstable"
 * part (secret-paths.h; unchanged since libsecret 0.2, 2012). They let a fill read the one item
 * it needs by its path, instead of loading every item of every collection to find it. */
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>

#include "autofill_provider.h"
#include "af_provider_util.h"

#pragma GCC visibility push(hidden)

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

extern provider_state state; /* used by one entry point at a time (see "Threads" in secret_service_provider.c) */

/* Why a request failed: an AF_ERROR_* code and the reason the user reads. Never a secret. */
typedef struct {
    int32_t code;
    char text[900];
} problem;

typedef struct {
    SecretItem *item;      /* libsecret's object for it, made when its secret is needed (item_of), or NULL */
    char *path;            /* its D-Bus object path: the record identifier */
    char *label;           /* g_malloc'd */
    char *collection;      /* the path of its collection */
    char *service, *user;  /* g_malloc'd; NULL when the item is no login (or locked and unreadable) */
    int32_t service_type;  /* AF_SERVICE_* */
    int first_line_only;   /* git: the password is the secret's first line */
    int locked;
    const char *skipped;   /* why the item is no login (static text), or NULL */
} login;

/* Every item of the Secret Service, as keyring_load read it. */
typedef struct {
    login *items;
    size_t count;
    char **locked_labels; /* labels of the locked collections (NULL-terminated) */
    int partial;          /* a locked collection hides its items, or some of their attributes */
} keyring;

static inline int nonempty(const char *s) { return s && *s; }

/* secret_service_provider.c: text for the user */
__attribute__((format(printf, 3, 4)))
void set_problem(problem *p, int32_t code, const char *fmt, ...);
void cancel_with(af_request_id request, const problem *p);

/* secret_service_bus.c */
SecretService *service_connect(problem *p);
int bus_knows_name(const char *name, int activatable);
GVariant *service_call(const char *path, const char *interface, const char *method, GVariant *arguments, const char *reply_type,
                       GError **error);

/* secret_service_logins.c */
void login_take_item(login *l, SecretItem *item);
void login_from_attributes(login *l, const char *path, GVariant *attributes, int locked);
void login_from_table(login *l, const char *path, GHashTable *attributes);
void login_clear(login *l);
SecretItem *item_of(SecretService *service, login *l, problem *p);
int login_is(const login *l, const af_identity *id);

/* secret_service_keyring.c */
void keyring_clear(keyring *k);
int keyring_load(SecretService *service, keyring *k, problem *p);
SecretService *keyring_for(af_request_id request, keyring *k);
size_t keyring_logins(const keyring *k);
void publish(const keyring *k);
void report_update(af_request_id request, const af_credential_update *update);

/* secret_service_unlock.c: 0 when the objects at `paths` are unlocked; else p says why:
 * AF_ERROR_USER_CANCELED (the prompt was dismissed), AF_ERROR_FAILED (nothing can show it here, or
 * the service failed). `what` names them for the user. */
int unlock_paths(const char *const *paths, size_t count, const char *what, problem *p);

/* secret_service_answer.c */
char *collection_label(SecretService *service, const char *path);
char *host_of(const char *text, size_t length);
int login_matches(const login *l, char **hosts);
void provide(af_request_id request, const af_credential_request *cr, int ui);
void prepare_credential_list(void *context, af_request_id request, const af_service_identifier *services,
                             size_t service_count);

/* secret_service_save.c */
void save_password(af_request_id request, const af_save_password_request *save);

/* secret_service_generate.c */
void generate_password(af_request_id request, const af_generate_password_request *generate);

#pragma GCC visibility pop

#endif /* SECRET_SERVICE_PROVIDER_H */
