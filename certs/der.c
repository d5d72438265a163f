#include "certs/der.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* X.509 nests about eight levels deep; the cap only keeps hostile input off the stack. */
#define MAX_DEPTH 24
/* Go keeps every extension; 256 is far beyond any real certificate. */
#define MAX_EXTENSIONS 256

enum {
    CLASS_MASK = 0xc0,
    CLASS_UNIVERSAL = 0x00,
    CLASS_CONTEXT = 0x80,
    CONSTRUCTED = 0x20,
    NUMBER_MASK = 0x1f,
    T_BOOLEAN = 1,
    T_INTEGER = 2,
    T_BIT_STRING = 3,
    T_OCTET_STRING = 4,
    T_NULL = 5,
    T_OID = 6,
    T_EXTERNAL = 8,
    T_ENUMERATED = 10,
    T_EMBEDDED_PDV = 11,
    T_UTF8_STRING = 12,
    T_SEQUENCE = 16,
    T_SET = 17,
    T_PRINTABLE_STRING = 19,
    T_IA5_STRING = 22,
    T_UTC_TIME = 23,
    T_GENERALIZED_TIME = 24,
    T_CHARACTER_STRING = 29,
};

/* One tag-length-value; offsets count from the start of the outermost buffer so that a
 * message points at the byte an `openssl asn1parse` listing shows. */
struct tlv {
    unsigned char tag;
    size_t off;     /* of the tag byte */
    size_t val_off; /* of the first content byte */
    size_t len;     /* content length */
};

struct walker {
    const unsigned char *base;
    struct wh_errbuf *eb;
};

static enum wh_err fail(const struct walker *w, size_t off, const char *what, const char *rule)
{
    return wh_errbuf_set(w->eb, WH_ERR_PARSE, "%s at byte %zu: %s", what, off, rule);
}

static const char *type_name(unsigned char tag)
{
    if ((tag & CLASS_MASK) != CLASS_UNIVERSAL)
        return "tagged value";
    switch (tag & NUMBER_MASK) {
    case T_BOOLEAN:
        return "BOOLEAN";
    case T_INTEGER:
        return "INTEGER";
    case T_BIT_STRING:
        return "BIT STRING";
    case T_OCTET_STRING:
        return "OCTET STRING";
    case T_NULL:
        return "NULL";
    case T_OID:
        return "OBJECT IDENTIFIER";
    case T_ENUMERATED:
        return "ENUMERATED";
    case T_UTF8_STRING:
        return "UTF8String";
    case T_SEQUENCE:
        return "SEQUENCE";
    case T_SET:
        return "SET";
    case T_PRINTABLE_STRING:
        return "PrintableString";
    case T_IA5_STRING:
        return "IA5String";
    case T_UTC_TIME:
        return "UTCTime";
    case T_GENERALIZED_TIME:
        return "GeneralizedTime";
    case T_EXTERNAL:
        return "EXTERNAL";
    case T_EMBEDDED_PDV:
        return "EMBEDDED PDV";
    case T_CHARACTER_STRING:
        return "CHARACTER STRING";
    default:
        return "value";
    }
}

/* Reads the header at pos; the value must end by end. */
static enum wh_err read_tlv(const struct walker *w, size_t pos, size_t end, struct tlv *t)
{
    const unsigned char *b = w->base;
    if (end - pos < 2)
        return fail(w, pos, "value", "truncated header");
    t->off = pos;
    t->tag = b[pos++];
    if ((t->tag & NUMBER_MASK) == NUMBER_MASK)
        return fail(w, t->off, "tag", "high-tag-number form (not used by X.509)");
    unsigned char first = b[pos++];
    size_t len = first;
    if (first == 0x80)
        return fail(w, t->off, type_name(t->tag), "indefinite length");
    if (first > 0x80) {
        size_t n = first & 0x7f;
        if (n > 4)
            return fail(w, t->off, type_name(t->tag), "length of more than 4 bytes");
        if (end - pos < n)
            return fail(w, t->off, type_name(t->tag), "truncated length");
        if (b[pos] == 0)
            return fail(w, t->off, type_name(t->tag), "length with a leading zero byte");
        len = 0;
        for (size_t i = 0; i < n; i++)
            len = (len << 8) | b[pos++];
        if (len < 0x80)
            return fail(w, t->off, type_name(t->tag), "long-form length below 128");
    }
    if (end - pos < len)
        return fail(w, t->off, type_name(t->tag), "value runs past its container");
    t->val_off = pos;
    t->len = len;
    return WH_OK;
}

