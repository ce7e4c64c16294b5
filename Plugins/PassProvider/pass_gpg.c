/*
 * pass_gpg.c — decrypting an entry with gpgme: checking that gpg-agent listens for the GnuPG home,
 * asking the passphrase through the host (loopback pinentry), and saying why a decryption failed.
 */
#include "pass_provider.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpgme.h>

extern char **environ;

/* ---- gpg-agent -------------------------------------------------------- */

/* Runs `gpgconf --homedir HOME --list-dirs agent-socket`; the socket path, malloc'd, or NULL. */
static char *agent_socket_of(const char *home) {
    char out[4096];
    size_t len = 0;
    int fds[2];
    pid_t pid;
    posix_spawn_file_actions_t actions;
    char *argv[] = {"gpgconf", "--homedir", (char *)home, "--list-dirs", "agent-socket", NULL};
    if (pipe(fds) != 0) return NULL;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    int spawned = posix_spawnp(&pid, "gpgconf", &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    for (ssize_t n = 1; spawned == 0 && n > 0 && len < sizeof out - 1;)
        if ((n = read(fds[0], out + len, sizeof out - 1 - len)) > 0) len += (size_t)n;
        else if (n < 0 && errno == EINTR) n = 1;
    close(fds[0]);
    int status = 0;
    if (spawned == 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (spawned != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || len == 0) return NULL;
    out[len] = '\0';
    out[strcspn(out, "\n")] = '\0';
    /* gpgconf percent-escapes some characters (%3a for ':'): undo it. */
    char *p = out, *q = out;
    for (; *p; p++) {
        unsigned hi, lo;
        if (*p == '%' && sscanf(p + 1, "%1x%1x", &hi, &lo) == 2) *q++ = (char)(hi * 16 + lo), p += 2;
        else *q++ = *p;
    }
    *q = '\0';
    return strdup(out);
}

/* Whether gpg-agent listens for GnuPG home `home`. Without one, gpg would try to start it, which
 * the sandbox forbids (it would outlive the provider), and wait seconds for it. */
static int agent_running(const char *home, char **socket_out) {
    if (!state.agent_home || strcmp(state.agent_home, home) != 0) {
        free(state.agent_home), free(state.agent_socket);
        state.agent_home = strdup(home);
        state.agent_socket = agent_socket_of(home);
    }
    *socket_out = state.agent_socket;
    if (!state.agent_socket) return 0;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(state.agent_socket) >= sizeof address.sun_path) return 0;
    strcpy(address.sun_path, state.agent_socket);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), ok = 0;
    if (fd >= 0) ok = connect(fd, (struct sockaddr *)&address, sizeof address) == 0;
    if (fd >= 0) close(fd);
    return ok;
}

/* ---- Decrypting --------------------------------------------------------- */

/* Where gpgme writes the plaintext: our buffer, wiped whenever it moves or is freed. */
static ssize_t plain_write(void *handle, const void *data, size_t size) {
    afu_buf *b = handle;
    if (size > PASS_MAX_ENTRY_SIZE - b->len) {
        errno = EFBIG;
        return -1;
    }
    char *bigger = malloc(b->len + size + 1);
    if (!bigger) {
        errno = ENOMEM;
        return -1;
    }
    if (b->len) memcpy(bigger, b->data, b->len);
    memcpy(bigger + b->len, data, size);
    afu_buf_free(&(afu_buf){b->data, b->len});
    b->data = bigger;
    b->len += size;
    b->data[b->len] = '\0';
    return (ssize_t)size;
}

typedef struct {
    af_request_id request;
    int may_ask;     /* a UI request: ask through ui_prompt; otherwise refuse */
    int asked;       /* gpg wanted the passphrase */
    int answered;    /* ... and we gave one */
    int tries;       /* passphrases given in this request */
    int ui_status;   /* the ui_prompt status that stopped us, or AF_OK */
    const char *entry_name;
} passphrase_ask;

