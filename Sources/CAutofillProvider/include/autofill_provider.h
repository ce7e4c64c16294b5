/*
 * autofill_provider.h — the autofill credential-provider C ABI.
 *
 * This header is the whole contract between the autofill host and a provider
 * plugin (a password manager). A provider is a shared library (`.so`) in a
 * bundle directory next to an Info.plist that declares its capabilities. The
 * host reads the plist, dlopen()s the library, looks up the entry symbol the
 * plist names, and calls it once:
 *
 *     const af_provider *entry(uint32_t host_abi_version,
 *                              const af_host_services *host);
 *
 * The provider answers with its table of entry points (af_provider). From then
 * on the host calls those entry points with requests, and the provider answers
 * each request exactly once through the host-services table (af_host_services):
 * with a credential, or with an error code from Apple's ASExtensionError.
 *
 * Versioning
 *   AF_ABI_VERSION is the one ABI version. Both tables start with
 *   `abi_version` and `size` (bytes). Tables are append-only: a later release
 *   may add entries at the end and grow `size` without changing the version;
 *   anything that would break an existing entry changes AF_ABI_VERSION. The
 *   host refuses a plugin whose plist or table names another version, before
 *   it calls anything else. A reader must treat entries past `size` as NULL.
 *   Data structs (af_identity, ...) are fixed for an ABI version; their sizes
 *   are pinned with _Static_assert at the end of this file. Request structs
 *   added later start with their own `size` and grow the same way.
 *   Appended so far: Apple's iOS 26 save, generate and credential-update
 *   entry points (three af_provider entries after
 *   prepare_interface_for_text_to_insert, three host services after
 *   ui_message), then the add_file, replace_file and open_file host services. A provider built before
 *   them loads and works unchanged; the
 *   host sends such a request only to a provider whose plist declares the
 *   capability and whose table holds the entry point.
 *
 * Strings and buffers
 *   Every string is UTF-8 with an explicit byte length and no terminator
 *   requirement. A NULL pointer is only allowed with length 0 (an absent or
 *   empty value). Unless a declaration says otherwise:
 *   - memory the host passes to the provider (requests, service identifiers,
 *     the parameters of an entry point) is owned by the host and valid only
 *     until that entry point returns; copy what you need to answer later;
 *   - memory the provider passes to a host service is owned by the provider
 *     and read only during that call; the host copies what it keeps.
 *   A string longer than AF_MAX_STRING_LENGTH or a byte buffer longer than
 *   AF_MAX_BYTES_LENGTH, or a string that is not valid UTF-8, is refused with
 *   AF_STATUS_INVALID_ARGUMENT; so is any length, count or capacity of 2^63 or
 *   more (SIZE_MAX, or -1 passed by mistake), which is never read as empty.
 *   Text the user may see (reasons, log lines, UI texts, the display name) is
 *   shown with control characters, escape sequences and bidi controls escaped,
 *   and cut when long (docs/WRITING_A_PROVIDER.md, "What users see of your
 *   text"): it is never terminal control.
 *
 * Threads
 *   The host calls a provider's entry points one at a time, from a thread of
 *   its own that is never the host's main thread. A provider may complete a
 *   request before the entry point returns or later, from any thread. Every
 *   host service may be called from any thread.
 *
 * Requests and completion
 *   Each request carries an af_request_id, a number the host chose. The
 *   provider completes it exactly once, with one of the complete_* services or
 *   cancel_request. A second completion, a completion after the host gave up
 *   (the no-UI deadline, about 3 seconds), or an id the host never issued is
 *   harmless: the service returns AF_STATUS_UNKNOWN_REQUEST and the host logs
 *   it. Request ids are plain numbers, never pointers, so nothing can dangle.
 *   A completion the host cannot accept (AF_STATUS_INVALID_ARGUMENT: not UTF-8,
 *   over a limit; AF_STATUS_WRONG_COMPLETION: the wrong kind) still uses the
 *   request up: the host fails it and tells the user which provider erred.
 *   Make reasons and logs valid UTF-8 even when they quote file paths.
 *   A provider receives only the request kinds its plist declares.
 *
 * UI
 *   Entry points that allow UI may call the ui_* services synchronously,
 *   before they return: that is the intended use. Such calls block until the
 *   user answers, and UI requests have no deadline while the user is asked.
 *   But once a UI entry point has returned without completing its request,
 *   and no ui_* call of it is in progress, the host waits at most its UI idle
 *   time (UIIdleTimeoutSeconds, 30 s by default) for the completion, then
 *   fails the request naming the provider. No-UI entry points should return
 *   at once.
 *
 * Why libffi is in the host
 *   No host service takes a context argument. The host builds one
 *   af_host_services table per loaded plugin, and every function pointer in
 *   it is a libffi closure bound to that plugin's own state (the technique
 *   p11-kit uses for its per-module function lists). A provider therefore
 *   cannot name another provider's identity store, requests or settings: its
 *   calls reach only its own, and there is no context pointer to forge or mix
 *   up. Providers see ordinary C function pointers and need no libffi.
 *
 * Every symbol in this header starts with af_ / AF_.
 */
#ifndef AUTOFILL_PROVIDER_H
#define AUTOFILL_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Versions, limits, export                                            */
/* ------------------------------------------------------------------ */

/** The ABI version this header describes. The plist key
 *  AFProviderABIVersion and both tables' `abi_version` must equal it. */
