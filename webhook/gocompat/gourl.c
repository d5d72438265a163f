#include "gocompat/gourl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/fielderr.h"

/* The parts of a URL are checked in the order Parse checks them, so the first error is Go's.
 * Every check reports into one errbuf through fail(). */

struct span {
    const char *p;
    size_t n;
};

/* url.Error: "parse <the URL, %q>: <what>". */
static enum wh_err fail(struct wh_errbuf *eb, const char *whole, const char *detail)
{
    char *q = wh_go_quote(whole);
    enum wh_err rc = wh_errbuf_set(eb, WH_ERR_INVALID, "parse %s: %s", q, detail);
    free(q);
    return rc;
}

static bool ishex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int unhex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c - 'A' + 10;
}

/* What a host (and an IPv6 zone) may hold unescaped, of the ASCII bytes: shouldEscape is false
 * (net/url's encoding table). */
static bool host_byte(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c && strchr("!\"$&'()*+,-.:;<=>[]_~", c) != NULL;
}

enum mode { PLAIN, HOST, ZONE };

/* EscapeError: "invalid URL escape " and the escape, strconv.Quote'd. */
static void escape_error(const char *p, size_t n, char *why, size_t whysz)
{
    char raw[4];
    memcpy(raw, p, n);
    raw[n] = '\0';
    char *q = wh_go_quote(raw);
    snprintf(why, whysz, "invalid URL escape %s", q);
    free(q);
}

/* unescape(s, mode): every '%' followed by two hex digits; in a host only non-ASCII bytes (and
 * %25) may be escaped and the ASCII bytes must be host bytes; in a zone an escape may only
 * stand for a host byte or a space. Returns the error text in out (empty when fine). */
static bool unescape_ok(struct span s, enum mode mode, char *why, size_t whysz)
{
    for (size_t i = 0; i < s.n;) {
        unsigned char c = (unsigned char)s.p[i];
        if (c == '%') {
            if (i + 2 >= s.n || !ishex(s.p[i + 1]) || !ishex(s.p[i + 2])) {
                escape_error(s.p + i, s.n - i < 3 ? s.n - i : 3, why, whysz);
                return false;
            }
            int v = unhex(s.p[i + 1]) << 4 | unhex(s.p[i + 2]);
            bool pct25 = s.p[i + 1] == '2' && s.p[i + 2] == '5';
            if ((mode == HOST && unhex(s.p[i + 1]) < 8 && !pct25) ||
                (mode == ZONE && !pct25 && v != ' ' &&
                 (v >= 0x80 || !host_byte((unsigned char)v)))) {
                escape_error(s.p + i, 3, why, whysz);
                return false;
            }
            i += 3;
            continue;
        }
        if (mode != PLAIN && c < 0x80 && !host_byte(c)) {
            snprintf(why, whysz, "invalid character \"%c\" in host name", c);
            return false;
        }
        i++;
    }
    return true;
}

/* strconv.Quote of a short ASCII-or-not string, as fmt's %q prints it (the port after a host):
 * quotes and backslashes escaped, other bytes as they are -- Parse's callers only ever put
 * host bytes there. */
static void quote(struct span s, char *out, size_t outsz)
{
    size_t k = 0;
    if (outsz < 3)
        return;
    out[k++] = '"';
    for (size_t i = 0; i < s.n && k + 3 < outsz; i++) {
        if (s.p[i] == '"' || s.p[i] == '\\')
            out[k++] = '\\';
        out[k++] = s.p[i];
    }
    out[k++] = '"';
    out[k] = '\0';
}

static bool valid_optional_port(struct span p)
{
    if (p.n == 0)
        return true;
    if (p.p[0] != ':')
        return false;
    for (size_t i = 1; i < p.n; i++) {
        if (p.p[i] < '0' || p.p[i] > '9')
            return false;
    }
    return true;
}

/* parseIPv4Fields: four decimal fields of at most 255 without leading zeros. */
static bool ipv4_ok(const char *s, size_t n)
{
    int fields = 0, digits = 0, val = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (digits == 0 || fields == 4)
                return false;
            fields++;
            digits = val = 0;
            continue;
        }
        if (s[i] < '0' || s[i] > '9' || (digits == 1 && val == 0))
            return false;
        val = val * 10 + (s[i] - '0');
        digits++;
        if (val > 255)
            return false;
    }
    return fields == 4;
}

/* netip.ParseAddr of the bracketed host, unescaped, accepting IPv6 only (an IPv4 address in
 * brackets is an "invalid IP-literal" to Parse, so any '.' before a ':' fails). */
