/* autofill_session_bus.c — see include/autofill_session_bus.h. */
#define _GNU_SOURCE
#include "autofill_session_bus.h"

#include <dbus/dbus.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/types.h>
#include <unistd.h>

#define LOGIN1 "org.freedesktop.login1"
#define LOGIN1_PATH "/org/freedesktop/login1"
#define LOGIN1_MANAGER LOGIN1 ".Manager"
#define LOGIN1_SESSION LOGIN1 ".Session"
#define SESSION_PATHS LOGIN1_PATH "/session"
#define BUS_NAME "org.freedesktop.DBus"
#define BUS_PATH "/org/freedesktop/DBus"
#define CALL_TIMEOUT_MS 2000
#define PENDING_CHECKS 8

/* A Lock on some session, waiting for logind's ListSessions to say whose session it is. */
typedef struct pending_check {
    dbus_uint32_t serial; /* the ListSessions call; 0: the slot is free */
    char *path;
} pending_check;

struct afsb_watcher {
    DBusConnection *connection;
    int filtering;                /* the filter is added (and must be removed before closing) */
    int wake_fd;                  /* eventfd: readable once afsb_stop was called */
    uid_t uid;                    /* this process's real uid: whose sessions count */
    char *session_path;           /* NULL: every session of this user */
    char *unique_name;
    char *owner;                  /* the connection owning org.freedesktop.login1; NULL: none, or not known yet */
    dbus_uint32_t owner_serial;   /* the GetNameOwner call, until the bus answers it; then 0 */
    pending_check checks[PENDING_CHECKS];
    afsb_event_callback callback;
    void *context;
};

static int fail(char *error, size_t capacity, int status, const char *format, ...) {
    if (error != NULL && capacity > 0) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(error, capacity, format, arguments);
        va_end(arguments);
    }
    return status;
}

static int same(const char *a, const char *b) { return a != NULL && b != NULL && strcmp(a, b) == 0; }

static void replace(char **slot, const char *value) {
    free(*slot);
    *slot = (value != NULL && value[0] != '\0') ? strdup(value) : NULL;
}

static int stopped(const afsb_watcher *watcher) {
    struct pollfd wake = {watcher->wake_fd, POLLIN, 0};
    return poll(&wake, 1, 0) > 0;
}

static void deliver(afsb_watcher *watcher, int event) {
    if (watcher->callback != NULL && !stopped(watcher)) watcher->callback(event, watcher->context);
}

/* ---- The session a Lock is about ---- */

/* Asks the current logind (by its unique name, so the answer comes from the same process that sent
 * the signal) for its sessions; the answer is handled by check_answered, in the bus's order. */
static void check_session(afsb_watcher *watcher, const char *path) {
    pending_check *slot = NULL;
    for (int index = 0; index < PENDING_CHECKS; index++)
        if (watcher->checks[index].serial == 0) slot = &watcher->checks[index];
    DBusMessage *call =
        slot == NULL ? NULL : dbus_message_new_method_call(watcher->owner, LOGIN1_PATH, LOGIN1_MANAGER, "ListSessions");
    char *copy = call == NULL ? NULL : strdup(path);
    dbus_uint32_t serial = 0;
    if (copy != NULL && dbus_connection_send(watcher->connection, call, &serial) && serial != 0) {
        slot->serial = serial;
        slot->path = copy;
    } else {
        free(copy);
        deliver(watcher, AFSB_EVENT_LOCK); /* cannot ask (too many questions, no memory): a lock too many is harmless */
    }
    if (call != NULL) dbus_message_unref(call);
}