#define AF_ABI_VERSION 1u

/** Longest string (bytes) a host service or request carries. */
#define AF_MAX_STRING_LENGTH 65536u
/** Longest byte buffer (credential ids, attestation objects, ...). */
#define AF_MAX_BYTES_LENGTH 1048576u
/** Largest new contents of a file replace_file takes (256 MiB): a whole
 *  KeePass database with its attachments. */
#define AF_MAX_REPLACE_FILE_LENGTH 268435456u
/** Most identities one store call may carry. */
#define AF_MAX_IDENTITIES_PER_CALL 1000000u

/** True when a table of type `type` at `table` is large enough to hold `field`
 *  (tables are append-only; check before calling an entry a later ABI
 *  revision added). Example: AF_TABLE_HAS(af_host_services, host, ui_message). */
#define AF_TABLE_HAS(type, table, field) \
    ((table)->size >= offsetof(type, field) + sizeof(((type *)0)->field))

/** Mark the entry symbol with this so it is exported from a library built
 *  with -fvisibility=hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define AF_EXPORT __attribute__((visibility("default")))
#else
#define AF_EXPORT
#endif

/* ------------------------------------------------------------------ */
/* Plain values                                                        */
/* ------------------------------------------------------------------ */

/** A UTF-8 string of `length` bytes; `data` may be NULL only if length is 0. */
typedef struct af_str {
    const char *data;
    size_t length;
} af_str;

/** A byte buffer of `length` bytes; `data` may be NULL only if length is 0. */
typedef struct af_bytes {
    const uint8_t *data;
    size_t length;
} af_bytes;

/** Result of a host service: AF_OK or one of the AF_STATUS_* values. */
typedef int32_t af_status;

#define AF_OK 0
/** No pending request has this id: never issued, already completed,
 *  cancelled, or given up by the host after its deadline. Harmless. */
#define AF_STATUS_UNKNOWN_REQUEST (-1)
/** A pointer was NULL with a non-zero length, a string was not UTF-8, a
 *  value was out of range or over the limits above. */
#define AF_STATUS_INVALID_ARGUMENT (-2)
/** The completion does not fit the request (for example a text for a
 *  password request). The host fails the request and names the provider. */
#define AF_STATUS_WRONG_COMPLETION (-3)
/** No UI may be shown: the request is a no-UI request, or the host has no
 *  terminal and no UI script. Answer the request without UI or cancel it. */
#define AF_STATUS_UI_UNAVAILABLE (-4)
/** The user cancelled the prompt. Usually answer with AF_ERROR_USER_CANCELED. */
#define AF_STATUS_UI_CANCELED (-5)
/** get_setting: the provider has no setting with this key. */
#define AF_STATUS_NOT_FOUND (-6)
/** get_setting: `capacity` is too small; `*length` holds the size needed. */
#define AF_STATUS_BUFFER_TOO_SMALL (-7)
/** add_file: the host refused the file (the folder is not one of the
 *  provider's add-files grants, the name is hidden, has no declared suffix,
 *  leads through a link, ...); the reason says which. Nothing was written. */
#define AF_STATUS_REFUSED (-8)
/** add_file: the host could not write the file, or its git commit failed;
 *  the reason says why. */
#define AF_STATUS_IO_ERROR (-9)
/** replace_file: the file on disk is not the version whose SHA-256 the
 *  provider gave (another program saved it since the provider read it).
 *  Nothing was written: read the file again, apply the change, call again. */
#define AF_STATUS_CHANGED_ON_DISK (-10)
/** Identity store errors (Apple's ASCredentialIdentityStoreError codes
 *  internalError 0, storeDisabled 1, storeBusy 2, offset by -100). */
#define AF_STATUS_STORE_INTERNAL (-100)
#define AF_STATUS_STORE_DISABLED (-101)
#define AF_STATUS_STORE_BUSY (-102)

/** Apple's ASExtensionError codes, for cancel_request. */
#define AF_ERROR_FAILED 0
#define AF_ERROR_USER_CANCELED 1
#define AF_ERROR_USER_INTERACTION_REQUIRED 100
#define AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND 101
#define AF_ERROR_MATCHED_EXCLUDED_CREDENTIAL 102

/** Log levels for af_host_services.log. */
#define AF_LOG_DEBUG 0
#define AF_LOG_INFO 1
#define AF_LOG_NOTICE 2
#define AF_LOG_WARNING 3
#define AF_LOG_ERROR 4

/** A number the host chose for one request. Never a pointer. */
typedef uint64_t af_request_id;

/* ------------------------------------------------------------------ */
/* Service identifiers and identities                                  */
/* ------------------------------------------------------------------ */

/** ASCredentialServiceIdentifier.IdentifierType */
#define AF_SERVICE_DOMAIN 0
#define AF_SERVICE_URL 1

/** A service the user is signing into: a domain ("example.com") or a URL
 *  ("https://example.com/login"). Arrays of these are ordered from the most
 *  specific to the least, and may be empty. */
typedef struct af_service_identifier {
    af_str identifier;
    int32_t type;      /* AF_SERVICE_DOMAIN or AF_SERVICE_URL */
    uint32_t reserved; /* 0 */
} af_service_identifier;

/** Identity kinds (the three ASCredentialIdentity classes). */
#define AF_IDENTITY_PASSWORD 1
#define AF_IDENTITY_PASSKEY 2
#define AF_IDENTITY_ONE_TIME_CODE 3

