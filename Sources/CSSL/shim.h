// SPDX-License-Identifier: GPL-3.0-or-later
// OpenSSL 3 (Debian libssl-dev): the web controller's self-signed certificate (made at
// first use), its SHA-256 fingerprint, and the certificate and key given to libwebsockets' TLS
// context. No wrappers: the functions used are plain functions.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/err.h>
#include <openssl/rand.h>
