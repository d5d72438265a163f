#include "handlers/sidecarset/resources.h"

#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/quantity.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "gocompat/regex.h"
#include "util/str.h"

__extension__ typedef __int128 i128;

#define NANO_PER_UNIT ((i128)1000000000)
#define MAX_MSG 200

/* --- quantities as exact nano values ------------------------------------------------------
 * The calculator works on resource.Quantity; the values that occur (cores, bytes up to
 * exabytes) fit in 128-bit nano units, and k8s/quantity.h parses and prints them. */

struct qty {
    i128 nano;
    enum wh_quantity_format format;
};

static const i128 I128_LIMIT = (((i128)1) << 120);

static bool qty_from(const struct wh_quantity *q, struct qty *out)
{
    struct wh_quantity t = *q;
    (void)wh_quantity_round_up(&t, -9);
    i128 v = 0;
    for (size_t i = 0; i < t.ndigits; i++) {
        if (v > I128_LIMIT / 10)
            return false;
        v = v * 10 + t.digits[i];
    }
    for (int32_t s = t.scale; s > -9; s--) {
        if (v > I128_LIMIT / 10)
            return false;
        v *= 10;
    }
    out->nano = t.neg ? -v : v;
    out->format = q->format;
    return true;
}

static void qty_format(const struct qty *q, char *out, size_t outsz)
{
    struct wh_quantity w;
    memset(&w, 0, sizeof(w));
    i128 mag = q->nano < 0 ? -q->nano : q->nano;
    char rev[48];
    size_t n = 0;
    while (mag > 0) {
        rev[n++] = (char)(mag % 10);
        mag /= 10;
    }
    for (size_t i = 0; i < n; i++)
        w.digits[i] = (uint8_t)rev[n - 1 - i];
    w.ndigits = (uint8_t)n;
    w.scale = -9;
    w.neg = q->nano < 0;
    w.format = q->format;
    /* Go prints a BinarySI value below 1024 or with a fraction as DecimalSI; decide here so the
     * value is never rounded on the way */
    i128 abs_nano = q->nano < 0 ? -q->nano : q->nano;
    if (w.format == WH_QUANTITY_BINARY_SI &&
        (abs_nano < 1024 * NANO_PER_UNIT || abs_nano % NANO_PER_UNIT != 0))
        w.format = WH_QUANTITY_DECIMAL_SI;
    wh_quantity_format(&w, out, outsz);
}

static bool qty_parse(const char *s, struct qty *out, struct wh_errbuf *eb)
{
    struct wh_quantity q;
    if (wh_quantity_parse(s, &q, eb))
        return false;
    if (!qty_from(&q, out)) {
        wh_errbuf_set(eb, WH_ERR_INVALID, "quantity %s is too large", s);
        return false;
    }
    return true;
}

static int64_t sat_i64(i128 v)
{
    if (v > INT64_MAX)
        return INT64_MAX;
    if (v < INT64_MIN)
        return INT64_MIN;
    return (int64_t)v;
}

/* MilliValue(): rounded away from zero. */
static int64_t qty_milli(const struct qty *q)
{
    i128 m = q->nano / 1000000, r = q->nano % 1000000;
    if (r > 0)
        m++;
    else if (r < 0)
        m--;
    return sat_i64(m);
}

static struct qty qty_from_milli(int64_t milli, enum wh_quantity_format f)
{
    return (struct qty){(i128)milli * 1000000, f};
}

/* Go's int64(float64) for the values that occur: truncation toward zero. */
static int64_t f2i(double d)
{
    if (isnan(d))
        return INT64_MIN;
    if (d >= 9.2233720368547758e18)
        return INT64_MIN; /* what amd64 gives for out-of-range conversions */
    if (d <= -9.2233720368547758e18)
        return INT64_MIN;
    return (int64_t)d;
}

/* --- the calculator ------------------------------------------------------------------------ */

