#include "k8s/imageref.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

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

static bool name_ok(const char *s, size_t n)
{
    if (n == 0 || n > NAME_MAX_LEN)
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
