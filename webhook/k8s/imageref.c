#include "k8s/imageref.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/unicase.h"
#include "util/mem.h"
#include "util/str.h"

#define NAME_MAX_LEN 255 /* reference.NameTotalLengthMax (RepositoryNameTotalLengthMax) */
#define TAG_MAX_LEN 128
#define DIGEST_MIN_HEX 32

#define DOCKER_DOMAIN "docker.io"
#define LEGACY_DOCKER_DOMAIN "index.docker.io"
#define OFFICIAL_REPO "library/"

static const char ERR_INVALID_FORMAT[] = "invalid reference format";
static const char ERR_UPPERCASE[] = "repository name must be lowercase";
static const char ERR_NAME_EMPTY[] = "repository name must have at least one component";
static const char ERR_NAME_TOO_LONG[] = "repository name must not be more than 255 characters";
static const char ERR_NOT_CANONICAL[] = "repository name must be canonical";

static enum wh_err fail(struct wh_errbuf *eb, const char *msg)
{
    return eb ? wh_errbuf_set(eb, WH_ERR_INVALID, "%s", msg) : WH_ERR_INVALID;
}

/* --- the grammar (regexp.go), on byte spans ------------------------------------------------ */

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

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool xdigit(char c)
{
    return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A path component, [a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*: runs of lowercase letters and digits
 * joined by one dot, one or two underscores, or any number of dashes. */
static bool path_component(const char *s, size_t n)
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

/* The remote name: path components joined by '/'. */
static bool remote_name(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '/')
            continue;
        if (!path_component(s + start, i - start))
            return false;
        start = i + 1;
    }
    return true;
}

