/* zlib (Debian zlib1g-dev): gzip inflation of KeePass database payloads. */
#include <zlib.h>