enum vkind { V_NIL, V_NUM, V_QTY };

struct val {
    enum vkind kind;
    double num;
    struct qty q;
};

enum tok { T_EOF, T_NUMBER, T_QUANTITY, T_IDENT, T_CHAR };

struct calc {
    const char *s;
    size_t n, pos;
    enum tok tok;
    char tch;
    const char *tstart;
    size_t tlen;
    const char *var_name;
    struct val var;
    bool have_error;
    char error[MAX_MSG];
    bool syntax;
    size_t syntax_col;
};

static void set_error(struct calc *c, const char *fmt, ...) WH_PRINTF(2, 3);
static void set_error(struct calc *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof(c->error), fmt, ap);
    va_end(ap);
    c->have_error = true;
}

static bool is_space_c(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

static bool is_letter(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool is_digit_c(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* readNumber of the upstream lexer: digits, one dot, one exponent with an optional sign, a
 * percent sign, then any run of letters as a unit. */
static void read_number(struct calc *c)
{
    bool seen_dot = false, seen_e = false, seen_pct = false, expect_exp = false;
    while (c->pos < c->n) {
        char ch = c->s[c->pos];
        if (is_digit_c(ch)) {
            expect_exp = false;
            c->pos++;
        } else if (ch == '.') {
            if (seen_dot || seen_e || seen_pct)
                break;
            seen_dot = true;
            c->pos++;
        } else if (ch == 'e' || ch == 'E') {
            if (seen_e || seen_pct)
                break;
            seen_e = true;
            expect_exp = true;
            c->pos++;
        } else if (ch == '+' || ch == '-') {
            if (!expect_exp)
                break;
            expect_exp = false;
            c->pos++;
        } else if (ch == '%') {
            if (seen_pct)
                break;
            seen_pct = true;
            c->pos++;
        } else if (is_letter(ch)) {
            if (expect_exp)
                break;
            while (c->pos < c->n && is_letter(c->s[c->pos]))
                c->pos++;
            break;
        } else {
            break;
        }
    }
}

/* isQuantity: the text after the numeric characters is one of the known units. */
static bool looks_like_quantity(const char *s, size_t n)
{
    static const char *const units[] = {"m", "k", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi"};
    size_t end = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!is_digit_c(ch) && ch != '.' && ch != 'e' && ch != 'E' && ch != '+' && ch != '-') {
            end = i;
            break;
        }
    }
    if (end == 0)
        return false;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strlen(units[i]) == n - end && memcmp(units[i], s + end, n - end) == 0)
            return true;
    }
    return false;
}

static void next(struct calc *c)
{
    while (c->pos < c->n && is_space_c(c->s[c->pos]))
        c->pos++;
    c->tstart = c->s + c->pos;
    if (c->pos >= c->n) {
        c->tok = T_EOF;
        c->tlen = 0;
        return;
    }
    char ch = c->s[c->pos];
    size_t start = c->pos;
    if (ch == '.' || is_digit_c(ch)) {
        read_number(c);
        c->tlen = c->pos - start;
        c->tok = looks_like_quantity(c->tstart, c->tlen) ? T_QUANTITY : T_NUMBER;
    } else if (is_letter(ch)) {
        while (c->pos < c->n &&
               (is_letter(c->s[c->pos]) || is_digit_c(c->s[c->pos]) || c->s[c->pos] == '_'))
            c->pos++;
        c->tlen = c->pos - start;
        c->tok = T_IDENT;
    } else {
        c->pos++;
        c->tlen = 1;
        c->tok = T_CHAR;
        c->tch = ch;
    }
}

static bool syntax_error(struct calc *c)
{
    if (!c->syntax) {
        c->syntax = true;
        c->syntax_col = c->pos + 1;
    }
    return false;
}

static bool accept(struct calc *c, char ch)
{
    if (c->tok == T_CHAR && c->tch == ch) {
        next(c);
        return true;
    }
    return false;
}

