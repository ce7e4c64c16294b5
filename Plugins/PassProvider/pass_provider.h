/*
 * pass_provider.h — private to the pass provider: its limits, its types and the functions its
 * source files share. Not for other providers; the contract is autofill_provider.h.
 *
 *   pass_provider.c    the entry function, requests and lists (answering)
 *   pass_store.c       the store without decrypting: folders, names, the walk, the identity cache
 *   pass_gpg.c         gpg-agent and decrypting with gpgme
 *   pass_entry_text.c  what a decrypted entry says
 *   pass_totp.c        one-time codes (RFC 6238)
 *   pass_write.c       saving: an entry encrypted here, written by the host (add_file)
 *   pass_generate.c    generating a password that honours the site's rules
 */
#ifndef PASS_PROVIDER_H
#define PASS_PROVIDER_H

#define _DEFAULT_SOURCE /* strdup, O_CLOEXEC, fstatat, dirfd */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "autofill_provider.h"
#include "af_provider_util.h"

#pragma GCC visibility push(hidden)

#define PASS_MAX_ENTRY_SIZE (1024u * 1024u) /* decrypted text, and the encrypted file */
#define PASS_MAX_ENTRIES 100000u
#define PASS_MAX_DEPTH 32
#define PASS_MAX_PASSPHRASE 1024u
#define PASS_PASSPHRASE_TRIES 3
#define PASS_CACHE_FILE "identities.tsv"

/* One .gpg file of the store, and what is known of it without decrypting. */
typedef struct {
    char *name;         /* relative path without .gpg: "github.com/octocat" */
    char *path_service; /* lower-cased domain the path names, or NULL */
    char *path_user;    /* the file name when a folder names the domain, or NULL */
    long long mtime_ns, size;
    /* From the cache (a decryption the user made), or NULL / -1 when unknown. */
    char *known_user, *known_site;
    char *known_url; /* url:'s scheme://host[:port]/path (no user info, query or fragment), or NULL */
    int known_otp; /* 1 has an otpauth line, 0 has none, -1 unknown */
} entry;

typedef struct {
    entry *items;
    size_t count, capacity;
    char *root; /* the store folder */
    int missing; /* the folder is not there (or cannot be read) */
    char *gpg_ids; size_t gpg_ids_len; /* every .gpg-id of the store, one recipient a line */
} store;

typedef struct {
    const af_host_services *host;
    char *agent_home, *agent_socket; /* the last gpgconf answer, for this GnuPG home */
    int keygrips_listed; /* this process wrote gpg-agent-keygrips (pass_gpg.c) */
} provider_state;

/* The lines of a decrypted entry autofill reads (pointers into the plaintext). */
typedef struct {
    const char *password; size_t password_len; /* the first line */
    const char *user; size_t user_len;         /* login:, user:, username:, email: (the first) */
    const char *url; size_t url_len;           /* url: */
    const char *otpauth; size_t otpauth_len;   /* an otpauth:// line */
} entry_text;

/* How a decryption ended; all but DECRYPTED cancelled the request. */
typedef enum { DECRYPTED, LOCKED, FAILED } decrypt_result;

/* pass_provider.c: answering requests */
extern provider_state state; /* written by the entry function; entry points run one at a time */
const char *ui_trouble(af_status s);
char *service_host(const af_service_identifier *sid);

/* pass_write.c: saving */
void save_password(void *context, af_request_id request, const af_save_password_request *save);

/* pass_generate.c: generating */
void generate_password(void *context, af_request_id request, const af_generate_password_request *generate);

/* pass_store.c: the store without decrypting */
char *gnupg_home(void);
int looks_like_domain(const char *s, size_t len);
const char *entry_site(const entry *e);
const char *entry_user(const entry *e);
void store_load(store *s);
void store_free(store *s);
entry *store_find(store *s, const char *name, size_t len);
void publish_identities(const store *s);
void remember(store *s, entry *e, const entry_text *t);

/* pass_gpg.c: decrypting */
decrypt_result decrypt(const store *s, const entry *e, af_request_id request, int may_ask, afu_buf *plain);

/* pass_entry_text.c: what an entry says */
void parse_entry(const afu_buf *plain, entry_text *t);
char *url_host(const char *url, size_t len);
char *url_site(const char *url, size_t len);

/* pass_totp.c: one-time codes */
const char *totp_code(const char *uri, size_t len, time_t now, char code[9]);

#pragma GCC visibility pop

#endif /* PASS_PROVIDER_H */
