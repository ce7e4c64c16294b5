/*
 * autofill_provider.c — the small helpers declared at the end of
 * autofill_provider.h. Hosts link this file; a provider may compile it in
 * too (it needs only the header and no library), or leave it out.
 */
#include "autofill_provider.h"

const char *af_status_description(af_status status) {
    switch (status) {
    case AF_OK: return "ok";
    case AF_STATUS_UNKNOWN_REQUEST: return "no pending request has this id (already completed, given up after the deadline, or never issued)";
    case AF_STATUS_INVALID_ARGUMENT: return "invalid argument (NULL with a length, not UTF-8, or over the size limits)";
    case AF_STATUS_WRONG_COMPLETION: return "the completion does not fit the request";
    case AF_STATUS_UI_UNAVAILABLE: return "no UI may be shown for this request";
    case AF_STATUS_UI_CANCELED: return "the user cancelled";
    case AF_STATUS_NOT_FOUND: return "not found";
    case AF_STATUS_BUFFER_TOO_SMALL: return "buffer too small";
    case AF_STATUS_REFUSED: return "refused by the host (the reason says why); nothing was written";
    case AF_STATUS_IO_ERROR: return "the host could not write the file or commit it (the reason says why)";
    case AF_STATUS_CHANGED_ON_DISK: return "the file changed on disk since it was read; nothing was written";
    case AF_STATUS_STORE_INTERNAL: return "identity store internal error";
    case AF_STATUS_STORE_DISABLED: return "identity store disabled: the provider is not enabled";
    case AF_STATUS_STORE_BUSY: return "identity store busy: try again";
    default: return "unknown status";
    }
}

const char *af_error_code_name(int32_t error_code) {
    switch (error_code) {
    case AF_ERROR_FAILED: return "failed";
    case AF_ERROR_USER_CANCELED: return "userCanceled";
    case AF_ERROR_USER_INTERACTION_REQUIRED: return "userInteractionRequired";
    case AF_ERROR_CREDENTIAL_IDENTITY_NOT_FOUND: return "credentialIdentityNotFound";
    case AF_ERROR_MATCHED_EXCLUDED_CREDENTIAL: return "matchedExcludedCredential";
    default: return 0;
    }
}
