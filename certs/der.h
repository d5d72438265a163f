#ifndef WH_CERTS_DER_H
#define WH_CERTS_DER_H

/* A strict DER check of X.509 certificates, as strict as Go's crypto/x509 (which the
 * kube-apiserver uses to read every caBundle and every serving certificate it is shown).
 * OpenSSL and GnuTLS 3.7 both accept certificates Go refuses (a BOOLEAN encoded as 0x01,
 * for one), so certificates are checked here before anything in certs/ calls them usable.
 *
 * What is checked, everywhere in the certificate and inside every extension value:
 * - tags in low-tag-number form, definite lengths in their shortest form, every value
 *   exactly filling its parent, no data after the certificate;
 * - universal types: BOOLEAN one byte 0x00 or 0xFF; INTEGER and ENUMERATED minimal (no
 *   redundant leading 0x00/0xFF byte); BIT STRING with at most 7 unused bits, all zero;
 *   NULL empty; OBJECT IDENTIFIER subidentifiers minimal; UTCTime YYMMDDHHMMSSZ and
 *   GeneralizedTime YYYYMMDDHHMMSSZ; PrintableString, IA5String and UTF8String contents;
 *   every universal type primitive but the structured ones (SEQUENCE, SET, ...), SEQUENCE
 *   and SET constructed;
 * - extensions: no duplicate, `critical` omitted when false (DEFAULT FALSE), basicConstraints
 *   `cA` omitted when false, keyUsage without trailing zero bits (a named bit list).
 * Not checked: SET OF ordering (certificates here have one attribute per RDN) and signatures.
 * Thread rule: thread-safe (no shared state). */

#include <stddef.h>

#include "util/err.h"

/* Checks the DER encoding of one certificate (der, len: exactly the certificate).
 * WH_ERR_PARSE with eb ("<what> at byte <offset>: <rule>") when it breaks a rule above. */
WH_NODISCARD enum wh_err wh_certs_der_check_cert(const unsigned char *der, size_t len,
                                                 struct wh_errbuf *eb);

/* The generic rules above (no certificate structure) on one DER value filling len bytes;
 * for keys and other structures. WH_ERR_PARSE with eb when a rule is broken. */
WH_NODISCARD enum wh_err wh_certs_der_check(const unsigned char *der, size_t len,
                                            struct wh_errbuf *eb);

#endif
