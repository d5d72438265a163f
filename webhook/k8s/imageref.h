#ifndef WH_K8S_IMAGEREF_H
#define WH_K8S_IMAGEREF_H

/* Container image references: the distribution/reference grammar, its normalisation and its
 * error messages, in the two versions upstream's answers depend on.
 *  - WH_IMAGEREF_DOCKER: github.com/docker/distribution/reference v2.8.2, which OpenKruise
 *    calls itself (util.ParseImage is its Parse, the daemon's NormalizeImageRef its
 *    ParseDockerRef);
 *  - WH_IMAGEREF_DISTRIBUTION: github.com/distribution/reference v0.6.0, which Kubernetes calls
 *    (parsers.ParseImageName in SetDefaults_Container). It also takes IPv6 hosts
 *    ("[::1]:5000/a"), counts the 255 characters in the path rather than the whole name, takes
 *    a first component with an uppercase letter as a host, and names the repository in its
 *    lowercase error.
 * A reference is name[:tag][@digest]; the name is [host[:port]/]component(/component)* with
 * lowercase components, the tag [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}, the digest algorithm:hex as
 * go-digest v1.0.0 validates it (sha256, sha384 and sha512 with their exact lengths of
 * lowercase hex). Strings are bytes with a length (a JSON string may hold NUL). Messages are
 * Go's, word for word.
 * Thread rule: thread-safe (no shared state). */

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

enum wh_imageref_dialect { WH_IMAGEREF_DOCKER, WH_IMAGEREF_DISTRIBUTION };

/* A parsed reference. Spans are not NUL-terminated; they point into the parsed string, or into
 * the reference's own text when normalisation built a new one, and live as long as both. */
struct wh_imageref {
    const char *name; /* domain "/" path, or path; NULL for a digest alone */
    size_t name_len;
    const char *domain; /* NULL when the name has none */
    size_t domain_len;
    const char *path;
    size_t path_len;
    const char *tag; /* NULL when there is none */
    size_t tag_len;
    const char *digest; /* NULL when there is none */
    size_t digest_len;
    char _inline[320];
    char *_heap;
};

/* Releases what a parse kept (accepts a zeroed or failed one). Every wh_imageref_* parse below
 * must be paired with it, whatever it returned. */
void wh_imageref_fini(struct wh_imageref *r);

/* reference.Parse: WH_OK, or WH_ERR_INVALID with its message ("invalid reference format",
 * "repository name must be lowercase", "repository name must have at least one component",
 * "repository name must not be more than 255 characters", or go-digest's "invalid checksum
 * digest format", "... length", "unsupported digest algorithm"). eb may be NULL. */
WH_NODISCARD enum wh_err wh_imageref_parse_ref(enum wh_imageref_dialect d, const char *s, size_t n,
                                               struct wh_imageref *out, struct wh_errbuf *eb);

/* reference.ParseNormalizedNamed: docker.io and library/ added as Docker does, then Parse.
 * Errors as Parse, and "invalid repository name (<s>), cannot specify 64-byte hexadecimal
 * strings", "invalid reference format: repository name must be lowercase" (DISTRIBUTION:
 * "... repository name (<remote>) must be lowercase"). */
WH_NODISCARD enum wh_err wh_imageref_parse_normalized(enum wh_imageref_dialect d, const char *s,
                                                      size_t n, struct wh_imageref *out,
                                                      struct wh_errbuf *eb);

/* reference.ParseDockerRef (the daemon's NormalizeImageRef is the same code): normalised, a
 * tag dropped when a digest is there too, "latest" when there is neither. */
WH_NODISCARD enum wh_err wh_imageref_parse_docker_ref(enum wh_imageref_dialect d, const char *s,
                                                      size_t n, struct wh_imageref *out,
                                                      struct wh_errbuf *eb);

/* reference.ParseNamed: normalised, and then "repository name must be canonical" unless s was
 * already its normal form. */