/* parseNumber: a trailing % divides by 100; unparsable text is 0 (upstream ignores the error). */
static double parse_number(const char *s, size_t n)
{
    char buf[64];
    if (n >= sizeof(buf))
        n = sizeof(buf) - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    bool pct = n > 0 && buf[n - 1] == '%';
    if (pct)
        buf[--n] = '\0';
    char *end = NULL;
    if (n == 0)
        return 0;
    double d = strtod(buf, &end);
    if (*end != '\0' || buf[0] == '+' || buf[0] == ' ' || strchr(buf, 'x') || strchr(buf, 'X') ||
        strpbrk(buf, "nNiI"))
        return 0;
    return pct ? d / 100 : d;
}

static struct val num_val(double d)
{
    return (struct val){V_NUM, d, {0, WH_QUANTITY_DECIMAL_SI}};
}

static struct val qty_val(struct qty q)
{
    return (struct val){V_QTY, 0, q};
}

static struct qty to_qty(const struct val *v)
{
    return v->kind == V_QTY ? v->q : qty_from_milli(f2i(v->num * 1000), WH_QUANTITY_DECIMAL_SI);
}

static void qty_add(struct qty *q, const struct qty *y)
{
    if (q->nano == 0)
        q->format = y->format;
    q->nano += y->nano;
}

static struct val op_add(struct calc *c, struct val l, struct val r, bool sub, const char *what)
{
    struct val out = {V_NIL, 0, {0, 0}};
    if (l.kind != V_NIL && r.kind != V_NIL) {
        if (l.kind == V_QTY || r.kind == V_QTY) {
            struct qty a = to_qty(&l), b = to_qty(&r);
            if (sub)
                b.nano = -b.nano;
            qty_add(&a, &b);
            out = qty_val(a);
        } else {
            out = num_val(sub ? l.num - r.num : l.num + r.num);
        }
    }
    if (out.kind == V_NIL && !c->have_error)
        set_error(c, "invalid %s operation", what);
    return out;
}

static struct val scale_qty(const struct qty *q, double factor, bool divide)
{
    struct qty r = *q;
    double m = (double)qty_milli(q);
    r.nano = (i128)f2i(divide ? m / factor : m * factor) * 1000000;
    return qty_val(r);
}

static struct val op_mul(struct calc *c, struct val l, struct val r)
{
    struct val out = {V_NIL, 0, {0, 0}};
    if (l.kind != V_NIL && r.kind != V_NIL) {
        if (l.kind == V_QTY && r.kind == V_QTY)
            set_error(c, "multiplication of two quantities");
        else if (l.kind == V_QTY)
            out = scale_qty(&l.q, r.num, false);
        else if (r.kind == V_QTY)
            out = scale_qty(&r.q, l.num, false);
        else
            out = num_val(l.num * r.num);
    }
    if (out.kind == V_NIL && !c->have_error)
        set_error(c, "invalid multiplication operation");
    return out;
}

static struct val op_div(struct calc *c, struct val l, struct val r)
{
    struct val out = {V_NIL, 0, {0, 0}};
    if (l.kind != V_NIL && r.kind != V_NIL) {
        if (r.kind == V_QTY)
            set_error(c, "division by quantity");
        else if (r.num == 0)
            set_error(c, "division by zero");
        else if (l.kind == V_QTY)
            out = scale_qty(&l.q, r.num, true);
        else
            out = num_val(l.num / r.num);
    }
    if (out.kind == V_NIL && !c->have_error)
        set_error(c, "invalid division operation");
    return out;
}

static struct val minmax(struct val l, struct val r, bool want_max)
{
    if (l.kind == V_QTY || r.kind == V_QTY) {
        struct qty a = to_qty(&l), b = to_qty(&r);
        int cmp = a.nano < b.nano ? -1 : a.nano > b.nano;
        bool left = want_max ? cmp >= 0 : cmp <= 0;
        return qty_val(left ? a : b);
    }
    bool left = want_max ? l.num >= r.num : l.num <= r.num;
    return num_val(left ? l.num : r.num);
}

