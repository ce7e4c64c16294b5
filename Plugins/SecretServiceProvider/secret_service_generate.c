/*
 * secret_service_generate.c — a password that honours a site's rules (Apple's passwordrules:
 * minlength, maxlength, max-consecutive, required, allowed), drawn from the kernel's random source.
 * Generating saves nothing. The host parsed the rules before sending them and checks the password
 * again; this reads them the same way (AutofillCore's PasswordRules): the characters are the ASCII
 * printable ones of the allowed and required classes (all of them when neither is given), without
 * the space unless nothing else is permitted; 20 characters within the rules' bounds; one character
 * of each requirement at random places.
 */
#include "secret_service_provider.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define PREFERRED_LENGTH 20
#define LONGEST_LENGTH 4096
#define MAX_REQUIREMENTS 64
#define ATTEMPTS 1000

typedef struct {
    unsigned char in[128]; /* ASCII printable members */
} charset;

typedef struct {
    long min_length, max_length, max_consecutive; /* 0: not given */
    charset allowed;
    int any_allowed;
    charset required[MAX_REQUIREMENTS];
    size_t required_count;
} rules;

static void add_class(charset *set, const char *name, size_t n) {
    for (int c = 0x20; c < 0x7F; c++) {
        int member = 0;
        if (n == 5 && memcmp(name, "upper", 5) == 0) member = c >= 'A' && c <= 'Z';
        else if (n == 5 && memcmp(name, "lower", 5) == 0) member = c >= 'a' && c <= 'z';
        else if (n == 5 && memcmp(name, "digit", 5) == 0) member = c >= '0' && c <= '9';
        else if (n == 7 && memcmp(name, "special", 7) == 0) member = strchr("-~!@#$%^&*_+=`|(){}[:;\"'<>,.?] ", c) != NULL;
        else member = 1; /* ascii-printable, unicode */
        if (member) set->in[c] = 1;
    }
}

/* Reads `text` into `r`; 0, or -1 when it is not rules this reader knows (the host checked them). */
static int parse_rules(const char *text, size_t length, rules *r) {
    size_t i = 0;
    memset(r, 0, sizeof *r);
#define SKIP_SPACES() while (i < length && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++
    for (;;) {
        SKIP_SPACES();
        if (i >= length) return 0;
        if (text[i] == ';') { i++; continue; }
        size_t start = i;
        while (i < length && (g_ascii_isalnum(text[i]) || text[i] == '-')) i++;
        char name[32] = "";
        if (i == start || i - start >= sizeof name) return -1;
        for (size_t j = start; j < i; j++) name[j - start] = g_ascii_tolower(text[j]);
        SKIP_SPACES();
        if (i >= length || text[i++] != ':') return -1;
        SKIP_SPACES();
        if (strcmp(name, "minlength") == 0 || strcmp(name, "maxlength") == 0 || strcmp(name, "max-consecutive") == 0) {
            long value = 0;
            if (i >= length || !g_ascii_isdigit(text[i])) return -1;
            while (i < length && g_ascii_isdigit(text[i])) value = value > 100000 ? value : value * 10 + (text[i++] - '0');
            long *field = name[1] == 'i' ? &r->min_length : name[1] == 'a' && name[3] == 'l' ? &r->max_length : &r->max_consecutive;
            if (field == &r->min_length) *field = value > *field ? value : *field;
            else *field = *field && *field < value ? *field : value;
        } else if (strcmp(name, "allowed") == 0 || strcmp(name, "required") == 0) {
            charset *set = name[0] == 'a' ? &r->allowed : r->required_count < MAX_REQUIREMENTS ? &r->required[r->required_count++] : NULL;
            if (!set) return -1;
            if (name[0] == 'a') r->any_allowed = 1;
            do {
                SKIP_SPACES();
                if (i < length && text[i] == '[') {
                    size_t open = ++i;
                    while (i < length && !(text[i] == ']' && i > open)) {
                        if ((unsigned char)text[i] < 0x20 || (unsigned char)text[i] > 0x7E) return -1;
                        set->in[(unsigned char)text[i++]] = 1;
                    }
                    if (i++ >= length) return -1;
                } else {
                    size_t word = i;
                    while (i < length && (g_ascii_isalpha(text[i]) || text[i] == '-')) i++;
                    if (i == word) return -1;
                    add_class(set, text + word, i - word);
                }
                SKIP_SPACES();
            } while (i < length && text[i] == ',' && ++i);
        } else {
            return -1;
        }
        SKIP_SPACES();
        if (i < length && text[i] != ';') return -1;
    }
#undef SKIP_SPACES
}

