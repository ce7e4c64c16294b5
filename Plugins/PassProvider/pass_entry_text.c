/*
 * pass_entry_text.c — what a decrypted entry says, laid out as pass users write it: the password
 * on the first line, then login:/user:/username:/email:, url: and an otpauth:// line.
 */
#include "pass_provider.h"

#include <string.h>

/* ---- What an entry says ------------------------------------------------ */

static void trim(const char **s, size_t *len) {
    while (*len && (**s == ' ' || **s == '\t')) (*s)++, (*len)--;
    while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' || (*s)[*len - 1] == '\r')) (*len)--;
}

/* The value of "key: value" when `line` has that key (any case), else NULL. */
static const char *field(const char *line, size_t len, const char *key, size_t *value_len) {
    size_t k = strlen(key);
    if (len <= k || line[k] != ':' || !afu_ascii_case_eq(line, key, k)) return NULL;
    const char *value = line + k + 1;
    *value_len = len - k - 1;
    trim(&value, value_len);
    return value;
}

void parse_entry(const afu_buf *plain, entry_text *t) {
    const char *p = plain->data, *end = p + plain->len;
    memset(t, 0, sizeof *t);
    for (int first = 1; p < end; first = 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *line = p, *v;
        size_t len = (size_t)((nl ? nl : end) - p), vlen;
        p = nl ? nl + 1 : end;
        if (first) { /* the password is the whole first line, but for a trailing CR */
            t->password = line;
            t->password_len = len && line[len - 1] == '\r' ? len - 1 : len;
            continue;
        }
        trim(&line, &len);
        if (!t->user && ((v = field(line, len, "login", &vlen)) || (v = field(line, len, "user", &vlen)) ||
                         (v = field(line, len, "username", &vlen)) || (v = field(line, len, "email", &vlen))) && vlen)
            t->user = v, t->user_len = vlen;
        else if (!t->url && (v = field(line, len, "url", &vlen)) && vlen)
            t->url = v, t->url_len = vlen;
        else if (!t->otpauth && len > 10 && afu_ascii_case_eq(line, "otpauth://", 10))
            t->otpauth = line, t->otpauth_len = len;
    }
}

/* "https://user@Host.example:8443/x" → "host.example"; "example.com/login" → "example.com". */
char *url_host(const char *url, size_t len) {
    const char *host;
    size_t host_len = afu_host_span(url, len, 1, &host);
    return looks_like_domain(host, host_len) ? afu_lower_copy(host, host_len) : NULL;
}
