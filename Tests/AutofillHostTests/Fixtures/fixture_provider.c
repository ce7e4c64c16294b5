/*
 * fixture_provider.c — a test provider whose behaviour the tests choose.
 *
 * Compile-time switches (cc -D...):
 *   FIXTURE_TABLE_VERSION=N   put N in the table's abi_version (default AF_ABI_VERSION)
 *   FIXTURE_TABLE_SIZE=N      put N in the table's size
 *   FIXTURE_ENTRY_RETURNS_NULL   refuse to load
 *   FIXTURE_NO_ENTRY_POINTS      leave every entry point NULL
 *   FIXTURE_CRASH_IN_CONSTRUCTOR crash (SIGSEGV) while the library is being loaded
 *   FIXTURE_CRASH_IN_ENTRY       crash (SIGSEGV) in the entry function
 *   FIXTURE_HANG_IN_ENTRY        never return from the entry function
 *   FIXTURE_PRINT_AT_LOAD        print to stdout and stderr in the entry function
 *   FIXTURE_DEPENDENCY           name itself (FixtureName) by fixture_dependency(), from a library it links
 *   FIXTURE_REFUSE_IF_READABLE   refuse to load (NULL) when the file its FixtureRead setting names can be
 *                                read: a visible sign that its sandbox granted that file
 *   FIXTURE_IDENTITIES=N         at load, replace the store's contents with N identities
 *                                ("<FixtureName>-<i>.test", user "u<i>") in one store_replace
 *   FIXTURE_IOS26                put the iOS 26 entry points (save, generate, report) in the table
 *
 * Run-time behaviour of provide_credential_without_user_interaction, chosen by the request's
 * identity user name:
 *   "ok"          complete_password(user, "pw-<setting FixtureName>")
 *   "twice"       complete twice; the second status goes to the log
 *   "late"        complete 300 ms later from another thread, status to the log
 *   "together"    complete from a thread of its own once as many such threads run at once as the
 *                 setting FixtureTogether says (default 100), or after 60 s: password
 *                 "together-<that count>" or "alone-<the count then>"; a thread that cannot be
 *                 created cancels the request, naming the error
 *   "never"       never complete
 *   "wrong"       complete a password request with a text
 *   "badutf8"     complete with a password that is not UTF-8
 *   "ui"          try ui_prompt (not allowed here); cancel with the status as the reason
 *   "cancel:N"    cancel with error code N and reason "fixture says N"
 *   "silentui"    cancel with userInteractionRequired; its UI entry point then completes
 *                 (password "silent-pw") without showing anything
 * and, for the fault tests (run in a helper process only; they would take a host down):
 *   "segv"        dereference NULL          "abort"       abort()
 *   "exit:N"      exit(N)                   "hang"        never return from the call
 *   "alloc"       allocate and touch 1 MB blocks until malloc fails, then abort() like xmalloc
 *   "print"       print to stdout and stderr (no newline on the last line), then complete "ok"
 *   "printmany"   print 1,000 lines to stderr, then complete "ok"
 *   "bigstring"   complete with a password one byte over AF_MAX_STRING_LENGTH
 *   "bigids"      store_save one identity per call over AF_MAX_IDENTITIES_PER_CALL, then "ok"
 *   "forge"       complete request ids 1 to 64 other than its own with password "forged",
 *                 log how many were accepted ("forged accepted N"), then complete "ok"
 * prepare_interface_to_provide_credential asks ui_prompt for a secret and completes with it (but
 * see "silentui").
 * At load, the provider saves one identity (service "<FixtureName>.test", user "ok") to its store.
 */
#define _DEFAULT_SOURCE
#include "autofill_provider.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FIXTURE_TABLE_VERSION
#define FIXTURE_TABLE_VERSION AF_ABI_VERSION
#endif
#ifndef FIXTURE_TABLE_SIZE
#define FIXTURE_TABLE_SIZE sizeof(af_provider)
#endif

/* Entry points stay defined when FIXTURE_NO_ENTRY_POINTS leaves them out of the table. */
#define ENTRY static __attribute__((unused))

static const af_host_services *host;
static char fixture_name[128] = "fixture";

