#include "util/yaml_emit.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/buf.h"
#include "util/mem.h"
#include "util/yaml.h"

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    struct wh_buf *b = data;
    return wh_buf_add(b, buffer, size) == WH_OK;
}

/* Whether s, written plain, reads back as the same string: otherwise it must be quoted. */
static bool plain_roundtrips(const char *s, size_t n)
{
    if (n == 0)
        return false;
    json_t *docs = NULL;
    struct wh_errbuf eb;
    if (wh_yaml_load(s, n, NULL, &docs, &eb) != WH_OK)
        return false;
    const json_t *d = json_array_size(docs) == 1 ? json_array_get(docs, 0) : NULL;
    bool same = json_is_string(d) && json_string_length(d) == n &&
                memcmp(json_string_value(d), s, n) == 0;
    json_decref(docs);
    return same;
}

/* Single quotes read best ('{"a":1}', as kubectl prints JSON in annotations) when the text has
 * no quote or character that needs an escape. */
static bool single_quotable(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\'' || c < 0x20 || c == 0x7f)
            return false;
    }
    return true;
}

static bool emit(yaml_emitter_t *em, yaml_event_t *ev)
{
    return yaml_emitter_emit(em, ev) != 0;
}

static bool emit_scalar(yaml_emitter_t *em, const char *s, size_t n, bool is_string)
{
    yaml_event_t ev;
    yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
    if (is_string) {
        if (memchr(s, '\n', n))
            style = YAML_LITERAL_SCALAR_STYLE;
        else if (!plain_roundtrips(s, n))
            style = single_quotable(s, n) ? YAML_SINGLE_QUOTED_SCALAR_STYLE
                                          : YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    }
    /* plain_implicit false for strings that must not be read plain: the emitter then quotes */
    int plain_ok = style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ||
                           style == YAML_SINGLE_QUOTED_SCALAR_STYLE
                       ? 0
                       : 1;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)(uintptr_t)s, (int)n,
                                      plain_ok, 1, style))
        return false;
    return emit(em, &ev);
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Go's shortest float form, as sigs.k8s.io/yaml writes numbers it got from JSON. */
static void format_real(double d, char *out, size_t outsz)
{
    if (isnan(d) || isinf(d)) {
        snprintf(out, outsz, "%s", isnan(d) ? ".nan" : d > 0 ? ".inf" : "-.inf");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, outsz, "%.*g", prec, d);
        if (strtod(out, NULL) == d)
            break;
    }
    /* keep it a float when read back */
    if (!strpbrk(out, ".eEn"))
        snprintf(out + strlen(out), outsz - strlen(out), ".0");
}

static bool emit_value(yaml_emitter_t *em, const json_t *v)
{
    yaml_event_t ev;
    char buf[64];
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) ||
            !emit(em, &ev))
            return false;
        size_t n = json_object_size(v), k = 0;
        const char **keys = wh_xmalloc((n ? n : 1) * sizeof(*keys));
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)(uintptr_t)v, key, val)
        {
            keys[k++] = key;
        }
        qsort(keys, n, sizeof(*keys), cmp_keys);
        bool ok = true;
        for (size_t i = 0; ok && i < n; i++) {
            ok = emit_scalar(em, keys[i], strlen(keys[i]), true) &&
                 emit_value(em, json_object_get(v, keys[i]));
        }
        free(keys);
        if (!ok)
            return false;
        return yaml_mapping_end_event_initialize(&ev) && emit(em, &ev);
    }
    case JSON_ARRAY:
        if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
            !emit(em, &ev))
            return false;
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (!emit_value(em, json_array_get(v, i)))
                return false;
        }
        return yaml_sequence_end_event_initialize(&ev) && emit(em, &ev);
    case JSON_STRING:
        return emit_scalar(em, json_string_value(v), json_string_length(v), true);
    case JSON_INTEGER:
        snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return emit_scalar(em, buf, strlen(buf), false);
    case JSON_REAL:
        format_real(json_real_value(v), buf, sizeof(buf));
        return emit_scalar(em, buf, strlen(buf), false);
    case JSON_TRUE:
        return emit_scalar(em, "true", 4, false);
    case JSON_FALSE:
        return emit_scalar(em, "false", 5, false);
    case JSON_NULL:
        return emit_scalar(em, "null", 4, false);
    }
    return false;
}

enum wh_err wh_yaml_emit(const json_t *v, char **out, size_t *len, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    yaml_emitter_t em;
    yaml_event_t ev;
    struct wh_buf b;
    wh_buf_init(&b, SIZE_MAX / 2);
    if (!yaml_emitter_initialize(&em))
        return wh_errbuf_set(eb, WH_ERR_INTERNAL, "yaml: cannot initialise the emitter");
    yaml_emitter_set_output(&em, write_handler, &b);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, -1);
    yaml_emitter_set_indent(&em, 2);
    bool ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && emit(&em, &ev) &&
              yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) && emit(&em, &ev) &&
              emit_value(&em, v) && yaml_document_end_event_initialize(&ev, 1) &&
              emit(&em, &ev) && yaml_stream_end_event_initialize(&ev) && emit(&em, &ev);
    if (!ok) {
        rc = wh_errbuf_set(eb, WH_ERR_INTERNAL, "yaml: %s",
                           em.problem ? em.problem : "the emitter refused an event");
        wh_buf_fini(&b);
    } else if (b.len && b.data[b.len - 1] != '\n' && wh_buf_addc(&b, '\n')) {
        rc = wh_errbuf_set(eb, WH_ERR_INTERNAL, "yaml: output too large");
        wh_buf_fini(&b);
    } else {
        *out = wh_buf_take(&b, len);
    }
    yaml_emitter_delete(&em);
    return rc;
}
