#include "k8s/imageref.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/str.h"
#include "util/utf8.h"

#define NAME_MAX_LEN 255 /* reference.NameTotalLengthMax */
#define TAG_MAX_LEN 128

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool alnum(char c)
{
    return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

static bool word(char c)
{
    return alnum(c) || c == '_';
}

/* [a-z0-9]+((\.|_|__|-*)[a-z0-9]+)*: runs of lowercase letters and digits joined by one dot,
 * one or two underscores, or any number of dashes. */
static bool name_component(const char *s, size_t n)
{
    size_t i = 0;
    for (;;) {
        size_t run = i;
        while (i < n && lower_alnum(s[i]))
            i++;
        if (i == run)
            return false;
        if (i == n)
            return true;
        size_t sep = i;
        while (i < n && !lower_alnum(s[i]))
            i++;
        size_t len = i - sep;
        bool dashes = true;
        for (size_t k = sep; k < i; k++)
            dashes &= s[k] == '-';
        if (!dashes && !(len == 1 && (s[sep] == '.' || s[sep] == '_')) &&
            !(len == 2 && s[sep] == '_' && s[sep + 1] == '_'))
            return false;
    }
}

/* A host: [a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])? labels joined by dots, then :port. */
static bool domain(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    size_t host = colon ? (size_t)(colon - s) : n;
    if (colon) {
        if (host + 1 == n)
            return false;
        for (size_t k = host + 1; k < n; k++)
            if (s[k] < '0' || s[k] > '9')
                return false;
    }
    size_t start = 0;
    for (size_t i = 0; i <= host; i++) {
        if (i < host && s[i] != '.')
            continue;
        if (i == start || !alnum(s[start]) || !alnum(s[i - 1]))
            return false;
        for (size_t k = start; k < i; k++)
            if (!alnum(s[k]) && s[k] != '-')
                return false;
        start = i + 1;
    }
    return true;
}

/* NameRegexp: [domain/]component(/component)*, however long. */
static bool name_grammar(const char *s, size_t n)
{
    if (n == 0)
        return false;
    const char *slash = memchr(s, '/', n);
    size_t first = slash ? (size_t)(slash - s) : n;
    bool rest_ok = true;
    for (size_t start = first + 1; slash && start <= n;) {
        const char *next = memchr(s + start, '/', n - start);
        size_t end = next ? (size_t)(next - s) : n;
        rest_ok &= name_component(s + start, end - start);
        start = end + 1;
        if (!next)
            break;
    }
    if (!rest_ok)
        return false;
    /* the first part is a path component, or (when more follow) a domain */
    return name_component(s, first) || (slash && domain(s, first));
}

static bool name_ok(const char *s, size_t n)
{
    return n <= NAME_MAX_LEN && name_grammar(s, n);
}

static bool tag_ok(const char *s, size_t n)
{
    if (n == 0 || n > TAG_MAX_LEN || !word(s[0]))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!word(s[i]) && s[i] != '.' && s[i] != '-')
            return false;
    return true;
}

/* go-digest's Parse: a registered algorithm and exactly its length of lowercase hex. */
static bool digest_ok(const char *s, size_t n)
{
    static const struct {
        const char *name;
        size_t hex;
    } algs[] = {{"sha256", 64}, {"sha384", 96}, {"sha512", 128}};
    const char *colon = memchr(s, ':', n);
    if (!colon)
        return false;
    size_t alen = (size_t)(colon - s), elen = n - alen - 1;
    for (size_t a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
        if (strlen(algs[a].name) != alen || memcmp(s, algs[a].name, alen) != 0)
            continue;
        if (elen != algs[a].hex)
            return false;
        for (size_t i = alen + 1; i < n; i++)
            if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                return false;
        return true;
    }
    return false;
}

bool wh_imageref_parse(const char *s, struct wh_imageref *out)
{
    memset(out, 0, sizeof(*out));
    if (!s || !*s)
        return false;
    size_t n = strlen(s);
    const char *at = strchr(s, '@');
    size_t rest = at ? (size_t)(at - s) : n;
    if (at) {
        out->digest = at + 1;
        out->digest_len = n - rest - 1;
        if (!digest_ok(out->digest, out->digest_len))
            return false;
    }
    /* a colon after the last slash starts the tag; one before it is a registry's port */
    const char *colon = NULL, *slash = NULL;
    for (size_t i = 0; i < rest; i++) {
        if (s[i] == ':')
            colon = s + i;
        else if (s[i] == '/')
            slash = s + i;
    }
    out->name = s;
    out->name_len = rest;
    if (colon && (!slash || colon > slash)) {
        out->name_len = (size_t)(colon - s);
        out->tag = colon + 1;
        out->tag_len = rest - out->name_len - 1;
        if (!tag_ok(out->tag, out->tag_len))
            return false;
    }
    return name_ok(out->name, out->name_len);
}