static bool ipv6_ok(const char *in, size_t n)
{
    size_t i0 = 0;
    while (i0 < n && in[i0] != '.' && in[i0] != ':' && in[i0] != '%')
        i0++;
    if (i0 == n || in[i0] != ':')
        return false;
    const char *zone = memchr(in, '%', n);
    size_t len = zone ? (size_t)(zone - in) : n;
    if (zone && zone + 1 == in + n)
        return false; /* an empty zone */
    const char *s = in, *end = in + len;
    int fields = 0, ellipsis = -1;
    if (len >= 2 && s[0] == ':' && s[1] == ':') {
        ellipsis = 0;
        s += 2;
        if (s == end)
            return true;
    }
    while (fields < 8) {
        const char *start = s;
        unsigned acc = 0;
        while (s < end && ishex(*s)) {
            acc = acc << 4 | (unsigned)unhex(*s);
            s++;
            if (s - start > 4 || acc > 0xffff)
                return false;
        }
        if (s == start)
            return false;
        if (s < end && *s == '.') {
            /* an embedded IPv4 address takes the last two fields */
            if ((ellipsis < 0 && fields != 6) || fields + 2 > 8 ||
                !ipv4_ok(start, (size_t)(end - start)))
                return false;
            fields += 2;
            s = end;
            break;
        }
        fields++;
        if (s == end)
            break;
        if (*s != ':' || s + 1 == end)
            return false;
        s++;
        if (*s == ':') {
            if (ellipsis >= 0)
                return false;
            ellipsis = fields;
            s++;
            if (s == end)
                break;
        }
    }
    if (s != end)
        return false;
    return fields < 8 ? ellipsis >= 0 : ellipsis < 0;
}

/* parseHost. */
static bool host_ok(struct span h, const char *scheme, char *why, size_t whysz)
{
    const char *open = NULL;
    for (size_t i = 0; i < h.n; i++) {
        if (h.p[i] == '[')
            open = h.p + i;
    }
    if (open && open != h.p) {
        snprintf(why, whysz, "invalid IP-literal");
        return false;
    }
    char q[96];
    if (open) {
        const char *close = NULL;
        for (size_t i = 0; i < h.n; i++) {
            if (h.p[i] == ']')
                close = h.p + i;
        }
        if (!close) {
            snprintf(why, whysz, "missing ']' in host");
            return false;
        }
        struct span port = {close + 1, (size_t)(h.p + h.n - close - 1)};
        if (!valid_optional_port(port)) {
            quote(port, q, sizeof(q));
            snprintf(why, whysz, "invalid port %s after host", q);
            return false;
        }
        struct span name = {h.p + 1, (size_t)(close - h.p - 1)};
        const char *z = NULL;
        for (size_t i = 0; i + 2 < name.n && !z; i++) {
            if (name.p[i] == '%' && name.p[i + 1] == '2' && name.p[i + 2] == '5')
                z = name.p + i;
        }
        struct span addr = {name.p, z ? (size_t)(z - name.p) : name.n};
        struct span zone = {z, z ? (size_t)(name.p + name.n - z) : 0};
        if (!unescape_ok(addr, HOST, why, whysz) || (z && !unescape_ok(zone, ZONE, why, whysz)))
            return false;
        /* the unescaped address: the zone's "%25" is its '%'; escapes elsewhere can only be
         * non-ASCII bytes, which no IPv6 address holds */
        char buf[256];
        size_t k = 0;
        for (size_t i = 0; i < name.n && k + 1 < sizeof(buf); i++) {
            if (name.p[i] == '%') {
                buf[k++] = (char)(unhex(name.p[i + 1]) << 4 | unhex(name.p[i + 2]));
                i += 2;
            } else {
                buf[k++] = name.p[i];
            }
        }
        size_t dot = 0;
        while (dot < k && buf[dot] != '.' && buf[dot] != ':' && buf[dot] != '%')
            dot++;
        if (dot < k && buf[dot] == '.' && ipv4_ok(buf, k)) {
            snprintf(why, whysz, "invalid IP-literal");
            return false;
        }
        if (k + 1 >= sizeof(buf) || !ipv6_ok(buf, k)) {
            snprintf(why, whysz, "invalid host: ParseAddr(\"%.*s\"): not an IPv6 address", (int)k,
                     buf);
            return false;
        }
        return true;
    }
    const char *first = memchr(h.p, ':', h.n);
    if (first) {
        const char *last = first;
        for (const char *c = first; c < h.p + h.n; c++) {
            if (*c == ':')
                last = c;
        }
        /* only http and https URLs keep the first colon (go.dev/issue/75223) */
        bool strict = strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0;
        struct span port = {strict ? first : last, (size_t)(h.p + h.n - (strict ? first : last))};
        if (!valid_optional_port(port)) {
            quote(port, q, sizeof(q));
            snprintf(why, whysz, "invalid port %s after host", q);
            return false;
        }
    }
    return unescape_ok(h, HOST, why, whysz);
}