static struct val call_func(struct calc *c, const char *name, size_t nlen, struct val *args,
                            size_t nargs)
{
    char lower[32];
    size_t n = nlen < sizeof(lower) - 1 ? nlen : sizeof(lower) - 1;
    for (size_t i = 0; i < n; i++)
        lower[i] = (char)tolower((unsigned char)name[i]);
    lower[n] = '\0';
    struct val out = {V_NIL, 0, {0, 0}};
    bool is_max = strcmp(lower, "max") == 0;
    if (!is_max && strcmp(lower, "min") != 0) {
        set_error(c, "unknown function: %.*s", (int)nlen, name);
    } else if (nargs != 2) {
        set_error(c, "%s function requires exactly 2 arguments, got %zu", lower, nargs);
    } else if (args[0].kind != V_NIL && args[1].kind != V_NIL) {
        out = minmax(args[0], args[1], is_max);
    }
    if (out.kind == V_NIL && !c->have_error)
        set_error(c, "function call failed");
    return out;
}

static bool parse_expr(struct calc *c, struct val *out);

static bool parse_factor(struct calc *c, struct val *out)
{
    if (c->tok == T_NUMBER) {
        *out = num_val(parse_number(c->tstart, c->tlen));
        next(c);
        return true;
    }
    if (c->tok == T_QUANTITY) {
        char buf[WH_QUANTITY_MAX_INPUT + 1];
        size_t n = c->tlen < sizeof(buf) - 1 ? c->tlen : sizeof(buf) - 1;
        memcpy(buf, c->tstart, n);
        buf[n] = '\0';
        struct wh_errbuf eb = {{0}};
        struct qty q;
        if (qty_parse(buf, &q, &eb)) {
            *out = qty_val(q);
        } else {
            set_error(c, "%s", eb.msg);
            *out = (struct val){V_NIL, 0, {0, 0}};
        }
        next(c);
        return true;
    }
    if (c->tok == T_IDENT) {
        const char *name = c->tstart;
        size_t nlen = c->tlen;
        next(c);
        if (accept(c, '(')) {
            struct val args[2];
            size_t nargs = 1;
            if (!parse_expr(c, &args[0]))
                return false;
            if (accept(c, ',')) {
                if (!parse_expr(c, &args[1]))
                    return false;
                nargs = 2;
            }
            if (!accept(c, ')'))
                return syntax_error(c);
            *out = call_func(c, name, nlen, args, nargs);
            return true;
        }
        char lower[32];
        size_t n = nlen < sizeof(lower) - 1 ? nlen : sizeof(lower) - 1;
        for (size_t i = 0; i < n; i++)
            lower[i] = (char)tolower((unsigned char)name[i]);
        lower[n] = '\0';
        if (strcmp(lower, c->var_name) == 0) {
            *out = c->var;
        } else {
            set_error(c, "undefined variable: %s", lower);
            *out = (struct val){V_NIL, 0, {0, 0}};
        }
        return true;
    }
    if (accept(c, '(')) {
        if (!parse_expr(c, out))
            return false;
        if (!accept(c, ')'))
            return syntax_error(c);
        return true;
    }
    if (accept(c, '-')) {
        if (!parse_factor(c, out))
            return false;
        if (out->kind == V_QTY)
            out->q.nano = -out->q.nano;
        else if (out->kind == V_NUM)
            out->num = -out->num;
        return true;
    }
    return syntax_error(c);
}

static bool parse_term(struct calc *c, struct val *out)
{
    if (!parse_factor(c, out))
        return false;
    for (;;) {
        struct val r;
        if (accept(c, '*')) {
            if (!parse_factor(c, &r))
                return false;
            *out = op_mul(c, *out, r);
        } else if (accept(c, '/')) {
            if (!parse_factor(c, &r))
                return false;
            *out = op_div(c, *out, r);
        } else {
            return true;
        }
    }
}