/* 1 when `answer` (ListSessions' a(susso)) lists `path` as a session of this user. */
static int lists_own_session(const afsb_watcher *watcher, DBusMessage *answer, const char *path) {
    DBusMessageIter top, sessions, session;
    if (!dbus_message_has_signature(answer, "a(susso)") || !dbus_message_iter_init(answer, &top)) return -1;
    dbus_message_iter_recurse(&top, &sessions);
    for (; dbus_message_iter_get_arg_type(&sessions) == DBUS_TYPE_STRUCT; dbus_message_iter_next(&sessions)) {
        const char *id = NULL, *user = NULL, *seat = NULL, *object = NULL;
        dbus_uint32_t uid = 0;
        dbus_message_iter_recurse(&sessions, &session);
        dbus_message_iter_get_basic(&session, &id);
        dbus_message_iter_next(&session);
        dbus_message_iter_get_basic(&session, &uid);
        dbus_message_iter_next(&session);
        dbus_message_iter_get_basic(&session, &user);
        dbus_message_iter_next(&session);
        dbus_message_iter_get_basic(&session, &seat);
        dbus_message_iter_next(&session);
        dbus_message_iter_get_basic(&session, &object);
        if (uid == (dbus_uint32_t)watcher->uid && same(object, path)) return 1;
    }
    return 0;
}

/* An answer to a ListSessions of check_session: the lock counts when the session is this user's, or
 * when logind could not say (an error: it did send the signal). Answers from anyone but logind's
 * connection (or the bus, for a failed call) are not believed. 1 when `message` was such an answer. */
static int check_answered(afsb_watcher *watcher, DBusMessage *message) {
    dbus_uint32_t serial = dbus_message_get_reply_serial(message);
    for (int index = 0; index < PENDING_CHECKS; index++) {
        pending_check *check = &watcher->checks[index];
        if (check->serial == 0 || check->serial != serial) continue;
        const char *sender = dbus_message_get_sender(message);
        int is_error = dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_ERROR;
        if (!same(sender, watcher->owner) && !(is_error && same(sender, BUS_NAME))) return 0;
        int own = is_error ? 1 : lists_own_session(watcher, message, check->path);
        check->serial = 0;
        free(check->path);
        check->path = NULL;
        if (own != 0) deliver(watcher, AFSB_EVENT_LOCK); /* -1, an answer of the wrong shape: as an error */
        return 1;
    }
    return 0;
}

/* A Lock or LockedHint on session `path`, from logind. */
static void session_locked(afsb_watcher *watcher, const char *path) {
    if (watcher->session_path != NULL) {
        if (same(path, watcher->session_path)) deliver(watcher, AFSB_EVENT_LOCK);
    } else if (path != NULL && strncmp(path, SESSION_PATHS "/", strlen(SESSION_PATHS "/")) == 0) {
        check_session(watcher, path);
    }
}

/* 1 when PropertiesChanged(s, a{sv}, as) `message` says LockedHint became true. */
static int locked_hint_set(DBusMessage *message) {
    DBusMessageIter top, changed, entry, value;
    const char *interface = NULL;
    if (!dbus_message_has_signature(message, "sa{sv}as") || !dbus_message_iter_init(message, &top)) return 0;
    dbus_message_iter_get_basic(&top, &interface);
    if (!same(interface, LOGIN1_SESSION)) return 0;
    dbus_message_iter_next(&top);
    dbus_message_iter_recurse(&top, &changed);
    for (; dbus_message_iter_get_arg_type(&changed) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&changed)) {
        const char *name = NULL;
        dbus_message_iter_recurse(&changed, &entry);
        dbus_message_iter_get_basic(&entry, &name);
        if (!same(name, "LockedHint")) continue;
        dbus_message_iter_next(&entry);
        dbus_message_iter_recurse(&entry, &value);
        if (dbus_message_iter_get_arg_type(&value) != DBUS_TYPE_BOOLEAN) return 0;
        dbus_bool_t locked = FALSE;
        dbus_message_iter_get_basic(&value, &locked);
        return locked ? 1 : 0;
    }
    return 0;
}

/* ---- Every message, in the order the bus delivered them ---- */

