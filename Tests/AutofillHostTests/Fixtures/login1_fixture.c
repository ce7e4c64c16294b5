/*
 * login1_fixture.c — a stand-in for systemd-logind on a private test bus, for SessionLockWatcherTests.
 *
 *   login1_fixture ADDRESS [no-session]
 *   login1_fixture ADDRESS impostor DESTINATION WHAT...
 *
 * Connects to the bus at ADDRESS, takes the well-known name org.freedesktop.login1 (exit 2 if it
 * cannot), and answers, like logind, on /org/freedesktop/login1 (org.freedesktop.login1.Manager):
 *   GetSession(s id)       → /org/freedesktop/login1/session/ID (ID: letters, digits, '_')
 *   GetSessionByPID(u pid) → /org/freedesktop/login1/session/self
 *   ListSessions()         → self (this process's uid), other (uid + 1)
 * With "no-session", GetSession and GetSessionByPID fail as logind does for a process outside any
 * session (NoSuchSession, NoSessionForPID). The test drives it through org.autofill.Test:
 *   Emit(s what, o path, b value)  sends, from this connection (the name's owner), one of
 *     "PrepareForSleep"  Manager.PrepareForSleep(value) on /org/freedesktop/login1 (path ignored)
 *     "Lock"             Session.Lock() on path (value ignored)
 *     "LockedHint"       Properties.PropertiesChanged("org.freedesktop.login1.Session",
 *                        {"LockedHint": value}, []) on path
 *   and answers once the signal is written.
 *   Quit()  answers, then exits 0.
 * It exits 0 when the bus goes away.
 *
 * As "impostor" it takes no name: it sends each WHAT (as Emit does, on session "self", value true;
 * or "NameOwnerChanged": the bus's signal, forged, saying this connection now owns
 * org.freedesktop.login1) to DESTINATION, a unique name (a unicast signal, which no match rule
 * filters), or to everyone ("-"), then makes one call to the bus, so that the bus has handled every
 * signal before the fixture exits 0. This is what any program on a system bus may do.
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOGIN1 "org.freedesktop.login1"
#define LOGIN1_PATH "/org/freedesktop/login1"
#define MANAGER LOGIN1 ".Manager"
#define SESSION LOGIN1 ".Session"
#define SESSIONS LOGIN1_PATH "/session"
#define TEST "org.autofill.Test"

static int no_session = 0;

static void reply(DBusConnection *connection, DBusMessage *answer) {
    if (answer == NULL || !dbus_connection_send(connection, answer, NULL)) {
        fprintf(stderr, "login1_fixture: out of memory\n");
        exit(1);
    }
    dbus_connection_flush(connection);
    dbus_message_unref(answer);
}

static DBusMessage *with_path(DBusMessage *call, const char *path) {
    DBusMessage *answer = dbus_message_new_method_return(call);
    if (answer != NULL) dbus_message_append_args(answer, DBUS_TYPE_OBJECT_PATH, &path, DBUS_TYPE_INVALID);
    return answer;
}

static DBusMessage *sessions(DBusMessage *call) {
    DBusMessage *answer = dbus_message_new_method_return(call);
    DBusMessageIter top, array, entry;
    dbus_message_iter_init_append(answer, &top);
    dbus_message_iter_open_container(&top, DBUS_TYPE_ARRAY, "(susso)", &array);
    struct { const char *id; dbus_uint32_t uid; const char *user, *seat, *path; } rows[] = {
        {"self", (dbus_uint32_t)getuid(), "me", "seat0", SESSIONS "/self"},
        {"other", (dbus_uint32_t)getuid() + 1, "someone", "seat1", SESSIONS "/other"},
    };
    for (size_t index = 0; index < sizeof rows / sizeof rows[0]; index++) {
        dbus_message_iter_open_container(&array, DBUS_TYPE_STRUCT, NULL, &entry);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &rows[index].id);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_UINT32, &rows[index].uid);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &rows[index].user);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &rows[index].seat);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_OBJECT_PATH, &rows[index].path);
        dbus_message_iter_close_container(&array, &entry);
    }
    dbus_message_iter_close_container(&top, &array);
    return answer;
}

static DBusMessage *locked_hint(const char *path, dbus_bool_t value) {
    DBusMessage *signal = dbus_message_new_signal(path, DBUS_INTERFACE_PROPERTIES, "PropertiesChanged");
    DBusMessageIter top, changed, entry, variant, invalidated;
    const char *interface = SESSION, *name = "LockedHint";
    dbus_message_iter_init_append(signal, &top);
    dbus_message_iter_append_basic(&top, DBUS_TYPE_STRING, &interface);
    dbus_message_iter_open_container(&top, DBUS_TYPE_ARRAY, "{sv}", &changed);
    dbus_message_iter_open_container(&changed, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &name);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "b", &variant);
    dbus_message_iter_append_basic(&variant, DBUS_TYPE_BOOLEAN, &value);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(&changed, &entry);
    dbus_message_iter_close_container(&top, &changed);
    dbus_message_iter_open_container(&top, DBUS_TYPE_ARRAY, "s", &invalidated);
    dbus_message_iter_close_container(&top, &invalidated);
    return signal;
}

/* The signal `what` (see the top of this file), or NULL when `what` is none of them. */
static DBusMessage *make_signal(DBusConnection *connection, const char *what, const char *path, dbus_bool_t value) {
    DBusMessage *signal = NULL;
    if (strcmp(what, "PrepareForSleep") == 0) {
        signal = dbus_message_new_signal(LOGIN1_PATH, MANAGER, "PrepareForSleep");
        dbus_message_append_args(signal, DBUS_TYPE_BOOLEAN, &value, DBUS_TYPE_INVALID);
    } else if (strcmp(what, "Lock") == 0) {
        signal = dbus_message_new_signal(path, SESSION, "Lock");
    } else if (strcmp(what, "LockedHint") == 0) {
        signal = locked_hint(path, value);
    } else if (strcmp(what, "NameOwnerChanged") == 0) {
        const char *name = LOGIN1, *before = "", *after = dbus_bus_get_unique_name(connection);
        signal = dbus_message_new_signal(DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS, "NameOwnerChanged");
        dbus_message_append_args(signal, DBUS_TYPE_STRING, &name, DBUS_TYPE_STRING, &before, DBUS_TYPE_STRING, &after,
                                 DBUS_TYPE_INVALID);
    }
    return signal;
}

