/*
 * pass_totp.c — the current one-time code of an otpauth://totp/ line, computed with libgcrypt's
 * HMAC (the provider answers with the code, never the seed).
 */
#include "pass_provider.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gcrypt.h>

/* ---- One-time codes (RFC 6238 TOTP, as pass-otp and oathtool compute them) ---- */

static int base32_decode(const char *in, size_t len, unsigned char *out, size_t capacity, size_t *out_len) {
    unsigned long long bits = 0;
    int count = 0;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        int v;
        if (c == '=' || c == ' ' || c == '-') continue;
        if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        if (c >= 'A' && c <= 'Z') v = c - 'A';
        else if (c >= '2' && c <= '7') v = c - '2' + 26;
        else return -1;
        bits = (bits << 5) | (unsigned)v;
        if ((count += 5) >= 8) {
            if (n == capacity) return -1;
            out[n++] = (unsigned char)(bits >> (count - 8));
            count -= 8;
        }
    }
    *out_len = n;
    return n ? 0 : -1;
}

/* The value of query parameter `name` (any case) in [query, end), percent-decoded into out. */
static int query_value(const char *query, const char *end, const char *name, char *out, size_t capacity) {
    size_t k = strlen(name);
    for (const char *p = query; p < end;) {
        const char *amp = memchr(p, '&', (size_t)(end - p)), *item_end = amp ? amp : end;
        if ((size_t)(item_end - p) > k && p[k] == '=' && afu_ascii_case_eq(p, name, k)) {
            size_t n = 0;
            for (const char *v = p + k + 1; v < item_end && n + 1 < capacity; v++) {
                unsigned hi, lo;
                if (*v == '%' && item_end - v >= 3 && sscanf(v + 1, "%1x%1x", &hi, &lo) == 2) out[n++] = (char)(hi * 16 + lo), v += 2;
                else out[n++] = *v;
            }
            out[n] = '\0';
            return 1;
        }
        p = amp ? amp + 1 : end;
    }
    return 0;
}

/* The current code of a totp URI into code[9]; NULL, or why not (never quoting the secret). */
const char *totp_code(const char *uri, size_t len, time_t now, char code[9]) {
    const char *end = uri + len, *type = uri + 10, *query = memchr(uri, '?', len);
    char value[512], secret[512];
    unsigned char key[320], mac_out[64];
    size_t key_len = 0;
    int algorithm = GCRY_MAC_HMAC_SHA1;
    unsigned long digits = 6, period = 30;
    if ((size_t)(end - type) >= 5 && afu_ascii_case_eq(type, "hotp/", 5))
        return "it has an HOTP (counter) otpauth:// line, which needs the counter written back; only TOTP is served";
    if ((size_t)(end - type) < 5 || !afu_ascii_case_eq(type, "totp/", 5)) return "its otpauth:// line is neither totp nor hotp";
    if (!query) return "its otpauth:// line has no parameters (no secret)";
    query++;
    if (!query_value(query, end, "secret", secret, sizeof secret)) return "its otpauth:// line has no secret";
    int bad_secret = base32_decode(secret, strlen(secret), key, sizeof key, &key_len) != 0;
    afu_wipe(secret, sizeof secret);
    if (bad_secret) return "the secret of its otpauth:// line is not Base32";
    if (query_value(query, end, "algorithm", value, sizeof value)) {
        if (!strcasecmp(value, "SHA1")) algorithm = GCRY_MAC_HMAC_SHA1;
        else if (!strcasecmp(value, "SHA256")) algorithm = GCRY_MAC_HMAC_SHA256;
        else if (!strcasecmp(value, "SHA512")) algorithm = GCRY_MAC_HMAC_SHA512;
        else return "its otpauth:// line names an algorithm other than SHA1, SHA256 or SHA512";
    }
    if (query_value(query, end, "digits", value, sizeof value) && ((digits = strtoul(value, NULL, 10)) < 6 || digits > 8))
        return "its otpauth:// line asks for digits other than 6, 7 or 8";
    if (query_value(query, end, "period", value, sizeof value) && ((period = strtoul(value, NULL, 10)) == 0 || period > 86400))
        return "its otpauth:// line has a period that is not 1 to 86400 seconds";

    unsigned long long counter = (unsigned long long)now / period;
    unsigned char message[8];
    for (int i = 7; i >= 0; i--, counter >>= 8) message[i] = (unsigned char)(counter & 0xFF);
    gcry_mac_hd_t mac;
    size_t mac_len = gcry_mac_get_algo_maclen(algorithm);
    int failed = gcry_mac_open(&mac, algorithm, GCRY_MAC_FLAG_SECURE, NULL) != 0;
    if (!failed) {
        failed = gcry_mac_setkey(mac, key, key_len) || gcry_mac_write(mac, message, sizeof message) ||
                 gcry_mac_read(mac, mac_out, &mac_len) || mac_len < 20;
        gcry_mac_close(mac);
    }
    afu_wipe(key, sizeof key);
    if (failed) {
        afu_wipe(mac_out, sizeof mac_out);
        return "libgcrypt could not compute the HMAC";
    }
    unsigned offset = mac_out[mac_len - 1] & 0x0F; /* RFC 4226 §5.3: dynamic truncation */
    unsigned long binary = ((unsigned long)(mac_out[offset] & 0x7F) << 24) | ((unsigned long)mac_out[offset + 1] << 16) |
                           ((unsigned long)mac_out[offset + 2] << 8) | mac_out[offset + 3];
    afu_wipe(mac_out, sizeof mac_out);
    for (unsigned long i = digits; i-- > 0; binary /= 10) code[i] = (char)('0' + binary % 10); /* leading zeros kept */
    code[digits] = '\0';
    binary = 0;
    return NULL;
}