/**
 * A credential identity: what the host may know about a credential without
 * its secret. One struct serves the three kinds; fields a kind does not use
 * are empty.
 *
 *  field              password            passkey                 one-time code
 *  service            serviceIdentifier   relyingPartyIdentifier  serviceIdentifier
 *  service_type       domain / URL        (AF_SERVICE_DOMAIN)     domain / URL
 *  user               user                userName                label
 *  credential_id      —                   credentialID            —
 *  user_handle        —                   userHandle              —
 *  record_identifier  the provider's own key for the record, or empty
 *  rank               larger values come first among equal matches
 *
 * Saving an identity that is already stored replaces it. "Already stored"
 * means: same kind, and for passwords and one-time codes the same
 * service_type, service, user and record_identifier (compared byte for byte);
 * for passkeys the same service (relying party) and credential_id. Rank is not
 * part of the key, so saving again with a new rank updates the rank.
 */
typedef struct af_identity {
    int32_t kind;         /* AF_IDENTITY_* */
    int32_t service_type; /* AF_SERVICE_* */
    af_str service;
    af_str user;
    af_str record_identifier;
    af_bytes credential_id;
    af_bytes user_handle;
    int64_t rank;
} af_identity;

/** ASCredentialIdentityStoreState */
typedef struct af_store_state {
    uint8_t is_enabled;
    uint8_t supports_incremental_updates;
    uint8_t reserved[6];
} af_store_state;

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

/** WebAuthn userVerification preference. */
#define AF_USER_VERIFICATION_REQUIRED 0
#define AF_USER_VERIFICATION_PREFERRED 1
#define AF_USER_VERIFICATION_DISCOURAGED 2

/** Passkey registration style (ASCredentialRequest.RequestStyle). */
#define AF_REGISTRATION_STANDARD 0
#define AF_REGISTRATION_CONDITIONAL 1

/**
 * WebAuthn parameters of a passkey request (assertion or registration).
 * `credential_ids` is allowCredentials for an assertion (empty: any
 * credential of the relying party) and excludeCredentials for a
 * registration. `algorithms` (registration only) lists COSE algorithm
 * identifiers in the relying party's order of preference (-7 is ES256).
 */
typedef struct af_passkey_parameters {
    af_str relying_party;
    af_bytes client_data_hash;      /* SHA-256 of clientDataJSON, 32 bytes */
    int32_t user_verification;      /* AF_USER_VERIFICATION_* */
    int32_t style;                  /* AF_REGISTRATION_* (registration only) */
    const af_bytes *credential_ids;
    size_t credential_id_count;
    const int64_t *algorithms;
    size_t algorithm_count;
    af_str extensions_json;         /* WebAuthn extension inputs, JSON object text, or empty */
} af_passkey_parameters;

/** Request kinds (the ASCredentialRequest classes). */
#define AF_REQUEST_PASSWORD 1
#define AF_REQUEST_PASSKEY_ASSERTION 2
#define AF_REQUEST_ONE_TIME_CODE 3
#define AF_REQUEST_PASSKEY_REGISTRATION 4

/**
 * What the host itself established about the user just before a passkey
 * request (its user-authentication policy: PAM is verification, a yes/no
 * confirmation is presence only). A provider sets the authenticator data's
 * UP and UV flags from these, or from what its own UI established (a master
 * password typed is verification); never from nothing. A conditional
 * registration carries neither: the user was not asked.
 */
#define AF_HOST_USER_PRESENT 1u
#define AF_HOST_USER_VERIFIED 2u
/**
 * Conditional registration only (appended to ABI 1; older hosts never set
 * it): the host delivered a password of THIS provider for this user at the
 * relying party (its host or a subdomain) within the last 5 minutes, after
 * the user passed the host's authentication. Only fills the host completed
 * count: a password the provider handed out but the user declined at the
 * host's prompt never does. The host sends a conditional registration only
 * to providers for which this holds, and sets the bit; an automatic passkey
 * upgrade should require it rather than keep its own record of what it
 * handed out.
 */
#define AF_HOST_RECENT_PASSWORD_FILL 4u
/**
 * Passkey kinds (appended to ABI 1): the host's UI for this request is not a
 * person (a UI script answers, or there is no UI at all). Answers to your
 * ui_* calls then establish no presence: set UP only from
 * AF_HOST_USER_PRESENT. A secret answered (a master password) still proves
 * knowledge of it, so UV may still come from your UI. The host checks the
 * UP and UV flags you sign against what was established and refuses an
 * answer that claims more.
 */
#define AF_HOST_UI_SCRIPTED 8u

/**
 * A request for one credential. `identity` is the identity the user picked
 * (for a registration: relying party, userName and userHandle of the new
 * passkey). `passkey` is non-NULL exactly for the two passkey kinds.
 */
typedef struct af_credential_request {
    int32_t kind;     /* AF_REQUEST_* */
    uint32_t host_verification; /* AF_HOST_* flags (passkey kinds only; 0 otherwise) */
    af_identity identity;
    const af_passkey_parameters *passkey;
} af_credential_request;