static bool parse_expr(struct calc *c, struct val *out)
{
    if (!parse_term(c, out))
        return false;
    for (;;) {
        struct val r;
        if (accept(c, '+')) {
            if (!parse_term(c, &r))
                return false;
            *out = op_add(c, *out, r, false, "addition");
        } else if (accept(c, '-')) {
            if (!parse_term(c, &r))
                return false;
            *out = op_add(c, *out, r, true, "subtraction");
        } else {
            return true;
        }
    }
}

/* Go's %g: the shortest digits that round-trip, in %e form when the exponent is below -4 or
 * at least 6 (strconv's rule for the shortest precision), else in plain decimal form. */
static void go_g(double d, char *out, size_t outsz)
{
    char buf[40];
    if (isnan(d) || isinf(d)) {
        snprintf(out, outsz, "%s", isnan(d) ? "NaN" : d > 0 ? "+Inf" : "-Inf");
        return;
    }
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec - 1, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    int exp10 = (int)strtol(strchr(buf, 'e') + 1, NULL, 10);
    if (exp10 < -4 || exp10 >= 6) {
        snprintf(out, outsz, "%s", buf);
    } else {
        int decimals = prec - 1 - exp10;
        snprintf(out, outsz, "%.*f", decimals > 0 ? decimals : 0, d);
    }
}

/* Evaluates expr with the variable var_name = var. Returns false with msg set. */
static bool calc_eval(const char *expr, const char *var_name, const struct val *var,
                      struct val *result, char *msg, size_t msgsz)
{
    struct calc c = {0};
    c.s = expr;
    c.n = strlen(expr);
    c.var_name = var_name;
    c.var = *var;
    next(&c);
    struct val v = {V_NIL, 0, {0, 0}};
    bool ok = parse_expr(&c, &v);
    if (ok && c.tok != T_EOF)
        ok = syntax_error(&c);
    if (!ok) {
        if (c.have_error)
            snprintf(msg, msgsz, "%s", c.error);
        else
            snprintf(msg, msgsz, "parse error: syntax error at line 1, col %zu", c.syntax_col);
        return false;
    }
    if (v.kind == V_NIL) {
        snprintf(msg, msgsz, "%s", c.have_error ? c.error : "no result from parser");
        return false;
    }
    if (v.kind == V_QTY && v.q.nano < 0) {
        char q[80];
        qty_format(&v.q, q, sizeof(q));
        snprintf(msg, msgsz, "calculation result is negative: %s", q);
        return false;
    }
    if (v.kind == V_NUM && v.num < 0) {
        char g[40];
        go_g(v.num, g, sizeof(g));
        snprintf(msg, msgsz, "calculation result is negative: %s", g);
        return false;
    }
    *result = v;
    return true;
}

