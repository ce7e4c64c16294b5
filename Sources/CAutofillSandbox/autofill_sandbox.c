/* autofill_sandbox.c — see include/autofill_sandbox.h. (Placeholder until the enforcement lands.) */
#define _GNU_SOURCE
#include "autofill_sandbox.h"

#include <stdio.h>

int afs_landlock_abi(void) { return 0; }
int afs_landlock_abi_supported(void) { return 7; }

int afs_apply(const afs_policy *policy, int require_landlock, afs_report *report, char *error, size_t error_capacity) {
    (void)policy; (void)require_landlock; (void)report;
    snprintf(error, error_capacity, "the sandbox is not built yet");
    return -1;
}

int afs_harden_host(int no_new_privs) { (void)no_new_privs; return 0; }