bool wh_imageref_is_digest(const char *s)
{
    struct wh_imageref r;
    return wh_imageref_parse(s, &r) && r.digest;
}

static bool span_eq(const char *a, size_t na, const char *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

bool wh_imageref_equal(const char *a, const char *b)
{
    struct wh_imageref x, y;
    if (!wh_imageref_parse(a, &x) || !wh_imageref_parse(b, &y))
        return false;
    if (!span_eq(x.name, x.name_len, y.name, y.name_len))
        return false;
    if (x.digest && y.digest)
        return span_eq(x.digest, x.digest_len, y.digest, y.digest_len);
    return span_eq(x.tag, x.tag_len, y.tag, y.tag_len);
}

bool wh_imageref_pulls_latest(const char *image)
{
    size_t n = strlen(image);
    if (n == 0 || n > 500)
        return false;
    if (n == 64) { /* a bare 64-hex identifier is not a name */
        bool hex = true;
        for (size_t i = 0; i < n; i++)
            hex &= (image[i] >= '0' && image[i] <= '9') || (image[i] >= 'a' && image[i] <= 'f');
        if (hex)
            return false;
    }
    /* splitDockerDomain: the first component is a domain when it has a '.' or ':', is
     * "localhost", or has an uppercase letter; else docker.io, and library/ for one component */
    const char *slash = strchr(image, '/');
    const char *domain = "docker.io", *remainder = image;
    size_t dlen = 9;
    if (slash) {
        size_t i = (size_t)(slash - image);
        bool upper = false;
        for (size_t k = 0; k < i; k++)
            upper |= isupper((unsigned char)image[k]) != 0;
        if (memchr(image, '.', i) || memchr(image, ':', i) ||
            (i == 9 && memcmp(image, "localhost", 9) == 0) || upper) {
            domain = image;
            dlen = i;
            remainder = slash + 1;
        }
    }
    if (dlen == 15 && memcmp(domain, "index.docker.io", 15) == 0) {
        domain = "docker.io";
        dlen = 9;
    }
    bool official = dlen == 9 && memcmp(domain, "docker.io", 9) == 0 && !strchr(remainder, '/');
    /* ParseNormalizedNamed refuses a repository (up to its tag) that is not lowercase */
    size_t rn = strcspn(remainder, ":");
    for (size_t k = 0; k < rn; k++)
        if (isupper((unsigned char)remainder[k]))
            return false;
    char full[600];
    int len = snprintf(full, sizeof(full), "%.*s/%s%s", (int)dlen, domain,
                       official ? "library/" : "", remainder);
    struct wh_imageref r;
    if (len < 0 || (size_t)len >= sizeof(full) || !wh_imageref_parse(full, &r))
        return false;
    if (r.tag)
        return r.tag_len == 6 && memcmp(r.tag, "latest", 6) == 0;
    return r.digest == NULL;
}

/* --- reference.ParseNormalizedNamed --------------------------------------------------------- */

#include "k8s/golower.inc"

static bool go_lower_changes(uint32_t r)
{
    for (size_t i = 0; i < sizeof(go_lower_spans) / sizeof(go_lower_spans[0]); i++) {
        if (r >= go_lower_spans[i][0] && r <= go_lower_spans[i][1])
            return (r - go_lower_spans[i][0]) % go_lower_spans[i][2] == 0;
    }
    return false;
}

/* strings.ToLower(s[0..n)) != s[0..n). */
static bool has_upper(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t size;
        if (go_lower_changes(wh_utf8_decode((const unsigned char *)s + i, n - i, &size)))
            return true;
        i += size;
    }
    return false;
}

/* DigestRegexp: algorithm components ([A-Za-z][A-Za-z0-9]*) joined by one of "-_+.", ':', then
 * at least 32 hexadecimal digits of either case. */