/* -- Appended to ABI 1 (Apple's iOS 26 / 26.2 entry points) ---------------
 * These request structs start with their size, so a later revision can
 * append fields: a reader treats fields past `size` as empty. A provider
 * receives them only when its plist declares the capability
 * (SupportsSavePasswordCredentials, SupportsGeneratePasswordCredentials,
 * SupportsCredentialUpdate) AND its table is large enough to hold the entry
 * point; a provider built against the earlier header has neither and loads
 * as before. */

/** ASSavePasswordRequest.Event: why the host asks to save. */
#define AF_SAVE_EVENT_USER_INITIATED 0          /* the user asked (`autofill save`) */
#define AF_SAVE_EVENT_FORM_DID_DISAPPEAR 1      /* a sign-in form was submitted */
#define AF_SAVE_EVENT_GENERATED_PASSWORD_FILLED 2

/**
 * ASSavePasswordRequest: save this password for this user at this service.
 * Add an entry, or update the password of the one the provider holds for the
 * same service and user; then publish its identity (store_save) so the host
 * can suggest it. The password is a secret: never log it, never echo it in a
 * reason.
 */
typedef struct af_save_password_request {
    uint32_t size;                 /* sizeof(af_save_password_request) of the host */
    int32_t event;                 /* AF_SAVE_EVENT_* */
    af_service_identifier service; /* the site, most specific form the user gave */
    af_str user;
    af_str password;               /* never empty */
    af_str title;                  /* a title for a new entry, or empty */
} af_save_password_request;

/**
 * ASGeneratePasswordsRequest: generate a password for this service.
 * `password_rules` is the site's rules in Apple's passwordrules syntax
 * ("minlength: 20; required: lower; required: digit; max-consecutive: 2"),
 * or empty for the provider's own defaults. The host parsed the rules before
 * sending them and checks the password you complete with against them: one
 * that breaks a rule is refused and the request fails, naming you.
 * Generating saves nothing (Apple: "you should not update or replace any
 * existing credentials").
 */
typedef struct af_generate_password_request {
    uint32_t size;                 /* sizeof(af_generate_password_request) of the host */
    uint32_t reserved;             /* 0 */
    af_service_identifier service;
    af_str password_rules;
} af_generate_password_request;

/** Credential-update report kinds (SupportsCredentialUpdate). */
/** reportUnusedPasswordCredential(forDomain:userName:): the site no longer
 *  uses this password (`service`, `user`). Hide or demote it; never show an
 *  error to the user for it. */
#define AF_UPDATE_UNUSED_PASSWORD 1
/** reportUnknownPublicKeyCredential(forRelyingParty:credentialID:) (WebAuthn
 *  signalUnknownCredential): the relying party `service` does not know
 *  `credential_ids[0]`. Remove or hide that passkey. */
#define AF_UPDATE_UNKNOWN_PASSKEY 2
/** reportAllAcceptedPublicKeyCredentials(forRelyingParty:userHandle:
 *  acceptedCredentialIDs:) (signalAllAcceptedCredentials): for `user_handle`
 *  at `service` only `credential_ids` are accepted. Remove or hide that
 *  account's other passkeys; never touch another account's. */
#define AF_UPDATE_ACCEPTED_PASSKEYS 3
/** reportPublicKeyCredentialUpdate(forRelyingParty:userHandle:newName:)
 *  (signalCurrentUserDetails): the account `user_handle` at `service` is now
 *  called `user` (display name `display_name`). Update the passkeys' names. */
#define AF_UPDATE_PASSKEY_USER_DETAILS 4

/** One credential-update report. Fields a kind does not use are empty. */
typedef struct af_credential_update {
    uint32_t size;                 /* sizeof(af_credential_update) of the host */
    int32_t kind;                  /* AF_UPDATE_* */
    af_str service;                /* the password's domain, or the relying party id */
    af_str user;                   /* the user name (unused password; new name for user details) */
    af_str display_name;           /* user details only */
    af_bytes user_handle;          /* accepted passkeys, user details */
    const af_bytes *credential_ids;/* unknown passkey: 1; accepted passkeys: 0 or more */
    size_t credential_id_count;
} af_credential_update;

/* ------------------------------------------------------------------ */
/* Results a provider completes with                                   */
/* ------------------------------------------------------------------ */

/** ASPasskeyAssertionCredential */
typedef struct af_passkey_assertion {
    af_str relying_party;
    af_bytes credential_id;
    af_bytes user_handle;
    af_bytes authenticator_data;
    af_bytes signature;            /* DER-encoded ECDSA for ES256 */
    af_bytes client_data_hash;
    af_str extension_outputs_json; /* JSON object text, or empty */
} af_passkey_assertion;

/** ASPasskeyRegistrationCredential */
typedef struct af_passkey_registration {
    af_str relying_party;
    af_bytes credential_id;
    af_bytes attestation_object;   /* CBOR attestation object */
    af_bytes client_data_hash;
    af_str extension_outputs_json; /* JSON object text, or empty */
} af_passkey_registration;

/** Flags for ui_prompt. */
#define AF_UI_PROMPT_SECRET 1u /* do not echo; the host never logs the answer */

/* ------------------------------------------------------------------ */
/* Host services: what the host offers one provider                    */
/* ------------------------------------------------------------------ */

/**
 * The host's services, one table per loaded provider, bound to it (see "Why
 * libffi is in the host" above). The table and its functions stay valid for
 * the life of the process. Every function may be called from any thread.
 */
