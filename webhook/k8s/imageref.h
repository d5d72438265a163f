#ifndef WH_K8S_IMAGEREF_H
#define WH_K8S_IMAGEREF_H

/* Container image references as OpenKruise reads them (util.ParseImage, which is
 * github.com/docker/distribution/reference.Parse): name[:tag][@digest], where the name is
 * [domain[:port]/]component(/component)* with lowercase components, at most 255 characters,
 * and the digest is algorithm:hex, checked as go-digest does (sha256, sha384 and sha512 with
 * their exact lengths in lowercase hex). Nothing is normalised: "nginx" and
 * "docker.io/library/nginx" are different names, as upstream compares them.
 * Thread rule: thread-safe (no shared state). */

#include <stdbool.h>
#include <stddef.h>

/* The parts of a reference, pointing into the parsed string (not NUL-terminated). */
struct wh_imageref {
    const char *name;
    size_t name_len;
    const char *tag; /* NULL when there is none */
    size_t tag_len;
    const char *digest; /* NULL when there is none */
    size_t digest_len;
};

/* Parses s; false when reference.Parse would fail (an empty, malformed or uppercase name, a
 * name over 255 characters, an invalid or unsupported digest). */
bool wh_imageref_parse(const char *s, struct wh_imageref *out);

/* util.IsImageDigest: s parses and carries a digest. */
bool wh_imageref_is_digest(const char *s);

/* util.IsContainerImageEqual: both parse, and either both carry digests and name and digest
 * agree, or name and tag agree. */
bool wh_imageref_equal(const char *a, const char *b);

/* Whether a container with this image pulls "latest" (the Kubernetes default imagePullPolicy is
 * then Always): the reference normalised as docker's ParseNormalizedNamed does (docker.io,
 * library/) has the tag latest, or neither tag nor digest. A reference that does not parse
 * gives false (SetDefaults_Container ignores the error: IfNotPresent). */
bool wh_imageref_pulls_latest(const char *image);

/* daemonutil.NormalizeImageRef(s): docker/distribution v2.8.2's reference.ParseNormalizedNamed
 * (docker.io and library/ added to short names, the reference grammar, go-digest's checks).
 * Returns: NULL when it accepts s, else its error text (static, or written into err):
 * "invalid reference format", "invalid reference format: repository name must be lowercase",
 * "repository name must be lowercase", "repository name must not be more than 255 characters",
 * "invalid repository name (<s>), cannot specify 64-byte hexadecimal strings",
 * "invalid checksum digest format", "invalid checksum digest length", "unsupported digest
 * algorithm". Case is Go's strings.ToLower (Unicode's upper-case letters, webhook/k8s/golower.inc
 * from scripts/golower.sh). */
const char *wh_imageref_normalize_error(const char *s, char *err, size_t errsz);

#endif
