#include "gocompat/regex.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/mem.h"

/* Patterns come from objects (whitelists, resourcesPolicy); the cap bounds the translation. */
#define PATTERN_CAP (64u * 1024)

static bool fail(char *msg, size_t msgsz, const char *code, const char *expr, size_t exprlen)
{
    if (msg && msgsz)
        snprintf(msg, msgsz, "error parsing regexp: %s: `%.*s`", code, (int)exprlen, expr);
    return false;
}

/* Length of a valid escape at p (p[0] == '\\'), or 0 when Go rejects it. in_class: inside [...]
 * (where \b, \A, \z and friends are not allowed). */
static size_t escape_len(const char *p, bool in_class)
{
    char c = p[1];
    if (c == 0)
        return 0;
    if (strchr("afnrtv", c) || strchr("dDsSwW", c))
        return 2;
    if (!in_class && strchr("bBAz", c))
        return 2;
    if (c >= '0' && c <= '7') {
        /* octal: \0 and \0nn; \1-\7 would be backreferences, which RE2 rejects */
        if (c != '0' && !(isdigit((unsigned char)p[2])))
            return 0;
        size_t n = 2;
        while (n < 4 && p[n] >= '0' && p[n] <= '7')
            n++;
        return c == '0' || n > 2 ? n : 0;
    }
    if (c == 'x') {
        if (p[2] == '{') {
            size_t n = 3;
            while (isxdigit((unsigned char)p[n]))
                n++;
            return p[n] == '}' && n > 3 ? n + 1 : 0;
        }
        return isxdigit((unsigned char)p[2]) && isxdigit((unsigned char)p[3]) ? 4 : 0;
    }
    if (c == 'p' || c == 'P') {
        if (p[2] == '{') {
            const char *close = strchr(p + 3, '}');
            return close ? (size_t)(close - p) + 1 : 0;
        }
        return isalpha((unsigned char)p[2]) ? 3 : 0;
    }
    /* any punctuation may be escaped; letters and digits may not */
    if ((unsigned char)c < 0x80 && !isalnum((unsigned char)c) && c != '_')
        return 2;
    return 0;
}

/* A POSIX-style named class "[:name:]" or "[:^name:]" at p: its length, 0 when p does not
 * start one (then '[' is a literal), or SIZE_MAX when the name is unknown (a Go error). */
static size_t named_class(const char *p)
{
    static const char *const names[] = {"alnum", "alpha", "ascii", "blank", "cntrl",
                                        "digit", "graph", "lower", "print", "punct",
                                        "space", "upper", "word",  "xdigit"};
    if (p[0] != '[' || p[1] != ':')
        return 0;
    const char *close = strstr(p + 2, ":]");
    if (!close)
        return 0;
    const char *name = p + 2;
    if (*name == '^')
        name++;
    size_t n = (size_t)(close - name);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strlen(names[i]) == n && memcmp(names[i], name, n) == 0)
            return (size_t)(close - p) + 2;
    return SIZE_MAX;
}

/* Scans a character class starting at p ('['); returns its length or 0 with msg set. */
static size_t scan_class(const char *p, char *msg, size_t msgsz)
{
    const char *q = p + 1;
    if (*q == '^')
        q++;
    bool first = true;
    while (*q && (*q != ']' || first)) {
        const char *item = q;
        int lo, hi;
        size_t nc = named_class(q);
        if (nc == SIZE_MAX) {
            const char *close = strstr(q + 2, ":]");
            return fail(msg, msgsz, "invalid character class range", q, (size_t)(close - q) + 2)
                       ? 0
                       : 0;
        }
        if (nc) {
            q += nc;
            first = false;
            continue;
        }
        if (*q == '\\') {
            size_t n = escape_len(q, true);
            if (n == 0) {
                if (q[1] == 0)
                    return fail(msg, msgsz, "missing closing ]", p, strlen(p)) ? 0 : 0;
                size_t el = 2;
                return fail(msg, msgsz, "invalid escape sequence", q, el) ? 0 : 0;
            }
            lo = (unsigned char)q[1];
            q += n;
        } else {
            lo = (unsigned char)*q;
            q++;
        }
        first = false;
        if (q[0] == '-' && q[1] && q[1] != ']') {
            const char *h = q + 1;
            if (*h == '\\') {
                size_t n = escape_len(h, true);
                if (n == 0)
                    return fail(msg, msgsz, "invalid escape sequence", h, 2) ? 0 : 0;
                hi = (unsigned char)h[1];
                q = h + n;
            } else {
                hi = (unsigned char)*h;
                q = h + 1;
            }
            if (hi < lo)
                return fail(msg, msgsz, "invalid character class range", item, (size_t)(q - item))
                           ? 0
                           : 0;
        }
    }
    if (*q != ']')
        return fail(msg, msgsz, "missing closing ]", p, strlen(p)) ? 0 : 0;
    return (size_t)(q - p) + 1;
}