static bool userinfo_byte(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c && strchr("-._:~!$&'()*+,;=%@", c) != NULL;
}

/* parseAuthority: the host after the last '@', then the userinfo before it. */
static bool authority_ok(struct span a, const char *scheme, char *why, size_t whysz)
{
    const char *at = NULL;
    for (size_t i = 0; i < a.n; i++) {
        if (a.p[i] == '@')
            at = a.p + i;
    }
    struct span host = at ? (struct span){at + 1, (size_t)(a.p + a.n - at - 1)} : a;
    if (!host_ok(host, scheme, why, whysz))
        return false;
    if (!at)
        return true;
    struct span user = {a.p, (size_t)(at - a.p)};
    for (size_t i = 0; i < user.n; i++) {
        if (!userinfo_byte((unsigned char)user.p[i])) {
            snprintf(why, whysz, "net/url: invalid userinfo");
            return false;
        }
    }
    /* the user and the password are unescaped apart, so an escape cut by the first ':' fails */
    const char *colon = memchr(user.p, ':', user.n);
    if (!colon)
        return unescape_ok(user, PLAIN, why, whysz);
    struct span name = {user.p, (size_t)(colon - user.p)};
    struct span pass = {colon + 1, (size_t)(user.p + user.n - colon - 1)};
    return unescape_ok(name, PLAIN, why, whysz) && unescape_ok(pass, PLAIN, why, whysz);
}

enum wh_err wh_gourl_parse(const char *s, struct wh_errbuf *eb)
{
    char why[200] = "";
    size_t n = strlen(s);
    const char *hash = memchr(s, '#', n);
    struct span u = {s, hash ? (size_t)(hash - s) : n};
    char whole[1024];
    snprintf(whole, sizeof(whole), "%.*s", (int)u.n, u.p);
    for (size_t i = 0; i < u.n; i++) {
        if ((unsigned char)u.p[i] < ' ' || u.p[i] == 0x7f)
            return fail(eb, whole, "net/url: invalid control character in URL");
    }
    if (u.n == 1 && u.p[0] == '*')
        goto fragment;
    /* getScheme */
    char scheme[64] = "";
    struct span rest = u;
    for (size_t i = 0; i < u.n; i++) {
        char c = u.p[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            continue;
        if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
            if (i == 0)
                break;
            continue;
        }
        if (c == ':') {
            if (i == 0)
                return fail(eb, whole, "missing protocol scheme");
            for (size_t k = 0; k < i && k + 1 < sizeof(scheme); k++)
                scheme[k] = (char)(u.p[k] >= 'A' && u.p[k] <= 'Z' ? u.p[k] - 'A' + 'a' : u.p[k]);
            rest = (struct span){u.p + i + 1, u.n - i - 1};
        }
        break;
    }
    /* the query is cut off unchecked */
    const char *q = memchr(rest.p, '?', rest.n);
    if (q)
        rest.n = (size_t)(q - rest.p);
    if (!(rest.n && rest.p[0] == '/')) {
        if (scheme[0])
            goto fragment; /* opaque */
        const char *slash = memchr(rest.p, '/', rest.n);
        size_t seg = slash ? (size_t)(slash - rest.p) : rest.n;
        if (memchr(rest.p, ':', seg))
            return fail(eb, whole, "first path segment in URL cannot contain colon");
    }
    bool triple = rest.n >= 3 && memcmp(rest.p, "///", 3) == 0;
    if ((scheme[0] || !triple) && rest.n >= 2 && memcmp(rest.p, "//", 2) == 0) {
        struct span a = {rest.p + 2, rest.n - 2};
        const char *slash = memchr(a.p, '/', a.n);
        struct span path = {a.p + a.n, 0};
        if (slash) {
            path = (struct span){slash, (size_t)(a.p + a.n - slash)};
            a.n = (size_t)(slash - a.p);
        }
        if (!authority_ok(a, scheme, why, sizeof(why)))
            return fail(eb, whole, why);
        rest = path;
    }
    if (!unescape_ok(rest, PLAIN, why, sizeof(why)))
        return fail(eb, whole, why);
fragment:
    if (hash && hash[1]) {
        struct span f = {hash + 1, n - u.n - 1};
        if (!unescape_ok(f, PLAIN, why, sizeof(why)))
            return fail(eb, s, why);
    }
    return WH_OK;
}
