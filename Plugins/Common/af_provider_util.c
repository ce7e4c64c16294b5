/*
 * af_provider_util.c — the optional helpers declared in af_provider_util.h. Plain C11 with libc
 * and autofill_provider.h; compile it into a provider beside the provider's own sources.
 */
#include "af_provider_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Memory ---- */

void afu_wipe(void *p, size_t n) {
    for (volatile unsigned char *v = p; n--;) *v++ = 0;
}

void afu_buf_free(afu_buf *b) {
    if (b->data) afu_wipe(b->data, b->len);
    free(b->data);
    *b = (afu_buf){NULL, 0};
}

char *afu_join(const char *a, const char *b) {
    size_t size = strlen(a) + strlen(b) + 1;
    char *s = malloc(size);
    if (s) snprintf(s, size, "%s%s", a, b);
    return s;
}

/* ---- ASCII and UTF-8 ---- */

char afu_ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }

int afu_ascii_case_eq(const char *a, const char *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (afu_ascii_lower(a[i]) != afu_ascii_lower(b[i])) return 0;
    return 1;
}

char *afu_lower_copy(const char *s, size_t len) {
    char *out = malloc(len + 1);
    if (!out) return NULL;
    for (size_t i = 0; i < len; i++) out[i] = afu_ascii_lower(s[i]);
    out[len] = '\0';
    return out;
}

size_t afu_utf8_sequence(const unsigned char *p, size_t n) {
    unsigned c = p[0], cp, min;
    size_t len;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) len = 2, min = 0x80;
    else if ((c & 0xF0) == 0xE0) len = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, min = 0x10000;
    else return 0;
    if (n < len) return 0;
    cp = c & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    return (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) ? 0 : len;
}

int afu_utf8_valid(const char *s, size_t len) {
    for (size_t i = 0, k; i < len; i += k)
        if ((k = afu_utf8_sequence((const unsigned char *)s + i, len - i)) == 0) return 0;
    return 1;
}

size_t afu_sanitize(char *s, size_t len) {
    for (size_t i = 0, k; i < len; i += k ? k : 1) {
        k = afu_utf8_sequence((unsigned char *)s + i, len - i);
        if (k == 0 || (unsigned char)s[i] < 0x20 || s[i] == 0x7F) s[i] = '?';
    }
    return len;
}

/* ---- Talking to the host ---- */

size_t afu_format_text(char *out, size_t capacity, const char *fmt, va_list ap) {
    int n = vsnprintf(out, capacity, fmt, ap);
    return afu_sanitize(out, n < 0 ? 0 : ((size_t)n < capacity ? (size_t)n : capacity - 1));
}

void afu_log(const af_host_services *host, int32_t level, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    size_t len = afu_format_text(text, sizeof text, fmt, ap);
    va_end(ap);
    host->log(level, text, len);
}

void afu_cancel(const af_host_services *host, af_request_id request, int32_t code, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    size_t len = afu_format_text(text, sizeof text, fmt, ap);
    va_end(ap);
    host->cancel_request(request, code, text, len);
}

int afu_host_usable(uint32_t host_abi_version, const af_host_services *host) {
    /* A table of another version may not even have `log` where we look; a larger table of this
     * version is a newer host and fine (tables are append-only). */
    if (!host || host->abi_version != AF_ABI_VERSION || !AF_TABLE_HAS(af_host_services, host, ui_message) || !host->log)
        return 0;
    if (host_abi_version != AF_ABI_VERSION) {
        afu_log(host, AF_LOG_ERROR, "the host speaks provider ABI %u, this plugin %u; not loading", (unsigned)host_abi_version,
                AF_ABI_VERSION);
        return 0;
    }
    return 1;
}

af_status afu_setting(const af_host_services *host, const char *key, char **value) {
    char *text = NULL, *bigger;
    size_t capacity = 0, needed = 0;
    af_status s = AF_STATUS_NOT_FOUND;
    *value = NULL;
    for (int attempt = 0; attempt < 4; attempt++) { /* the value may change between calls */
        s = host->get_setting(key, strlen(key), text, capacity, &needed);
        if (s == AF_OK && needed <= capacity) {
            if (needed == 0) { /* empty is unset */
                s = AF_STATUS_NOT_FOUND;
                break;
            }
            text[needed] = '\0';
            if (memchr(text, '\0', needed)) s = AFU_SETTING_HAS_NUL;
            else *value = text;
            break;
        }
        if (s != AF_STATUS_BUFFER_TOO_SMALL || needed > AF_MAX_STRING_LENGTH) break;
        if (!(bigger = realloc(text, needed + 1))) break; /* +1 for our terminator */
        text = bigger;
        capacity = needed;
    }
    if (!*value) free(text);
    return *value ? AF_OK : s;
}

/* ---- Sites ---- */

size_t afu_host_span(const char *text, size_t len, int is_url, const char **host) {
    const char *p = text ? text : "", *end = p + (text ? len : 0), *q;
    if (is_url) {
        for (q = p; end - q >= 3 && *q != '/'; q++) /* a "://" before the path ends the scheme */
            if (memcmp(q, "://", 3) == 0) { p = q + 3; break; }
        for (q = p; q < end && *q != '/' && *q != '?' && *q != '#'; q++) {}
        for (end = q; q > p; q--)
            if (q[-1] == '@') { p = q; break; }
        int bracketed = p < end && *p == '['; /* [IPv6]:port */
        p += bracketed;
        for (q = p; q < end && *q != (bracketed ? ']' : ':'); q++) {}
        end = q;
    }
    if (end > p && end[-1] == '.') end--;
    *host = p;
    return (size_t)(end - p);
}

int afu_domain_matches(const char *host, size_t host_len, const char *domain, size_t domain_len) {
    return domain_len && host_len >= domain_len && afu_ascii_case_eq(host + host_len - domain_len, domain, domain_len) &&
           (host_len == domain_len || host[host_len - domain_len - 1] == '.');
}
