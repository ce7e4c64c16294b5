/*
 * af_provider_util.h — optional helpers for providers written in C: the small things every C
 * provider of this repository needs (wiping secrets, UTF-8 checks, text for people, reading a
 * setting, checking the host's table, taking the host out of a URL, matching a domain).
 *
 * Not part of the ABI: autofill_provider.h is the whole contract, and a provider may ignore this
 * file. To use it, compile af_provider_util.c into your library beside your own sources, or copy
 * both files into your project (they need only libc and autofill_provider.h):
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
 *      -I<autofill>/Sources/CAutofillProvider/include -I<autofill>/Plugins/Common \
 *      my_provider.c <autofill>/Plugins/Common/af_provider_util.c -o libMyProvider.so
 *
 * Every name starts with afu_ and is hidden (never exported from your library, whatever your
 * flags), so two providers in one process never share these symbols. Not thread-safe beyond what
 * libc is: call them from your entry points, which the host calls one at a time.
 */
#ifndef AF_PROVIDER_UTIL_H
#define AF_PROVIDER_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "autofill_provider.h"

#pragma GCC visibility push(hidden)

/* Bytes the provider owns: malloc'd and NUL-terminated once set, or {NULL, 0}. */
typedef struct {
    char *data;
    size_t len;
} afu_buf;

/* printf arguments for "%.*s" from a counted string whose data may be NULL. */
#define AFU_SHOW(data, len) (int)(len), ((data) ? (data) : "")
/* The same from an af_str. */
#define AFU_SHOW_STR(s) AFU_SHOW((s).data, (s).length)

/* ---- Memory ---- */

/* Sets n bytes at p to zero through a volatile pointer, so an optimizing compiler keeps the stores
 * (for secrets: passwords, passphrases, OTP keys). */
void afu_wipe(void *p, size_t n);

/* Wipes, then frees, the bytes of `b` and leaves it {NULL, 0}. */
void afu_buf_free(afu_buf *b);

/* "a" followed by "b", malloc'd; NULL when out of memory. */
char *afu_join(const char *a, const char *b);

/* ---- ASCII and UTF-8 ---- */

char afu_ascii_lower(char c);

/* Whether the n bytes at a and b are equal, ignoring ASCII case. */
int afu_ascii_case_eq(const char *a, const char *b, size_t n);

/* The len bytes at s, ASCII lower-cased, malloc'd and NUL-terminated; NULL when out of memory. */
char *afu_lower_copy(const char *s, size_t len);

/* The length of the well-formed UTF-8 sequence at p (n bytes available, n > 0), or 0. As strict as
 * the host's decoder: no overlong forms, surrogates or code points past U+10FFFF. */
size_t afu_utf8_sequence(const unsigned char *p, size_t n);

/* Whether the len bytes at s are well-formed UTF-8 (the host refuses strings that are not). */
int afu_utf8_valid(const char *s, size_t len);

/* For text shown to people (file names and tokens may hold any bytes; a log line or menu item must
 * stay one line): turns bad UTF-8, NUL and control characters into '?', in place. Returns len. */
size_t afu_sanitize(char *s, size_t len);

/* ---- Talking to the host ---- */

/* vsnprintf into out, cut to capacity and sanitized (afu_sanitize); the text's length. */
size_t afu_format_text(char *out, size_t capacity, const char *fmt, va_list ap);

/* host->log with a printf format (the text sanitized; at most 1,023 bytes). Never pass a secret. */
__attribute__((format(printf, 3, 4)))
void afu_log(const af_host_services *host, int32_t level, const char *fmt, ...);

/* host->cancel_request with a reason the user reads, formatted as afu_log. Never pass a secret. */
__attribute__((format(printf, 4, 5)))
void afu_cancel(const af_host_services *host, af_request_id request, int32_t code, const char *fmt, ...);

/* The first thing an entry function does: whether `host` is a table this provider can use (this
 * ABI version, with every service up to ui_message and a log). When only the version the host
 * speaks differs, says so through host->log. On 0, return NULL from the entry function. */
int afu_host_usable(uint32_t host_abi_version, const af_host_services *host);

/* afu_setting's answer when the value holds a NUL byte (a host never answers a positive status). */
#define AFU_SETTING_HAS_NUL 1

/* The setting `key` as a malloc'd C string in *value (the caller frees it), growing the buffer as
 * host->get_setting asks. AF_OK with a value; otherwise *value is NULL and the answer is
 * AF_STATUS_NOT_FOUND (unset or empty), AFU_SETTING_HAS_NUL, or the host's status (a value that
 * kept changing or was too long: AF_STATUS_BUFFER_TOO_SMALL). */
af_status afu_setting(const af_host_services *host, const char *key, char **value);

/* ---- Sites ---- */

/* The host name in the len bytes at text, without a final dot; with is_url, also without
 * scheme://, userinfo@, :port, [brackets], path, query and fragment. Sets *host to where it starts
 * in text and returns its length (not lower-cased). "https://u@Example.com.:8443/x" → "Example.com". */
size_t afu_host_span(const char *text, size_t len, int is_url, const char **host);

/* Whether `domain` is `host` or a parent domain of it, ignoring ASCII case ("example.com" is for
 * "example.com" and "www.example.com", never for "badexample.com"). An empty domain is for nothing. */
int afu_domain_matches(const char *host, size_t host_len, const char *domain, size_t domain_len);

#pragma GCC visibility pop

#endif /* AF_PROVIDER_UTIL_H */