static void say(const char *text) { host->log(AF_LOG_INFO, text, strlen(text)); }

static void say_status(const char *what, af_status status) {
    char line[128];
    snprintf(line, sizeof line, "%s status %d", what, (int)status);
    say(line);
}

static int user_is(const af_credential_request *request, const char *name) {
    return request->identity.user.length == strlen(name) &&
           memcmp(request->identity.user.data, name, strlen(name)) == 0;
}

static af_status complete_ok(af_request_id request) {
    char password[160];
    snprintf(password, sizeof password, "pw-%s", fixture_name);
    return host->complete_password(request, "ok", 2, password, strlen(password));
}

static void *complete_later(void *argument) {
    af_request_id request = (af_request_id)(uintptr_t)argument;
    usleep(300 * 1000);
    say_status("late completion", complete_ok(request));
    return NULL;
}

/* "together": the threads waiting, and how many to wait for. */
static int together_waiting;
static int together_target = 100;

static void *complete_together(void *argument) {
    af_request_id request = (af_request_id)(uintptr_t)argument;
    int count = __atomic_add_fetch(&together_waiting, 1, __ATOMIC_SEQ_CST);
    for (int waited = 0; count < together_target && waited < 6000; waited++) {
        usleep(10 * 1000);
        count = __atomic_load_n(&together_waiting, __ATOMIC_SEQ_CST);
    }
    char password[64];
    snprintf(password, sizeof password, "%s-%d", count >= together_target ? "together" : "alone", count);
    host->complete_password(request, "together", 8, password, strlen(password));
    return NULL;
}

static void start_together(af_request_id request) {
    pthread_t thread;
    int error = pthread_create(&thread, NULL, complete_together, (void *)(uintptr_t)request);
    if (error != 0) {
        char reason[96];
        snprintf(reason, sizeof reason, "pthread_create failed: %s", strerror(error));
        host->cancel_request(request, AF_ERROR_FAILED, reason, strlen(reason));
        return;
    }
    pthread_detach(thread);
}

static void crash(void) {
    volatile int *nowhere = NULL;
    *nowhere = 1;
}

#ifdef FIXTURE_CRASH_IN_CONSTRUCTOR
__attribute__((constructor)) static void crash_while_loading(void) { crash(); }
#endif

/* Allocates and touches 1 MB blocks until malloc fails, then aborts, as xmalloc-style code does. */
static void allocate_without_bound(void) {
    for (;;) {
        char *block = malloc(1 << 20);
        if (block == NULL) abort();
        memset(block, 0x5a, 1 << 20);
    }
}

static int user_starts(const af_credential_request *request, const char *prefix) {
    size_t n = strlen(prefix);
    return request->identity.user.length > n && memcmp(request->identity.user.data, prefix, n) == 0;
}

/* The number after "prefix" in the request's user name. */
static int user_number(const af_credential_request *request, size_t prefix_length) {
    char text[16] = {0};
    size_t n = request->identity.user.length - prefix_length;
    memcpy(text, request->identity.user.data + prefix_length, n < 15 ? n : 15);
    return atoi(text);
}