static size_t tlv_end(const struct tlv *t)
{
    return t->val_off + t->len;
}

static bool digits(const unsigned char *p, size_t n, int *out)
{
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return true;
}

/* MMDDHHMMSSZ after the year, each field in range; Go re-formats the parsed time and
 * requires the same text back, so nothing else is accepted. */
static bool time_tail_ok(const unsigned char *p)
{
    int mon, day, hour, min, sec;
    return digits(p, 2, &mon) && digits(p + 2, 2, &day) && digits(p + 4, 2, &hour) &&
           digits(p + 6, 2, &min) && digits(p + 8, 2, &sec) && mon >= 1 && mon <= 12 && day >= 1 &&
           day <= 31 && hour <= 23 && min <= 59 && sec <= 59 && p[10] == 'Z';
}

/* Go's x509 accepts '*' and '&' in a PrintableString for compatibility with real CAs. */
static bool printable(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c >= '\'' && c <= ')') || (c >= '+' && c <= '/') || c == ' ' || c == ':' || c == '=' ||
           c == '?' || c == '*' || c == '&';
}

/* Go's utf8.Valid: no overlong forms, no surrogates, nothing above U+10FFFF. */
static bool utf8_valid(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        size_t extra;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            extra = 1, cp = c & 0x1f, min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            extra = 2, cp = c & 0x0f, min = 0x800;
        } else if ((c & 0xf8) == 0xf0) {
            extra = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return false;
        }
        if (n - i - 1 < extra)
            return false;
        for (size_t k = 1; k <= extra; k++) {
            if ((p[i + k] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += extra + 1;
    }
    return true;
}

static enum wh_err check_oid(const struct walker *w, const struct tlv *t)
{
    const unsigned char *v = w->base + t->val_off;
    if (t->len == 0)
        return fail(w, t->off, "OBJECT IDENTIFIER", "empty");
    uint64_t sub = 0;
    bool start = true;
    for (size_t i = 0; i < t->len; i++) {
        if (start && v[i] == 0x80)
            return fail(w, t->off, "OBJECT IDENTIFIER", "subidentifier not minimally encoded");
        sub = (sub << 7) | (v[i] & 0x7f);
        if (sub > 0x7fffffff)
            return fail(w, t->off, "OBJECT IDENTIFIER", "subidentifier above 2^31-1");
        start = !(v[i] & 0x80);
        if (start)
            sub = 0;
    }
    if (!start)
        return fail(w, t->off, "OBJECT IDENTIFIER", "last subidentifier unterminated");
    return WH_OK;
}

/* The rules of one primitive universal type. */
static enum wh_err check_primitive(const struct walker *w, const struct tlv *t)
{
    const unsigned char *v = w->base + t->val_off;
    const char *what = type_name(t->tag);
    switch (t->tag & NUMBER_MASK) {
    case T_BOOLEAN:
        if (t->len != 1)
            return fail(w, t->off, what, "length is not 1");
        if (v[0] != 0x00 && v[0] != 0xff)
            return wh_errbuf_set(w->eb, WH_ERR_PARSE,
                                 "BOOLEAN at byte %zu: value 0x%02x, DER allows only 0x00 and "
                                 "0xff",
                                 t->off, v[0]);
        return WH_OK;
    case T_INTEGER:
    case T_ENUMERATED:
        if (t->len == 0)
            return fail(w, t->off, what, "empty");
        if (t->len > 1 && ((v[0] == 0x00 && !(v[1] & 0x80)) || (v[0] == 0xff && (v[1] & 0x80))))
            return fail(w, t->off, what, "not minimally encoded (redundant leading byte)");
        return WH_OK;
    case T_BIT_STRING:
        if (t->len == 0)
            return fail(w, t->off, what, "empty");
        if (v[0] > 7 || (t->len == 1 && v[0] != 0))
            return fail(w, t->off, what, "invalid number of unused bits");
        if (t->len > 1 && (v[t->len - 1] & ((1u << v[0]) - 1)) != 0)
            return fail(w, t->off, what, "unused bits are not zero");
        return WH_OK;
    case T_NULL:
        return t->len == 0 ? WH_OK : fail(w, t->off, what, "not empty");
    case T_OID:
        return check_oid(w, t);
    case T_UTF8_STRING:
        return utf8_valid(v, t->len) ? WH_OK : fail(w, t->off, what, "not valid UTF-8");
    case T_PRINTABLE_STRING:
        for (size_t i = 0; i < t->len; i++) {
            if (!printable(v[i]))
                return fail(w, t->off, what, "character outside the PrintableString set");
        }
        return WH_OK;
    case T_IA5_STRING:
        for (size_t i = 0; i < t->len; i++) {
            if (v[i] >= 0x80)
                return fail(w, t->off, what, "byte above 0x7f");
        }
        return WH_OK;
    case T_UTC_TIME: {
        int yy;
        if (t->len != 13 || !digits(v, 2, &yy) || !time_tail_ok(v + 2))
            return fail(w, t->off, what, "not of the form YYMMDDHHMMSSZ");
        return WH_OK;
    }
    case T_GENERALIZED_TIME: {
        int yyyy;
        if (t->len != 15 || !digits(v, 4, &yyyy) || !time_tail_ok(v + 4))
            return fail(w, t->off, what, "not of the form YYYYMMDDHHMMSSZ");
        return WH_OK;
    }
    default:
        return WH_OK; /* OCTET STRING and types X.509 does not use here: opaque */
    }
}

/* The structured universal types no certificate uses (EXTERNAL, EMBEDDED PDV, CHARACTER
 * STRING): refused, as Go refuses them in names and OpenSSL does not keep their form when it
 * re-encodes an algorithm's parameters. */
static bool unused_structured(unsigned char tag)
{
    unsigned n = tag & NUMBER_MASK;
    return n == T_EXTERNAL || n == T_EMBEDDED_PDV || n == T_CHARACTER_STRING;
}

static enum wh_err check_value(const struct walker *w, const struct tlv *t, int depth);

/* Every value between pos and end, which they must fill exactly. */
static enum wh_err check_children(const struct walker *w, size_t pos, size_t end, int depth)
{
    while (pos < end) {
        struct tlv c;
        enum wh_err rc = read_tlv(w, pos, end, &c);
        if (!rc)
            rc = check_value(w, &c, depth);
        if (rc)
            return rc;
        pos = tlv_end(&c);
    }
    return WH_OK;
}

static enum wh_err check_value(const struct walker *w, const struct tlv *t, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(w, t->off, type_name(t->tag), "nested too deeply");
    bool constructed = (t->tag & CONSTRUCTED) != 0;
    if ((t->tag & CLASS_MASK) == CLASS_UNIVERSAL) {
        unsigned n = t->tag & NUMBER_MASK;
        bool structured = n == T_SEQUENCE || n == T_SET;
        if (unused_structured(t->tag))
            return fail(w, t->off, type_name(t->tag), "type not used by X.509");
        /* X.690 10.2: DER encodes every universal type but the structured ones primitively. */
        if (structured && !constructed)
            return fail(w, t->off, type_name(t->tag), "primitive form");
        if (!structured && constructed)
            return fail(w, t->off, type_name(t->tag), "constructed form");
        if (!constructed)
            return check_primitive(w, t);
    }
    /* Tagged primitives are IMPLICIT values of a type not known here: opaque. */
    if (!constructed)
        return WH_OK;
    return check_children(w, t->val_off, tlv_end(t), depth + 1);
}

/* One DER value that must fill [pos, end) exactly. */
static enum wh_err check_whole(const struct walker *w, size_t pos, size_t end, const char *what,
                               struct tlv *out)
{
    enum wh_err rc = read_tlv(w, pos, end, out);
    if (rc)
        return rc;
    if (tlv_end(out) != end)
        return fail(w, tlv_end(out), what, "trailing data");
    return check_value(w, out, 0);
}

enum wh_err wh_certs_der_check(const unsigned char *der, size_t len, struct wh_errbuf *eb)
{
    struct walker w = {der, eb};
    struct tlv t;
    if (!der || len == 0)
        return wh_errbuf_set(eb, WH_ERR_PARSE, "empty");
    return check_whole(&w, 0, len, "value", &t);
}

/* The n-th child of a constructed value; false when it has fewer (after a full check, the
 * structure is known to be well formed). */
static bool child(const struct walker *w, const struct tlv *parent, int n, struct tlv *out)
{
    size_t pos = parent->val_off, end = tlv_end(parent);
    for (int i = 0; pos < end; i++) {
        if (read_tlv(w, pos, end, out) != WH_OK)
            return false;
        if (i == n)
            return true;
        pos = tlv_end(out);
    }
    return false;
}

static bool oid_is(const struct walker *w, const struct tlv *oid, const unsigned char *want,
                   size_t n)
{
    return oid->len == n && memcmp(w->base + oid->val_off, want, n) == 0;
}

/* DEFAULT values and named bit lists inside the two extensions our certificates carry that
 * have them; the encodings of all values were checked before. */
static enum wh_err check_extension_value(const struct walker *w, const struct tlv *oid,
                                         const struct tlv *value)
{
    static const unsigned char basic_constraints[] = {0x55, 0x1d, 0x13};
    static const unsigned char key_usage[] = {0x55, 0x1d, 0x0f};
    struct tlv c;
    if (oid_is(w, oid, basic_constraints, sizeof(basic_constraints))) {
        if (child(w, value, 0, &c) && c.tag == T_BOOLEAN && w->base[c.val_off] == 0x00)
            return fail(w, c.off, "basicConstraints cA",
                        "FALSE is the default and must be omitted");
        return WH_OK;
    }
    if (oid_is(w, oid, key_usage, sizeof(key_usage)) && value->tag == T_BIT_STRING &&
        value->len > 1) {
        const unsigned char *v = w->base + value->val_off;
        if (((v[value->len - 1] >> v[0]) & 1) == 0)
            return fail(w, value->off, "keyUsage", "trailing zero bits in a named bit list");
    }
    return WH_OK;
}

/* tbsCertificate.extensions: [3] EXPLICIT SEQUENCE OF Extension. */
static enum wh_err check_extensions(const struct walker *w, const struct tlv *wrapper)
{
    struct tlv list, ext, oid, next, value;
    struct tlv seen[MAX_EXTENSIONS];
    size_t nseen = 0;
    if (!child(w, wrapper, 0, &list) || list.tag != (CONSTRUCTED | T_SEQUENCE) ||
        tlv_end(&list) != tlv_end(wrapper))
        return fail(w, wrapper->off, "extensions", "not one SEQUENCE");
    for (size_t pos = list.val_off; pos < tlv_end(&list); pos = tlv_end(&ext)) {
        if (read_tlv(w, pos, tlv_end(&list), &ext) != WH_OK ||
            ext.tag != (CONSTRUCTED | T_SEQUENCE) || !child(w, &ext, 0, &oid) || oid.tag != T_OID ||
            !child(w, &ext, 1, &next))
            return fail(w, pos, "extension", "not a SEQUENCE of OID, critical, value");
        int vi = 1;
        if (next.tag == T_BOOLEAN) {
            if (w->base[next.val_off] == 0x00)
                return fail(w, next.off, "extension critical",
                            "FALSE is the default and must be omitted");
            vi = 2;
        }
        struct tlv extra;
        if (!child(w, &ext, vi, &value) || value.tag != T_OCTET_STRING ||
            child(w, &ext, vi + 1, &extra))
            return fail(w, ext.off, "extension", "not a SEQUENCE of OID, critical, value");
        for (size_t i = 0; i < nseen; i++) {
            if (seen[i].len == oid.len &&
                memcmp(w->base + seen[i].val_off, w->base + oid.val_off, oid.len) == 0)
                return fail(w, oid.off, "extension", "appears twice");
        }
        if (nseen == MAX_EXTENSIONS)
            return fail(w, ext.off, "extension", "more than 256 extensions");
        seen[nseen++] = oid;
        /* extnValue holds the DER of the extension itself: the same rules apply inside. */
        struct tlv inner;
        enum wh_err rc = check_whole(w, value.val_off, tlv_end(&value), "extension value", &inner);
        if (!rc)
            rc = check_extension_value(w, &oid, &inner);
        if (rc)
            return rc;
    }
    return WH_OK;
}

enum wh_err wh_certs_der_check_cert(const unsigned char *der, size_t len, struct wh_errbuf *eb)
{
    struct walker w = {der, eb};
    struct tlv cert, tbs, f;
    if (!der || len == 0)
        return wh_errbuf_set(eb, WH_ERR_PARSE, "empty certificate");
    enum wh_err rc = check_whole(&w, 0, len, "certificate", &cert);
    if (rc)
        return rc;
    if (cert.tag != (CONSTRUCTED | T_SEQUENCE) || !child(&w, &cert, 0, &tbs) ||
        tbs.tag != (CONSTRUCTED | T_SEQUENCE))
        return fail(&w, 0, "certificate", "not a SEQUENCE holding a tbsCertificate");
    for (int i = 0; child(&w, &tbs, i, &f); i++) {
        if (f.tag == (CLASS_CONTEXT | CONSTRUCTED | 3))
            return check_extensions(&w, &f);
    }
    return WH_OK;
}
