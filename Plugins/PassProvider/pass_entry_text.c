/*
 * pass_entry_text.c — what a decrypted entry says, laid out as pass users write it: the password
 * on the first line, then login:/user:/username:/email:, url: and an otpauth:// line.
 */
#include "pass_provider.h"

#include <ctype.h>
#include <stdlib.h>
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

/* "https://user@Host.example:8443/x?token=1#top" → "https://host.example:8443/x": the scheme, host,
 * port and path of a url: with a scheme (what tells http from https, and one repository's token from
 * another's), never its user info, query or fragment; NULL without a scheme or a domain, or with a
 * space or control character. */
char *url_site(const char *url, size_t len) {
    const char *sep = NULL;
    for (size_t i = 1; !sep && i + 3 <= len; i++)
        if (url[i] == ':' && url[i + 1] == '/' && url[i + 2] == '/') sep = url + i;
    if (!sep || sep == url || !((*url | 0x20) >= 'a' && (*url | 0x20) <= 'z')) return NULL;
    for (const char *p = url; p < sep; p++)
        if (!((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') && !(*p >= '0' && *p <= '9') && *p != '+' && *p != '-' && *p != '.') return NULL;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)url[i] <= 0x20 || url[i] == 0x7F) return NULL;
    char *host = url_host(url, len);
    if (!host) return NULL;
    free(host);
    const char *authority = sep + 3, *end = url + len, *stop = authority;
    while (stop < end && *stop != '/' && *stop != '?' && *stop != '#' && *stop != '\\') stop++;
    for (const char *at = stop; at > authority; at--)
        if (at[-1] == '@') { authority = at; break; }
    const char *path_end = stop;
    while (path_end < end && *path_end != '?' && *path_end != '#') path_end++;
    size_t scheme_len = (size_t)(sep - url), authority_len = (size_t)(stop - authority), path_len = (size_t)(path_end - stop);
    char *site = malloc(scheme_len + 3 + authority_len + path_len + 1);
    if (!site) return NULL;
    char *out = site;
    for (size_t i = 0; i < scheme_len; i++) *out++ = (char)tolower((unsigned char)url[i]);
    memcpy(out, "://", 3), out += 3;
    for (size_t i = 0; i < authority_len; i++) *out++ = (char)tolower((unsigned char)authority[i]);
    memcpy(out, stop, path_len), out += path_len;
    *out = '\0';
    return site;
}
