/*
 * hostile_text_provider.c — a provider that tries to forge the screen and break the ABI's limits,
 * for the tests of what the host shows of a provider's text and which lengths it accepts.
 *
 * At load it saves one password identity (service: the setting "Service", else
 * "<setting FixtureName>.test", default "hostile.test"; user "ok") with the rank in the setting
 * "Rank" (a decimal int64, default 0), and logs "loaded".
 *
 * provide_credential_without_user_interaction, by the request's user name:
 *   "ok"          complete_password(user "ok", "pw-hostile"), or the user name and password in the
 *                 settings "CompleteUser" and "CompletePassword" (a line break in either, say)
 *   "escape"      cancel (AF_ERROR_FAILED) with a reason holding ESC sequences, a bidi override,
 *                 and a newline followed by a forged "autofill: error: forged line"
 *   "longreason"  cancel with a reason of 60,000 'r's (under AF_MAX_STRING_LENGTH)
 *   "sizemax"     complete_password with password length SIZE_MAX; logs "sizemax status N"
 *   "sizemaxuser" complete_password with user length SIZE_MAX; logs "sizemaxuser status N"
 *   "empty"       complete_password with an empty password; logs "empty status N"
 *   "limits"      calls every host service with a length, count or capacity of SIZE_MAX and logs
 *                 "limits <service> N" for each, then completes "ok"
 *   "flood"       logs 5,000 warnings "flood line <i> \e[31m", then completes "ok"
 *   "forgeframe"  (helper only) writes a forged `call` frame straight to the helper's protocol
 *                 socket (fd 3): complete this request with an error whose reason is 205,000 bytes,
 *                 then waits for the host's verdict
 * prepare_interface_to_provide_credential shows ui_prompt with a title and a message holding ESC
 * sequences and a forged "[autofill]" header, and completes with the answer.
 * prepare_credential_list shows ui_choose with items holding ESC and a newline.
 */
#define _DEFAULT_SOURCE
#include "autofill_provider.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const af_host_services *host;
static char fixture_name[128] = "hostile";

#define LIT(s) (s), sizeof(s) - 1

static void say(const char *text) { host->log(AF_LOG_WARNING, text, strlen(text)); }

static void say_status(const char *what, af_status status) {
    char line[160];
    snprintf(line, sizeof line, "%s %d", what, (int)status);
    say(line);
}

static int user_is(const af_credential_request *request, const char *name) {
    return request->identity.user.length == strlen(name) &&
           memcmp(request->identity.user.data, name, strlen(name)) == 0;
}

static char complete_user[256] = "ok", complete_secret[256] = "pw-hostile";

static af_status complete_ok(af_request_id request) {
    return host->complete_password(request, complete_user, strlen(complete_user), complete_secret, strlen(complete_secret));
}

static void put32(unsigned char *out, uint32_t value) {
    for (int i = 0; i < 4; i++) out[i] = (unsigned char)(value >> (8 * i));
}

static void put64(unsigned char *out, uint64_t value) {
    for (int i = 0; i < 8; i++) out[i] = (unsigned char)(value >> (8 * i));
}

/* A `call` frame of the helper protocol (version 1), written by hand as a hostile plugin would:
 * u32 length, u8 tag 6 (call), u64 call id, u8 kind 7 (complete), u64 request,
 * u8 answer kind 2 (error), i32 code, u8 1 (reason present), u32 length, the reason. */
static void forge_frame(af_request_id request) {
    size_t reason_length = 205000;
    size_t body = 1 + 8 + 1 + 8 + 1 + 4 + 1 + 4 + reason_length;
    unsigned char *frame = malloc(4 + body);
    unsigned char *p = frame;
    put32(p, (uint32_t)body), p += 4;
    *p++ = 6;
    put64(p, 0xF0F0F0F0u), p += 8;
    *p++ = 7;
    put64(p, request), p += 8;
    *p++ = 2;
    put32(p, AF_ERROR_FAILED), p += 4;
    *p++ = 1;
    put32(p, (uint32_t)reason_length), p += 4;
    memset(p, 'r', reason_length);
    size_t total = 4 + body, written = 0;
    while (written < total) {
        ssize_t n = write(3, frame + written, total - written);
        if (n <= 0) break;
        written += (size_t)n;
    }
    free(frame);
    sleep(5); /* the host ends the helper long before this */
}

static void limits(af_request_id request) {
    char value[8];
    size_t length = 0;
    say_status("limits get_setting", host->get_setting(LIT("FixtureName"), value, SIZE_MAX, &length));
    say_status("limits get_setting_key", host->get_setting("FixtureName", SIZE_MAX, value, sizeof value, &length));
    af_identity identity = {0};
    identity.kind = AF_IDENTITY_PASSWORD;
    identity.service = (af_str){LIT("limits.test")};
    identity.user = (af_str){LIT("u")};
    say_status("limits store_save", host->store_save(&identity, SIZE_MAX));
    say_status("limits store_remove", host->store_remove(&identity, SIZE_MAX));
    say_status("limits store_replace", host->store_replace(&identity, (size_t)1 << 63));
    af_identity long_user = identity;
    long_user.user.length = SIZE_MAX;
    say_status("limits store_save_user", host->store_save(&long_user, 1));
    af_str items[1] = {{LIT("one")}};
    size_t chosen = 0;
    say_status("limits ui_choose", host->ui_choose(request, LIT("t"), items, SIZE_MAX, &chosen));
    char answer[8];
    say_status("limits ui_prompt", host->ui_prompt(request, LIT("t"), LIT("m"), 0, answer, SIZE_MAX, &length));
    host->log(AF_LOG_WARNING, "limits log", SIZE_MAX);
    say_status("limits complete_text", host->complete_text(request, "x", SIZE_MAX));
}