/* A repetition {n}, {n,} or {n,m} at p: its length, or 0 when p is a literal '{'. */
static size_t scan_repeat(const char *p, int *min, int *max)
{
    const char *q = p + 1;
    long a = -1, b = -1;
    if (!isdigit((unsigned char)*q))
        return 0;
    a = 0;
    while (isdigit((unsigned char)*q)) {
        a = a * 10 + (*q - '0');
        if (a > 100000)
            a = 100000;
        q++;
    }
    if (*q == ',') {
        q++;
        if (isdigit((unsigned char)*q)) {
            b = 0;
            while (isdigit((unsigned char)*q)) {
                b = b * 10 + (*q - '0');
                if (b > 100000)
                    b = 100000;
                q++;
            }
        } else {
            b = -2; /* unbounded */
        }
    } else {
        b = a;
    }
    if (*q != '}')
        return 0;
    *min = (int)a;
    *max = (int)b;
    return (size_t)(q - p) + 1;
}

bool wh_regex_check(const char *pattern, char *msg, size_t msgsz)
{
    const char *p = pattern;
    int depth = 0;
    bool have_operand = false; /* something a repetition can apply to */
    const char *last_repeat = NULL;
    while (*p) {
        const char *tok = p;
        size_t n;
        int min, max;
        switch (*p) {
        case '(':
            if (p[1] == '?') {
                const char *q = p + 2;
                if (q[0] == 'P' && q[1] == '<')
                    q++;
                if (q[0] == '<') {
                    const char *close = strchr(q, '>');
                    bool ok = close && close > q + 1;
                    for (const char *c = q + 1; ok && c < close; c++)
                        ok = isalnum((unsigned char)*c) || *c == '_';
                    if (!ok)
                        return fail(msg, msgsz, "invalid named capture", p,
                                    close ? (size_t)(close - p) + 1 : strlen(p));
                    p = close + 1;
                    depth++;
                    have_operand = false;
                    last_repeat = NULL;
                    continue;
                }
                /* flags: (?flags) or (?flags:re) with flags in imsU and an optional '-' */
                bool neg = false, any = false;
                while (*q && *q != ')' && *q != ':') {
                    if (*q == '-' && !neg)
                        neg = true;
                    else if (!strchr("imsU", *q))
                        return fail(msg, msgsz, "invalid or unsupported Perl syntax", p,
                                    (size_t)(q - p) + 1);
                    else
                        any = true;
                    q++;
                }
                if (!*q || (neg && !any && *q == ')'))
                    return fail(msg, msgsz, "invalid or unsupported Perl syntax", p,
                                (size_t)(q - p));
                if (*q == ':')
                    depth++;
                p = q + 1;
                have_operand = false;
                last_repeat = NULL;
                continue;
            }
            depth++;
            p++;
            have_operand = false;
            last_repeat = NULL;
            continue;
        case ')':
            if (depth == 0)
                return fail(msg, msgsz, "unexpected )", pattern, strlen(pattern));
            depth--;
            p++;
            have_operand = true;
            last_repeat = NULL;
            continue;
        case '|':
            p++;
            have_operand = false;
            last_repeat = NULL;
            continue;
        case '[':
            n = scan_class(p, msg, msgsz);
            if (n == 0)
                return false;
            p += n;
            have_operand = true;
            last_repeat = NULL;
            continue;
        case '\\':
            if (p[1] == 0)
                return fail(msg, msgsz, "trailing backslash at end of expression", "", 0);
            if (p[1] == 'Q') {
                const char *end = strstr(p + 2, "\\E");
                p = end ? end + 2 : p + strlen(p);
                have_operand = true;
                last_repeat = NULL;
                continue;
            }
            n = escape_len(p, false);
            if (n == 0)
                return fail(msg, msgsz, "invalid escape sequence", p, 2);
            p += n;
            have_operand = true;
            last_repeat = NULL;
            continue;
        case '*':
        case '+':
        case '?':
            n = 1;
            if (p[1] == '?')
                n = 2;
            goto repetition;
        case '{':
            n = scan_repeat(p, &min, &max);
            if (n == 0) {
                p++;
                have_operand = true;
                last_repeat = NULL;
                continue;
            }
            if (min > 1000 || max > 1000 || (max >= 0 && max < min))
                return fail(msg, msgsz, "invalid repeat count", p, n);
            if (p[n] == '?')
                n++;
            goto repetition;
        default:
            p++;
            have_operand = true;
            last_repeat = NULL;
            continue;
        }
    repetition:
        if (last_repeat)
            return fail(msg, msgsz, "invalid nested repetition operator", last_repeat,
                        (size_t)(tok + n - last_repeat));
        if (!have_operand)
            return fail(msg, msgsz, "missing argument to repetition operator", tok, n);
        last_repeat = tok;
        p += n;
    }
    if (depth > 0)
        return fail(msg, msgsz, "missing closing )", pattern, strlen(pattern));
    return true;
}

