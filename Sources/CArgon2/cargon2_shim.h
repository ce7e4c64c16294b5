/* libargon2, the reference Argon2 implementation (Debian libargon2-dev; RFC 9106).
 * Used for password-based key derivation: the Vault's master-password KDF and KeePass databases' Argon2d/Argon2id. */
#include <argon2.h>
