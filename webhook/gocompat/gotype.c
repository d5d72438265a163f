/* The Go-type model: the compiler of the .gotypes text (once, at first use) and the walkers
 * that type-check and normalise JSON values against it. */
#include "gocompat/gotype.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/goenc.h"
#include "gocompat/gotime.h"
#include "k8s/quantity.h"
#include "util/arena.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/jsonparse.h"
#include "util/map.h"
#include "util/mem.h"
#include "util/str.h"

/* The lines of the .gotypes files of webhook/gocompat/types/ as C strings, each file opened by a
 * "# file: <name>" line (made by the Makefile). */
static const char *const source[] = {
#include "gotypes.inc"
};

struct wh_gotype {
    enum wh_gokind kind;
    const char *name;       /* as Go prints the type */
    const char *short_name; /* structs: the name without its package, as Go's errors name the
                               struct that holds a field */
    const struct wh_gotype *elem;
    bool elem_pointer; /* []*T: a null element stays nil */
    const char *enum_values;
    struct wh_gofield *fields; /* flattened */
    uint16_t *lens;            /* of each field's name */
    uint16_t *slots;           /* member lookup: field index + 1, 0 for a free slot */
    uint32_t mask;
    size_t nfields;
    bool names_repeat; /* two flattened fields share a JSON name (both read one member) */
    /* compilation only */
    const struct decl *decl;
    int version;
    int state;            /* 0: fields not flattened yet, 1: flattening, 2: done */
    unsigned char *depth; /* embedding depth of each flattened field (Go's dominance rule) */
};

/* ---- the compiler --------------------------------------------------------------------------- */

struct pkg {
    char *alias;
    char *apis[2];
    size_t napis;
};

struct fdecl {
    char *name; /* "..." for an embedded struct */
    char *type;
    unsigned flags;
    enum wh_gopatch patch;
    char *key;
    unsigned vmask;
    const struct wh_gotype *resolved[2];
};

struct decl {
    const struct pkg *pkg;
    char *name;
    bool is_struct;
    char *type; /* `type` declarations: the underlying type */
    char *enum_values;
    unsigned vmask;
    struct fdecl *fields;
    size_t nfields, cap;
    const char *where; /* "k8s.gotypes:123", for messages */
};

struct compiler {
    struct pkg *pkgs;
    size_t npkgs;
    struct decl *decls;
    size_t ndecls;
    struct wh_map types; /* named types by "<api> <name>", anonymous ones by their parts */
};

/* The compiled model: the registry of named and anonymous types ("<api> <name>" and
 * "<kind>:<key>:<elem>"), and the declarations the types keep pointing into. Written once by
 * compile(), only read afterwards. */
static struct compiler model;
static struct wh_gotype **all; /* every type, for the passes over them */
static size_t nall, capall;
static pthread_once_t compiled = PTHREAD_ONCE_INIT;

WH_NORETURN static void model_error(const char *where, const char *what, const char *arg)
{
    WH_PANIC("Go-type model %s: %s%s%s", where, what, arg ? ": " : "", arg ? arg : "");
}

static struct wh_gotype *type_new(enum wh_gokind kind, const char *name)
{
    struct wh_gotype *t = wh_xcalloc(1, sizeof(*t));
    t->kind = kind;
    t->name = name;
    if (nall == capall) {
        capall = capall ? capall * 2 : 512;
        all = wh_xrealloc(all, capall * sizeof(*all));
    }
    all[nall++] = t;
    return t;
}

/* The words a .gotypes file uses for Go's predeclared types, and for the types with JSON
 * methods of their own, which only name the underlying kind of a `type` declaration. */
static const struct {
    const char *word;
    enum wh_gokind kind;
    const char *go_name; /* NULL: only as the kind of a named type */
} basics[] = {
    {"string", WH_GK_STRING, "string"},   {"bool", WH_GK_BOOL, "bool"},
    {"int32", WH_GK_INT32, "int32"},      {"int64", WH_GK_INT64, "int64"},
    {"[]byte", WH_GK_BYTES, "[]uint8"},   {"quantity", WH_GK_QUANTITY, NULL},
    {"intorstring", WH_GK_INTSTR, NULL},  {"time", WH_GK_TIME, NULL},
    {"microtime", WH_GK_MICROTIME, NULL}, {"raw", WH_GK_RAW, NULL},
};
#define NBASICS (sizeof(basics) / sizeof(basics[0]))

static long basic(const char *word)
{
    for (size_t i = 0; i < NBASICS; i++)
        if (strcmp(basics[i].word, word) == 0)
            return (long)i;
    return -1;
}

/* A predeclared type, made once. */
static const struct wh_gotype *builtin(const char *word)
{
    static struct wh_gotype *made[NBASICS];
    long i = basic(word);
    if (i < 0 || !basics[i].go_name)
        return NULL;
    if (!made[i])
        made[i] = type_new(basics[i].kind, basics[i].go_name);
    return made[i];
}

static const char *last_segment(const char *api)
{
    const char *slash = strrchr(api, '/');
    return slash ? slash + 1 : api;
}

static unsigned version_mask(const struct pkg *p, const char *word, const char *where)
{
    for (size_t i = 0; i < p->napis; i++)
        if (strcmp(last_segment(p->apis[i]), word + 1) == 0)
            return 1u << i;
    model_error(where, "no such version in this package", word);
}

static struct wh_gotype *named(struct compiler *c, const char *api, const char *name)
{
    char key[256];
    snprintf(key, sizeof(key), "%s %s", api, name);
    return wh_map_get(&c->types, key);
}

/* An anonymous []elem, []*elem or map[key]elem, made once per element type. */
static const struct wh_gotype *anonymous(struct compiler *c, enum wh_gokind kind,
                                         const struct wh_gotype *key, const struct wh_gotype *elem,
                                         bool elem_pointer)
{
    char id[80];
    snprintf(id, sizeof(id), "%d:%d:%p:%p", (int)kind, elem_pointer, (const void *)key,
             (const void *)elem);
    struct wh_gotype *t = wh_map_get(&c->types, id);
    if (t)
        return t;
    char *name = kind == WH_GK_SLICE ? wh_str_printf("[]%s%s", elem_pointer ? "*" : "", elem->name)
                                     : wh_str_printf("map[%s]%s", key->name, elem->name);
    t = type_new(kind, name);
    t->elem = elem;
    t->elem_pointer = elem_pointer;
    wh_map_put(&c->types, id, t);
    return t;
}

