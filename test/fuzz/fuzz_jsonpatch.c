/* Fuzz target for webhook/jsonpatch. The input is two JSON texts one after the other
 * ("doc1 doc2"): the diff from doc1 to doc2 must apply and reproduce doc2 exactly; doc2 used
 * as a patch on doc1 may fail but must not crash or leak, and when it applies, the diff back
 * to doc1 must reproduce doc1; string values are tried as JSON pointers. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpatch/apply.h"
#include "jsonpatch/diff.h"
#include "jsonpatch/pointer.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/jsoneq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must_reproduce(const json_t *from, const json_t *to)
{
    json_t *patch = wh_patch_diff(from, to), *res = NULL;
    /* the text sink writes exactly the serialised patch */
    char *want = wh_json_dumps(patch);
    struct wh_buf text;
    wh_buf_init(&text, SIZE_MAX / 4);
    if (wh_patch_diff_write(&text, from, to, NULL) != WH_OK || strcmp(text.data, want) != 0) {
        fprintf(stderr, "diff as text differs from the serialised diff\n");
        abort();
    }
    wh_buf_fini(&text);
    free(want);
    struct wh_errbuf eb;
    if (wh_patch_apply(from, patch, &res, &eb) != WH_OK) {
        fprintf(stderr, "diff does not apply: %s\n", eb.msg);
        abort();
    }
    if (!wh_json_equal(res, to, WH_JSON_EQ_EXACT)) {
        fprintf(stderr, "diff does not reproduce its target\n");
        abort();
    }
    json_decref(res);
    json_decref(patch);
}

static void try_pointer(const json_t *doc, const json_t *s)
{
    struct wh_pointer p;
    struct wh_buf b;
    json_t *got = NULL;
    const char *ptr = json_string_value(s);
    size_t len = json_string_length(s);
    if (wh_pointer_parse(ptr, len, &p, NULL) == WH_OK) {
        /* escaping the tokens again gives back the pointer */
        wh_buf_init(&b, 2 * len + 16);
        for (size_t i = 0; i < p.ntok; i++) {
            if (wh_pointer_append(&b, p.tok[i].s, p.tok[i].len) != WH_OK)
                abort();
        }
        if (b.len != len || (len && memcmp(b.data, ptr, len) != 0))
            abort();
        wh_buf_fini(&b);
    }
    wh_pointer_fini(&p);
    (void)wh_pointer_get(doc, ptr, len, &got, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t err;
    const size_t flags = JSON_DECODE_ANY | JSON_ALLOW_NUL;
    json_t *a = json_loadb((const char *)data, size, flags | JSON_DISABLE_EOF_CHECK, &err);
    if (!a)
        return 0;
    size_t used = (size_t)err.position;
    json_t *b =
        used <= size ? json_loadb((const char *)data + used, size - used, flags, &err) : NULL;
    if (!b) {
        must_reproduce(a, a);
        json_decref(a);
        return 0;
    }

    must_reproduce(a, b);
    must_reproduce(b, a);

    json_t *res = NULL;
    if (wh_patch_apply(a, b, &res, NULL) == WH_OK) {
        must_reproduce(a, res);
        json_decref(res);
    }
    if (json_is_array(b)) {
        size_t i;
        json_t *op;
        json_array_foreach(b, i, op)
        {
            json_t *path = json_object_get(op, "path");
            if (json_is_string(path))
                try_pointer(a, path);
        }
    } else if (json_is_string(b)) {
        try_pointer(a, b);
    }
    json_decref(a);
    json_decref(b);
    return 0;
}
