/*
 * pass_generate.c — generating a password as `pass generate` does (25 characters of letters, digits
 * and punctuation from the kernel's random source), honouring the site's rules in Apple's
 * passwordrules syntax (minlength, maxlength, required, allowed, max-consecutive), which the host
 * parsed before sending and checks again. Generating saves nothing: `autofill save` does.
 */
#include "pass_provider.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define PASS_GENERATED_LENGTH 25 /* pass generate's default */
#define PASS_MAX_GENERATED 4096
#define PASS_MAX_REQUIRED 16

typedef struct {
    char set[128]; /* which printable ASCII characters */
} char_set;

typedef struct {
    long minimum, maximum, consecutive;
    char_set permitted;
    int permitted_any;
    char_set required[PASS_MAX_REQUIRED];
    size_t required_count;
} rules;

/* Adds the classes of `text` ("upper, digit, [-_]") to `set`. */
static void add_classes(const char *text, size_t len, char_set *set) {
    static const char special[] = "-~!@#$%^&*_+=`|(){}[:;\"'<>,.?] ";
    for (size_t i = 0; i < len;) {
        while (i < len && (text[i] == ' ' || text[i] == ',')) i++;
        if (i < len && text[i] == '[') { /* a custom class: up to the last ] of the group */
            size_t close = i + 1;
            while (close < len && !(text[close] == ']' && close > i + 1 && (close + 1 == len || text[close + 1] == ',' || text[close + 1] == ' ')))
                close++;
            for (size_t j = i + 1; j < close && j < len; j++)
                if ((unsigned char)text[j] >= 0x20 && (unsigned char)text[j] < 0x7F) set->set[(int)text[j]] = 1;
            i = close + 1;
            continue;
        }
        size_t start = i;
        while (i < len && text[i] != ',' && text[i] != ' ') i++;
        const char *word = text + start;
        size_t n = i - start;
        for (int c = 0x20; c < 0x7F; c++) {
            int in = (n == 5 && !strncmp(word, "upper", 5) && isupper(c)) || (n == 5 && !strncmp(word, "lower", 5) && islower(c)) ||
                     (n == 5 && !strncmp(word, "digit", 5) && isdigit(c)) ||
                     (n == 7 && !strncmp(word, "special", 7) && strchr(special, c)) ||
                     ((n == 15 && !strncmp(word, "ascii-printable", 15)) || (n == 7 && !strncmp(word, "unicode", 7)));
            if (in) set->set[c] = 1;
        }
    }
}

static void parse_rules(const char *text, size_t len, rules *r) {
    memset(r, 0, sizeof *r);
    r->maximum = PASS_MAX_GENERATED;
    for (size_t i = 0; i < len;) {
        size_t end = i;
        while (end < len && text[end] != ';') end++;
        const char *colon = memchr(text + i, ':', end - i);
        if (colon) {
            const char *name = text + i, *value = colon + 1;
            size_t name_len = (size_t)(colon - name), value_len = (size_t)(text + end - value);
            while (name_len && *name == ' ') name++, name_len--;
            while (name_len && name[name_len - 1] == ' ') name_len--;
            long number = strtol(value, NULL, 10);
            if (name_len == 9 && !strncmp(name, "minlength", 9)) r->minimum = number;
            else if (name_len == 9 && !strncmp(name, "maxlength", 9)) r->maximum = number;
            else if (name_len == 15 && !strncmp(name, "max-consecutive", 15)) r->consecutive = number;
            else if (name_len == 7 && !strncmp(name, "allowed", 7)) add_classes(value, value_len, &r->permitted), r->permitted_any = 1;
            else if (name_len == 8 && !strncmp(name, "required", 8) && r->required_count < PASS_MAX_REQUIRED)
                add_classes(value, value_len, &r->required[r->required_count++]);
        }
        i = end + 1;
    }
    for (size_t k = 0; k < r->required_count; k++, r->permitted_any = 1)
        for (int c = 0; c < 128; c++) r->permitted.set[c] |= r->required[k].set[c];
    if (!r->permitted_any) add_classes("upper, lower, digit, special", 28, &r->permitted);
    /* pass generate never uses a space; keep it only where a set has nothing else. */
    char_set *sets[PASS_MAX_REQUIRED + 1] = {&r->permitted};
    for (size_t k = 0; k < r->required_count; k++) sets[k + 1] = &r->required[k];
    for (size_t k = 0; k <= r->required_count; k++) {
        int others = 0;
        for (int c = 0x21; c < 0x7F; c++) others |= sets[k]->set[c];
        if (others) sets[k]->set[' '] = 0;
    }
}

/* A uniformly random member of `set`, or 0 when it is empty. */
static char pick(const char_set *set) {
    char members[96];
    size_t n = 0;
    for (int c = 0x20; c < 0x7F; c++)
        if (set->set[c]) members[n++] = (char)c;
    if (n == 0) return 0;
    for (;;) {
        unsigned char byte;
        if (getrandom(&byte, 1, 0) != 1) continue;
        if (byte < 256 - 256 % n) return members[byte % n];
    }
}

static size_t random_below(size_t n) {
    for (;;) {
        uint32_t value;
        if (getrandom(&value, sizeof value, 0) != sizeof value) continue;
        if (value < UINT32_MAX - UINT32_MAX % n) return value % n;
    }
}

void generate_password(void *context, af_request_id request, const af_generate_password_request *generate) {
    (void)context;
    rules r;
    parse_rules(generate->password_rules.data ? generate->password_rules.data : "", generate->password_rules.length, &r);
    long length = PASS_GENERATED_LENGTH;
    if (length < r.minimum) length = r.minimum;
    if (length > r.maximum) length = r.maximum;
    if (length < (long)r.required_count) length = (long)r.required_count;
    if (length <= 0 || length > PASS_MAX_GENERATED) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "the rules leave no length pass can generate");
        return;
    }
    char *password = malloc((size_t)length + 1);
    if (!password) {
        afu_cancel(state.host, request, AF_ERROR_FAILED, "out of memory");
        return;
    }
    for (int attempt = 0; attempt < 1000; attempt++) {
        int ok = 1;
        for (long i = 0; i < length && ok; i++) ok = (password[i] = pick(&r.permitted)) != 0;
        /* One character of each requirement, at distinct places. */
        size_t places[PASS_MAX_REQUIRED];
        for (size_t k = 0; k < r.required_count && ok; k++) {
            int fresh;
            do {
                places[k] = random_below((size_t)length);
                fresh = 1;
                for (size_t j = 0; j < k; j++) fresh &= places[j] != places[k];
            } while (!fresh);
            ok = (password[places[k]] = pick(&r.required[k])) != 0;
        }
        for (long i = 1, run = 1; i < length && ok && r.consecutive > 0; i++) {
            run = password[i] == password[i - 1] ? run + 1 : 1;
            ok = run <= r.consecutive;
        }
        if (!ok) continue;
        af_status st = state.host->complete_generated_password(request, password, (size_t)length);
        if (st != AF_OK) afu_log(state.host, AF_LOG_WARNING, "the host refused the generated password (status %d)", (int)st);
        afu_wipe(password, (size_t)length);
        free(password);
        return;
    }
    afu_wipe(password, (size_t)length);
    free(password);
    afu_cancel(state.host, request, AF_ERROR_FAILED, "no password pass generated in 1000 tries meets the rules");
}