/* Go's %q for the expression in messages. */
static void go_quote(const char *s, char *out, size_t outsz)
{
    struct wh_buf b;
    wh_buf_init(&b, outsz > 4 ? outsz - 4 : 1);
    bool full = wh_buf_addc(&b, '"') != WH_OK;
    for (const unsigned char *p = (const unsigned char *)s; *p && !full; p++) {
        enum wh_err rc;
        if (*p == '"' || *p == '\\')
            rc = wh_buf_printf(&b, "\\%c", *p);
        else if (*p == '\n')
            rc = wh_buf_adds(&b, "\\n");
        else if (*p == '\t')
            rc = wh_buf_adds(&b, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            rc = wh_buf_printf(&b, "\\x%02x", *p);
        else
            rc = wh_buf_addc(&b, (char)*p);
        full = rc != WH_OK;
    }
    if (!full)
        full = wh_buf_addc(&b, '"') != WH_OK;
    snprintf(out, outsz, "%s", b.data ? b.data : "\"\"");
    wh_buf_fini(&b);
}

static bool mentions_memory(const char *expr)
{
    /* regexp \bmemory\b: ASCII word boundaries on both sides */
    for (const char *p = strstr(expr, "memory"); p; p = strstr(p + 1, "memory")) {
        bool before = p == expr || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool after = !(isalnum((unsigned char)p[6]) || p[6] == '_');
        if (before && after)
            return true;
    }
    return false;
}

/* evaluateResourceExpression: the error text is the part after "failed to evaluate ...: ". */
static bool eval_resource(const char *expr, const struct qty *aggregate, struct qty *out,
                          char *msg, size_t msgsz)
{
    bool memory = mentions_memory(expr);
    struct val var = qty_val(*aggregate), r;
    char inner[MAX_MSG];
    if (!calc_eval(expr, memory ? "memory" : "cpu", &var, &r, inner, sizeof(inner))) {
        char q[96];
        go_quote(expr, q, sizeof(q));
        snprintf(msg, msgsz, "failed to parse expression %s: %s", q, inner);
        return false;
    }
    if (r.kind == V_QTY)
        *out = r.q;
    else if (!memory)
        *out = qty_from_milli(f2i(r.num * 1000), WH_QUANTITY_DECIMAL_SI);
    else
        *out = (struct qty){(i128)f2i(r.num) * NANO_PER_UNIT, WH_QUANTITY_DECIMAL_SI};
    return true;
}

enum wh_err wh_sidecarset_resource_expr(const char *expr, const char *aggregate, char *out,
                                        size_t outsz, struct wh_errbuf *eb)
{
    struct qty agg = {0, WH_QUANTITY_DECIMAL_SI}, r;
    if (aggregate && !qty_parse(aggregate, &agg, eb))
        return WH_ERR_INVALID;
    char msg[512];
    if (!eval_resource(expr, &agg, &r, msg, sizeof(msg)))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s", msg);
    qty_format(&r, out, outsz);
    return WH_OK;
}

enum wh_err wh_sidecarset_resource_expr_check(const char *expr, const char *var_name,
                                              struct wh_errbuf *eb)
{
    struct val dummy = num_val(1.0), r;
    char msg[MAX_MSG];
    if (!calc_eval(expr, var_name, &dummy, &r, msg, sizeof(msg)))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s", msg);
    return WH_OK;
}

/* --- targets and aggregation ----------------------------------------------------------------- */

static bool excluded(const char *name, const char *const *exclude, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(name, exclude[i]) == 0)
            return true;
    }
    return false;
}

/* A resource quantity of a container: resources.<part>.<name>; false when absent or invalid. */
static bool container_qty(const json_t *c, const char *part, const char *name, struct qty *out)
{
    const json_t *v = wh_json_path(c, "resources", part, name, NULL);
    char buf[64];
    const char *text = NULL;
    if (json_is_string(v)) {
        text = json_string_value(v);
    } else if (json_is_integer(v)) {
        snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        text = buf;
    } else if (json_is_real(v)) {
        snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
        text = buf;
    }
    struct wh_errbuf eb;
    return text && qty_parse(text, out, &eb);
}

struct aggregate {
    bool has_limit[2], has_request[2];
    struct qty limit[2], request[2];
};

static const char *const res_names[2] = {"cpu", "memory"};