typedef struct af_host_services {
    uint32_t abi_version; /* AF_ABI_VERSION */
    uint32_t size;        /* sizeof(af_host_services) of the host */

    /** Write one line to the host's log, tagged with this provider. It is
     *  shown on one line (a newline shows as \n, control characters escaped)
     *  and cut at 1,000 characters; the host keeps a provider's first 1,000
     *  lines. A level outside AF_LOG_* is logged as AF_LOG_INFO.
     *  Never log secrets: the host cannot tell them apart. */
    void (*log)(int32_t level, const char *message, size_t message_length);

    /** Copy the provider's setting `key` (from the host configuration's
     *  ProviderSettings) into `value` (not terminated) and set
     *  `*value_length`. An empty setting gives AF_OK with length 0. On
     *  AF_STATUS_BUFFER_TOO_SMALL, `*value_length` holds the size needed; call
     *  again (value NULL with capacity 0 is a valid way to ask the size).
     *  Values are UTF-8 without NUL bytes. AF_STATUS_NOT_FOUND if unset. */
    af_status (*get_setting)(const char *key, size_t key_length,
                             char *value, size_t capacity, size_t *value_length);

    /* -- The provider's own identity store (ASCredentialIdentityStore) -- */

    /** Fill `*state`. */
    af_status (*store_get_state)(af_store_state *state);
    /** Save identities; saving an existing identity replaces it.
     *  All-or-nothing. Refused (AF_STATUS_STORE_DISABLED) while disabled. */
    af_status (*store_save)(const af_identity *identities, size_t count);
    /** Remove identities. All-or-nothing. */
    af_status (*store_remove)(const af_identity *identities, size_t count);
    /** Remove every identity, then save these. All-or-nothing. */
    af_status (*store_replace)(const af_identity *identities, size_t count);
    /** Remove every identity. */
    af_status (*store_remove_all)(void);

    /* -- Completing a request (exactly once per request) -- */

    /** ASPasswordCredential: for password requests and credential lists. An
     *  empty password is refused (AF_STATUS_INVALID_ARGUMENT) and fails the
     *  request, as does an empty code for complete_one_time_code. */
    af_status (*complete_password)(af_request_id request,
                                   const char *user, size_t user_length,
                                   const char *password, size_t password_length);
    /** For passkey assertion requests and passkey credential lists. */
    af_status (*complete_passkey_assertion)(af_request_id request,
                                            const af_passkey_assertion *assertion);
    /** For passkey registration requests (both styles). */
    af_status (*complete_passkey_registration)(af_request_id request,
                                               const af_passkey_registration *registration);
    /** For one-time-code requests and one-time-code lists. */
    af_status (*complete_one_time_code)(af_request_id request,
                                        const char *code, size_t code_length);
    /** For the text-to-insert request. */
    af_status (*complete_text)(af_request_id request,
                               const char *text, size_t text_length);
    /** For the extension-configuration request. */
    af_status (*complete_configuration)(af_request_id request);
    /** Cancel with an AF_ERROR_* code and an optional user-facing reason
     *  (shown to the user on one line, escaped and cut at 1,000 characters;
     *  never put a secret in it). */
    af_status (*cancel_request)(af_request_id request, int32_t error_code,
                                const char *reason, size_t reason_length);

    /* -- UI, rendered by the host (providers never own the terminal) --
     * Only during a UI request (any entry point not named
     * *_without_user_interaction) that is still pending; otherwise
     * AF_STATUS_UI_UNAVAILABLE. Each call blocks until the user answers;
     * AF_STATUS_UI_CANCELED when the user cancels. */

    /** Ask for a line of text. The host never accepts an answer longer than
     *  `answer_capacity`, so the answer always fits. With
     *  AF_UI_PROMPT_SECRET the answer is not echoed. The answer is not
     *  terminated; `*answer_length` holds its length. */
    af_status (*ui_prompt)(af_request_id request,
                           const char *title, size_t title_length,
                           const char *message, size_t message_length,
                           uint32_t flags,
                           char *answer, size_t answer_capacity, size_t *answer_length);
    /** Let the user choose one of `item_count` items (1 to 100000; items are
     *  single lines, control characters are shown escaped); `*chosen` is the
     *  chosen index. */
    af_status (*ui_choose)(af_request_id request,
                           const char *title, size_t title_length,
                           const af_str *items, size_t item_count,
                           size_t *chosen);
    /** Ask yes or no; `*confirmed` is 1 for yes, 0 for no. */
    af_status (*ui_confirm)(af_request_id request,
                            const char *title, size_t title_length,
                            const char *message, size_t message_length,
                            int32_t *confirmed);
    /** Show a message and wait until the user acknowledges it. */
    af_status (*ui_message)(af_request_id request,
                            const char *title, size_t title_length,
                            const char *message, size_t message_length);

    /* -- Appended to ABI 1: completions of the iOS 26 requests. Check with
     * AF_TABLE_HAS before calling: an older host's table ends above. -- */

    /** completeSavePasswordRequest: the password is saved (and its identity
     *  published). For save requests only. */
    af_status (*complete_save_password)(af_request_id request);
    /** completeGeneratePasswordRequest(results:): the generated password.
     *  For generate requests only; the host refuses (and fails the request)
     *  an empty password or one that breaks the request's rules. */
    af_status (*complete_generated_password)(af_request_id request,
                                             const char *password, size_t password_length);
    /** The report was handled (applied, or ignored because the provider holds
     *  nothing it names). For credential-update requests only. */
    af_status (*complete_credential_update)(af_request_id request);

    /* -- Appended to ABI 1: writing into a store the provider may only read.
     * Check with AF_TABLE_HAS(af_host_services, host, add_file). -- */

    /** Add or replace one file, written by the host, in a folder the plist
     *  declares with Access `add-files` (docs/SANDBOX.md): the provider reads
     *  that folder, but only the host writes it, so no provider can change
     *  its hidden files and folders (a `.git`, a `.gpg-id`), which the user's
     *  own tools run or trust outside the sandbox.
     *  Only while save request `request` (prepare_interface_for_save_password)
     *  or credential-update request `request` is pending: otherwise
     *  AF_STATUS_UNKNOWN_REQUEST. One call per request: a second call of the
     *  same request, after one written or refused, is refused.
     *  `folder`: the declared folder as the provider was given it (its
     *  setting's value, or the declared path). `name`: the file's path
     *  relative to it, `/`-separated, every component non-empty and not
     *  starting with `.`, the last ending with the declared Suffix (for
     *  example `example.com/alice.gpg`); missing folders are created (0700).
     *  `contents`: 1 to AF_MAX_BYTES_LENGTH bytes, written atomically
     *  (a temporary file, fsync, rename) without following any link.
     *  When the declaration says GitCommit and the folder is in a git work
     *  tree, the host then commits the file as `pass insert` does.
     *  AF_OK: written (and committed). AF_STATUS_REFUSED or
     *  AF_STATUS_IO_ERROR: the reason, when `reason` is not NULL, is copied
     *  into it (UTF-8, cut to `reason_capacity`, not terminated) with its
     *  length in `*reason_length`; it never holds the contents.
     *  AF_STATUS_INVALID_ARGUMENT: not UTF-8, NULL with a length, or empty. */
    af_status (*add_file)(af_request_id request,
                          const char *folder, size_t folder_length,
                          const char *name, size_t name_length,
                          const uint8_t *contents, size_t contents_length,
                          char *reason, size_t reason_capacity, size_t *reason_length);

    /* -- Appended to ABI 1: replacing one file the provider may only read.
     * Check with AF_TABLE_HAS(af_host_services, host, replace_file). -- */

    /** Replace one file, written by the host, that the plist declares with
     *  Access `replace-file` (docs/SANDBOX.md): the provider reads that file
     *  and nothing beside it, builds the whole new contents, and the host puts
     *  them in its place, so a file in a folder the provider may not change
     *  (a KeePass database in the home folder) can be saved into.
     *  Only while save request `request` or credential-update request
     *  `request` is pending (otherwise AF_STATUS_UNKNOWN_REQUEST), one host
     *  write (add_file or replace_file) per request.
     *  `path`: the file as the provider was given it (its setting's value, or
     *  the declared path). `contents`: 1 to AF_MAX_REPLACE_FILE_LENGTH bytes.
     *  `expected_sha256`: 32 bytes, the SHA-256 of the file's contents the
     *  change is based on (what the provider read). The host hashes the file
     *  on disk; when it differs, it writes nothing and returns
     *  AF_STATUS_CHANGED_ON_DISK. Otherwise it writes a temporary file in the
     *  same folder with the file's mode, fsyncs it, checks once more that the
     *  file is still the one it hashed, renames it over the file and fsyncs
     *  the folder; no link is followed, at the file or on the way to it.
     *  AF_OK: replaced. AF_STATUS_REFUSED, AF_STATUS_CHANGED_ON_DISK or
     *  AF_STATUS_IO_ERROR: the reason, when `reason` is not NULL, is copied
     *  into it as add_file does (never the contents).
     *  AF_STATUS_INVALID_ARGUMENT: not UTF-8, NULL with a length, empty
     *  contents, or `expected_sha256` NULL.
     *  In a provider's sandbox the file keeps showing the version it read
     *  until the provider is started again (docs/WRITING_A_PROVIDER.md):
     *  base the next change on the contents you handed over. */
    af_status (*replace_file)(af_request_id request,
                              const char *path, size_t path_length,
                              const uint8_t *contents, size_t contents_length,
                              const uint8_t *expected_sha256,
                              char *reason, size_t reason_capacity, size_t *reason_length);

    /* -- Appended to ABI 1: a declared file as it is now.
     * Check with AF_TABLE_HAS(af_host_services, host, open_file). -- */

    /** Open, read-only, the file `path` as it is on disk now: one of the
     *  files the plist declares with Access `read` (a file, not a folder) or
     *  `replace-file`, as the provider was given it (its setting's value, or
     *  the declared path). A sandbox holds such a file by the inode it had
     *  when the provider started: after another program replaced it by a
     *  rename (KeePassXC's safe save), only this reads the new version
     *  (docs/SANDBOX.md, "What the provider sees after a rename"). The host
     *  opens it (its folder with no link on the way, the file without
     *  following a link, a plain file only) and hands over the descriptor,
     *  close-on-exec, read-only; the provider owns it and closes it. Any
     *  time, not only during a request.
     *  AF_OK: `*descriptor` is set. AF_STATUS_REFUSED (not a declared file, a
     *  link, not a plain file, gone) or AF_STATUS_IO_ERROR: `*descriptor` is
     *  -1 and the reason, when `reason` is not NULL, is copied as add_file
     *  does. AF_STATUS_INVALID_ARGUMENT: not UTF-8, or `descriptor` NULL.
     *  A provider that opens a file this way is no longer restarted when
     *  that file is replaced (the host ends a helper whose sandbox holds a
     *  replaced file it never opened through open_file). */
    af_status (*open_file)(const char *path, size_t path_length, int32_t *descriptor,
                           char *reason, size_t reason_capacity, size_t *reason_length);
} af_host_services;

