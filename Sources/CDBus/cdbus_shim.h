/* libdbus, the reference D-Bus library (Debian libdbus-1-dev): used by CAutofillSessionBus alone. */
#include <dbus/dbus.h>