static gpgme_error_t passphrase_cb(void *hook, const char *uid_hint, const char *info, int prev_was_bad, int fd) {
    static const char title[] = "Unlock your GnuPG key";
    passphrase_ask *ask = hook;
    char message[768], key[256], name[256], answer[PASS_MAX_PASSPHRASE + 1];
    size_t answer_len = 0;
    (void)info;
    ask->asked = 1;
    if (!ask->may_ask) return gpg_error(GPG_ERR_CANCELED);
    /* uid_hint is "LONGKEYID User Name <email>": names the key, so the user knows which passphrase. */
    const char *space = uid_hint ? strchr(uid_hint, ' ') : NULL;
    snprintf(key, sizeof key, "%s", space ? space + 1 : uid_hint ? uid_hint : "");
    snprintf(name, sizeof name, "%s", ask->entry_name);
    afu_sanitize(key, strlen(key)), afu_sanitize(name, strlen(name));
    int n = snprintf(message, sizeof message, "%sPassphrase of the GnuPG key %s%sto decrypt %s",
                     prev_was_bad || ask->tries > 0 ? "Wrong passphrase; try again. " : "", key, *key ? " " : "", name);
    size_t message_len = n < 0 ? 0 : (size_t)n < sizeof message ? (size_t)n : sizeof message - 1;
    af_status s = state.host->ui_prompt(ask->request, title, sizeof title - 1, message, message_len, AF_UI_PROMPT_SECRET,
                                        answer, PASS_MAX_PASSPHRASE, &answer_len);
    if (s != AF_OK) {
        ask->ui_status = s;
        return gpg_error(GPG_ERR_CANCELED);
    }
    answer[answer_len] = '\n';
    int written = gpgme_io_writen(fd, answer, answer_len + 1);
    afu_wipe(answer, sizeof answer);
    ask->answered = 1;
    ask->tries++;
    return written == 0 ? 0 : gpg_error_from_syserror();
}

static void describe_recipients(gpgme_ctx_t ctx, char *out, size_t capacity) {
    gpgme_decrypt_result_t result = gpgme_op_decrypt_result(ctx);
    size_t used = 0;
    out[0] = '\0';
    for (gpgme_recipient_t r = result ? result->recipients : NULL; r && used + 24 < capacity; r = r->next) {
        int n = snprintf(out + used, capacity - used, "%s0x%s", used ? ", " : "", r->keyid ? r->keyid : "?");
        if (n > 0) used += (size_t)n;
    }
    if (!used) snprintf(out, capacity, "a key");
}

/* ---- What `autofill lock` clears ---------------------------------------- */

/* Adds to `out` the keygrips of the encryption subkeys of the secret keys `pattern` names. */
static void add_keygrips(gpgme_ctx_t ctx, const char *pattern, afu_buf *out) {
    gpgme_key_t key;
    if (gpgme_op_keylist_start(ctx, pattern, 1) != 0) return;
    while (gpgme_op_keylist_next(ctx, &key) == 0) {
        for (gpgme_subkey_t sub = key->subkeys; sub; sub = sub->next) {
            if (!sub->can_encrypt || !sub->keygrip || strlen(sub->keygrip) != 40) continue;
            if (out->data && strstr(out->data, sub->keygrip)) continue;
            char *bigger = realloc(out->data, out->len + 42);
            if (!bigger) break;
            out->data = bigger;
            memcpy(out->data + out->len, sub->keygrip, 40);
            out->len += 40;
            out->data[out->len++] = '\n';
            out->data[out->len] = '\0';
        }
        gpgme_key_unref(key);
    }
    gpgme_op_keylist_end(ctx);
}

/* Lists, once per process, the keygrips whose passphrases a decryption may have had gpg-agent cache, in
 * gpg-agent-keygrips in the runtime folder (not secret): the encryption subkeys of every .gpg-id recipient
 * and of the key this decryption used. `autofill lock` asks gpg-agent to forget them (docs/SANDBOX.md). */
static void list_keygrips(const store *s, gpgme_ctx_t ctx) {
    const char *folder = getenv("AUTOFILL_PROVIDER_RUNTIME_DIR");
    if (state.keygrips_listed || !folder || *folder != '/') return;
    afu_buf grips = {0};
    gpgme_decrypt_result_t result = gpgme_op_decrypt_result(ctx);
    char *keyids[16] = {0};
    size_t nkeyids = 0;
    for (gpgme_recipient_t r = result ? result->recipients : NULL; r && nkeyids < 16; r = r->next)
        if (r->keyid && (keyids[nkeyids] = strdup(r->keyid))) nkeyids++;
    for (size_t i = 0; i < nkeyids; i++) add_keygrips(ctx, keyids[i], &grips), free(keyids[i]);
    for (char *line = s->gpg_ids, *end; line && *line; line = end + 1) {
        end = strchr(line, '\n');
        if (!end) break;
        *end = '\0';
        line += strspn(line, " \t");
        if (*line && *line != '#') add_keygrips(ctx, line, &grips);
        *end = '\n';
    }
    char *path = afu_join(folder, "/gpg-agent-keygrips"), *temporary = path ? afu_join(path, ".new") : NULL;
    int fd = temporary ? open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
    int ok = fd >= 0 && (grips.len == 0 || write(fd, grips.data, grips.len) == (ssize_t)grips.len);
    if (fd >= 0 && close(fd) != 0) ok = 0;
    if (ok && rename(temporary, path) == 0) state.keygrips_listed = 1;
    else if (temporary) unlink(temporary), afu_log(state.host, AF_LOG_WARNING, "cannot list the store's keys for autofill lock (errno %d)", errno);
    free(path), free(temporary), free(grips.data);
}