/* Resolves a type expression written in declaration d of version ver. *ptr (when given)
 * receives a leading '*'. */
static const struct wh_gotype *resolve(struct compiler *c, const struct decl *d, int ver,
                                       const char *expr, bool *ptr)
{
    if (ptr)
        *ptr = false;
    if (expr[0] == '*') {
        if (!ptr)
            model_error(d->where, "a pointer is only allowed as a field's type", expr);
        *ptr = true;
        expr++;
    }
    const struct wh_gotype *b = builtin(expr);
    if (b)
        return b;
    if (wh_str_has_prefix(expr, "[]*"))
        return anonymous(c, WH_GK_SLICE, NULL, resolve(c, d, ver, expr + 3, NULL), true);
    if (wh_str_has_prefix(expr, "[]"))
        return anonymous(c, WH_GK_SLICE, NULL, resolve(c, d, ver, expr + 2, NULL), false);
    if (wh_str_has_prefix(expr, "map[")) {
        const char *close = strchr(expr, ']');
        if (!close)
            model_error(d->where, "bad map type", expr);
        char *ktext = wh_xstrndup(expr + 4, (size_t)(close - expr - 4));
        const struct wh_gotype *k = resolve(c, d, ver, ktext, NULL);
        free(ktext);
        if (k->kind != WH_GK_STRING)
            model_error(d->where, "map keys must be strings", expr);
        return anonymous(c, WH_GK_MAP, k, resolve(c, d, ver, close + 1, NULL), false);
    }
    const struct pkg *p = d->pkg;
    const char *name = expr, *dot = strchr(expr, '.');
    const char *api = p->apis[p->napis > 1 ? ver : 0];
    if (dot) {
        char alias[64];
        const char *at = memchr(expr, '@', (size_t)(dot - expr));
        size_t alen = (size_t)((at ? at : dot) - expr);
        snprintf(alias, sizeof(alias), "%.*s", (int)alen, expr);
        p = NULL;
        for (size_t i = 0; i < c->npkgs && !p; i++)
            if (strcmp(c->pkgs[i].alias, alias) == 0)
                p = &c->pkgs[i];
        if (!p)
            model_error(d->where, "unknown package", expr);
        api = p->apis[0];
        if (at) {
            char vword[32];
            snprintf(vword, sizeof(vword), "%.*s", (int)(dot - at), at);
            unsigned m = version_mask(p, vword, d->where);
            api = p->apis[m == 1u ? 0 : 1];
        } else if (p->napis > 1) {
            model_error(d->where, "name the version of a versioned package", expr);
        }
        name = dot + 1;
    }
    struct wh_gotype *t = named(c, api, name);
    if (!t)
        model_error(d->where, "unknown type", expr);
    return t;
}

static char *next_word(char **s)
{
    while (**s == ' ' || **s == '\t')
        (*s)++;
    if (!**s)
        return NULL;
    char *w = *s;
    while (**s && **s != ' ' && **s != '\t')
        (*s)++;
    if (**s)
        *(*s)++ = '\0';
    return w;
}

static void parse_field(struct decl *d, char *rest, const char *where)
{
    struct fdecl f = {0};
    f.vmask = 3u;
    f.name = wh_xstrdup(next_word(&rest));
    char *type = next_word(&rest);
    if (!type)
        model_error(where, "a field needs a type", f.name);
    f.type = wh_xstrdup(type);
    for (char *w = next_word(&rest); w; w = next_word(&rest)) {
        if (strcmp(w, "omitempty") == 0) {
            f.flags |= WH_GOF_OMITEMPTY;
        } else if (wh_str_has_prefix(w, "patch=")) {
            const char *s = w + 6;
            f.patch = strstr(s, "merge")     ? WH_GOPATCH_MERGE
                      : strstr(s, "replace") ? WH_GOPATCH_REPLACE
                                             : WH_GOPATCH_NONE;
        } else if (wh_str_has_prefix(w, "key=")) {
            f.key = wh_xstrdup(w + 4);
        } else if (w[0] == '@') {
            f.vmask = version_mask(d->pkg, w, where);
        } else {
            model_error(where, "unknown field flag", w);
        }
    }
    if (d->nfields == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 8;
        d->fields = wh_xrealloc(d->fields, d->cap * sizeof(*d->fields));
    }
    d->fields[d->nfields++] = f;
}

/* Pass 1: the text into packages and declarations. */
static void parse_source(struct compiler *c)
{
    size_t nlines = sizeof(source) / sizeof(source[0]), capd = 0;
    char file[64] = "?";
    size_t lineno = 0;
    c->pkgs = wh_xcalloc(nlines, sizeof(*c->pkgs));
    struct decl *cur = NULL;
    for (size_t i = 0; i < nlines; i++) {
        if (wh_str_has_prefix(source[i], "# file: ")) {
            snprintf(file, sizeof(file), "%s", source[i] + 8);
            lineno = 0;
            continue;
        }
        lineno++;
        char *line = wh_xstrdup(source[i]);
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *where = wh_str_printf("%s:%zu", file, lineno);
        char *rest = line;
        bool indented = line[0] == ' ';
        size_t blank = strspn(line, " \t");
        if (!line[blank]) {
            free(where);
            free(line);
            continue;
        }
        if (indented) {
            if (!cur || !cur->is_struct)
                model_error(where, "a field outside a struct", line + blank);
            parse_field(cur, line, where);
            free(where);
            free(line);
            continue;
        }
        char *w = next_word(&rest);
        if (strcmp(w, "package") == 0) {
            struct pkg *p = &c->pkgs[c->npkgs++];
            p->alias = wh_xstrdup(next_word(&rest));
            for (char *api = next_word(&rest); api; api = next_word(&rest)) {
                if (p->napis == 2)
                    model_error(where, "at most two versions", api);
                p->apis[p->napis++] = wh_xstrdup(api);
            }
            if (!p->napis)
                model_error(where, "a package needs its API path", p->alias);
            cur = NULL;
            free(where);
            free(line);
            continue;
        }
        if (strcmp(w, "struct") != 0 && strcmp(w, "type") != 0)
            model_error(where, "expected package, struct or type", w);
        if (!c->npkgs)
            model_error(where, "a declaration before any package", w);
        if (c->ndecls == capd) {
            capd = capd ? capd * 2 : 256;
            c->decls = wh_xrealloc(c->decls, capd * sizeof(*c->decls));
        }
        cur = &c->decls[c->ndecls++];
        memset(cur, 0, sizeof(*cur));
        cur->pkg = &c->pkgs[c->npkgs - 1];
        cur->is_struct = strcmp(w, "struct") == 0;
        cur->where = where;
        cur->vmask = 3u;
        cur->name = wh_xstrdup(next_word(&rest));
        if (!cur->is_struct) {
            char *t = next_word(&rest);
            if (!t)
                model_error(where, "a type declaration needs its underlying type", cur->name);
            cur->type = wh_xstrdup(t);
        }
        for (char *x = next_word(&rest); x; x = next_word(&rest)) {
            if (x[0] == '@')
                cur->vmask = version_mask(cur->pkg, x, where);
            else if (wh_str_has_prefix(x, "enum=") && !cur->is_struct)
                cur->enum_values = wh_xstrdup(x + 5);
            else
                model_error(where, "unexpected word", x);
        }
        free(line);
    }
}