static void provide(void *context, af_request_id request, const af_credential_request *credential_request) {
    (void)context;
    if (user_is(credential_request, "ok")) {
        complete_ok(request);
    } else if (user_is(credential_request, "escape")) {
        const char reason[] = "\x1b[1;31mlocked\x1b[0m \xe2\x80\xae" "evil\x07\nautofill: error: forged line";
        host->cancel_request(request, AF_ERROR_FAILED, reason, sizeof reason - 1);
    } else if (user_is(credential_request, "longreason")) {
        size_t length = 60000;
        char *reason = malloc(length);
        memset(reason, 'r', length);
        host->cancel_request(request, AF_ERROR_FAILED, reason, length);
        free(reason);
    } else if (user_is(credential_request, "sizemax")) {
        say_status("sizemax status", host->complete_password(request, LIT("ok"), "pw", SIZE_MAX));
    } else if (user_is(credential_request, "sizemaxuser")) {
        say_status("sizemaxuser status", host->complete_password(request, "ok", SIZE_MAX, LIT("pw")));
    } else if (user_is(credential_request, "empty")) {
        say_status("empty status", host->complete_password(request, LIT("ok"), "", 0));
    } else if (user_is(credential_request, "limits")) {
        limits(request);
    } else if (user_is(credential_request, "flood")) {
        for (int i = 0; i < 5000; i++) {
            char line[64];
            snprintf(line, sizeof line, "flood line %d \x1b[31m", i);
            say(line);
        }
        complete_ok(request);
    } else if (user_is(credential_request, "forgeframe")) {
        forge_frame(request);
    } else {
        host->cancel_request(request, AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND, NULL, 0);
    }
}

static void provide_with_ui(void *context, af_request_id request, const af_credential_request *credential_request) {
    (void)context;
    (void)credential_request;
    char answer[64];
    size_t length = 0;
    af_status status = host->ui_prompt(request, LIT("Unlock \x1b[2J"), LIT("\x1b[1A\n[autofill] Master password"),
                                       AF_UI_PROMPT_SECRET, answer, sizeof answer, &length);
    if (status == AF_OK) {
        host->complete_password(request, LIT("ui"), answer, length);
    } else {
        host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
    }
}

static void list(void *context, af_request_id request, const af_service_identifier *services, size_t count) {
    (void)context;
    (void)services;
    (void)count;
    af_str items[2] = {{LIT("first\x1b[31m")}, {LIT("second\nautofill: third")}};
    size_t chosen = 99;
    af_status status = host->ui_choose(request, LIT("Choose\r"), items, 2, &chosen);
    if (status == AF_OK) {
        host->complete_password(request, LIT("listed"), LIT("list-pw"));
    } else {
        host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
    }
}

static af_provider table = {
    .abi_version = AF_ABI_VERSION,
    .size = sizeof(af_provider),
    .context = NULL,
    .prepare_credential_list = list,
    .provide_credential_without_user_interaction = provide,
    .prepare_interface_to_provide_credential = provide_with_ui,
};

AF_EXPORT const af_provider *fixture_provider_entry(uint32_t host_abi_version, const af_host_services *services) {
    if (host_abi_version != AF_ABI_VERSION || services == NULL) return NULL;
    host = services;
    size_t length = 0;
    if (host->get_setting(LIT("FixtureName"), fixture_name, sizeof fixture_name - 1, &length) == AF_OK) {
        fixture_name[length] = '\0';
    }
    char rank_text[32] = {0};
    long long rank = 0;
    if (host->get_setting(LIT("Rank"), rank_text, sizeof rank_text - 1, &length) == AF_OK) {
        rank_text[length] = '\0';
        rank = strtoll(rank_text, NULL, 10);
    }
    if (host->get_setting(LIT("CompleteUser"), complete_user, sizeof complete_user - 1, &length) == AF_OK) {
        complete_user[length] = '\0';
    }
    if (host->get_setting(LIT("CompletePassword"), complete_secret, sizeof complete_secret - 1, &length) == AF_OK) {
        complete_secret[length] = '\0';
    }
    char service[160];
    snprintf(service, sizeof service, "%s.test", fixture_name);
    if (host->get_setting(LIT("Service"), service, sizeof service - 1, &length) == AF_OK) service[length] = '\0';
    af_identity identity = {0};
    identity.kind = AF_IDENTITY_PASSWORD;
    identity.service_type = AF_SERVICE_DOMAIN;
    identity.service = (af_str){service, strlen(service)};
    identity.user = (af_str){LIT("ok")};
    identity.rank = (int64_t)rank;
    host->store_save(&identity, 1);
    say("loaded");
    return &table;
}