/* The fault behaviours; 1 when `request` was one of them. */
static int fault(af_request_id request, const af_credential_request *credential_request) {
    if (user_is(credential_request, "segv")) {
        crash();
    } else if (user_is(credential_request, "abort")) {
        abort();
    } else if (user_starts(credential_request, "exit:")) {
        exit(user_number(credential_request, 5));
    } else if (user_is(credential_request, "hang")) {
        for (;;) pause();
    } else if (user_is(credential_request, "alloc")) {
        allocate_without_bound();
    } else if (user_is(credential_request, "print")) {
        printf("fixture %s prints to stdout\n", fixture_name);
        fflush(stdout);
        fprintf(stderr, "fixture %s prints to stderr\nand a last line without newline", fixture_name);
        complete_ok(request);
    } else if (user_is(credential_request, "printmany")) {
        for (int line = 1; line <= 1000; line++) fprintf(stderr, "fixture %s prints line %d\n", fixture_name, line);
        fflush(stderr);
        complete_ok(request);
    } else if (user_is(credential_request, "bigstring")) {
        size_t length = AF_MAX_STRING_LENGTH + 1;
        char *big = malloc(length);
        memset(big, 'x', length);
        say_status("big completion", host->complete_password(request, "ok", 2, big, length));
        free(big);
    } else if (user_is(credential_request, "bigids")) {
        size_t count = AF_MAX_IDENTITIES_PER_CALL + 1;
        af_identity *identities = calloc(count, sizeof *identities);
        for (size_t i = 0; i < count; i++) {
            identities[i].kind = AF_IDENTITY_PASSWORD;
            identities[i].service = (af_str){"big.test", 8};
            identities[i].user = (af_str){"u", 1};
        }
        say_status("store_save of too many", host->store_save(identities, count));
        free(identities);
        complete_ok(request);
    } else if (user_is(credential_request, "forge")) {
        int accepted = 0;
        for (af_request_id id = 1; id <= 64; id++) {
            if (id != request && host->complete_password(id, "forged", 6, "forged", 6) == AF_OK) accepted++;
        }
        char line[64];
        snprintf(line, sizeof line, "forged accepted %d", accepted);
        say(line);
        complete_ok(request);
    } else {
        return 0;
    }
    return 1;
}

ENTRY void provide(void *context, af_request_id request, const af_credential_request *credential_request) {
    (void)context;
    if (fault(request, credential_request)) {
        /* done */
    } else if (user_is(credential_request, "ok")) {
        complete_ok(request);
    } else if (user_is(credential_request, "twice")) {
        say_status("first completion", complete_ok(request));
        say_status("second completion", complete_ok(request));
    } else if (user_is(credential_request, "late")) {
        pthread_t thread;
        pthread_create(&thread, NULL, complete_later, (void *)(uintptr_t)request);
        pthread_detach(thread);
    } else if (user_is(credential_request, "together")) {
        start_together(request);
    } else if (user_is(credential_request, "never")) {
        /* nothing */
    } else if (user_is(credential_request, "wrong")) {
        say_status("wrong completion", host->complete_text(request, "text", 4));
    } else if (user_is(credential_request, "badutf8")) {
        say_status("bad utf8 completion", host->complete_password(request, "badutf8", 7, "\xff\xfe", 2));
    } else if (user_is(credential_request, "silentui")) {
        host->cancel_request(request, AF_ERROR_USER_INTERACTION_REQUIRED, NULL, 0);
    } else if (user_is(credential_request, "ui")) {
        char answer[16];
        size_t length = 0;
        af_status status = host->ui_prompt(request, "t", 1, "m", 1, 0, answer, sizeof answer, &length);
        char reason[64];
        snprintf(reason, sizeof reason, "ui_prompt said %d", (int)status);
        host->cancel_request(request, AF_ERROR_FAILED, reason, strlen(reason));
    } else if (credential_request->identity.user.length > 7 &&
               memcmp(credential_request->identity.user.data, "cancel:", 7) == 0) {
        char code_text[16] = {0};
        size_t n = credential_request->identity.user.length - 7;
        memcpy(code_text, credential_request->identity.user.data + 7, n < 15 ? n : 15);
        char reason[64];
        snprintf(reason, sizeof reason, "fixture says %s", code_text);
        host->cancel_request(request, atoi(code_text), reason, strlen(reason));
    } else {
        host->cancel_request(request, AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND, NULL, 0);
    }
}

ENTRY void provide_with_ui(void *context, af_request_id request, const af_credential_request *credential_request) {
    (void)context;
    if (user_is(credential_request, "silentui")) {
        host->complete_password(request, "silentui", 8, "silent-pw", 9);
        return;
    }
    char answer[64];
    size_t length = 0;
    af_status status = host->ui_prompt(request, "Unlock", 6, "Master password", 15, AF_UI_PROMPT_SECRET,
                                       answer, sizeof answer, &length);
    if (status == AF_OK) {
        host->complete_password(request, "ui", 2, answer, length);
    } else if (status == AF_STATUS_UI_CANCELED) {
        host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
    } else {
        host->cancel_request(request, AF_ERROR_FAILED, "no UI", 5);
    }
}