static DBusMessage *emit(DBusConnection *connection, DBusMessage *call) {
    const char *what = NULL, *path = NULL;
    dbus_bool_t value = FALSE;
    if (!dbus_message_get_args(call, NULL, DBUS_TYPE_STRING, &what, DBUS_TYPE_OBJECT_PATH, &path, DBUS_TYPE_BOOLEAN,
                               &value, DBUS_TYPE_INVALID))
        return dbus_message_new_error(call, DBUS_ERROR_INVALID_ARGS, "Emit takes (s what, o path, b value)");
    DBusMessage *signal = make_signal(connection, what, path, value);
    if (signal == NULL) return dbus_message_new_error(call, DBUS_ERROR_INVALID_ARGS, "Emit: unknown signal");
    reply(connection, signal);
    return dbus_message_new_method_return(call);
}

static int impostor(DBusConnection *connection, const char *destination, char **whats, int count) {
    for (int index = 0; index < count; index++) {
        DBusMessage *signal = make_signal(connection, whats[index], SESSIONS "/self", TRUE);
        if (signal == NULL) {
            fprintf(stderr, "login1_fixture: unknown signal %s\n", whats[index]);
            return 64;
        }
        if (strcmp(destination, "-") != 0) dbus_message_set_destination(signal, destination);
        reply(connection, signal);
    }
    DBusError error;
    dbus_error_init(&error);
    char *id = dbus_bus_get_id(connection, &error); /* a round trip: the bus has handled the signals */
    if (id == NULL) {
        fprintf(stderr, "login1_fixture: %s\n", error.message);
        return 1;
    }
    dbus_free(id);
    return 0;
}

static DBusHandlerResult serve(DBusConnection *connection, DBusMessage *call, void *unused) {
    (void)unused;
    if (dbus_message_get_type(call) != DBUS_MESSAGE_TYPE_METHOD_CALL) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    if (dbus_message_is_method_call(call, MANAGER, "GetSession")) {
        const char *id = NULL;
        int valid = dbus_message_get_args(call, NULL, DBUS_TYPE_STRING, &id, DBUS_TYPE_INVALID) && id[0] != '\0' &&
                    strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(id);
        if (no_session || !valid) {
            reply(connection, dbus_message_new_error(call, LOGIN1 ".NoSuchSession", "No session by that ID"));
        } else {
            char path[256];
            snprintf(path, sizeof path, SESSIONS "/%s", id);
            reply(connection, with_path(call, path));
        }
    } else if (dbus_message_is_method_call(call, MANAGER, "GetSessionByPID")) {
        if (no_session)
            reply(connection, dbus_message_new_error(call, LOGIN1 ".NoSessionForPID", "PID does not belong to any known session"));
        else
            reply(connection, with_path(call, SESSIONS "/self"));
    } else if (dbus_message_is_method_call(call, MANAGER, "ListSessions")) {
        reply(connection, sessions(call));
    } else if (dbus_message_is_method_call(call, TEST, "Emit")) {
        reply(connection, emit(connection, call));
    } else if (dbus_message_is_method_call(call, TEST, "Quit")) {
        reply(connection, dbus_message_new_method_return(call));
        exit(0);
    } else {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    }
    return DBUS_HANDLER_RESULT_HANDLED;
}

int main(int argc, char **argv) {
    if (argc < 2 || (argc > 2 && strcmp(argv[2], "impostor") == 0 && argc < 5)) {
        fprintf(stderr, "usage: login1_fixture ADDRESS [no-session]\n       login1_fixture ADDRESS impostor DESTINATION WHAT...\n");
        return 64;
    }
    no_session = argc > 2 && strcmp(argv[2], "no-session") == 0;
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_connection_open_private(argv[1], &error);
    if (connection == NULL || !dbus_bus_register(connection, &error)) {
        fprintf(stderr, "login1_fixture: %s\n", error.message);
        return 1;
    }
    if (argc > 2 && strcmp(argv[2], "impostor") == 0) return impostor(connection, argv[3], argv + 4, argc - 4);
    if (dbus_bus_request_name(connection, LOGIN1, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error) !=
        DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "login1_fixture: cannot own %s: %s\n", LOGIN1, error.message ? error.message : "taken");
        return 2;
    }
    dbus_connection_add_filter(connection, serve, NULL, NULL);
    while (dbus_connection_read_write_dispatch(connection, -1)) {
    }
    return 0;
}
