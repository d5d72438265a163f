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

#endif