/* --- translation to POSIX ERE ------------------------------------------------------------------
 */

static const char *perl_class(char c)
{
    switch (c) {
    case 'd':
        return "0-9";
    case 'w':
        return "0-9A-Za-z_";
    case 's':
        return "\t\n\f\r ";
    default:
        return NULL;
    }
}

/* Appends the POSIX form of an RE2 class [..] (p at '[', len bytes). */
static enum wh_err put_class(struct wh_buf *b, const char *p, size_t len)
{
    struct wh_buf items;
    bool negate = false, close_bracket = false, dash = false;
    enum wh_err rc;
    const char *q = p + 1, *end = p + len - 1;
    wh_buf_init(&items, PATTERN_CAP);
    if (*q == '^') {
        negate = true;
        q++;
    }
    rc = WH_OK;
    while (q < end && !rc) {
        size_t nc = named_class(q);
        if (nc && nc != SIZE_MAX) {
            /* negated classes inside a class have no POSIX form: approximated by leaving them
             * out; Go-only names get their members */
            if (q[2] != '^') {
                if (strncmp(q, "[:word:]", 8) == 0)
                    rc = wh_buf_adds(&items, "[:alnum:]_");
                else if (strncmp(q, "[:ascii:]", 9) == 0)
                    rc = wh_buf_adds(&items, "\x01-\x7f");
                else
                    rc = wh_buf_add(&items, q, nc);
            }
            q += nc;
            continue;
        }
        char lo;
        if (*q == '\\') {
            const char *cls = perl_class(q[1]);
            if (cls) {
                rc = wh_buf_adds(&items, cls);
                q += 2;
                continue;
            }
            /* negated Perl classes inside a class have no POSIX equivalent: approximate */
            if (q[1] == 'D' || q[1] == 'W' || q[1] == 'S') {
                q += 2;
                continue;
            }
            size_t n = escape_len(q, true);
            lo = q[1];
            switch (lo) {
            case 't':
                lo = '\t';
                break;
            case 'n':
                lo = '\n';
                break;
            case 'r':
                lo = '\r';
                break;
            case 'f':
                lo = '\f';
                break;
            case 'v':
                lo = '\v';
                break;
            case 'a':
                lo = '\a';
                break;
            default:
                break;
            }
            q += n ? n : 2;
        } else {
            lo = *q++;
        }
        if (q < end - 0 && q[0] == '-' && q + 1 < end) {
            char hi = q[1] == '\\' ? q[2] : q[1];
            q += q[1] == '\\' ? 3 : 2;
            if (lo == ']' || hi == ']' || lo == '-' || hi == '-') {
                /* keep awkward ranges as their bounds only */
                close_bracket |= lo == ']' || hi == ']';
                dash |= lo == '-' || hi == '-';
                continue;
            }
            rc = wh_buf_printf(&items, "%c-%c", lo, hi);
            continue;
        }
        if (lo == ']')
            close_bracket = true;
        else if (lo == '-')
            dash = true;
        else if (lo == '^')
            rc = wh_buf_adds(&items, "^"); /* never first below: ']' or others precede */
        else
            rc = wh_buf_addc(&items, lo);
    }
    if (!rc)
        rc = wh_buf_printf(b, "[%s%s", negate ? "^" : "", close_bracket ? "]" : "");
    if (!rc && items.len && items.data[0] == '^' && !close_bracket) {
        /* a leading '^' would negate: move it after the others */
        rc = wh_buf_add(b, items.data + 1, items.len - 1);
        if (!rc)
            rc = wh_buf_addc(b, '^');
    } else if (!rc && items.len) {
        rc = wh_buf_add(b, items.data, items.len);
    }
    if (!rc)
        rc = wh_buf_printf(b, "%s]", dash ? "-" : "");
    wh_buf_fini(&items);
    return rc;
}