ENTRY void list(void *context, af_request_id request, const af_service_identifier *services, size_t count) {
    (void)context;
    (void)services;
    (void)count;
    af_str items[2] = {{"first", 5}, {"second", 6}};
    size_t chosen = 99;
    af_status status = host->ui_choose(request, "Choose", 6, items, 2, &chosen);
    if (status == AF_OK) {
        host->complete_password(request, items[chosen].data, items[chosen].length, "list-pw", 7);
    } else {
        host->cancel_request(request, status == AF_STATUS_UI_CANCELED ? AF_ERROR_USER_CANCELED : AF_ERROR_FAILED, NULL, 0);
    }
}

ENTRY void configure(void *context, af_request_id request) {
    (void)context;
    host->complete_configuration(request);
}

ENTRY void text(void *context, af_request_id request) {
    (void)context;
    host->complete_text(request, "inserted text", 13);
}

/* The iOS 26 entry points (appended to ABI 1), in the table with FIXTURE_IOS26. save_password logs
 * the user and service it got and only the length of the password; generate_password answers the
 * FixtureGenerated setting (a hostile provider can ignore the rules that way), else a fixed one. */
ENTRY void save_password(void *context, af_request_id request, const af_save_password_request *save) {
    (void)context;
    char line[320];
    snprintf(line, sizeof line, "save received: %.*s at %.*s (%zu-byte password)", (int)save->user.length, save->user.data,
             (int)save->service.identifier.length, save->service.identifier.data, save->password.length);
    say(line);
    say_status("complete_save_password", host->complete_save_password(request));
}

ENTRY void generate_password(void *context, af_request_id request, const af_generate_password_request *generate) {
    (void)context;
    (void)generate;
    char answer[256] = "Fixture-generated-1";
    size_t length = 0;
    if (host->get_setting("FixtureGenerated", 16, answer, sizeof answer - 1, &length) == AF_OK) answer[length] = '\0';
    say_status("complete_generated_password", host->complete_generated_password(request, answer, strlen(answer)));
}

ENTRY void report_update(void *context, af_request_id request, const af_credential_update *update) {
    (void)context;
    char line[320];
    snprintf(line, sizeof line, "report received: kind %d for %.*s", (int)update->kind, (int)update->service.length, update->service.data);
    say(line);
    say_status("complete_credential_update", host->complete_credential_update(request));
}

static af_provider table = {
    .abi_version = FIXTURE_TABLE_VERSION,
    .size = FIXTURE_TABLE_SIZE,
    .context = NULL,
#ifndef FIXTURE_NO_ENTRY_POINTS
    .prepare_credential_list = list,
    .provide_credential_without_user_interaction = provide,
    .prepare_interface_to_provide_credential = provide_with_ui,
    .prepare_interface_for_extension_configuration = configure,
    .prepare_interface_for_text_to_insert = text,
#ifdef FIXTURE_IOS26
    .prepare_interface_for_save_password = save_password,
    .prepare_interface_for_generate_password = generate_password,
    .report_credential_update = report_update,
#endif
#endif
};

#ifdef FIXTURE_DEPENDENCY
extern const char *fixture_dependency(void);
#endif

