/* libpsl, the public suffix list library (Debian libpsl-dev; data from the publicsuffix package). */
#include <libpsl.h>
