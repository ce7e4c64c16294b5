/*
 * autofill_session_bus.h — listening to logind on the system bus for the moments the agent must
 * lock its providers: the user's session is locked, or the machine is about to sleep.
 *
 * Used by AutofillHost's SessionLockWatcher (Agent/SessionLockWatcher.swift), in `autofill agent`:
 * it calls afsb_open on its own thread, afsb_run on a thread it created for the purpose, afsb_stop
 * from any thread, and afsb_close once afsb_run has returned. The bus is reached through libdbus
 * (Debian's libdbus-1-dev): autofill_session_bus.c is the only code that calls it. docs/AGENT.md
 * tells users what is listened to and why.
 *
 * What counts as an event, and from whom:
 *   AFSB_EVENT_LOCK   org.freedesktop.login1.Session's signal Lock on the watched session, or its
 *                     property LockedHint becoming true (PropertiesChanged: desktops that lock the
 *                     screen themselves say so through SetLockedHint, without any Lock signal).
 *   AFSB_EVENT_SLEEP  org.freedesktop.login1.Manager's signal PrepareForSleep(true) on
 *                     /org/freedesktop/login1; PrepareForSleep(false) (waking up) is no event.
 * A signal counts only when its sender is the connection that owns the well-known name
 * org.freedesktop.login1 at the moment the signal is read: the owner is asked once with
 * GetNameOwner, then followed through the bus's own NameOwnerChanged signals (believed only when
 * their sender is org.freedesktop.DBus, a name no client can take). The match rules also name the
 * sender, so the bus itself drops broadcasts from other connections; the check here is what stops
 * a signal another connection sends to this one directly (a unicast signal, which no match rule
 * filters). Messages are handled strictly in the order the bus delivered them, so the owner a
 * signal is judged against is the owner the bus knew when it routed that signal.
 *
 * The watched session: `session_id` (the caller passes $XDG_SESSION_ID) is asked of logind with
 * GetSession; failing that (no id, or logind does not know it), this process's own session with
 * GetSessionByPID. A per-user daemon started by systemd --user belongs to no session, so both may
 * fail: then every session of this user is watched. A Lock (or LockedHint) on any session path is
 * then checked with logind's ListSessions, asked when the signal arrives, and counts when that
 * session's uid is this process's real uid. If ListSessions fails, the lock counts anyway: the
 * signal did come from logind, and locking too often only asks the user to unlock once more.
 *
 * Errors: functions return one of the AFSB_* codes below and, when not AFSB_OK, write a sentence
 * into `error` (at most `error_capacity` bytes, always terminated; `error` may be NULL). The text
 * holds the bus address, the names involved and the error libdbus (or the bus) gave.
 *
 * Thread-safety: an afsb_watcher is used by one thread at a time (afsb_open's caller hands it to
 * the thread that runs afsb_run), except afsb_stop, which any thread (or a signal handler) may call
 * at any time while the watcher is open. libdbus is thread-safe since 1.7; this file keeps no
 * global state. No function allocates memory the caller must free, except the watcher itself
 * (afsb_close).
 */
#ifndef AUTOFILL_SESSION_BUS_H
#define AUTOFILL_SESSION_BUS_H

#include <stddef.h>

/* Result codes. */
#define AFSB_OK 0
#define AFSB_NO_BUS 1       /* afsb_open: no system bus could be reached (no socket, refused, no address) */
#define AFSB_BUS_REFUSED 2  /* afsb_open: the bus answered but refused a call this file needs (AddMatch) */
#define AFSB_SYSTEM 3       /* out of memory, or eventfd/poll failed */
#define AFSB_DISCONNECTED 4 /* afsb_run: the bus closed the connection (it stopped or restarted) */

/* Event codes, passed to the callback. */
#define AFSB_EVENT_LOCK 1  /* the watched session was locked */
#define AFSB_EVENT_SLEEP 2 /* the machine is about to sleep (suspend or hibernate) */

typedef struct afsb_watcher afsb_watcher;

/* Called by afsb_run, on afsb_run's thread, once for each event, with the `context` given to
 * afsb_run. It should return quickly (signals queue up meanwhile) and may call afsb_stop, but no
 * other function of this file on the same watcher. */
typedef void (*afsb_event_callback)(int event, void *context);

/*
 * Connects to the system bus and gets ready to listen: `address` is a D-Bus address
 * ("unix:path=/run/dbus/system_bus_socket"); NULL means the system bus as libdbus finds it
 * ($DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket). The connection is private to the
 * watcher, and its closing never exits the process (libdbus's default for a shared system bus
 * connection would). Adds the match rules, asks for the owner of org.freedesktop.login1, and finds
 * the session to watch (above) with method calls of at most 2 s each: a logind that does not answer
 * delays this call by 4 s at most; none on the bus (ServiceUnknown) answers at once. logind being
 * absent is no error: the watcher follows the name and believes it once someone owns it.
 * On AFSB_OK sets *watcher; otherwise *watcher is NULL and nothing is left open.
 */
int afsb_open(const char *address, const char *session_id, afsb_watcher **watcher, char *error, size_t error_capacity);

/* The object path of the watched session ("/org/freedesktop/login1/session/_32"), or NULL when
 * every session of this user is watched. Owned by the watcher; valid until afsb_close. */
const char *afsb_session_path(const afsb_watcher *watcher);

/* This watcher's unique name on the bus (":1.42"). Owned by the watcher; valid until afsb_close. */
const char *afsb_unique_name(const afsb_watcher *watcher);

/*
 * Listens until afsb_stop (returns AFSB_OK) or until the bus goes away (AFSB_DISCONNECTED), calling
 * `callback` for each event. Blocks in poll(2) on the bus socket and the watcher's eventfd; called
 * once per watcher. Returns at once with AFSB_OK if afsb_stop was called before it.
 */
int afsb_run(afsb_watcher *watcher, afsb_event_callback callback, void *context, char *error, size_t error_capacity);

/* Makes afsb_run return (now, or at once when it is called later): writes to the watcher's eventfd.
 * Any thread, any number of times, async-signal-safe; never blocks. */
void afsb_stop(afsb_watcher *watcher);

/* Closes the connection and frees the watcher. Only after afsb_run has returned, or when it was
 * never called; NULL is ignored. */
void afsb_close(afsb_watcher *watcher);

#endif
