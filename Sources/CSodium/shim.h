// SPDX-License-Identifier: GPL-3.0-or-later
// libsodium (Debian libsodium-dev): the peer handshake's HMAC-SHA256 proofs, crypto_kdf
// session keys, XChaCha20-Poly1305 sealing, random nonces; the web controller's tokens.
#include <sodium.h>