static DBusHandlerResult filter(DBusConnection *connection, DBusMessage *message, void *data) {
    (void)connection;
    afsb_watcher *watcher = data;
    const char *sender = dbus_message_get_sender(message);
    int type = dbus_message_get_type(message);

    if (type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR) {
        /* The bus's answer to GetNameOwner (an error: nobody owns the name). Only the bus itself may
         * answer it: a reply with the same serial from anyone else is ignored. */
        if (watcher->owner_serial != 0 && dbus_message_get_reply_serial(message) == watcher->owner_serial &&
            same(sender, BUS_NAME)) {
            const char *owner = NULL;
            if (type == DBUS_MESSAGE_TYPE_METHOD_RETURN &&
                !dbus_message_get_args(message, NULL, DBUS_TYPE_STRING, &owner, DBUS_TYPE_INVALID))
                owner = NULL;
            replace(&watcher->owner, owner);
            watcher->owner_serial = 0;
            return DBUS_HANDLER_RESULT_HANDLED;
        }
        return check_answered(watcher, message) ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    }
    if (type != DBUS_MESSAGE_TYPE_SIGNAL) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;

    /* Who owns org.freedesktop.login1 now: the bus's word only (no client can be org.freedesktop.DBus). */
    if (dbus_message_is_signal(message, BUS_NAME, "NameOwnerChanged")) {
        const char *name = NULL, *before = NULL, *after = NULL;
        if (same(sender, BUS_NAME) &&
            dbus_message_get_args(message, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_STRING, &before, DBUS_TYPE_STRING,
                                  &after, DBUS_TYPE_INVALID) &&
            same(name, LOGIN1))
            replace(&watcher->owner, after);
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    }

    /* Everything else counts only from logind's own connection. */
    if (!same(sender, watcher->owner)) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    if (dbus_message_is_signal(message, LOGIN1_MANAGER, "PrepareForSleep")) {
        dbus_bool_t sleeping = FALSE;
        if (dbus_message_has_path(message, LOGIN1_PATH) &&
            dbus_message_get_args(message, NULL, DBUS_TYPE_BOOLEAN, &sleeping, DBUS_TYPE_INVALID) && sleeping)
            deliver(watcher, AFSB_EVENT_SLEEP);
    } else if (dbus_message_is_signal(message, LOGIN1_SESSION, "Lock")) {
        session_locked(watcher, dbus_message_get_path(message));
    } else if (dbus_message_is_signal(message, DBUS_INTERFACE_PROPERTIES, "PropertiesChanged")) {
        if (locked_hint_set(message)) session_locked(watcher, dbus_message_get_path(message));
    }
    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
}

/* ---- Opening ---- */

/* logind's answer (an object path) to `method` with one argument, or NULL: no answer, an error, or
 * an argument that cannot be sent. */
static char *ask_for_path(DBusConnection *connection, const char *method, int type, const void *argument) {
    if (type == DBUS_TYPE_STRING && !dbus_validate_utf8(*(const char *const *)argument, NULL)) return NULL;
    DBusMessage *call = dbus_message_new_method_call(LOGIN1, LOGIN1_PATH, LOGIN1_MANAGER, method);
    if (call == NULL) return NULL;
    char *path = NULL;
    DBusError error;
    dbus_error_init(&error);
    if (dbus_message_append_args(call, type, argument, DBUS_TYPE_INVALID)) {
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, call, CALL_TIMEOUT_MS, &error);
        const char *object = NULL;
        if (reply != NULL && dbus_message_get_args(reply, &error, DBUS_TYPE_OBJECT_PATH, &object, DBUS_TYPE_INVALID))
            path = strdup(object);
        if (reply != NULL) dbus_message_unref(reply);
    }
    dbus_error_free(&error);
    dbus_message_unref(call);
    return path;
}

/* The session to watch: `session_id`'s, else this process's; NULL when logind knows neither. */
static char *find_session(DBusConnection *connection, const char *session_id) {
    char *path = NULL;
    if (session_id != NULL && session_id[0] != '\0')
        path = ask_for_path(connection, "GetSession", DBUS_TYPE_STRING, &session_id);
    if (path == NULL) {
        dbus_uint32_t pid = (dbus_uint32_t)getpid();
        path = ask_for_path(connection, "GetSessionByPID", DBUS_TYPE_UINT32, &pid);
    }
    return path;
}