/* ------------------------------------------------------------------ */
/* The provider's table: its entry points                              */
/* ------------------------------------------------------------------ */

/**
 * The provider's entry points (ASCredentialProviderViewController). A NULL
 * entry means "not implemented"; the host checks after loading that every
 * capability the plist declares has its entry points, and never calls a
 * NULL entry. `context` is the provider's own pointer, passed back as the
 * first argument of every entry point. Each entry point should return
 * promptly and complete the request (now or later) through the host
 * services. The table must stay valid for the life of the process.
 *
 * The host routes a request kind only to a provider whose plist declares its
 * capability; a declared capability whose entry point is missing (NULL, or
 * past the table's `size`: the last three were appended to ABI 1 for Apple's
 * iOS 26 keys) makes the host refuse the plugin.
 *
 * capability (plist)                        entry points it requires
 * ProvidesPasswords                         prepare_credential_list,
 *                                           provide_credential_without_user_interaction,
 *                                           prepare_interface_to_provide_credential
 * ProvidesPasskeys                          prepare_credential_list_for_passkey,
 *                                           provide_credential_without_user_interaction,
 *                                           prepare_interface_to_provide_credential,
 *                                           prepare_interface_for_passkey_registration
 * ProvidesOneTimeCodes                      prepare_one_time_code_list,
 *                                           provide_credential_without_user_interaction,
 *                                           prepare_interface_to_provide_credential
 * ProvidesTextToInsert                      prepare_interface_for_text_to_insert
 * SupportsConditionalPasskeyRegistration    perform_passkey_registration_without_user_interaction
 * ShowsConfigurationUI                      prepare_interface_for_extension_configuration
 * SupportsSavePasswordCredentials           prepare_interface_for_save_password
 * SupportsGeneratePasswordCredentials       prepare_interface_for_generate_password
 * SupportsCredentialUpdate                  report_credential_update
 */