/* Pass 2: a type object for every declaration in every version it exists in. */
static void declare_all(struct compiler *c)
{
    for (size_t i = 0; i < c->ndecls; i++) {
        struct decl *d = &c->decls[i];
        for (size_t v = 0; v < d->pkg->napis; v++) {
            if (!(d->vmask & (1u << v)))
                continue;
            const char *api = d->pkg->apis[v];
            if (named(c, api, d->name))
                model_error(d->where, "declared twice", d->name);
            struct wh_gotype *t = type_new(d->is_struct ? WH_GK_STRUCT : WH_GK_STRING,
                                           wh_str_printf("%s.%s", last_segment(api), d->name));
            t->short_name = d->name;
            t->decl = d;
            t->version = (int)v;
            t->enum_values = d->enum_values;
            char key[256];
            snprintf(key, sizeof(key), "%s %s", api, d->name);
            wh_map_put(&c->types, key, t);
        }
    }
}

/* Pass 3: the underlying types of `type` declarations and the types of struct fields. */
static void resolve_all(struct compiler *c)
{
    for (size_t i = 0; i < nall; i++) {
        struct wh_gotype *t = all[i];
        const struct decl *d = t->decl;
        if (!d)
            continue;
        if (!d->is_struct) {
            long b = basic(d->type);
            if (b >= 0 && !basics[b].go_name) {
                t->kind = basics[b].kind;
                continue;
            }
            const struct wh_gotype *u = resolve(c, d, t->version, d->type, NULL);
            if (u->kind == WH_GK_STRUCT || u->decl)
                model_error(d->where, "a named type must have a basic, slice or map type", d->type);
            t->kind = u->kind;
            t->elem = u->elem;
            continue;
        }
        for (size_t j = 0; j < d->nfields; j++) {
            struct fdecl *f = &d->fields[j];
            if (!(f->vmask & (1u << t->version)))
                continue;
            bool ptr;
            f->resolved[t->version] = resolve(c, d, t->version, f->type, &ptr);
            if (ptr)
                f->flags |= WH_GOF_POINTER;
        }
    }
}

/* The member lookup runs for every member of every object checked, so its hash is cheap: the
 * length and three of the characters tell a struct's few field names apart well enough. */
static uint32_t hash_name(const char *s, size_t n)
{
    if (!n)
        return 0;
    return (uint32_t)n * 131u + (unsigned char)s[0] * 31u + (unsigned char)s[n / 2] * 7u +
           (unsigned char)s[n - 1];
}

static void add_field(struct wh_gotype *t, size_t *cap, const struct wh_gofield *f,
                      unsigned char depth)
{
    /* Go's dominance: a field at a lesser depth hides promoted ones of the same name */
    for (size_t i = 0; i < t->nfields; i++) {
        if (strcmp(t->fields[i].name, f->name) != 0)
            continue;
        if (t->depth[i] == depth)
            model_error(t->name, "two fields of one name at one depth", f->name);
        if (t->depth[i] < depth)
            return;
        t->fields[i] = *f;
        t->depth[i] = depth;
        return;
    }
    if (t->nfields == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        t->fields = wh_xrealloc(t->fields, *cap * sizeof(*t->fields));
        t->depth = wh_xrealloc(t->depth, *cap);
    }
    t->fields[t->nfields] = *f;
    t->depth[t->nfields++] = depth;
}

/* Pass 4: promoted fields of embedded structs, then the lookup table. */
static void flatten(struct wh_gotype *t)
{
    if (t->kind != WH_GK_STRUCT || t->state == 2)
        return;
    if (t->state == 1)
        model_error(t->name, "a struct embeds itself", NULL);
    t->state = 1;
    const struct decl *d = t->decl;
    size_t cap = 0;
    for (size_t j = 0; j < d->nfields; j++) {
        const struct fdecl *f = &d->fields[j];
        const struct wh_gotype *ft = f->resolved[t->version];
        if (!ft)
            continue;
        if (strcmp(f->name, "...") == 0) {
            if (ft->kind != WH_GK_STRUCT)
                model_error(d->where, "only a struct can be embedded", f->type);
            struct wh_gotype *e = (struct wh_gotype *)(uintptr_t)ft;
            flatten(e);
            for (size_t k = 0; k < e->nfields; k++)
                add_field(t, &cap, &e->fields[k], (unsigned char)(e->depth[k] + 1));
            continue;
        }
        struct wh_gofield gf = {f->name, ft, f->flags, f->patch, f->key};
        add_field(t, &cap, &gf, 0);
    }
    if (t->nfields > 0xfffe)
        model_error(t->name, "too many fields", NULL);
    uint32_t size = 4;
    while (size < 2 * t->nfields)
        size *= 2;
    t->mask = size - 1;
    t->slots = wh_xcalloc(size, sizeof(*t->slots));
    t->lens = wh_xcalloc(t->nfields ? t->nfields : 1, sizeof(*t->lens));
    for (size_t i = 0; i < t->nfields; i++) {
        size_t len = strlen(t->fields[i].name);
        if (len > 0xffff)
            model_error(t->name, "a field name too long", t->fields[i].name);
        t->lens[i] = (uint16_t)len;
        uint32_t h = hash_name(t->fields[i].name, len);
        uint32_t s = h & t->mask;
        for (; t->slots[s]; s = (s + 1) & t->mask) {
            if (strcmp(t->fields[t->slots[s] - 1u].name, t->fields[i].name) == 0)
                t->names_repeat = true;
        }
        t->slots[s] = (uint16_t)(i + 1);
    }
    t->state = 2;
}

