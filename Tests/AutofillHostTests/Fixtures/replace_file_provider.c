/*
 * replace_file_provider.c — a provider that asks the host to replace a file for it (replace_file), for
 * the tests of replace-file grants (Tests/autofillCLITests/FileReplaceTests.swift, docs/SANDBOX.md).
 *
 * Its save request (SupportsSavePasswordCredentials) hands the host the saved password as the new
 * contents of the file named by the setting "Target" (default: the setting "File", the declared one),
 * based on the SHA-256 the setting "Expected" gives in hex, and completes the save when the host
 * replaced it; otherwise it cancels with the reason "denied <status> <the host's reason>". With "Mode":
 *   replace  (the default) replace_file as above
 *   twice    replace_file, then again with "2" appended: completes only when both were written, else
 *            cancels with the failing one's status and reason
 *   late     completes the save first, then calls replace_file for the request no longer pending, and
 *            writes "status N" to late-status in its working folder (its data folder)
 *   big      replace_file with AF_MAX_REPLACE_FILE_LENGTH + 1 bytes
 *   wait     writes "waiting" to its working folder, waits (up to 60 s) for a file "go" there (the test
 *            changes the file system meanwhile, after the launch), then replace_file as above
 *   direct   creates the file named by "Beside" itself (O_CREAT|O_WRONLY|O_EXCL): what its sandbox must refuse
 * With the setting "Open" (any value), after the wait of "wait", it asks the host to open "Target" instead
 * (open_file) and cancels with "opened <what it read> read-only|WRITABLE [cloexec]", or "denied <status>
 * <the host's reason>". With the setting "Read", it reads "Target" itself, as its sandbox shows it, and
 * cancels with "read <what it read> pid <its pid>".
 * Its password entry points only cancel (ProvidesPasswords needs them).
 */
#define _GNU_SOURCE
#include "autofill_provider.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const af_host_services *host;

static void setting(const char *key, char *value, size_t capacity) {
    size_t length = 0;
    value[0] = '\0';
    if (host->get_setting(key, strlen(key), value, capacity - 1, &length) == AF_OK) value[length] = '\0';
}

static void deny(af_request_id request, const char *what, const char *detail) {
    char reason[1200];
    snprintf(reason, sizeof reason, "denied %s %s", what, detail);
    host->cancel_request(request, AF_ERROR_FAILED, reason, strlen(reason));
}

static void deny_status(af_request_id request, af_status status, const char *detail) {
    char what[32];
    snprintf(what, sizeof what, "%d", (int)status);
    deny(request, what, detail);
}

/* The 32 bytes `hex` (64 hex digits) gives; zeros where it is not hex. */
static void digest(const char *hex, uint8_t out[32]) {
    memset(out, 0, 32);
    for (size_t index = 0; index < 32 && hex[2 * index] && hex[2 * index + 1]; index++) {
        unsigned value = 0;
        if (sscanf(hex + 2 * index, "%2x", &value) == 1) out[index] = (uint8_t)value;
    }
}

static af_status replace(af_request_id request, const char *path, const uint8_t *contents, size_t length, const uint8_t expected[32],
                         char *reason, size_t capacity) {
    size_t reason_length = 0;
    af_status status = host->replace_file(request, path, strlen(path), contents, length, expected, reason, capacity - 1, &reason_length);
    reason[reason_length] = '\0';
    return status;
}

static void open_and_report(af_request_id request, const char *path) {
    if (!AF_TABLE_HAS(af_host_services, host, open_file)) {
        deny(request, "no-open_file", "");
        return;
    }
    char reason[1024], text[128], line[320];
    size_t reason_length = 0;
    int32_t fd = -1;
    af_status status = host->open_file(path, strlen(path), &fd, reason, sizeof reason - 1, &reason_length);
    reason[reason_length] = '\0';
    if (status != AF_OK) {
        deny_status(request, status, reason);
        return;
    }
    ssize_t count = read(fd, text, sizeof text - 1);
    int access_mode = fcntl(fd, F_GETFL) & O_ACCMODE, close_on_exec = fcntl(fd, F_GETFD) & FD_CLOEXEC;
    close(fd);
    text[count > 0 ? count : 0] = '\0';
    snprintf(line, sizeof line, "opened %s %s%s", text, access_mode == O_RDONLY ? "read-only" : "WRITABLE", close_on_exec ? " cloexec" : "");
    host->cancel_request(request, AF_ERROR_FAILED, line, strlen(line));
}

