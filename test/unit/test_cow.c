/* util/cow: copy-on-write editing copies exactly the containers on the edited path, never
 * changes a shared value, and keeps unchanged subtrees shared. */
#include "test/unit/test.h"

#include "util/cow.h"
#include "util/json.h"

TEST(cow_edits_copy_only_the_path)
{
    json_t *orig = wh_test_json("{\"metadata\":{\"labels\":{\"a\":\"1\"},\"name\":\"p\"},"
                                "\"spec\":{\"containers\":[{\"name\":\"c\",\"env\":[]},"
                                "{\"name\":\"d\"}],\"volumes\":[{\"name\":\"v\"}]}}");
    json_t *before = wh_json_copy(orig);
    json_t *root = wh_cow_root(orig);
    json_t *orig_spec = json_object_get(orig, "spec");
    json_t *orig_meta = json_object_get(orig, "metadata");

    /* one label added: metadata and labels copied, spec still shared */
    json_object_set_new(wh_cow_path(root, "metadata", "labels", NULL), "b", json_string("2"));
    CHECK(json_object_get(root, "spec") == orig_spec);
    CHECK(json_object_get(root, "metadata") != orig_meta);
    /* unchanged members of a copied container stay shared */
    CHECK(json_object_get(json_object_get(root, "metadata"), "name") ==
          json_object_get(orig_meta, "name"));

    /* an env appended to the first container: spec, containers and that element copied */
    json_t *spec = wh_cow_object(root, "spec", false);
    json_t *containers = wh_cow_array(spec, "containers", false);
    json_t *c0 = wh_cow_elem(containers, 0);
    json_array_append_new(wh_cow_array(c0, "env", true), json_pack("{s:s}", "name", "E"));
    CHECK(json_array_get(containers, 1) ==
          json_array_get(json_object_get(orig_spec, "containers"), 1));
    CHECK(json_object_get(spec, "volumes") == json_object_get(orig_spec, "volumes"));

    /* a second edit of the same path copies nothing more */
    json_t *again =
        wh_cow_elem(wh_cow_array(wh_cow_object(root, "spec", false), "containers", false), 0);
    CHECK(again == c0);

    /* the original never changed */
    CHECK(json_equal(orig, before));
    json_t *want = wh_test_json("{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"},"
                                "\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                                "\"env\":[{\"name\":\"E\"}]},{\"name\":\"d\"}],"
                                "\"volumes\":[{\"name\":\"v\"}]}}");
    CHECK_EQ_JSON(root, want);
    json_decref(want);
    json_decref(root);
    json_decref(before);
    json_decref(orig);
}

TEST(cow_shared_twice_in_one_tree)
{
    /* the same value under two keys is shared: editing one place leaves the other */
    json_t *shared = wh_test_json("{\"k\":\"v\"}");
    json_t *orig = json_object();
    json_object_set(orig, "a", shared);
    json_object_set(orig, "b", shared);
    json_t *root = wh_cow_root(orig);
    json_object_set_new(wh_cow_object(root, "a", false), "k", json_string("changed"));
    CHECK_EQ_STR(wh_json_str(json_object_get(root, "b"), "k"), "v");
    CHECK_EQ_STR(wh_json_str(shared, "k"), "v");
    json_decref(root);
    json_decref(orig);
    json_decref(shared);
}

TEST(cow_missing_and_mistyped)
{
    json_t *orig = wh_test_json("{\"spec\":\"oops\",\"list\":{}}");
    json_t *root = wh_cow_root(orig);
    CHECK(wh_cow_object(root, "absent", false) == NULL);
    CHECK(wh_cow_array(root, "list", false) == NULL);
    CHECK(json_is_object(wh_cow_object(root, "spec", true)));
    CHECK(json_is_array(wh_cow_array(root, "list", true)));
    CHECK_EQ_STR(wh_json_str(orig, "spec"), "oops");
    json_t *arr = wh_test_json("[1,{\"x\":1}]");
    json_t *aroot = wh_cow_root(arr);
    CHECK(wh_cow_elem(aroot, 0) == NULL); /* a scalar */
    CHECK(wh_cow_elem(aroot, 5) == NULL);
    CHECK(json_is_object(wh_cow_elem(aroot, 1)));
    json_t *scalar = json_integer(3);
    json_t *sroot = wh_cow_root(scalar); /* not a container: an empty object */
    CHECK(json_is_object(sroot) && json_object_size(sroot) == 0);
    json_decref(sroot);
    json_decref(scalar);
    json_decref(aroot);
    json_decref(arr);
    json_decref(root);
    json_decref(orig);
}
