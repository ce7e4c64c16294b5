/* Linux-PAM (Debian libpam0g-dev): host user authentication. pam_start_confdir needs Linux-PAM >= 1.4. */
#include <security/pam_appl.h>
