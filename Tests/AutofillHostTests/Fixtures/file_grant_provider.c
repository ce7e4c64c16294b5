/*
 * file_grant_provider.c — a provider that asks the host to write files for it (add_file), for the
 * tests of add-files grants (Tests/autofillCLITests/FileGrantTests.swift, docs/SANDBOX.md).
 *
 * Its save request (SupportsSavePasswordCredentials) hands the host the saved password as the
 * contents of the file named by the setting "Name" in the folder named by the setting "Folder", and
 * completes the save when the host wrote it; otherwise it cancels with the reason
 * "denied <status> <the host's reason>". "Name" starts with "name:", which is dropped (a setting
 * starting with ./ or ../ would be read as a path relative to the configuration). With "Mode":
 *   add      (the default) add_file as above
 *   direct   writes Folder/Name itself (O_CREAT|O_WRONLY|O_TRUNC): what its sandbox must refuse
 *   twice    add_file of Name, then of "second-" + Name: completes only when both were written,
 *            else cancels with the failing one's status and reason
 *   late     completes the save first, then calls add_file for the request no longer pending, and
 *            writes "status N" to late-status in its working folder (its data folder)
 * Its password entry points only cancel (ProvidesPasswords needs them).
 */
#define _GNU_SOURCE
#include "autofill_provider.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

static void save(void *context, af_request_id request, const af_save_password_request *save) {
    (void)context;
    char folder[1024], name[1024], mode[32], reason[1024];
    setting("Folder", folder, sizeof folder);
    setting("Name", name, sizeof name);
    if (strncmp(name, "name:", 5) == 0) memmove(name, name + 5, strlen(name + 5) + 1);
    setting("Mode", mode, sizeof mode);
    if (strcmp(mode, "direct") == 0) {
        char path[2100];
        snprintf(path, sizeof path, "%s/%s", folder, name);
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) {
            deny(request, "open", strerrorname_np(errno));
            return;
        }
        ssize_t written = write(fd, save->password.data, save->password.length);
        close(fd);
        if (written < 0) deny(request, "write", strerrorname_np(errno));
        else host->complete_save_password(request);
        return;
    }
    if (!AF_TABLE_HAS(af_host_services, host, add_file)) {
        deny(request, "no-add_file", "");
        return;
    }
    int late = strcmp(mode, "late") == 0;
    if (late) host->complete_save_password(request);
    size_t reason_length = 0;
    af_status status = host->add_file(request, folder, strlen(folder), name, strlen(name), (const uint8_t *)save->password.data,
                                      save->password.length, reason, sizeof reason - 1, &reason_length);
    reason[reason_length] = '\0';
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
        snprintf(second, sizeof second, "second-%s", name);
        status = host->add_file(request, folder, strlen(folder), second, strlen(second), (const uint8_t *)save->password.data,
                                save->password.length, reason, sizeof reason - 1, &reason_length);
        reason[reason_length] = '\0';
    }
    if (status == AF_OK) host->complete_save_password(request);
    else {
        char what[32];
        snprintf(what, sizeof what, "%d", (int)status);
        deny(request, what, reason);
    }
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

AF_EXPORT const af_provider *file_grant_provider_entry(uint32_t host_abi_version, const af_host_services *services) {
    if (host_abi_version != AF_ABI_VERSION || services == NULL) return NULL;
    host = services;
    return &table;
}