WH_NODISCARD enum wh_err wh_imageref_parse_named(enum wh_imageref_dialect d, const char *s,
                                                 size_t n, struct wh_imageref *out,
                                                 struct wh_errbuf *eb);

/* reference.ParseAnyReference: 64 lowercase hex digits are a sha256 digest, a valid digest is
 * itself, anything else is ParseNormalizedNamed. */
WH_NODISCARD enum wh_err wh_imageref_parse_any(enum wh_imageref_dialect d, const char *s, size_t n,
                                               struct wh_imageref *out, struct wh_errbuf *eb);

/* reference.WithName: a name alone ("invalid reference format", "... more than 255 ..."). */
WH_NODISCARD enum wh_err wh_imageref_with_name(enum wh_imageref_dialect d, const char *s, size_t n,
                                               struct wh_imageref *out, struct wh_errbuf *eb);
/* reference.WithTag and WithDigest on a named reference: the span is borrowed (it must outlive
 * r). Errors: "invalid tag format", "invalid digest format". */
WH_NODISCARD enum wh_err wh_imageref_with_tag(struct wh_imageref *r, const char *tag, size_t n,
                                              struct wh_errbuf *eb);
WH_NODISCARD enum wh_err wh_imageref_with_digest(struct wh_imageref *r, const char *digest,
                                                 size_t n, struct wh_errbuf *eb);

/* The reference as String() prints it, and as FamiliarString() and FamiliarName() print it
 * (docker.io/ and a lone library/ dropped). Returns: new strings (caller frees). */
char *wh_imageref_string(const struct wh_imageref *r);
char *wh_imageref_familiar_string(const struct wh_imageref *r);
char *wh_imageref_familiar_name(const struct wh_imageref *r);

/* The grammar alone, as the package's regular expressions match (for tests of the grammar):
 * ReferenceRegexp, with out's name, tag and digest its captures, and anchoredNameRegexp, with
 * out's domain and path its captures. No length or digest check. */
bool wh_imageref_match(enum wh_imageref_dialect d, const char *s, size_t n,
                       struct wh_imageref *out);
bool wh_imageref_match_name(enum wh_imageref_dialect d, const char *s, size_t n,
                            struct wh_imageref *out);

/* Whether the whole of s matches the grammar's host (DomainRegexp, anchored). */
bool wh_imageref_is_domain(enum wh_imageref_dialect d, const char *s, size_t n);

/* util.ParseImage (WH_IMAGEREF_DOCKER's Parse) succeeds; s is NUL-terminated. */
bool wh_imageref_parse(const char *s, struct wh_imageref *out);

/* util.IsImageDigest: s parses and carries a digest. */
bool wh_imageref_is_digest(const char *s);

/* util.IsContainerImageEqual: both parse, and either both carry digests and name and digest
 * agree, or name and tag agree. */
bool wh_imageref_equal(const char *a, const char *b);

/* Whether a container with this image (n bytes) pulls "latest" (the Kubernetes default
 * imagePullPolicy is then Always): parsers.ParseImageName gives the tag latest, or neither tag
 * nor digest. A reference that does not parse gives false (SetDefaults_Container ignores the
 * error: IfNotPresent). */
bool wh_imageref_pulls_latest(const char *image, size_t n);

/* daemonutil.NormalizeImageRef(s) on a NUL-terminated s: WH_IMAGEREF_DOCKER's
 * wh_imageref_parse_normalized (docker.io and library/ added to short names, the reference
 * grammar, go-digest's checks). Returns: NULL when it accepts s, else its error text (written
 * into err):
 * "invalid reference format", "invalid reference format: repository name must be lowercase",
 * "repository name must be lowercase", "repository name must not be more than 255 characters",
 * "invalid repository name (<s>), cannot specify 64-byte hexadecimal strings",
 * "invalid checksum digest format", "invalid checksum digest length", "unsupported digest
 * algorithm". Case is Go's strings.ToLower (gocompat/unicase.h). */
const char *wh_imageref_normalize_error(const char *s, char *err, size_t errsz);

#endif