static int add_match(afsb_watcher *watcher, const char *rule, char *error, size_t capacity) {
    DBusError failure;
    dbus_error_init(&failure);
    dbus_bus_add_match(watcher->connection, rule, &failure);
    if (!dbus_error_is_set(&failure)) return AFSB_OK;
    int status = fail(error, capacity, AFSB_BUS_REFUSED, "the system bus refused to pass on logind's signals (AddMatch %s): %s",
                      rule, failure.message != NULL ? failure.message : failure.name);
    dbus_error_free(&failure);
    return status;
}

/* Connects and registers with the bus (Hello); NULL with *status AFSB_NO_BUS and the reason in `error`. */
static DBusConnection *connect_to_bus(const char *address, char *error, size_t capacity, int *status) {
    DBusError failure;
    dbus_error_init(&failure);
    DBusConnection *connection = NULL;
    if (address != NULL) {
        connection = dbus_connection_open_private(address, &failure);
        if (connection != NULL && !dbus_bus_register(connection, &failure)) {
            dbus_connection_close(connection);
            dbus_connection_unref(connection);
            connection = NULL;
        }
    } else {
        connection = dbus_bus_get_private(DBUS_BUS_SYSTEM, &failure);
    }
    if (connection == NULL) {
        const char *where = address != NULL ? address : "$DBUS_SYSTEM_BUS_ADDRESS or /run/dbus/system_bus_socket";
        *status = fail(error, capacity, AFSB_NO_BUS, "cannot connect to the system bus (%s): %s", where,
                       dbus_error_is_set(&failure) && failure.message != NULL ? failure.message : "libdbus gave no reason");
    }
    dbus_error_free(&failure);
    return connection;
}

int afsb_open(const char *address, const char *session_id, afsb_watcher **result, char *error, size_t capacity) {
    *result = NULL;
    if (error != NULL && capacity > 0) error[0] = '\0';
    afsb_watcher *watcher = calloc(1, sizeof *watcher);
    if (watcher == NULL) return fail(error, capacity, AFSB_SYSTEM, "out of memory");
    watcher->uid = getuid();
    watcher->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (watcher->wake_fd < 0) {
        int status = fail(error, capacity, AFSB_SYSTEM, "eventfd: %s", strerror(errno));
        free(watcher);
        return status;
    }
    int status = AFSB_OK;
    watcher->connection = connect_to_bus(address, error, capacity, &status);
    if (watcher->connection == NULL) {
        afsb_close(watcher);
        return status;
    }
    /* A private connection closes with the watcher; its end must never end the process (the
     * default of dbus_bus_get_private). */
    dbus_connection_set_exit_on_disconnect(watcher->connection, FALSE);
    const char *unique = dbus_bus_get_unique_name(watcher->connection);
    watcher->unique_name = strdup(unique != NULL ? unique : "");
    if (watcher->unique_name == NULL || !dbus_connection_add_filter(watcher->connection, filter, watcher, NULL)) {
        afsb_close(watcher);
        return fail(error, capacity, AFSB_SYSTEM, "out of memory");
    }
    watcher->filtering = 1;

    /* The owner first: NameOwnerChanged from now on, then GetNameOwner, answered by the bus before
     * any signal the later rules let through (the bus handles this connection's calls in order). */
    status = add_match(watcher,
                       "type='signal',sender='" BUS_NAME "',path='" BUS_PATH "',interface='" BUS_NAME
                       "',member='NameOwnerChanged',arg0='" LOGIN1 "'",
                       error, capacity);
    DBusMessage *call = status != AFSB_OK ? NULL : dbus_message_new_method_call(BUS_NAME, BUS_PATH, BUS_NAME, "GetNameOwner");
    const char *name = LOGIN1;
    if (status == AFSB_OK &&
        (call == NULL || !dbus_message_append_args(call, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID) ||
         !dbus_connection_send(watcher->connection, call, &watcher->owner_serial)))
        status = fail(error, capacity, AFSB_SYSTEM, "out of memory");
    if (call != NULL) dbus_message_unref(call);

    if (status == AFSB_OK) {
        watcher->session_path = find_session(watcher->connection, session_id);
        /* One session's path, or every session's (each Lock then checked with ListSessions). Object
         * paths hold only [A-Za-z0-9_/] (libdbus checked it), so they need no quoting in a rule. */
        if (watcher->session_path != NULL && strlen(watcher->session_path) > 400)
            replace(&watcher->session_path, NULL); /* no logind names a session so; watch them all */
        char where[512];
        if (watcher->session_path != NULL)
            snprintf(where, sizeof where, "path='%s'", watcher->session_path);
        else
            snprintf(where, sizeof where, "path_namespace='" SESSION_PATHS "'");
        char lock[768], hint[768];
        snprintf(lock, sizeof lock, "type='signal',sender='" LOGIN1 "',interface='" LOGIN1_SESSION "',member='Lock',%s", where);
        snprintf(hint, sizeof hint,
                 "type='signal',sender='" LOGIN1 "',interface='" DBUS_INTERFACE_PROPERTIES
                 "',member='PropertiesChanged',arg0='" LOGIN1_SESSION "',%s",
                 where);
        const char *sleeping = "type='signal',sender='" LOGIN1 "',path='" LOGIN1_PATH "',interface='" LOGIN1_MANAGER
                               "',member='PrepareForSleep'";
        status = add_match(watcher, sleeping, error, capacity);
        if (status == AFSB_OK) status = add_match(watcher, lock, error, capacity);
        if (status == AFSB_OK) status = add_match(watcher, hint, error, capacity);
    }
    if (status != AFSB_OK) {
        afsb_close(watcher);
        return status;
    }
    *result = watcher;
    return AFSB_OK;
}