static bool digest_grammar(const char *s, size_t n)
{
    size_t i = 0;
    for (;;) {
        if (i >= n || !((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
            return false;
        while (i < n && alnum(s[i]))
            i++;
        if (i < n && strchr("-_+.", s[i]) && s[i] != '\0') {
            i++;
            continue;
        }
        break;
    }
    if (i >= n || s[i] != ':')
        return false;
    size_t hex = 0;
    for (i++; i < n; i++, hex++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return hex >= 32;
}

/* go-digest's Digest.Validate of a digest the grammar accepted. */
static const char *digest_error(const char *s, size_t n)
{
    static const struct {
        const char *name;
        size_t hex;
    } algs[] = {{"sha256", 64}, {"sha384", 96}, {"sha512", 128}};
    const char *colon = memchr(s, ':', n);
    size_t alen = (size_t)(colon - s), elen = n - alen - 1;
    for (size_t a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
        if (strlen(algs[a].name) != alen || memcmp(s, algs[a].name, alen) != 0)
            continue;
        if (elen != algs[a].hex)
            return "invalid checksum digest length";
        for (size_t i = alen + 1; i < n; i++)
            if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                return "invalid checksum digest format";
        return NULL;
    }
    return "unsupported digest algorithm";
}

/* ReferenceRegexp against s: 0 no match, else 1 with the name's length in *name_len and the
 * digest (after '@', NULL when none). */
static int reference_match(const char *s, size_t n, size_t *name_len, const char **digest,
                           size_t *digest_len)
{
    const char *at = memchr(s, '@', n);
    size_t rest = at ? (size_t)(at - s) : n;
    *digest = NULL;
    if (at) {
        *digest = at + 1;
        *digest_len = n - rest - 1;
        if (!digest_grammar(*digest, *digest_len))
            return 0;
    }
    const char *colon = NULL, *slash = NULL;
    for (size_t i = 0; i < rest; i++) {
        if (s[i] == ':')
            colon = s + i;
        else if (s[i] == '/')
            slash = s + i;
    }
    *name_len = rest;
    if (colon && (!slash || colon > slash)) {
        *name_len = (size_t)(colon - s);
        if (!tag_ok(colon + 1, rest - *name_len - 1))
            return 0;
    }
    return name_grammar(s, *name_len);
}

/* strings.ToLower as far as ReferenceRegexp can tell: ASCII letters, and the Kelvin sign,
 * whose lower case is 'k' (every other rune's lower case is outside the grammar either way).
 * Returns: new string. */
static char *lower_for_grammar(const char *s, size_t n)
{
    char *out = wh_xmalloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 2 < n && memcmp(s + i, "\xe2\x84\xaa", 3) == 0) {
            out[o++] = 'k';
            i += 2;
        } else {
            out[o++] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] - 'A' + 'a' : s[i]);
        }
    }
    out[o] = '\0';
    return out;
}

static const char *parse_error(const char *s, char *err, size_t errsz)
{
    size_t n = strlen(s), name_len = 0, dlen = 0;
    const char *digest = NULL;
    if (!reference_match(s, n, &name_len, &digest, &dlen)) {
        char *low = lower_for_grammar(s, n);
        int upper = reference_match(low, strlen(low), &name_len, &digest, &dlen);
        free(low);
        return upper ? "repository name must be lowercase" : "invalid reference format";
    }
    if (name_len > NAME_MAX_LEN) {
        snprintf(err, errsz, "repository name must not be more than %d characters", NAME_MAX_LEN);
        return err;
    }
    return digest ? digest_error(digest, dlen) : NULL;
}

const char *wh_imageref_normalize_error(const char *s, char *err, size_t errsz)
{
    size_t n = strlen(s);
    bool hex = n == 64;
    for (size_t i = 0; hex && i < n; i++)
        hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
    if (hex) {
        snprintf(err, errsz,
                 "invalid repository name (%s), cannot specify 64-byte hexadecimal strings", s);
        return err;
    }
    /* splitDockerDomain: a first component with '.' or ':', or "localhost", is a domain */
    const char *slash = strchr(s, '/');
    const char *domain = "docker.io", *remainder = s;
    size_t dlen = 9;
    if (slash) {
        size_t i = (size_t)(slash - s);
        if (memchr(s, '.', i) || memchr(s, ':', i) || (i == 9 && memcmp(s, "localhost", 9) == 0)) {
            domain = s;
            dlen = i;
            remainder = slash + 1;
        }
    }
    if (dlen == 15 && memcmp(domain, "index.docker.io", 15) == 0) {
        domain = "docker.io";
        dlen = 9;
    }
    bool official = dlen == 9 && memcmp(domain, "docker.io", 9) == 0 && !strchr(remainder, '/');
    if (has_upper(remainder, strcspn(remainder, ":")))
        return "invalid reference format: repository name must be lowercase";
    char *full = wh_str_printf("%.*s/%s%s", (int)dlen, domain, official ? "library/" : "",
                               remainder);
    const char *why = parse_error(full, err, errsz);
    free(full);
    return why;
}
