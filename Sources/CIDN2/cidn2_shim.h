/* libidn2: IDNA2008 conversion between Unicode and punycode domain names (Debian libidn2-dev). */
#include <idn2.h>