typedef struct af_provider {
    uint32_t abi_version; /* AF_ABI_VERSION */
    uint32_t size;        /* sizeof(af_provider) the provider was built with */
    void *context;

    /** prepareCredentialList(for:): the user opened this provider's full
     *  list. Show every credential, matching ones first (the array may be
     *  empty). Complete with a password, or cancel (AF_ERROR_USER_CANCELED). UI allowed. */
    void (*prepare_credential_list)(void *context, af_request_id request,
                                    const af_service_identifier *services, size_t service_count);
    /** prepareCredentialList(for:requestParameters:): the same, during a
     *  passkey assertion. Complete with a password or a passkey assertion. UI allowed. */
    void (*prepare_credential_list_for_passkey)(void *context, af_request_id request,
                                                const af_service_identifier *services, size_t service_count,
                                                const af_passkey_parameters *parameters);
    /** prepareOneTimeCodeCredentialList(for:). Complete with a one-time code. UI allowed. */
    void (*prepare_one_time_code_list)(void *context, af_request_id request,
                                       const af_service_identifier *services, size_t service_count);
    /** provideCredentialWithoutUserInteraction(for:): the user picked one of
     *  this provider's identities. NO UI: answer at once with the credential,
     *  AF_ERROR_USER_INTERACTION_REQUIRED (locked), or
     *  AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND (the host then wipes this
     *  provider's identity store; write it again). The host gives up after
     *  its deadline (3 s by default). */
    void (*provide_credential_without_user_interaction)(void *context, af_request_id request,
                                                        const af_credential_request *credential_request);
    /** prepareInterfaceToProvideCredential(for:): after
     *  userInteractionRequired. Show minimal UI (unlock), then complete;
     *  or cancel with AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND or AF_ERROR_USER_CANCELED. */
    void (*prepare_interface_to_provide_credential)(void *context, af_request_id request,
                                                    const af_credential_request *credential_request);
    /** prepareInterface(forPasskeyRegistration:): create a passkey. Complete
     *  with a registration, or AF_ERROR_MATCHED_EXCLUDED_CREDENTIAL. UI allowed. */
    void (*prepare_interface_for_passkey_registration)(void *context, af_request_id request,
                                                       const af_credential_request *registration_request);
    /** performWithoutUserInteractionIfPossible(passkeyRegistration:): the
     *  automatic passkey upgrade. NO UI, ever; refuse with an error. */
    void (*perform_passkey_registration_without_user_interaction)(void *context, af_request_id request,
                                                                  const af_credential_request *registration_request);
    /** prepareInterfaceForExtensionConfiguration(): right after the user
     *  enables the provider. Complete with complete_configuration. UI allowed. */
    void (*prepare_interface_for_extension_configuration)(void *context, af_request_id request);
    /** prepareInterfaceForUserChoosingTextToInsert(). Complete with a text. UI allowed. */
    void (*prepare_interface_for_text_to_insert)(void *context, af_request_id request);

    /* -- Appended to ABI 1 (iOS 26 / 26.2). A table built against the earlier
     * header ends above (its `size` says so) and is read as having none. -- */

    /** prepareInterface(for: ASSavePasswordRequest): save a password. UI
     *  allowed (to unlock); complete with complete_save_password, or cancel
     *  (AF_ERROR_USER_CANCELED; AF_ERROR_FAILED with a reason). `save` is
     *  valid until the entry point returns; copy the password, then zero it. */
    void (*prepare_interface_for_save_password)(void *context, af_request_id request,
                                                const af_save_password_request *save);
    /** prepareInterface(for: ASGeneratePasswordsRequest): generate a password
     *  that honours the rules. UI allowed but rarely needed; complete with
     *  complete_generated_password. */
    void (*prepare_interface_for_generate_password)(void *context, af_request_id request,
                                                    const af_generate_password_request *generate);
    /** The report* methods of ASCredentialProviderViewController: apply a
     *  credential-update report. UI allowed only to unlock (the user asked for
     *  the report at a terminal); never show an error for it. Complete with
     *  complete_credential_update, or cancel (AF_ERROR_USER_INTERACTION_REQUIRED
     *  and a reason when locked and no UI is possible). */
    void (*report_credential_update)(void *context, af_request_id request,
                                     const af_credential_update *update);
} af_provider;