AF_EXPORT const af_provider *fixture_provider_entry(uint32_t host_abi_version, const af_host_services *services) {
    if (host_abi_version != AF_ABI_VERSION || services == NULL) return NULL;
    host = services;
#ifdef FIXTURE_CRASH_IN_ENTRY
    crash();
#endif
#ifdef FIXTURE_HANG_IN_ENTRY
    for (;;) pause();
#endif
#ifdef FIXTURE_PRINT_AT_LOAD
    printf("fixture prints to stdout at load\n");
    fflush(stdout);
    fprintf(stderr, "fixture prints to stderr at load\n");
#endif
#ifdef FIXTURE_ENTRY_RETURNS_NULL
    say("refusing to load");
    return NULL;
#endif
    size_t length = 0;
#ifdef FIXTURE_REFUSE_IF_READABLE
    {
        char path[512];
        if (host->get_setting("FixtureRead", 11, path, sizeof path - 1, &length) == AF_OK) {
            path[length] = '\0';
            FILE *file = fopen(path, "r");
            if (file) {
                fclose(file);
                say("could read the file FixtureRead names");
                return NULL;
            }
        }
    }
#endif
    if (host->get_setting("FixtureName", 11, fixture_name, sizeof fixture_name - 1, &length) == AF_OK) {
        fixture_name[length] = '\0';
    }
    char together[16] = {0};
    if (host->get_setting("FixtureTogether", 15, together, sizeof together - 1, &length) == AF_OK && atoi(together) > 0) {
        together_target = atoi(together);
    }
#ifdef FIXTURE_DEPENDENCY
    snprintf(fixture_name, sizeof fixture_name, "%s", fixture_dependency());
#endif
    char service[160];
    snprintf(service, sizeof service, "%s.test", fixture_name);
    af_identity identity = {0};
    identity.kind = AF_IDENTITY_PASSWORD;
    identity.service_type = AF_SERVICE_DOMAIN;
    identity.service = (af_str){service, strlen(service)};
    identity.user = (af_str){"ok", 2};
    say_status("store_save", host->store_save(&identity, 1));
#ifdef FIXTURE_IDENTITIES
    {
        size_t count = FIXTURE_IDENTITIES;
        af_identity *identities = calloc(count, sizeof *identities);
        char *text = calloc(count, 64);
        for (size_t i = 0; i < count; i++) {
            char *service_text = text + i * 64, *user_text = service_text + 40;
            int service_length = snprintf(service_text, 40, "%s-%zu.test", fixture_name, i);
            int user_length = snprintf(user_text, 24, "u%zu", i);
            identities[i].kind = AF_IDENTITY_PASSWORD;
            identities[i].service_type = AF_SERVICE_DOMAIN;
            identities[i].service = (af_str){service_text, (size_t)service_length};
            identities[i].user = (af_str){user_text, (size_t)user_length};
        }
        say_status("store_replace of many", host->store_replace(identities, count));
        free(text);
        free(identities);
    }
#endif
    return &table;
}

/* ==== Host integrity fixtures (issue 10: faults, process groups, the UI watchdog) ====
 * Compile-time switches:
 *   FIXTURE_FORK_THEN_CRASH_AT_LOAD  while the library loads (a constructor): fork a child that keeps
 *                                    every descriptor (the helper's socket too) and sleeps an hour, then crash
 *   FIXTURE_FORGE_LOADED             while the library loads: write a forged `loaded` frame (no problems,
 *                                    every entry point) straight onto the helper's protocol socket (fd 3)
 * Entry function fixture_faults_entry (name it in AFProviderEntrySymbol): fixture_provider_entry, then
 * the setting FixtureFault chooses what the entry points do:
 *   "crash"           provide_credential_without_user_interaction crashes (SIGSEGV), every time
 *   "fork-crash"      it forks a child as above, logs "forked child <pid>", then crashes
 *   "fork-complete"   it forks a child as above, logs "forked child <pid>", then completes "ok"
 *   "forge-fault"     it stuffs its fault socket (fd 4) with bytes and a forged fault record of the
 *                     old format claiming a full address space, then crashes (SIGSEGV)
 *   "ui-returns"      it answers userInteractionRequired; prepare_interface_to_provide_credential
 *                     returns without completing and without showing anything
 *   "ui-prompt-returns"  the same, but the UI entry point asks ui_prompt first, then returns
 *   "ui-locked"       it answers userInteractionRequired; the UI entry point prompts and completes (as usual)
 *   "ui-prompt-works" the same, but after the prompt the UI entry point works 5 s (a slow unlock), then
 *                     returns without completing
 */
#include <fcntl.h>
#include <sys/socket.h>

static char fault_mode[64] = "";

static int fault_mode_is(const char *mode) { return strcmp(fault_mode, mode) == 0; }

/* Forks a child that keeps every descriptor open and sleeps an hour; returns its pid in the parent.
 * Long enough that a test whose task waited minutes for a thread of a busy run's shared pool (over
 * 300 s was seen) still finds it alive; it ends with its helper's process group, as the tests check. */