static void aggregate(const json_t *const *targets, size_t n, const char *mode,
                      struct aggregate *ag)
{
    memset(ag, 0, sizeof(*ag));
    bool sum = strcmp(mode, "sum") == 0, max = strcmp(mode, "max") == 0;
    if (!sum && !max)
        return;
    for (int r = 0; r < 2; r++) {
        bool all_limits = true;
        struct qty lim = {0, WH_QUANTITY_DECIMAL_SI}, req = {0, WH_QUANTITY_DECIMAL_SI};
        bool have_lim = false, have_req = false;
        for (size_t i = 0; i < n; i++) {
            struct qty q;
            if (container_qty(targets[i], "limits", res_names[r], &q)) {
                if (sum)
                    qty_add(&lim, &q);
                else if (!have_lim || q.nano > lim.nano)
                    lim = q;
                have_lim = true;
            } else {
                all_limits = false;
            }
            if (container_qty(targets[i], "requests", res_names[r], &q)) {
                if (sum)
                    qty_add(&req, &q);
                else if (!have_req || q.nano > req.nano)
                    req = q;
                have_req = true;
            }
        }
        /* sum keeps a limit only when every target has one, and a request only when non-zero;
         * max keeps what it saw, and drops the limit when a target has none */
        ag->has_limit[r] = all_limits && (sum || have_lim);
        ag->limit[r] = lim;
        ag->has_request[r] = sum ? req.nano != 0 : have_req;
        ag->request[r] = req;
    }
}

/* --- compiled patterns ----------------------------------------------------------------------- */

struct regex_entry {
    char *pattern; /* the pattern's bytes (NUL bytes included), NUL-terminated */
    size_t len;
    struct wh_regex *re; /* NULL when it does not compile */
    struct wh_regex_error err;
};

struct wh_sidecarset_regexes {
    size_t n, cap;
    struct regex_entry *e;
};

/* The pattern of policy: targetContainersNameRegex, "" when absent. */
static const char *policy_pattern(const json_t *policy, size_t *len)
{
    const json_t *v = json_object_get(policy, "targetContainersNameRegex");
    *len = json_is_string(v) ? json_string_length(v) : 0;
    return json_is_string(v) ? json_string_value(v) : "";
}

static const struct regex_entry *regexes_find(const struct wh_sidecarset_regexes *rs,
                                              const char *pattern, size_t len)
{
    for (size_t i = 0; rs && i < rs->n; i++)
        if (rs->e[i].len == len && memcmp(rs->e[i].pattern, pattern, len) == 0)
            return &rs->e[i];
    return NULL;
}

static void entry_compile(struct regex_entry *e, const char *pattern, size_t len)
{
    e->pattern = wh_xmalloc(len + 1);
    memcpy(e->pattern, pattern, len);
    e->pattern[len] = '\0';
    e->len = len;
    if (wh_regex_compile(e->pattern, len, &e->re, &e->err))
        e->re = NULL;
}

struct wh_sidecarset_regexes *wh_sidecarset_regexes_new(const json_t *spec)
{
    struct wh_sidecarset_regexes *rs = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(spec, pass ? "containers" : "initContainers"), i, c)
        {
            const json_t *policy = json_object_get(c, "resourcesPolicy");
            if (!json_is_object(policy))
                continue;
            size_t len;
            const char *pattern = policy_pattern(policy, &len);
            if (regexes_find(rs, pattern, len))
                continue;
            if (!rs)
                rs = wh_xcalloc(1, sizeof(*rs));
            if (rs->n == rs->cap) {
                rs->cap = rs->cap ? 2 * rs->cap : 2;
                rs->e = wh_xrealloc(rs->e, rs->cap * sizeof(*rs->e));
            }
            entry_compile(&rs->e[rs->n++], pattern, len);
        }
    }
    return rs;
}

void wh_sidecarset_regexes_free(struct wh_sidecarset_regexes *rs)
{
    if (!rs)
        return;
    for (size_t i = 0; i < rs->n; i++) {
        free(rs->e[i].pattern);
        wh_regex_free(rs->e[i].re);
    }
    free(rs->e);
    free(rs);
}

size_t wh_sidecarset_regexes_memory(const struct wh_sidecarset_regexes *rs)
{
    size_t n = 0;
    for (size_t i = 0; rs && i < rs->n; i++)
        n += rs->e[i].len + 1 + wh_regex_memory(rs->e[i].re);
    return n;
}