/**
 * The entry function. The plugin exports one function of this type under
 * the name its plist gives in AFProviderEntrySymbol. The host calls it once,
 * before anything else, from a host thread. Check `host_abi_version` (return
 * NULL if you do not support it) and keep `host`: it stays valid for the
 * life of the process. Check with AF_TABLE_HAS that `host` has the services
 * you call, rather than comparing `host->size` with your sizeof: a newer
 * host's table is larger, never smaller. Return the provider's table, which must also stay
 * valid; return NULL to refuse to load (log why first).
 */
typedef const af_provider *(*af_entry_fn)(uint32_t host_abi_version, const af_host_services *host);

/* ------------------------------------------------------------------ */
/* Layout pins: a provider built against this header on the same       */
/* platform agrees with the host on every size. P is a pointer's size. */
/* ------------------------------------------------------------------ */
#ifndef __cplusplus
#define AF__P sizeof(void *)
_Static_assert(sizeof(size_t) == AF__P, "autofill assumes size_t is pointer-sized");
_Static_assert(sizeof(af_str) == 2 * AF__P, "af_str layout changed");
_Static_assert(sizeof(af_bytes) == 2 * AF__P, "af_bytes layout changed");
_Static_assert(sizeof(af_service_identifier) == 2 * AF__P + 8, "af_service_identifier layout changed");
_Static_assert(sizeof(af_identity) == 8 + 10 * AF__P + 8, "af_identity layout changed");
_Static_assert(sizeof(af_store_state) == 8, "af_store_state layout changed");
_Static_assert(sizeof(af_passkey_parameters) == 10 * AF__P + 8, "af_passkey_parameters layout changed");
_Static_assert(sizeof(af_credential_request) == 8 + sizeof(af_identity) + AF__P, "af_credential_request layout changed");
_Static_assert(sizeof(af_passkey_assertion) == 14 * AF__P, "af_passkey_assertion layout changed");
_Static_assert(sizeof(af_passkey_registration) == 10 * AF__P, "af_passkey_registration layout changed");
_Static_assert(sizeof(af_save_password_request) == 8 + sizeof(af_service_identifier) + 6 * AF__P, "af_save_password_request layout changed");
_Static_assert(sizeof(af_generate_password_request) == 8 + sizeof(af_service_identifier) + 2 * AF__P, "af_generate_password_request layout changed");
_Static_assert(sizeof(af_credential_update) == 8 + 10 * AF__P, "af_credential_update layout changed");
/* Tables grow at the end only: the first sizes below are what a provider or
 * host built against the earlier ABI 1 header has, and still works with. */
_Static_assert(offsetof(af_host_services, complete_save_password) == 8 + 18 * AF__P, "af_host_services: 18 entries before the iOS 26 ones");
_Static_assert(offsetof(af_host_services, add_file) == 8 + 21 * AF__P, "af_host_services: 21 entries before add_file");
_Static_assert(offsetof(af_host_services, replace_file) == 8 + 22 * AF__P, "af_host_services: 22 entries before replace_file");
_Static_assert(offsetof(af_host_services, open_file) == 8 + 23 * AF__P, "af_host_services: 23 entries before open_file");
_Static_assert(sizeof(af_host_services) == 8 + 24 * AF__P, "af_host_services has 24 entries");
_Static_assert(offsetof(af_provider, prepare_interface_for_save_password) == 8 + 10 * AF__P, "af_provider: a context and 9 entries before the iOS 26 ones");
_Static_assert(sizeof(af_provider) == 8 + 13 * AF__P, "af_provider has a context and 12 entries");
#undef AF__P
#endif

/* ------------------------------------------------------------------ */
/* Helpers (defined in autofill_provider.c)                            */
/* The host links these. A provider that wants them compiles           */
/* autofill_provider.c into itself: it needs only this header.         */
/* ------------------------------------------------------------------ */

/** A short English description of an af_status, never NULL. */
const char *af_status_description(af_status status);

/** Apple's name of an AF_ERROR_* code ("userInteractionRequired"), or NULL. */
const char *af_error_code_name(int32_t error_code);

#ifdef __cplusplus
}
#endif

#endif /* AUTOFILL_PROVIDER_H */
