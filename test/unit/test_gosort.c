/* gocompat/gosort against Go's own sort.Slice (test/unit/data/gosort/slice.json, written by
 * gen.go beside it): with "<=" as the less function, as upstream sorts NodeImage tags, equal
 * keys end where Go leaves them. */
#include <stdlib.h>

#include "gocompat/gosort.h"
#include "test.h"

struct items {
    long *key, *id;
};

static bool le(void *ctx, size_t i, size_t j)
{
    struct items *it = ctx;
    return it->key[i] <= it->key[j];
}

static void sw(void *ctx, size_t i, size_t j)
{
    struct items *it = ctx;
    long k = it->key[i], d = it->id[i];
    it->key[i] = it->key[j];
    it->id[i] = it->id[j];
    it->key[j] = k;
    it->id[j] = d;
}

TEST(gosort_matches_go_sort_slice)
{
    json_error_t jerr;
    json_t *doc = json_load_file("test/unit/data/gosort/slice.json", 0, &jerr);
    CHECK(doc != NULL);
    size_t i, k, cases = 0;
    const json_t *c, *v;
    json_array_foreach(json_object_get(doc, "cases"), i, c)
    {
        const json_t *keys = json_object_get(c, "keys"), *order = json_object_get(c, "order");
        size_t n = json_array_size(keys);
        struct items it = {calloc(n + 1, sizeof(long)), calloc(n + 1, sizeof(long))};
        json_array_foreach(keys, k, v)
        {
            it.key[k] = (long)json_integer_value(v);
            it.id[k] = (long)k;
        }
        struct wh_go_sorter s = {le, sw, &it};
        wh_go_sort_slice(&s, n);
        bool same = true;
        json_array_foreach(order, k, v) same &= it.id[k] == json_integer_value(v);
        if (!same) {
            fprintf(stderr, "case %zu (%zu keys): not Go's order\n", i, n);
            wh_test_failed_checks++;
        }
        cases++;
        free(it.key);
        free(it.id);
    }
    CHECK(cases >= 60);
    json_decref(doc);
}