/* A uniform random number below `bound` (> 0), from getrandom. */
static size_t uniform(size_t bound) {
    uint32_t value, limit = UINT32_MAX - UINT32_MAX % (uint32_t)bound;
    do {
        while (getrandom(&value, sizeof value, 0) != (ssize_t)sizeof value && errno == EINTR) {}
    } while (value >= limit);
    return value % bound;
}

/* One try: 0 with `out` filled (length characters), -1 when it painted itself into a corner. */
static int attempt(char *out, size_t length, const char *alphabet, size_t alphabet_length, const rules *r,
                   char requirement_chars[][96], const size_t *requirement_lengths) {
    size_t slots[LONGEST_LENGTH];
    int requirement_at[LONGEST_LENGTH];
    for (size_t i = 0; i < length; i++) slots[i] = i, requirement_at[i] = -1;
    for (size_t i = length; i > 1; i--) { size_t j = uniform(i), t = slots[i - 1]; slots[i - 1] = slots[j], slots[j] = t; }
    for (size_t q = 0; q < r->required_count; q++) requirement_at[slots[q]] = (int)q;
    long run = 0;
    for (size_t i = 0; i < length; i++) {
        const char *from = requirement_at[i] >= 0 ? requirement_chars[requirement_at[i]] : alphabet;
        size_t n = requirement_at[i] >= 0 ? requirement_lengths[requirement_at[i]] : alphabet_length;
        char candidates[96];
        size_t count = 0;
        for (size_t c = 0; c < n; c++)
            if (!(r->max_consecutive && run >= r->max_consecutive && i > 0 && from[c] == out[i - 1])) candidates[count++] = from[c];
        if (count == 0) return -1;
        out[i] = candidates[uniform(count)];
        run = i > 0 && out[i] == out[i - 1] ? run + 1 : 1;
    }
    return 0;
}

void generate_password(af_request_id request, const af_generate_password_request *generate) {
    rules r;
    char alphabet[96], requirement_chars[MAX_REQUIREMENTS][96], password[LONGEST_LENGTH + 1];
    size_t alphabet_length = 0, requirement_lengths[MAX_REQUIREMENTS] = {0};
    if (parse_rules(generate->password_rules.data ? generate->password_rules.data : "", generate->password_rules.length, &r) != 0) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "the password rules \"%.*s\" are not rules this provider reads",
                   AFU_SHOW_STR(generate->password_rules));
        return;
    }
    charset permitted = r.allowed;
    int any = r.any_allowed || r.required_count;
    for (size_t q = 0; q < r.required_count; q++)
        for (int c = 0; c < 128; c++) permitted.in[c] |= r.required[q].in[c];
    for (int c = 0x21; c < 0x7F; c++)
        if (!any || permitted.in[c]) alphabet[alphabet_length++] = (char)c;
    if (alphabet_length == 0) alphabet[alphabet_length++] = ' '; /* the space only when nothing else is permitted */
    for (size_t q = 0; q < r.required_count; q++)
        for (size_t c = 0; c < alphabet_length; c++)
            if (r.required[q].in[(unsigned char)alphabet[c]]) requirement_chars[q][requirement_lengths[q]++] = alphabet[c];
    long length = PREFERRED_LENGTH;
    if (r.min_length && length < r.min_length) length = r.min_length;
    if (r.max_length && length > r.max_length) length = r.max_length;
    if (r.max_consecutive && alphabet_length == 1 && length > r.max_consecutive) length = r.max_consecutive;
    if (length < (long)r.required_count) length = (long)r.required_count;
    if (length < r.min_length) length = r.min_length;
    if (length < 1) length = 1;
    if (length > LONGEST_LENGTH) length = LONGEST_LENGTH;
    for (int tries = 0; tries < ATTEMPTS; tries++) {
        if (attempt(password, (size_t)length, alphabet, alphabet_length, &r, requirement_chars, requirement_lengths) == 0) {
            af_status s = state.host->complete_generated_password(request, password, (size_t)length);
            if (s != AF_OK) afu_log(state.host, AF_LOG_DEBUG, "complete_generated_password returned status %d", (int)s);
            afu_wipe(password, sizeof password);
            return;
        }
    }
    afu_wipe(password, sizeof password);
    afu_cancel(state.host, request, AF_ERROR_FAILED, "no password of %ld characters honours the rules \"%.*s\" (%d tries)", length,
               AFU_SHOW_STR(generate->password_rules), ATTEMPTS);
}