static void save(void *context, af_request_id request, const af_save_password_request *save) {
    (void)context;
    char file[1024], target[1024], expected_hex[128], mode[32], reason[1024];
    setting("File", file, sizeof file);
    setting("Target", target, sizeof target);
    if (target[0] == '\0') strcpy(target, file);
    setting("Expected", expected_hex, sizeof expected_hex);
    setting("Mode", mode, sizeof mode);
    uint8_t expected[32];
    digest(expected_hex, expected);
    if (strcmp(mode, "direct") == 0) {
        char beside[1024];
        setting("Beside", beside, sizeof beside);
        int fd = open(beside, O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            deny(request, "open", strerrorname_np(errno));
            return;
        }
        close(fd);
        host->complete_save_password(request);
        return;
    }
    if (!AF_TABLE_HAS(af_host_services, host, replace_file)) {
        deny(request, "no-replace_file", "");
        return;
    }
    const uint8_t *contents = (const uint8_t *)save->password.data;
    size_t length = save->password.length;
    if (strcmp(mode, "wait") == 0) {
        int fd = open("waiting", O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) close(fd);
        for (int tries = 0; tries < 6000 && access("go", F_OK) != 0; tries++) {
            struct timespec pause = {0, 10 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
    char read_setting[8];
    setting("Read", read_setting, sizeof read_setting);
    if (read_setting[0] != '\0') {
        char text[128], line[320];
        int fd = open(target, O_RDONLY | O_CLOEXEC);
        ssize_t count = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
        if (fd >= 0) close(fd);
        text[count > 0 ? count : 0] = '\0';
        snprintf(line, sizeof line, "read %s pid %d", text, (int)getpid());
        host->cancel_request(request, AF_ERROR_FAILED, line, strlen(line));
        return;
    }
    char open_setting[8];
    setting("Open", open_setting, sizeof open_setting);
    if (open_setting[0] != '\0') {
        open_and_report(request, target);
        return;
    }
    if (strcmp(mode, "big") == 0) {
        size_t big = (size_t)AF_MAX_REPLACE_FILE_LENGTH + 1;
        uint8_t *bytes = calloc(big, 1);
        if (!bytes) {
            deny(request, "calloc", "");
            return;
        }
        af_status status = replace(request, target, bytes, big, expected, reason, sizeof reason);
        free(bytes);
        if (status == AF_OK) host->complete_save_password(request);
        else deny_status(request, status, reason);
        return;
    }
    int late = strcmp(mode, "late") == 0;
    if (late) host->complete_save_password(request);
    af_status status = replace(request, target, contents, length, expected, reason, sizeof reason);
    if (late) {
        char line[64];
        snprintf(line, sizeof line, "status %d\n", (int)status);
        int fd = open("late-status", O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (write(fd, line, strlen(line)) < 0) host->log(AF_LOG_WARNING, "cannot write late-status", 24);
            close(fd);
        }
        return;
    }
    if (status == AF_OK && strcmp(mode, "twice") == 0) {
        char second[1100];
        snprintf(second, sizeof second, "%.*s2", (int)length, (const char *)contents);
        status = replace(request, target, (const uint8_t *)second, strlen(second), expected, reason, sizeof reason);
    }
    if (status == AF_OK) host->complete_save_password(request);
    else deny_status(request, status, reason);
}

static void cancel(void *context, af_request_id request, const af_credential_request *credential_request) {
    (void)context;
    (void)credential_request;
    host->cancel_request(request, AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND, NULL, 0);
}

static void list(void *context, af_request_id request, const af_service_identifier *services, size_t count) {
    (void)context;
    (void)services;
    (void)count;
    host->cancel_request(request, AF_ERROR_USER_CANCELED, NULL, 0);
}

static const af_provider table = {
    .abi_version = AF_ABI_VERSION,
    .size = sizeof(af_provider),
    .prepare_credential_list = list,
    .provide_credential_without_user_interaction = cancel,
    .prepare_interface_to_provide_credential = cancel,
    .prepare_interface_for_save_password = save,
};

AF_EXPORT const af_provider *replace_file_provider_entry(uint32_t host_abi_version, const af_host_services *services) {
    if (host_abi_version != AF_ABI_VERSION || services == NULL) return NULL;
    host = services;
    return &table;
}
