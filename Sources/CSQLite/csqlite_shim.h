/* SQLite (Debian libsqlite3-dev). SQLITE_TRANSIENT is a cast macro Swift cannot import. */
#include <sqlite3.h>

static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
