// libsodium (Debian libsodium-dev): HMAC-SHA256 for the peer handshake, random nonces.
#include <sodium.h>