enum wh_err wh_sidecarset_resources(const json_t *policy,
                                    const struct wh_sidecarset_regexes *compiled, const json_t *pod,
                                    const char *const *exclude, size_t nexclude, json_t **out,
                                    struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    size_t plen;
    const char *pattern = policy_pattern(policy, &plen);
    const char *mode = wh_json_str(policy, "targetContainersMode");
    const json_t *targets_small[16];
    const json_t **targets = targets_small;
    size_t ntargets = 0, cap = 16;
    json_t *result = NULL;
    /* compiled with the SidecarSet (its cache view); a caller without one compiles here */
    struct regex_entry local = {0};
    const struct regex_entry *re = regexes_find(compiled, pattern, plen);
    if (!re) {
        entry_compile(&local, pattern, plen);
        re = &local;
    }
    if (!re->re) {
        char q[96];
        char *msg = wh_regex_error_message(re->pattern, &re->err, NULL);
        go_quote(pattern, q, sizeof(q));
        rc = wh_errbuf_set(eb, WH_ERR_INVALID,
                           "failed to get target containers: invalid regex pattern %s: %s", q, msg);
        free(msg);
        goto out;
    }
    for (int pass = 0; pass < 2; pass++) {
        const json_t *list = wh_json_path(pod, "spec", pass ? "containers" : "initContainers",
                                          NULL);
        size_t i;
        json_t *c;
        json_array_foreach(list, i, c)
        {
            const char *name = wh_json_str(c, "name");
            if (!name || excluded(name, exclude, nexclude))
                continue;
            if (!pass && !wh_str_eq(wh_json_str(c, "restartPolicy"), "Always"))
                continue;
            if (!wh_regex_match(re->re, name, strlen(name)))
                continue;
            if (ntargets == cap) {
                cap *= 2;
                if (targets == targets_small) {
                    targets = wh_xmalloc(cap * sizeof(*targets));
                    memcpy(targets, targets_small, sizeof(targets_small));
                } else {
                    targets = wh_xrealloc(targets, cap * sizeof(*targets));
                }
            }
            targets[ntargets++] = c;
        }
    }
    if (ntargets == 0) {
        char q[96];
        go_quote(pattern ? pattern : "", q, sizeof(q));
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "no containers match the regex pattern %s", q);
        goto out;
    }
    struct aggregate ag;
    aggregate(targets, ntargets, mode ? mode : "", &ag);

    result = json_object();
    static const char *const parts[2] = {"limits", "requests"};
    for (int part = 0; part < 2; part++) {
        const json_t *exprs = wh_json_path(policy, "resourcesExpr", parts[part], NULL);
        if (!json_is_object(exprs))
            continue;
        json_t *list = json_object();
        for (int r = 0; r < 2; r++) {
            const char *expr = wh_json_str(exprs, res_names[r]);
            if (!expr || !expr[0])
                continue;
            struct qty agg = {0, WH_QUANTITY_DECIMAL_SI};
            if (part == 0) {
                if (!ag.has_limit[r])
                    continue; /* an unlimited aggregate leaves the limit unset */
                agg = ag.limit[r];
            } else if (ag.has_request[r]) {
                agg = ag.request[r];
            }
            struct qty value;
            char msg[512];
            if (!eval_resource(expr, &agg, &value, msg, sizeof(msg))) {
                json_decref(list);
                rc = wh_errbuf_set(eb, WH_ERR_INVALID, "failed to evaluate %s %s expression: %s",
                                   r ? "memory" : "CPU", parts[part], msg);
                goto out;
            }
            char text[128];
            qty_format(&value, text, sizeof(text));
            json_object_set_new(list, res_names[r], json_string(text));
        }
        if (json_object_size(list))
            json_object_set_new(result, parts[part], list);
        else
            json_decref(list);
    }
    *out = result;
    result = NULL;
out:
    free(local.pattern);
    wh_regex_free(local.re);
    if (targets != targets_small)
        free(targets);
    json_decref(result);
    return rc;
}