static void compile(void)
{
    /* The model is kept for the life of the process, whichever request compiles it first. */
    wh_arena_pause();
    wh_map_init(&model.types);
    parse_source(&model);
    declare_all(&model);
    resolve_all(&model);
    for (size_t i = 0; i < nall; i++)
        flatten(all[i]);
    for (size_t i = 0; i < nall; i++) {
        free(all[i]->depth);
        all[i]->depth = NULL;
        all[i]->decl = NULL;
    }
    wh_arena_resume();
}

static void ensure_compiled(void)
{
    if (pthread_once(&compiled, compile) != 0)
        WH_PANIC("pthread_once failed");
}

/* ---- introspection ------------------------------------------------------------------------ */

const struct wh_gotype *wh_gotype_lookup(const char *api, const char *name)
{
    ensure_compiled();
    /* "api name", put together without printf: every review looks its type up */
    char key[256];
    size_t la = strlen(api), ln = strlen(name);
    if (la + 1 + ln >= sizeof(key))
        return NULL;
    memcpy(key, api, la);
    key[la] = ' ';
    memcpy(key + la + 1, name, ln + 1);
    return wh_map_get(&model.types, key);
}

enum wh_gokind wh_gotype_kind(const struct wh_gotype *t)
{
    return t->kind;
}

const char *wh_gotype_name(const struct wh_gotype *t)
{
    return t->name;
}

const struct wh_gotype *wh_gotype_elem(const struct wh_gotype *t)
{
    return t->elem;
}

const char *wh_gotype_enum(const struct wh_gotype *t)
{
    return t->enum_values;
}

size_t wh_gotype_nfields(const struct wh_gotype *t)
{
    return t->nfields;
}

const struct wh_gofield *wh_gotype_field(const struct wh_gotype *t, size_t i)
{
    return i < t->nfields ? &t->fields[i] : NULL;
}

static inline const struct wh_gofield *member_n(const struct wh_gotype *t, const char *name,
                                                size_t len)
{
    if (!t->nfields)
        return NULL;
    for (uint32_t s = hash_name(name, len) & t->mask; t->slots[s]; s = (s + 1) & t->mask) {
        size_t i = t->slots[s] - 1u;
        if (t->lens[i] == len && memcmp(t->fields[i].name, name, len) == 0)
            return &t->fields[i];
    }
    return NULL;
}

const struct wh_gofield *wh_gotype_member(const struct wh_gotype *t, const char *name)
{
    return member_n(t, name, strlen(name));
}

/* Whether key (klen bytes) equals the ASCII field name as encoding/json folds both (foldName:
 * ASCII letters by case, any other rune to the smallest of its case-fold set). The only
 * non-ASCII runes that fold to ASCII letters are U+017F (long s, to 'S') and U+212A (the Kelvin
 * sign, to 'K'); every other one cannot match an ASCII name. */
static bool fold_equal(const char *key, size_t klen, const char *name)
{
    size_t i = 0;
    for (const char *n = name; *n; n++) {
        char want = (char)(*n >= 'a' && *n <= 'z' ? *n - 'a' + 'A' : *n);
        if (i >= klen)
            return false;
        unsigned char c = (unsigned char)key[i];
        if (c < 0x80) {
            if ((char)(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c) != want)
                return false;
            i++;
        } else if (klen - i >= 2 && memcmp(key + i, "\xc5\xbf", 2) == 0 && want == 'S') {
            i += 2;
        } else if (klen - i >= 3 && memcmp(key + i, "\xe2\x84\xaa", 3) == 0 && want == 'K') {
            i += 3;
        } else {
            return false;
        }
    }
    return i == klen;
}

/* The field member key decodes into: the one of that name, else (fold) the first whose name
 * folds alike, as encoding/json picks it. */
static const struct wh_gofield *field_for(const struct wh_gotype *t, const char *key, size_t klen,
                                          bool fold)
{
    const struct wh_gofield *f = member_n(t, key, klen);
    for (size_t i = 0; !f && fold && i < t->nfields; i++) {
        if (fold_equal(key, klen, t->fields[i].name))
            f = &t->fields[i];
    }
    return f;
}

/* ---- type checking ------------------------------------------------------------------------ */

/* Deeper than any type of the model nests. */
#define MAX_DEPTH 64

/* A step of a path: a member name (key, len) or, when key is NULL, a list index. */
struct segment {
    const char *key;
    size_t len;
};

struct chk {
    char *msg;                     /* the error so far (new string), NULL while there is none */
    bool fold;                     /* encoding/json: member names also match ignoring case */
    bool stop;                     /* an error of a type's own JSON method: decoding has ended */
    const struct wh_gotype *owner; /* the struct whose field is being decoded, or NULL */
    const char *stack[MAX_DEPTH];  /* JSON names of the fields from the root */
    size_t depth;
    /* wh_gotype_check_where only: the member names and list indices from the root to the
     * value being decoded (stack leaves lists and maps out), copied when an error is kept */
    bool where;
    struct segment trail[2 * MAX_DEPTH];
    size_t trail_len;
    struct segment at[2 * MAX_DEPTH];
    size_t at_len;
};

/* The literal Go quotes for a number that does not fit. jansson keeps the value, not the text;
 * what reaches a webhook was written by the API server's encoding/json, so the number is
 * spelled as Go's encoder spells that value (100000000000000000000 for 1e20, 1e+21 past it;
 * found by the differential run, where the shortest %g said 1e+20). */
