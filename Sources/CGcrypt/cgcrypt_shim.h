/* libgcrypt (Debian libgcrypt20-dev): the symmetric ciphers KeePass databases use that swift-crypto
 * does not offer: AES-256 in ECB (AES-KDF) and CBC, ChaCha20 and Salsa20 as plain stream ciphers. */
#include <gcrypt.h>