const char *afsb_session_path(const afsb_watcher *watcher) { return watcher->session_path; }

const char *afsb_unique_name(const afsb_watcher *watcher) { return watcher->unique_name; }

/* ---- Listening ---- */

int afsb_run(afsb_watcher *watcher, afsb_event_callback callback, void *context, char *error, size_t capacity) {
    watcher->callback = callback;
    watcher->context = context;
    DBusConnection *connection = watcher->connection;
    for (;;) {
        /* Messages already read (while opening, or by the last read) first, in order. */
        while (dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS) {
            if (stopped(watcher)) return AFSB_OK;
            dbus_connection_dispatch(connection);
        }
        int fd = -1;
        if (!dbus_connection_get_is_connected(connection) || !dbus_connection_get_socket(connection, &fd))
            return fail(error, capacity, AFSB_DISCONNECTED, "the system bus closed the connection");
        short bus_events = POLLIN;
        if (dbus_connection_has_messages_to_send(connection)) bus_events |= POLLOUT;
        struct pollfd fds[2] = {{watcher->wake_fd, POLLIN, 0}, {fd, bus_events, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return fail(error, capacity, AFSB_SYSTEM, "poll: %s", strerror(errno));
        }
        if (fds[0].revents != 0) return AFSB_OK;
        /* Reads what arrived and writes what is queued, without blocking; a hang-up disconnects. */
        if (fds[1].revents != 0) dbus_connection_read_write(connection, 0);
    }
}

void afsb_stop(afsb_watcher *watcher) {
    uint64_t one = 1;
    ssize_t written;
    do written = write(watcher->wake_fd, &one, sizeof one);
    while (written < 0 && errno == EINTR);
    /* EAGAIN: the counter is full, so the eventfd is readable already. */
}

void afsb_close(afsb_watcher *watcher) {
    if (watcher == NULL) return;
    if (watcher->connection != NULL) {
        if (watcher->filtering) dbus_connection_remove_filter(watcher->connection, filter, watcher);
        dbus_connection_close(watcher->connection);
        dbus_connection_unref(watcher->connection);
    }
    for (int index = 0; index < PENDING_CHECKS; index++) free(watcher->checks[index].path);
    free(watcher->session_path);
    free(watcher->unique_name);
    free(watcher->owner);
    if (watcher->wake_fd >= 0) close(watcher->wake_fd);
    free(watcher);
}