static pid_t fork_sleeping_child(void) {
    pid_t child = fork();
    if (child == 0) {
        sleep(3600);
        _exit(0);
    }
    return child;
}

#ifdef FIXTURE_FORK_THEN_CRASH_AT_LOAD
__attribute__((constructor)) static void fork_then_crash_while_loading(void) {
    fork_sleeping_child();
    crash();
}
#endif

#ifdef FIXTURE_FORGE_LOADED
__attribute__((constructor)) static void forge_loaded_frame(void) {
    /* u32 length 10, tag 3 (loaded), u32 0 problems, presence 1, u32 entry points (all bits). */
    static const unsigned char frame[] = {10, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0xff, 0xff, 0, 0};
    ssize_t ignored = send(3, frame, sizeof frame, MSG_NOSIGNAL);
    (void)ignored;
}
#endif

static void log_child(pid_t child) {
    char line[64];
    snprintf(line, sizeof line, "forked child %d", (int)child);
    say(line);
}

/* Writes what the old fault reporter wrote (magic "AFHF", SIGSEGV, errno ENOMEM, an address space of
 * 64 GB: a plugin's claim to have run out of memory), then fills descriptor 4 (the fault socket, a
 * pipe in older hosts) with junk, without blocking. */
static void forge_fault_record(void) {
    struct { uint32_t magic; int32_t signal, saved_errno; uint32_t reserved; uint64_t address_space; } record = {
        0x41464846u, SIGSEGV, 12, 0, (uint64_t)64 << 30};
    fcntl(4, F_SETFL, fcntl(4, F_GETFL) | O_NONBLOCK);
    ssize_t ignored = write(4, &record, sizeof record);
    (void)ignored;
    unsigned char junk[4096];
    memset(junk, 0x41, sizeof junk);
    for (int i = 0; i < 64 && write(4, junk, sizeof junk) > 0; i++) {
    }
}

ENTRY void faults_provide(void *context, af_request_id request, const af_credential_request *credential_request) {
    if (fault_mode_is("crash")) {
        crash();
    } else if (fault_mode_is("fork-crash")) {
        log_child(fork_sleeping_child());
        crash();
    } else if (fault_mode_is("fork-complete")) {
        log_child(fork_sleeping_child());
        complete_ok(request);
    } else if (fault_mode_is("forge-fault")) {
        forge_fault_record();
        crash();
    } else if (strncmp(fault_mode, "ui-", 3) == 0) {
        host->cancel_request(request, AF_ERROR_USER_INTERACTION_REQUIRED, NULL, 0);
    } else {
        provide(context, request, credential_request);
    }
}

ENTRY void faults_provide_with_ui(void *context, af_request_id request, const af_credential_request *credential_request) {
    if (fault_mode_is("ui-returns")) {
        return;
    } else if (fault_mode_is("ui-prompt-works")) {
        char answer[64];
        size_t length = 0;
        say_status("ui_prompt", host->ui_prompt(request, "Unlock", 6, "Master password", 15, AF_UI_PROMPT_SECRET, answer,
                                                sizeof answer, &length));
        sleep(5);
        return;
    } else if (fault_mode_is("ui-prompt-returns")) {
        char answer[64];
        size_t length = 0;
        say_status("ui_prompt", host->ui_prompt(request, "Unlock", 6, "Master password", 15, AF_UI_PROMPT_SECRET, answer,
                                                sizeof answer, &length));
        return;
    }
    provide_with_ui(context, request, credential_request);
}

AF_EXPORT const af_provider *fixture_faults_entry(uint32_t host_abi_version, const af_host_services *services) {
    const af_provider *provider = fixture_provider_entry(host_abi_version, services);
    if (provider == NULL) return NULL;
    size_t length = 0;
    if (host->get_setting("FixtureFault", 12, fault_mode, sizeof fault_mode - 1, &length) == AF_OK) fault_mode[length] = '\0';
#ifndef FIXTURE_NO_ENTRY_POINTS
    table.provide_credential_without_user_interaction = faults_provide;
    table.prepare_interface_to_provide_credential = faults_provide_with_ui;
#endif
    return provider;
}
/* ==== end of the host integrity fixtures ==== */