static enum wh_err translate(const char *re, struct wh_buf *b, bool *icase)
{
    enum wh_err rc = WH_OK;
    const char *p = re;
    *icase = false;
    while (*p && !rc) {
        if (p[0] == '(' && p[1] == '?') {
            const char *q = p + 2;
            if (q[0] == 'P' && q[1] == '<')
                q++;
            if (q[0] == '<') {
                p = strchr(q, '>') + 1;
                rc = wh_buf_addc(b, '(');
                continue;
            }
            bool on = true;
            while (*q != ')' && *q != ':') {
                if (*q == '-')
                    on = false;
                else if (*q == 'i' && p == re)
                    *icase = on;
                q++;
            }
            if (*q == ':')
                rc = wh_buf_addc(b, '(');
            p = q + 1;
            continue;
        }
        if (*p == '[') {
            size_t n = scan_class(p, NULL, 0);
            rc = put_class(b, p, n);
            p += n;
            continue;
        }
        if (*p == '\\') {
            char c = p[1];
            const char *cls = perl_class(c);
            if (cls) {
                rc = wh_buf_printf(b, "[%s]", cls);
                p += 2;
                continue;
            }
            if (c == 'D' || c == 'W' || c == 'S') {
                rc = wh_buf_printf(b, "[^%s]", perl_class((char)tolower((unsigned char)c)));
                p += 2;
                continue;
            }
            if (c == 'A') {
                rc = wh_buf_addc(b, '^');
                p += 2;
                continue;
            }
            if (c == 'z') {
                rc = wh_buf_addc(b, '$');
                p += 2;
                continue;
            }
            if (c == 'p' || c == 'P') {
                size_t n = escape_len(p, false);
                rc = wh_buf_adds(b, c == 'p' ? "[[:alpha:]]" : "[^[:alpha:]]");
                p += n;
                continue;
            }
            if (c == 'Q') {
                const char *q = p + 2;
                const char *end = strstr(q, "\\E");
                size_t n = end ? (size_t)(end - q) : strlen(q);
                for (size_t i = 0; i < n && !rc; i++) {
                    if (strchr("\\^$.|?*+()[]{}", q[i]))
                        rc = wh_buf_addc(b, '\\');
                    if (!rc)
                        rc = wh_buf_addc(b, q[i]);
                }
                p = end ? end + 2 : q + n;
                continue;
            }
            static const char ctrl_from[] = "tnrfva";
            static const char ctrl_to[] = "\t\n\r\f\v\a";
            const char *cp = strchr(ctrl_from, c);
            if (cp) {
                rc = wh_buf_addc(b, ctrl_to[cp - ctrl_from]);
                p += 2;
                continue;
            }
            size_t n = escape_len(p, false);
            if (c == 'x' || c == '0') {
                /* a byte given by its code: emitted as itself, escaped when special */
                unsigned long v =
                    strtoul(p + 2 + (c == 'x' && p[2] == '{'), NULL, c == 'x' ? 16 : 8);
                char ch = (char)(v & 0x7f);
                if (strchr("\\^$.|?*+()[]{}", ch))
                    rc = wh_buf_addc(b, '\\');
                if (!rc && ch)
                    rc = wh_buf_addc(b, ch);
                p += n;
                continue;
            }
            rc = wh_buf_add(b, p, n ? n : 2);
            p += n ? n : 2;
            continue;
        }
        if ((*p == '*' || *p == '+' || *p == '?' || *p == '}') && p[1] == '?') {
            /* non-greedy: the same set of matches */
            rc = wh_buf_addc(b, *p);
            p += 2;
            continue;
        }
        rc = wh_buf_addc(b, *p);
        p++;
    }
    return rc;
}

enum wh_err wh_regex_compile(struct wh_regex *r, const char *pattern, struct wh_errbuf *eb)
{
    char msg[sizeof(eb->msg)];
    struct wh_buf b;
    bool icase = false;
    memset(r, 0, sizeof(*r));
    if (!wh_regex_check(pattern, msg, sizeof(msg)))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s", msg);
    wh_buf_init(&b, PATTERN_CAP);
    if (translate(pattern, &b, &icase)) {
        wh_buf_fini(&b);
        return wh_errbuf_set(eb, WH_ERR_INVALID, "error parsing regexp: expression too large");
    }
    char *posix = wh_buf_take(&b, NULL);
    int err = regcomp(&r->re, posix, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0));
    free(posix);
    if (err) {
        char detail[128];
        regerror(err, &r->re, detail, sizeof(detail));
        return wh_errbuf_set(eb, WH_ERR_INVALID, "error parsing regexp: %s: `%s`", detail, pattern);
    }
    r->ok = true;
    return WH_OK;
}

void wh_regex_free(struct wh_regex *r)
{
    if (r->ok)
        regfree(&r->re);
    r->ok = false;
}

bool wh_regex_match(const struct wh_regex *r, const char *s)
{
    return r->ok && regexec(&r->re, s, 0, NULL, 0) == 0;
}