static void number_text(const json_t *v, char *out, size_t outsz)
{
    if (json_is_integer(v)) {
        snprintf(out, outsz, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return;
    }
    struct wh_buf b;
    wh_buf_init(&b, 64); /* Go's longest float64 is 24 bytes */
    if (wh_goenc_append(&b, v, false) == WH_OK)
        snprintf(out, outsz, "%.*s", (int)b.len, b.data);
    else
        snprintf(out, outsz, "%g", json_real_value(v));
    wh_buf_fini(&b);
}

/* Go keeps the first error unless a later one ends the decoding. */
static bool keeps(struct chk *k, bool stop)
{
    if (k->msg && !stop)
        return false;
    free(k->msg);
    k->msg = NULL;
    k->stop = stop;
    if (k->where) {
        memcpy(k->at, k->trail, k->trail_len * sizeof(k->trail[0]));
        k->at_len = k->trail_len;
    }
    return true;
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The text Quantity.UnmarshalJSON parses: a string's contents, a number's digits, any other
 * JSON as it is (which no quantity matches), trimmed of white space. A text too long for out
 * is cut one byte past the longest quantity, so that parsing refuses it. */
static void quantity_text(const json_t *v, char *out, size_t outsz)
{
    char num[48];
    const char *s;
    size_t len;
    if (json_is_string(v)) {
        s = json_string_value(v);
        len = json_string_length(v);
    } else {
        if (json_is_number(v))
            number_text(v, num, sizeof(num));
        else
            snprintf(num, sizeof(num), "%s", json_is_true(v) ? "true" : "{");
        s = num;
        len = strlen(num);
    }
    while (len && space(*s)) {
        s++;
        len--;
    }
    while (len && space(s[len - 1]))
        len--;
    if (len >= outsz)
        len = outsz - 1;
    memcpy(out, s, len);
    out[len] = '\0';
}

/* encoding/json's UnmarshalTypeError with the decoder's context: "Go struct field
 * <Struct>.<path>" inside a struct, "Go value" at the top. */
static void mismatch(struct chk *k, const char *what, const char *type, bool stop)
{
    if (!keeps(k, stop))
        return;
    if (!k->owner) {
        k->msg = wh_str_printf("json: cannot unmarshal %s into Go value of type %s", what, type);
        return;
    }
    struct wh_buf path;
    wh_buf_init(&path, (size_t)1 << 20);
    for (size_t i = 0; i < k->depth; i++)
        if ((i && wh_buf_addc(&path, '.')) || wh_buf_adds(&path, k->stack[i]))
            WH_PANIC("field path too long");
    char *p = wh_buf_take(&path, NULL);
    k->msg = wh_str_printf("json: cannot unmarshal %s into Go struct field %s.%s of type %s", what,
                           k->owner->short_name, p, type);
    free(p);
}

/* An error that is not a type mismatch (a time or quantity text, base64): its own message. */
static void failure(struct chk *k, const char *msg, bool stop)
{
    if (keeps(k, stop))
        k->msg = wh_xstrdup(msg);
}

static void check_int(struct chk *k, const json_t *v, const char *type, json_int_t min,
                      json_int_t max, bool stop)
{
    if (json_is_integer(v) && json_integer_value(v) >= min && json_integer_value(v) <= max)
        return;
    if (!json_is_number(v)) {
        mismatch(k, wh_json_go_type_name(v), type, stop);
        return;
    }
    char num[48], what[64];
    number_text(v, num, sizeof(num));
    snprintf(what, sizeof(what), "number %s", num);
    mismatch(k, what, type, stop);
}

/* base64.StdEncoding.Decode's verdict: the offset of the first byte it refuses, or -1. Line
 * breaks are skipped; padding is required. */
static long base64_error(const char *s, size_t n)
{
    size_t i = 0;
    for (;;) {
        int j = 0;
        for (; j < 4; j++) {
            while (i < n && (s[i] == '\n' || s[i] == '\r'))
                i++;
            if (i == n) {
                if (j == 0)
                    return -1;
                return (long)(i - (size_t)j);
            }
            char ch = s[i++];
            if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
                ch == '+' || ch == '/')
                continue;
            if (ch != '=')
                return (long)(i - 1);
            if (j < 2)
                return (long)(i - 1);
            if (j == 2) {
                while (i < n && (s[i] == '\n' || s[i] == '\r'))
                    i++;
                if (i == n)
                    return (long)n;
                if (s[i] != '=')
                    return (long)(i - 1);
                i++;
            }
            while (i < n && (s[i] == '\n' || s[i] == '\r'))
                i++;
            return i < n ? (long)i : -1;
        }
    }
}

static void check_value(struct chk *k, const json_t *v, const struct wh_gotype *t);

/* Most members are scalars of the right type: settled here without the walk's bookkeeping. */
static bool plainly_right(const json_t *v, const struct wh_gotype *t)
{
    switch (t->kind) {
    case WH_GK_STRING:
        return json_is_string(v);
    case WH_GK_BOOL:
        return json_is_boolean(v);
    case WH_GK_INT32:
        return json_is_integer(v) && json_integer_value(v) >= INT32_MIN &&
               json_integer_value(v) <= INT32_MAX;
    case WH_GK_INT64:
        return json_is_integer(v);
    case WH_GK_RAW:
        return true;
    default:
        return false;
    }
}

static void enter(struct chk *k, const char *key, size_t len)
{
    if (!k->where)
        return;
    WH_ASSERT(k->trail_len < 2 * MAX_DEPTH);
    k->trail[k->trail_len++] = (struct segment){key, len};
}

static void leave(struct chk *k)
{
    if (k->where)
        k->trail_len--;
}

static void check_struct(struct chk *k, const json_t *v, const struct wh_gotype *t)
{
    const struct wh_gotype *outer = k->owner;
    size_t depth = k->depth;
    json_t *obj = (json_t *)(uintptr_t)v;
    for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
        const struct wh_gofield *f =
            field_for(t, json_object_iter_key(it), json_object_iter_key_len(it), k->fold);
        json_t *m = json_object_iter_value(it);
        if (!f || json_is_null(m) || plainly_right(m, f->type))
            continue;
        WH_ASSERT(depth < MAX_DEPTH);
        k->owner = t;
        k->stack[depth] = f->name;
        k->depth = depth + 1;
        enter(k, f->name, strlen(f->name));
        check_value(k, m, f->type);
        leave(k);
        k->owner = outer;
        k->depth = depth;
        if (k->stop)
            return;
    }
}

/* A list element (key NULL, len its index) or map value (key, len its key). Returns true
 * when decoding has ended. */
static bool check_element(struct chk *k, const char *key, size_t len, const json_t *e,
                          const struct wh_gotype *t)
{
    if (!plainly_right(e, t)) {
        enter(k, key, len);
        check_value(k, e, t);
        leave(k);
    }
    return k->stop;
}