/* Decrypts `e` into `plain`. On failure the request is cancelled (LOCKED: userInteractionRequired). */
decrypt_result decrypt(const store *s, const entry *e, af_request_id request, int may_ask, afu_buf *plain) {
    char *home = gnupg_home(), *socket_path = NULL, *path = NULL, keys[256];
    decrypt_result result = FAILED;
    gpgme_ctx_t ctx = NULL;
    gpgme_data_t cipher = NULL, out = NULL;
    struct gpgme_data_cbs cbs = {NULL, plain_write, NULL, NULL};
    passphrase_ask ask = {.request = request, .may_ask = may_ask, .ui_status = AF_OK, .entry_name = e->name};
    gpgme_error_t err;
    int fd = -1;

    if (!home) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: neither GnuPGHome, GNUPGHOME nor HOME is set", e->name);
        return FAILED;
    }
    if (!agent_running(home, &socket_path)) {
        afu_cancel(state.host, request, AF_ERROR_FAILED,
               "cannot decrypt %s: gpg-agent is not running for the GnuPG home %s%s%s; start it with "
               "`gpgconf --launch gpg-agent` (a provider's sandbox cannot start it, and autofill could not: see autofill -v)",
               e->name, home, socket_path ? " (no agent at " : "", socket_path ? socket_path : "");
        goto done;
    }
    if (!(path = malloc(strlen(s->root) + strlen(e->name) + 6))) goto oom;
    sprintf(path, "%s/%s.gpg", s->root, e->name);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        afu_cancel(state.host, request, AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND, "the entry %s is no longer in the password store %s",
               e->name, s->root);
        goto done;
    }
    if ((err = gpgme_new(&ctx)) || (err = gpgme_set_protocol(ctx, GPGME_PROTOCOL_OpenPGP)) ||
        (err = gpgme_ctx_set_engine_info(ctx, GPGME_PROTOCOL_OpenPGP, NULL, home)) ||
        (err = gpgme_set_pinentry_mode(ctx, GPGME_PINENTRY_MODE_LOOPBACK)) || (err = gpgme_data_new_from_fd(&cipher, fd)) ||
        (err = gpgme_data_new_from_cbs(&out, &cbs, plain))) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: gpgme: %s", e->name, gpgme_strerror(err));
        goto done;
    }
    gpgme_set_passphrase_cb(ctx, passphrase_cb, &ask);
    for (;;) {
        err = gpgme_op_decrypt(ctx, cipher, out);
        int bad = gpgme_err_code(err) == GPG_ERR_BAD_PASSPHRASE ||
                  (ask.answered && gpgme_err_code(err) != GPG_ERR_CANCELED && gpgme_err_code(err) != GPG_ERR_NO_ERROR);
        if (!bad || ask.tries >= PASS_PASSPHRASE_TRIES || ask.ui_status != AF_OK) break;
        afu_buf_free(plain); /* ask again: gpg-agent's loopback asks once per decryption */
        gpgme_data_seek(cipher, 0, SEEK_SET);
        ask.answered = 0;
    }
    gpgme_error_t code = gpgme_err_code(err);
    if (!err) {
        result = DECRYPTED;
        list_keygrips(s, ctx);
    } else if (ask.ui_status == AF_STATUS_UI_CANCELED) {
        state.host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
    } else if (ask.asked && !may_ask) {
        afu_cancel(state.host, request, AF_ERROR_USER_INTERACTION_REQUIRED, "%s: gpg-agent has not cached the passphrase of its key",
               e->name);
        result = LOCKED;
    } else if (ask.ui_status != AF_OK) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "decrypting %s needs your key's passphrase, and autofill could not ask (%s)", e->name,
               ui_trouble(ask.ui_status));
    } else if (ask.answered || code == GPG_ERR_BAD_PASSPHRASE) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: wrong passphrase (%d tries)", e->name, ask.tries);
    } else if (code == GPG_ERR_NO_SECKEY) {
        describe_recipients(ctx, keys, sizeof keys);
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: it is encrypted to %s, whose secret key is not in the GnuPG home %s",
               e->name, keys, home);
    } else if (code == GPG_ERR_NO_DATA) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: %s is not OpenPGP data", e->name, path);
    } else {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "cannot decrypt %s: %s", e->name, gpgme_strerror(err));
    }
    goto done;
oom:
    afu_cancel(state.host, request, AF_ERROR_FAILED, "out of memory");
done:
    if (result != DECRYPTED) afu_buf_free(plain);
    gpgme_data_release(out);
    gpgme_data_release(cipher);
    gpgme_release(ctx);
    if (fd >= 0) close(fd);
    free(path), free(home);
    return result;
}
