/* sandbox_private.h — what the sandbox's own .c files share (not part of its interface). */
#ifndef AUTOFILL_SANDBOX_PRIVATE_H
#define AUTOFILL_SANDBOX_PRIVATE_H

#include "autofill_sandbox.h"

#include <stddef.h>

/* Writes the message to `error` (when given) and returns -1. */
int afs_fail(char *error, size_t capacity, const char *format, ...) __attribute__((format(printf, 3, 4), visibility("hidden")));

/* Loads the helper's seccomp allowlist for `policy` (seccomp_filter.c); 0, or -1 with `error`. */
int afs_apply_seccomp(const afs_policy *policy, afs_report *report, char *error, size_t capacity) __attribute__((visibility("hidden")));

#endif