static void check_value(struct chk *k, const json_t *v, const struct wh_gotype *t)
{
    if (!v || json_is_null(v))
        return;
    switch (t->kind) {
    case WH_GK_STRING:
        if (!json_is_string(v))
            mismatch(k, wh_json_go_type_name(v), t->name, false);
        return;
    case WH_GK_BOOL:
        if (!json_is_boolean(v))
            mismatch(k, wh_json_go_type_name(v), t->name, false);
        return;
    case WH_GK_INT32:
        check_int(k, v, t->name, INT32_MIN, INT32_MAX, false);
        return;
    case WH_GK_INT64:
        check_int(k, v, t->name, INT64_MIN, INT64_MAX, false);
        return;
    case WH_GK_BYTES: {
        if (json_is_array(v)) { /* a JSON array fills a []byte element by element */
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e)
            {
                if (!json_is_null(e))
                    check_int(k, e, "uint8", 0, 255, false);
            }
            return;
        }
        if (!json_is_string(v)) {
            mismatch(k, wh_json_go_type_name(v), t->name, false);
            return;
        }
        long at = base64_error(json_string_value(v), json_string_length(v));
        if (at >= 0) {
            char msg[64];
            snprintf(msg, sizeof(msg), "illegal base64 data at input byte %ld", at);
            failure(k, msg, false);
        }
        return;
    }
    case WH_GK_QUANTITY: {
        char text[WH_QUANTITY_MAX_INPUT + 2];
        struct wh_errbuf qe;
        quantity_text(v, text, sizeof(text));
        if (wh_quantity_check(text, &qe))
            failure(k, qe.msg, true);
        return;
    }
    case WH_GK_INTSTR:
        /* IntOrString.UnmarshalJSON decodes anything but a string into its int32 */
        if (!json_is_string(v))
            check_int(k, v, "int32", INT32_MIN, INT32_MAX, true);
        return;
    case WH_GK_TIME:
    case WH_GK_MICROTIME: {
        /* Time.UnmarshalJSON decodes a string, then parses it */
        if (!json_is_string(v)) {
            mismatch(k, wh_json_go_type_name(v), "string", true);
            return;
        }
        struct wh_gotime tm;
        struct wh_errbuf te;
        if (wh_gotime_parse(json_string_value(v), json_string_length(v),
                            t->kind == WH_GK_TIME ? WH_GOTIME_RFC3339 : WH_GOTIME_RFC3339_MICRO,
                            &tm, &te))
            failure(k, te.msg, true);
        return;
    }
    case WH_GK_RAW:
        return;
    case WH_GK_STRUCT:
        if (!json_is_object(v))
            mismatch(k, wh_json_go_type_name(v), t->name, false);
        else
            check_struct(k, v, t);
        return;
    case WH_GK_SLICE: {
        if (!json_is_array(v)) {
            mismatch(k, wh_json_go_type_name(v), t->name, false);
            return;
        }
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            if (check_element(k, NULL, i, e, t->elem))
                return;
        }
        return;
    }
    case WH_GK_MAP: {
        if (!json_is_object(v)) {
            mismatch(k, wh_json_go_type_name(v), t->name, false);
            return;
        }
        json_t *obj = (json_t *)(uintptr_t)v;
        for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
            if (check_element(k, json_object_iter_key(it), json_object_iter_key_len(it),
                              json_object_iter_value(it), t->elem))
                return;
        }
        return;
    }
    }
}

json_t *wh_gotype_prune_unknown(const json_t *v, const struct wh_gotype *t)
{
    json_t *out = NULL, *x;
    enum wh_gokind kind = wh_gotype_kind(t);
    if (kind == WH_GK_STRUCT && json_is_object(v)) {
        const char *key;
        json_object_foreach((json_t *)(uintptr_t)v, key, x)
        {
            const struct wh_gofield *f = wh_gotype_member(t, key);
            json_t *nx = f ? wh_gotype_prune_unknown(x, f->type) : NULL;
            if (f && !nx)
                continue;
            if (!out)
                out = json_copy((json_t *)(uintptr_t)v);
            if (nx)
                json_object_set_new(out, key, nx);
            else
                json_object_del(out, key);
        }
    } else if (kind == WH_GK_MAP && json_is_object(v)) {
        const char *key;
        json_object_foreach((json_t *)(uintptr_t)v, key, x)
        {
            json_t *nx = wh_gotype_prune_unknown(x, wh_gotype_elem(t));
            if (!nx)
                continue;
            if (!out)
                out = json_copy((json_t *)(uintptr_t)v);
            json_object_set_new(out, key, nx);
        }
    } else if (kind == WH_GK_SLICE && json_is_array(v)) {
        size_t i;
        json_array_foreach(v, i, x)
        {
            json_t *nx = wh_gotype_prune_unknown(x, wh_gotype_elem(t));
            if (!nx)
                continue;
            if (!out)
                out = json_copy((json_t *)(uintptr_t)v);
            json_array_set_new(out, i, nx);
        }
    }
    return out;
}

enum wh_err wh_gotype_check_full(const json_t *v, const struct wh_gotype *t, char **msg)
{
    struct chk k = {0};
    check_value(&k, v, t);
    *msg = k.msg;
    return k.msg ? WH_ERR_INVALID : WH_OK;
}

enum wh_err wh_gotype_check_std(const json_t *v, const struct wh_gotype *t, char **msg)
{
    struct chk k = {.fold = true};
    check_value(&k, v, t);
    *msg = k.msg;
    return k.msg ? WH_ERR_INVALID : WH_OK;
}

enum wh_err wh_gotype_check_where(const json_t *v, const struct wh_gotype *t, char **msg,
                                  json_t **path)
{
    struct chk *k = wh_xcalloc(1, sizeof(*k)); /* 2 KiB of trail: not on the stack */
    k->where = true;
    check_value(k, v, t);
    *msg = k->msg;
    *path = NULL;
    if (k->msg) {
        *path = json_array();
        for (size_t i = 0; i < k->at_len; i++) {
            const struct segment *g = &k->at[i];
            WH_ASSERT(json_array_append_new(*path, g->key ? json_stringn(g->key, g->len)
                                                          : json_integer((json_int_t)g->len)) == 0);
        }
    }
    free(k);
    return *msg ? WH_ERR_INVALID : WH_OK;
}