/* Labels [a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])? joined by dots. */
static bool domain_name(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.')
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

bool wh_imageref_is_domain(enum wh_imageref_dialect d, const char *s, size_t n)
{
    size_t host = n;
    if (d == WH_IMAGEREF_DISTRIBUTION && n && s[0] == '[') {
        /* an IPv6 literal, \[[a-fA-F0-9:]+\] */
        const char *close = memchr(s, ']', n);
        if (!close || close == s + 1)
            return false;
        host = (size_t)(close - s) + 1;
        for (size_t k = 1; k + 1 < host; k++)
            if (!xdigit(s[k]) && s[k] != ':')
                return false;
    } else {
        const char *colon = memchr(s, ':', n);
        host = colon ? (size_t)(colon - s) : n;
        if (!domain_name(s, host))
            return false;
    }
    if (host == n)
        return true;
    if (s[host] != ':' || host + 1 == n)
        return false;
    for (size_t k = host + 1; k < n; k++)
        if (!digit(s[k]))
            return false;
    return true;
}

/* anchoredNameRegexp: [domain/]remote, preferring a domain when the first component is one. */
static bool split_name(enum wh_imageref_dialect d, const char *s, size_t n, size_t *domain_len)
{
    const char *slash = memchr(s, '/', n);
    if (slash) {
        size_t first = (size_t)(slash - s);
        if (wh_imageref_is_domain(d, s, first) && remote_name(slash + 1, n - first - 1)) {
            *domain_len = first;
            return true;
        }
    }
    *domain_len = 0;
    return remote_name(s, n);
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

/* The reference package's DigestRegexp:
 * [A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[[:xdigit:]]{32,}. */
static bool digest_shape(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    if (!colon)
        return false;
    size_t alen = (size_t)(colon - s);
    bool start = true;
    for (size_t i = 0; i < alen; i++) {
        char c = s[i];
        if (start) {
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                return false;
            start = false;
        } else if (c == '-' || c == '_' || c == '+' || c == '.') {
            start = true;
        } else if (!alnum(c)) {
            return false;
        }
    }
    if (alen == 0 || start || n - alen - 1 < DIGEST_MIN_HEX)
        return false;
    for (size_t i = alen + 1; i < n; i++)
        if (!xdigit(s[i]))
            return false;
    return true;
}

/* go-digest's Digest.Validate: NULL when valid, else its error. */
static const char *digest_validate(const char *s, size_t n)
{
    static const struct {
        const char *name;
        size_t hex;
    } algs[] = {{"sha256", 64}, {"sha384", 96}, {"sha512", 128}};
    const char *colon = memchr(s, ':', n);
    if (!colon || colon == s || colon + 1 == s + n)
        return "invalid checksum digest format";
    size_t alen = (size_t)(colon - s), elen = n - alen - 1;
    for (size_t a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
        if (strlen(algs[a].name) != alen || memcmp(s, algs[a].name, alen) != 0)
            continue;
        if (elen != algs[a].hex)
            return "invalid checksum digest length";
        for (size_t i = alen + 1; i < n; i++)
            if (!digit(s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
                return "invalid checksum digest format";
        return NULL;
    }
    /* not an algorithm it knows: DigestRegexpAnchored,
     * [a-z0-9]+([.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+, tells a bad digest from an unknown one */
    bool start = true;
    for (size_t i = 0; i < alen; i++) {
        char c = s[i];
        if (lower_alnum(c))
            start = false;
        else if (!start && (c == '.' || c == '+' || c == '_' || c == '-'))
            start = true;
        else
            return "invalid checksum digest format";
    }
    if (start)
        return "invalid checksum digest format";
    for (size_t i = alen + 1; i < n; i++)
        if (!alnum(s[i]) && s[i] != '=' && s[i] != '_' && s[i] != '-')
            return "invalid checksum digest format";
    return "unsupported digest algorithm";
}

struct match {
    size_t name_len, domain_len;
    size_t tag_at, tag_len; /* tag_at 0: none */
    size_t digest_at, digest_len;
};

/* ReferenceRegexp, anchored: name[:tag][@digest]. A colon after the last slash can only start
 * the tag (a name holds colons only in its host, before a slash), and '@' only the digest. */
static bool match_reference(enum wh_imageref_dialect d, const char *s, size_t n, struct match *m)
{
    memset(m, 0, sizeof(*m));
    const char *at = memchr(s, '@', n);
    size_t rest = at ? (size_t)(at - s) : n;
    if (at) {
        m->digest_at = rest + 1;
        m->digest_len = n - rest - 1;
        if (!digest_shape(s + m->digest_at, m->digest_len))
            return false;
    }
    size_t colon = rest, slash = rest;
    for (size_t i = 0; i < rest; i++) {
        if (s[i] == ':')
            colon = i;
        else if (s[i] == '/')
            slash = i;
    }
    m->name_len = rest;
    if (colon < rest && (slash == rest || colon > slash)) {
        m->name_len = colon;
        m->tag_at = colon + 1;
        m->tag_len = rest - colon - 1;
        if (!tag_ok(s + m->tag_at, m->tag_len))
            return false;
    }
    return m->name_len > 0 && split_name(d, s, m->name_len, &m->domain_len);
}

/* --- the parses --------------------------------------------------------------------------- */

static void set_parts(struct wh_imageref *r, const char *s, const struct match *m)
{
    r->name = s;
    r->name_len = m->name_len;
    r->domain = m->domain_len ? s : NULL;
    r->domain_len = m->domain_len;
    r->path = m->domain_len ? s + m->domain_len + 1 : s;
    r->path_len = m->domain_len ? m->name_len - m->domain_len - 1 : m->name_len;
    r->tag = m->tag_at ? s + m->tag_at : NULL;
    r->tag_len = m->tag_len;
    r->digest = m->digest_at ? s + m->digest_at : NULL;
    r->digest_len = m->digest_len;
}

bool wh_imageref_match(enum wh_imageref_dialect d, const char *s, size_t n,
                       struct wh_imageref *out)
{
    struct match m;
    memset(out, 0, sizeof(*out));
    if (!match_reference(d, s, n, &m))
        return false;
    set_parts(out, s, &m);
    return true;
}

bool wh_imageref_match_name(enum wh_imageref_dialect d, const char *s, size_t n,
                            struct wh_imageref *out)
{
    struct match m = {.name_len = n};
    memset(out, 0, sizeof(*out));
    if (n == 0 || !split_name(d, s, n, &m.domain_len))
        return false;
    set_parts(out, s, &m);
    return true;
}

/* Every parse starts from an empty reference (the caller's may be uninitialised). */
static void init(struct wh_imageref *r)
{
    memset(r, 0, sizeof(*r));
}

void wh_imageref_fini(struct wh_imageref *r)
{
    free(r->_heap);
    r->_heap = NULL;
}

/* Parse's answer when ReferenceRegexp does not match s. */
static const char *mismatch_error(enum wh_imageref_dialect d, const char *s, size_t n)
{
    if (n == 0)
        return ERR_NAME_EMPTY;
    char small[512];
    char *lower = n <= sizeof(small) ? small : wh_xmalloc(n);
    size_t ln = wh_go_lower_ascii(s, n, lower);
    struct match m;
    bool upper = ln != (size_t)-1 && match_reference(d, lower, ln, &m);
    if (lower != small)
        free(lower);
    return upper ? ERR_UPPERCASE : ERR_INVALID_FORMAT;
}

/* Parse of s, which out's own text may hold: the parts are set, its storage left alone. */
static enum wh_err parse_text(enum wh_imageref_dialect d, const char *s, size_t n,
                              struct wh_imageref *out, struct wh_errbuf *eb)
{
    struct match m;
    if (!match_reference(d, s, n, &m))
        return fail(eb, mismatch_error(d, s, n));
    size_t counted = d == WH_IMAGEREF_DOCKER ? m.name_len
                                             : m.name_len - (m.domain_len ? m.domain_len + 1 : 0);
    if (counted > NAME_MAX_LEN)
        return fail(eb, ERR_NAME_TOO_LONG);
    if (m.digest_at) {
        const char *err = digest_validate(s + m.digest_at, m.digest_len);
        if (err)
            return fail(eb, err);
    }
    set_parts(out, s, &m);
    return WH_OK;
}

enum wh_err wh_imageref_parse_ref(enum wh_imageref_dialect d, const char *s, size_t n,
                                  struct wh_imageref *out, struct wh_errbuf *eb)
{
    init(out);
    return parse_text(d, s, n, out, eb);
}

bool wh_imageref_parse(const char *s, struct wh_imageref *out)
{
    return wh_imageref_parse_ref(WH_IMAGEREF_DOCKER, s, strlen(s), out, NULL) == WH_OK;
}

/* anchoredIdentifierRegexp: exactly 64 lowercase hex digits. */
static bool identifier(const char *s, size_t n)
{
    if (n != 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!digit(s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
            return false;
    return true;
}

/* strings.ToLower(s) != s, which is how upstream tells an uppercase name */
static bool has_upper(const char *s, size_t n)
{
    return wh_go_lower_changes(s, n);
}

/* splitDockerDomain: the host the name names, or docker.io (and library/ for an official
 * image). *dom and *remainder point into s or at literals; *prefix is "" or "library/". */
static void split_docker_domain(enum wh_imageref_dialect d, const char *s, size_t n,
                                const char **dom, size_t *dom_len, const char **prefix,
                                const char **rem, size_t *rem_len)
{
    const char *slash = memchr(s, '/', n);
    size_t first = slash ? (size_t)(slash - s) : n;
    bool is_host = false;
    if (slash) {
        bool dot_colon = memchr(s, '.', first) || memchr(s, ':', first);
        bool localhost = first == 9 && memcmp(s, "localhost", 9) == 0;
        is_host = dot_colon || localhost;
        if (d == WH_IMAGEREF_DISTRIBUTION)
            is_host |= has_upper(s, first);
    }
    *prefix = "";
    if (is_host) {
        *dom = s;
        *dom_len = first;
        *rem = slash + 1;
        *rem_len = n - first - 1;
    } else {
        *dom = DOCKER_DOMAIN;
        *dom_len = strlen(DOCKER_DOMAIN);
        *rem = s;
        *rem_len = n;
    }
    if (*dom_len == strlen(LEGACY_DOCKER_DOMAIN) && memcmp(*dom, LEGACY_DOCKER_DOMAIN, *dom_len) == 0) {
        *dom = DOCKER_DOMAIN;
        *dom_len = strlen(DOCKER_DOMAIN);
    }
    bool docker = *dom_len == strlen(DOCKER_DOMAIN) && memcmp(*dom, DOCKER_DOMAIN, *dom_len) == 0;
    if (docker && !memchr(*rem, '/', *rem_len))
        *prefix = OFFICIAL_REPO;
}

/* Room for n bytes of the reference's own text, inline or on the heap (r holds none yet). */
static char *own_text(struct wh_imageref *r, size_t n)
{
    if (n <= sizeof(r->_inline))
        return r->_inline;
    r->_heap = wh_xmalloc(n);
    return r->_heap;
}

enum wh_err wh_imageref_parse_normalized(enum wh_imageref_dialect d, const char *s, size_t n,
                                         struct wh_imageref *out, struct wh_errbuf *eb)
{
    init(out);
    if (identifier(s, n)) {
        if (!eb)
            return WH_ERR_INVALID;
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "invalid repository name (%.*s), cannot specify 64-byte hexadecimal "
                             "strings",
                             (int)n, s);
    }
    const char *dom, *prefix, *rem;
    size_t dom_len, rem_len;
    split_docker_domain(d, s, n, &dom, &dom_len, &prefix, &rem, &rem_len);
    size_t plen = strlen(prefix);
    /* the remote name is the remainder up to its first colon */
    const char *colon = memchr(rem, ':', rem_len);
    size_t remote = colon ? (size_t)(colon - rem) : rem_len;
    if (has_upper(rem, remote)) {
        if (d == WH_IMAGEREF_DOCKER)
            return fail(eb, "invalid reference format: repository name must be lowercase");
        if (!eb)
            return WH_ERR_INVALID;
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "invalid reference format: repository name (%s%.*s) must be "
                             "lowercase",
                             prefix, (int)remote, rem);
    }
    size_t total = dom_len + 1 + plen + rem_len;
    char *text = own_text(out, total);
    memcpy(text, dom, dom_len);
    text[dom_len] = '/';
    memcpy(text + dom_len + 1, prefix, plen);
    memcpy(text + dom_len + 1 + plen, rem, rem_len);
    return parse_text(d, text, total, out, eb);
}

enum wh_err wh_imageref_parse_docker_ref(enum wh_imageref_dialect d, const char *s, size_t n,
                                         struct wh_imageref *out, struct wh_errbuf *eb)
{
    enum wh_err rc = wh_imageref_parse_normalized(d, s, n, out, eb);
    if (rc)
        return rc;
    if (out->tag && out->digest)
        out->tag = NULL, out->tag_len = 0;
    else if (!out->tag && !out->digest)
        out->tag = "latest", out->tag_len = 6;
    return WH_OK;
}

static bool span_eq(const char *a, size_t na, const char *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

enum wh_err wh_imageref_parse_named(enum wh_imageref_dialect d, const char *s, size_t n,
                                    struct wh_imageref *out, struct wh_errbuf *eb)
{
    enum wh_err rc = wh_imageref_parse_normalized(d, s, n, out, eb);
    if (rc)
        return rc;
    char *str = wh_imageref_string(out);
    bool canonical = span_eq(str, strlen(str), s, n);
    free(str);
    return canonical ? WH_OK : fail(eb, ERR_NOT_CANONICAL);
}

enum wh_err wh_imageref_parse_any(enum wh_imageref_dialect d, const char *s, size_t n,
                                  struct wh_imageref *out, struct wh_errbuf *eb)
{
    init(out);
    if (identifier(s, n)) {
        char *text = own_text(out, 7 + n);
        memcpy(text, "sha256:", 7);
        memcpy(text + 7, s, n);
        out->digest = text;
        out->digest_len = 7 + n;
        return WH_OK;
    }
    if (!digest_validate(s, n)) {
        out->digest = s;
        out->digest_len = n;
        return WH_OK;
    }
    return wh_imageref_parse_normalized(d, s, n, out, eb);
}

enum wh_err wh_imageref_with_name(enum wh_imageref_dialect d, const char *s, size_t n,
                                  struct wh_imageref *out, struct wh_errbuf *eb)
{
    init(out);
    if (d == WH_IMAGEREF_DOCKER && n > NAME_MAX_LEN)
        return fail(eb, ERR_NAME_TOO_LONG);
    struct match m = {.name_len = n};
    if (n == 0 || !split_name(d, s, n, &m.domain_len))
        return fail(eb, ERR_INVALID_FORMAT);
    if (d == WH_IMAGEREF_DISTRIBUTION && n - (m.domain_len ? m.domain_len + 1 : 0) > NAME_MAX_LEN)
        return fail(eb, ERR_NAME_TOO_LONG);
    set_parts(out, s, &m);
    return WH_OK;
}

enum wh_err wh_imageref_with_tag(struct wh_imageref *r, const char *tag, size_t n,
                                 struct wh_errbuf *eb)
{
    if (!tag_ok(tag, n))
        return fail(eb, "invalid tag format");
    r->tag = tag;
    r->tag_len = n;
    return WH_OK;
}

enum wh_err wh_imageref_with_digest(struct wh_imageref *r, const char *digest, size_t n,
                                    struct wh_errbuf *eb)
{
    if (!digest_shape(digest, n))
        return fail(eb, "invalid digest format");
    r->digest = digest;
    r->digest_len = n;
    return WH_OK;
}

/* --- printing ----------------------------------------------------------------------------- */

static char *print(const struct wh_imageref *r, const char *name, size_t name_len)
{
    if (!name)
        return wh_str_printf("%.*s", (int)r->digest_len, r->digest);
    return wh_str_printf("%.*s%s%.*s%s%.*s", (int)name_len, name, r->tag ? ":" : "",
                         (int)r->tag_len, r->tag ? r->tag : "", r->digest ? "@" : "",
                         (int)r->digest_len, r->digest ? r->digest : "");
}

char *wh_imageref_string(const struct wh_imageref *r)
{
    return print(r, r->name, r->name_len);
}

/* familiarizeName: docker.io's names without the host, and library/x as x. */
static void familiar(const struct wh_imageref *r, const char **name, size_t *len)
{
    *name = r->name;
    *len = r->name_len;
    if (!r->name || !span_eq(r->domain, r->domain_len, DOCKER_DOMAIN, strlen(DOCKER_DOMAIN)))
        return;
    *name = r->path;
    *len = r->path_len;
    size_t lib = strlen(OFFICIAL_REPO);
    if (r->path_len > lib && memcmp(r->path, OFFICIAL_REPO, lib) == 0 &&
        !memchr(r->path + lib, '/', r->path_len - lib)) {
        *name += lib;
        *len -= lib;
    }
}

char *wh_imageref_familiar_string(const struct wh_imageref *r)
{
    const char *name;
    size_t len;
    familiar(r, &name, &len);
    return print(r, name, len);
}

char *wh_imageref_familiar_name(const struct wh_imageref *r)
{
    const char *name;
    size_t len;
    familiar(r, &name, &len);
    return wh_str_printf("%.*s", (int)len, name ? name : "");
}

/* --- OpenKruise's and Kubernetes' uses ----------------------------------------------------- */

bool wh_imageref_is_digest(const char *s)
{
    struct wh_imageref r;
    return wh_imageref_parse(s, &r) && r.digest;
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

bool wh_imageref_pulls_latest(const char *image, size_t n)
{
    struct wh_imageref r = {0};
    bool latest = false;
    if (wh_imageref_parse_normalized(WH_IMAGEREF_DISTRIBUTION, image, n, &r, NULL) == WH_OK)
        latest = r.tag ? span_eq(r.tag, r.tag_len, "latest", 6) : !r.digest;
    wh_imageref_fini(&r);
    return latest;
}

const char *wh_imageref_normalize_error(const char *s, char *err, size_t errsz)
{
    if (!s)
        s = ""; /* Go's zero string */
    struct wh_imageref r;
    struct wh_errbuf eb = {{0}};
    enum wh_err rc = wh_imageref_parse_normalized(WH_IMAGEREF_DOCKER, s, strlen(s), &r, &eb);
    wh_imageref_fini(&r);
    if (rc == WH_OK)
        return NULL;
    snprintf(err, errsz, "%s", eb.msg);
    return err;
}