enum wh_err wh_gotype_check(const json_t *v, const struct wh_gotype *t, struct wh_errbuf *eb)
{
    char *msg = NULL;
    enum wh_err rc = wh_gotype_check_full(v, t, &msg);
    if (rc)
        wh_errbuf_set(eb, rc, "%s", msg);
    free(msg);
    return rc;
}

/* ---- normalising ---------------------------------------------------------------------------- */

/* How norm builds: NORM_DECODED, Go's value after decoding (see wh_gotype_decode), else its
 * encoding; NORM_FOLD, member names matched as encoding/json matches them (wh_gotype_unmarshal),
 * else exactly. */
#define NORM_DECODED 1u
#define NORM_FOLD 2u

static json_t *norm(const json_t *v, const struct wh_gotype *t, unsigned mode);
static json_t *norm_struct(const json_t *obj, const struct wh_gotype *t, unsigned mode);

/* The encoding of t's zero value (a field that was never set). */
static json_t *zero_value(const struct wh_gotype *t)
{
    switch (t->kind) {
    case WH_GK_STRING:
        return json_string("");
    case WH_GK_BOOL:
        return json_false();
    case WH_GK_INT32:
    case WH_GK_INT64:
    case WH_GK_INTSTR:
        return json_integer(0);
    case WH_GK_QUANTITY:
        return json_string("0");
    case WH_GK_STRUCT:
        return norm_struct(NULL, t, 0);
    default: /* times, raw JSON, slices, maps: nil */
        return json_null();
    }
}

/* Go's isEmptyValue on the encoding; struct-like values are never empty. */
static bool is_empty(const struct wh_gotype *t, const json_t *nv)
{
    switch (t->kind) {
    case WH_GK_STRING:
        return json_string_length(nv) == 0;
    case WH_GK_BOOL:
        return json_is_false(nv);
    case WH_GK_INT32:
    case WH_GK_INT64:
        return json_integer_value(nv) == 0;
    case WH_GK_BYTES:
        return json_is_null(nv) || json_string_length(nv) == 0;
    case WH_GK_SLICE:
        return json_is_null(nv) || json_array_size(nv) == 0;
    case WH_GK_MAP:
        return json_is_null(nv) || json_object_size(nv) == 0;
    default:
        return false;
    }
}

/* Kinds whose Go value is nil when JSON says null or nothing. */
static bool nilable(const struct wh_gofield *f)
{
    return (f->flags & WH_GOF_POINTER) || f->type->kind == WH_GK_SLICE ||
           f->type->kind == WH_GK_MAP || f->type->kind == WH_GK_BYTES;
}

static void set_member(json_t *o, const char *name, json_t *v)
{
    if (!v || json_object_set_new_nocheck(o, name, v))
        WH_PANIC("json_object_set_new failed");
}

/* The member of obj that decodes into field f: with NORM_FOLD the last of those whose names
 * pick f (a later one overwrites the field, as in Go; a later null only does for the kinds
 * null sets to nil), else the one named f's name. */
static const json_t *member_for(const json_t *obj, const struct wh_gotype *t,
                                const struct wh_gofield *f, unsigned mode)
{
    if (!obj || !(mode & NORM_FOLD))
        return obj ? json_object_get(obj, f->name) : NULL;
    const json_t *found = NULL;
    const char *key;
    size_t klen;
    json_t *v;
    json_object_keylen_foreach((json_t *)(uintptr_t)obj, key, klen, v)
    {
        if (field_for(t, key, klen, true) == f && (!json_is_null(v) || nilable(f)))
            found = v;
    }
    return found;
}

/* Whether the zero value of kind t is empty to omitempty (what zero_value and is_empty say
 * together, without building it). */
static bool zero_is_empty(const struct wh_gotype *t)
{
    return t->kind == WH_GK_STRING || t->kind == WH_GK_BOOL || t->kind == WH_GK_INT32 ||
           t->kind == WH_GK_INT64;
}

/* Structs with more fields are read field by field (member_for). */
#define NORM_INDEXED_FIELDS 128

static json_t *norm_struct(const json_t *obj, const struct wh_gotype *t, unsigned mode)
{
    json_t *out = json_object();
    bool decoded = mode & NORM_DECODED;
    /* The members by field index, one lookup in t's table per member given, rather than one
     * jansson lookup per field of t: a PodSpec has 40 fields and a Container 24, of which a
     * template usually sets a handful. */
    const json_t *given[NORM_INDEXED_FIELDS];
    bool indexed = !(mode & NORM_FOLD) && !t->names_repeat && t->nfields <= NORM_INDEXED_FIELDS;
    if (indexed) {
        memset(given, 0, t->nfields * sizeof(*given));
        const char *key;
        size_t klen;
        json_t *v;
        json_object_keylen_foreach((json_t *)(uintptr_t)obj, key, klen, v)
        {
            const struct wh_gofield *f = member_n(t, key, klen);
            if (f)
                given[f - t->fields] = v;
        }
    }
    for (size_t i = 0; i < t->nfields; i++) {
        const struct wh_gofield *f = &t->fields[i];
        const json_t *mv = indexed ? given[i] : member_for(obj, t, f, mode);
        bool omit = f->flags & WH_GOF_OMITEMPTY;
        if (!mv || json_is_null(mv)) {
            if (nilable(f)) {
                if (!omit)
                    set_member(out, f->name, json_null());
                continue;
            }
            if (omit && zero_is_empty(f->type))
                continue;
            json_t *z = zero_value(f->type);
            if (omit && is_empty(f->type, z))
                json_decref(z);
            else
                set_member(out, f->name, z);
            continue;
        }
        json_t *nv = norm(mv, f->type, mode);
        /* Decoded, an empty list or map given is an empty, not a nil, Go value: only the
         * encoding would leave it out. */
        bool kept = decoded && (f->type->kind == WH_GK_SLICE || f->type->kind == WH_GK_MAP);
        if (!(f->flags & WH_GOF_POINTER) && omit && !kept && is_empty(f->type, nv)) {
            json_decref(nv);
            continue;
        }
        set_member(out, f->name, nv);
    }
    return out;
}

static json_t *norm_quantity(const json_t *v)
{
    char text[WH_QUANTITY_MAX_INPUT + 2], printed[WH_QUANTITY_MAX_DIGITS + 8];
    struct wh_quantity q;
    struct wh_errbuf qe;
    quantity_text(v, text, sizeof(text));
    if (wh_quantity_parse(text, &q, &qe))
        WH_PANIC("a checked quantity does not parse: %s", qe.msg);
    wh_quantity_format(&q, printed, sizeof(printed));
    return json_string(printed);
}

/* Go's value of a Quantity is what ParseQuantity made of the text: its amount as written
 * ("0.1" is 1 at scale -1, not 100m) and the text itself only when that is canonical, which
 * %#v prints (s:""); the text as written (trimmed, a number as Go spells it) keeps both. */
static json_t *decoded_quantity(const json_t *v)
{
    char text[WH_QUANTITY_MAX_INPUT + 2];
    quantity_text(v, text, sizeof(text));
    return json_string(text);
}

/* decoded: Go's value, which keeps the nanoseconds time.Parse read ("00.5Z" parses with
 * RFC3339's layout), though the encoding prints whole seconds: two times that differ below the
 * second are two values to DeepEqual. They are kept as a fraction after the seconds, which
 * time.Parse reads back. */
static json_t *norm_time(const json_t *v, enum wh_gotime_layout layout, bool decoded)
{
    struct wh_gotime tm;
    char buf[WH_GOTIME_MAX + 10];
    if (wh_gotime_parse(json_string_value(v), json_string_length(v), layout, &tm, NULL))
        WH_PANIC("a checked time does not parse");
    if (wh_gotime_is_zero(tm))
        return json_null();
    size_t n = wh_gotime_format(tm, layout, buf, WH_GOTIME_MAX);
    if (decoded && layout == WH_GOTIME_RFC3339 && tm.nsec) {
        char frac[11];
        int digits = 9;
        snprintf(frac, sizeof(frac), ".%09d", (int)tm.nsec);
        while (frac[digits] == '0')
            digits--;
        /* buf ends in "Z": the fraction goes before it */
        snprintf(buf + n - 1, sizeof(buf) - (n - 1), "%.*sZ", digits + 1, frac);
    }
    return json_string(buf);
}

/* Go prints a []byte as canonical base64, whether it came as a string (line breaks are
 * dropped) or as an array of numbers. */
static json_t *norm_bytes(const json_t *v)
{
    unsigned char *bytes = NULL;
    size_t n = 0;
    if (json_is_array(v)) {
        n = json_array_size(v);
        bytes = wh_xmalloc(n ? n : 1);
        for (size_t i = 0; i < n; i++)
            bytes[i] = (unsigned char)json_integer_value(json_array_get(v, i));
    } else if (wh_base64_decode(json_string_value(v), json_string_length(v), &bytes, &n)) {
        /* Go ignores non-zero padding bits that our decoder refuses: keep the text */
        return json_stringn(json_string_value(v), json_string_length(v));
    }
    char *text = wh_base64_encode(bytes, n);
    json_t *out = json_string(text);
    free(text);
    free(bytes);
    return out;
}

/* v is well-typed for t (wh_gotype_check passed). decoded: Go's value after decoding (see
 * wh_gotype_decode) rather than its encoding. */
static json_t *norm(const json_t *v, const struct wh_gotype *t, unsigned mode)
{
    if (!v || json_is_null(v))
        return zero_value(t);
    switch (t->kind) {
    case WH_GK_STRING:
        return json_stringn(json_string_value(v), json_string_length(v));
    case WH_GK_BYTES:
        return norm_bytes(v);
    case WH_GK_BOOL:
        return json_boolean(json_is_true(v));
    case WH_GK_INT32:
    case WH_GK_INT64:
        return json_integer(json_integer_value(v));
    case WH_GK_INTSTR:
        return json_is_string(v) ? json_stringn(json_string_value(v), json_string_length(v))
                                 : json_integer(json_integer_value(v));
    case WH_GK_QUANTITY:
        return mode & NORM_DECODED ? decoded_quantity(v) : norm_quantity(v);
    case WH_GK_TIME:
        return norm_time(v, WH_GOTIME_RFC3339, mode & NORM_DECODED);
    case WH_GK_MICROTIME:
        return norm_time(v, WH_GOTIME_RFC3339_MICRO, false); /* six digits: all it parses */
    case WH_GK_RAW:
        return wh_json_copy(v);
    case WH_GK_STRUCT:
        return norm_struct(v, t, mode);
    case WH_GK_SLICE: {
        json_t *a = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            json_t *ne = t->elem_pointer && json_is_null(e) ? json_null() : norm(e, t->elem, mode);
            if (json_array_append_new(a, ne))
                WH_PANIC("json_array_append_new failed");
        }
        return a;
    }
    case WH_GK_MAP: {
        size_t n;
        const char **keys = wh_json_sorted_keys(v, &n);
        json_t *o = json_object();
        for (size_t k = 0; k < n; k++)
            set_member(o, keys[k], norm(json_object_get(v, keys[k]), t->elem, mode));
        free(keys);
        return o;
    }
    }
    WH_PANIC("unknown kind %d", (int)t->kind);
}

enum wh_err wh_gotype_normalize(const json_t *v, const struct wh_gotype *t, json_t **out,
                                struct wh_errbuf *eb)
{
    *out = NULL;
    enum wh_err rc = wh_gotype_check(v, t, eb);
    if (rc)
        return rc;
    *out = norm(v, t, 0);
    return WH_OK;
}

enum wh_err wh_gotype_decode(const json_t *v, const struct wh_gotype *t, json_t **out,
                             struct wh_errbuf *eb)
{
    *out = NULL;
    enum wh_err rc = wh_gotype_check(v, t, eb);
    if (rc)
        return rc;
    *out = norm(v, t, NORM_DECODED);
    return WH_OK;
}

enum wh_err wh_gotype_unmarshal(const char *text, size_t len, const struct wh_gotype *t,
                                json_t **out, struct wh_errbuf *eb)
{
    *out = NULL;
    char msg[sizeof(eb->msg)];
    if (!wh_goenc_valid(text, len, msg, sizeof(msg)))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s", msg);
    struct wh_jsonparse_error perr;
    json_t *v = wh_json_parse(text, len, &perr);
    if (!v) /* Go's syntax check passed: what is left is a NUL in an object key */
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s", perr.text);
    struct chk k = {.fold = true};
    check_value(&k, v, t);
    enum wh_err rc = WH_OK;
    if (k.msg)
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s", k.msg);
    else
        *out = norm(v, t, NORM_DECODED | NORM_FOLD);
    free(k.msg);
    json_decref(v);
    return rc;
}
