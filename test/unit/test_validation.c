/* k8s/fielderr, k8s/validation and gocompat/gotype: the rendering of field errors, the generic
 * Kubernetes checks with their messages, and Go's typed encoding. */
#include <stdlib.h>
#include <string.h>

#include "k8s/fielderr.h"
#include "k8s/validation.h"
#include "test/unit/test.h"
#include "util/buf.h"

TEST(fielderr_rendering_and_aggregate)
{
    struct wh_field_errors l;
    static const char *const valid[] = {"Always", "Never"};
    wh_ferrs_init(&l);
    CHECK(wh_ferrs_aggregate(&l) == NULL);
    wh_ferr_required(&l, "spec.selector", "no selector");
    char *one = wh_ferrs_aggregate(&l);
    CHECK_EQ_STR(one, "spec.selector: Required value: no selector");
    free(one);
    wh_ferr_required(&l, "spec.selector", "no selector"); /* duplicates collapse */
    wh_ferr_invalid_str(&l, "a", "x\"y\n", "bad");
    wh_ferr_invalid_int(&l, "b", -1, "");
    wh_ferr_not_supported(&l, "c", "Sometimes", valid, 2);
    wh_ferr_forbidden(&l, "d", "");
    wh_ferr_too_long(&l, "e", 10);
    wh_ferr_not_found(&l, "f", "v");
    wh_ferr_duplicate(&l, "g", "v");
    char *all = wh_ferrs_aggregate(&l);
    CHECK_EQ_STR(all, "[spec.selector: Required value: no selector, a: Invalid value: "
                      "\"x\\\"y\\n\": bad, b: Invalid value: -1, c: Unsupported value: "
                      "\"Sometimes\": supported values: \"Always\", \"Never\", d: Forbidden, e: "
                      "Too long: may not be more than 10 bytes, f: Not found: \"v\", g: "
                      "Duplicate value: \"v\"]");
    free(all);
    wh_ferrs_fini(&l);
    char *q = wh_go_quote("tab\there \x01 \xff é");
    CHECK_EQ_STR(q, "\"tab\\there \\x01 \\xff é\"");
    free(q);
}

TEST(validation_names)
{
    struct wh_vmsgs m = {0};
    wh_is_qualified_name("example.com/MyName", &m);
    CHECK_EQ_INT(m.n, 0);
    wh_is_qualified_name("/a", &m);
    CHECK_EQ_INT(m.n, 1);
    CHECK_EQ_STR(m.m[0], "prefix part must be non-empty");
    m.n = 0;
    wh_is_qualified_name("Bad_/x", &m);
    CHECK(m.n == 1 && strncmp(m.m[0], "prefix part a lowercase RFC 1123 subdomain", 42) == 0);
    m.n = 0;
    wh_is_dns1123_label("a.b", &m);
    CHECK_EQ_STR(m.m[0], "must not contain dots");
    m.n = 0;
    wh_is_valid_label_value("", &m);
    CHECK_EQ_INT(m.n, 0);
    wh_is_valid_port_name("-a--", &m);
    CHECK_EQ_INT(m.n, 2);
    m.n = 0;
    wh_is_env_var_name("..x", &m);
    CHECK_EQ_STR(m.m[0], "must not start with '..'");
}

TEST(validation_selector_and_gosyntax)
{
    json_t *sel = wh_test_json("{\"matchLabels\":{\"b\":\"2\",\"a\":\"1\"},\"matchExpressions\":"
                               "[{\"key\":\"k\",\"operator\":\"In\",\"values\":[\"x\"]}]}");
    char *g = wh_gosyntax_label_selector(sel);
    CHECK_EQ_STR(g, "v1.LabelSelector{MatchLabels:map[string]string{\"a\":\"1\", \"b\":\"2\"}, "
                    "MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{"
                    "Key:\"k\", Operator:\"In\", Values:[]string{\"x\"}}}}");
    free(g);
    CHECK(wh_label_selector_convertible(sel));
    json_decref(sel);
    sel = wh_test_json("{\"matchExpressions\":[{\"key\":\"k\",\"operator\":\"In\"}]}");
    CHECK(!wh_label_selector_convertible(sel));
    json_decref(sel);
}

/* ValidateObjectMeta's owner references and managed fields, as upstream's apimachinery words
 * them (checked with its own ValidateObjectMeta). */
TEST(validation_object_meta_owners_and_managed_fields)
{
    json_t *meta = wh_test_json(
        "{\"name\":\"a\",\"namespace\":\"n\",\"ownerReferences\":[{\"apiVersion\":\"/v1\","
        "\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"u\"},{\"apiVersion\":\"v1/\",\"kind\":\"\","
        "\"name\":\"\",\"uid\":\"\"},{\"apiVersion\":\"a/b/c\",\"kind\":\"K\",\"name\":\"n\","
        "\"uid\":\"u\"}],\"managedFields\":[{\"manager\":\"m\\u0001\",\"operation\":\"Patch\","
        "\"fieldsType\":\"FieldsV2\"}]}");
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    wh_validate_object_meta(&l, meta, true, wh_name_is_dns_subdomain, "metadata");
    char *agg = wh_ferrs_aggregate(&l);
    CHECK_EQ_STR(agg, "[metadata.ownerReferences: Invalid value: v1.OwnerReference{"
                      "APIVersion:\"/v1\", Kind:\"Event\", Name:\"e\", UID:\"u\", "
                      "Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, "
                      "Kind=Event is disallowed from being an owner, "
                      "metadata.ownerReferences.apiVersion: Invalid value: \"v1/\": version "
                      "must not be empty, metadata.ownerReferences.kind: Invalid value: \"\": "
                      "kind must not be empty, metadata.ownerReferences.name: Invalid value: "
                      "\"\": name must not be empty, metadata.ownerReferences.uid: Invalid "
                      "value: \"\": uid must not be empty, metadata.ownerReferences.apiVersion: "
                      "Invalid value: \"a/b/c\": version must not be empty, "
                      "metadata.managedFields[0].operation: Invalid value: \"Patch\": must be "
                      "`Apply` or `Update`, metadata.managedFields[0].fieldsType: Invalid value: "
                      "\"FieldsV2\": must be `FieldsV1`, metadata.managedFields[0].manager: "
                      "Invalid value: \"m\\x01\": invalid character U+0001 (at position 1)]");
    free(agg);
    wh_ferrs_fini(&l);
    json_decref(meta);
}

/* wh_fpath writes %s and %zu itself (every validated field builds its path): the same bytes
 * as snprintf, truncation, a NULL string and other conversions included. */
TEST(field_paths_are_written_as_snprintf_writes_them)
{
    char want[64], got[80];
    static const char *const names[] = {"spec.template.spec.containers", "", "a.b", NULL};
    static const size_t sizes[] = {64, 31, 20, 8, 1};
    static const size_t indices[] = {0, 7, 42, (size_t)-1};
    for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
        for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
            for (size_t i = 0; i < sizeof(indices) / sizeof(indices[0]); i++) {
                const char *s = names[n] ? names[n] : "(null)";
                size_t sz = sizes[z], ix = indices[i];
                memset(got, 'x', sizeof(got));
                snprintf(want, sz, "%s[%zu].volumeMounts[%zu]", s, ix, ix / 2);
                CHECK(wh_fpath(got, sz, "%s[%zu].volumeMounts[%zu]", names[n], ix, ix / 2) == got);
                CHECK_EQ_STR(got, want);
                CHECK(got[sz] == 'x'); /* nothing written past the size given */
                snprintf(want, sz, "%s.%s", s, "name");
                CHECK_EQ_STR(wh_fpath(got, sz, "%s.%s", names[n], "name"), want);
                snprintf(want, sz, "spec.subsets[%zu].name", ix);
                CHECK_EQ_STR(wh_fpath(got, sz, "spec.subsets[%zu].name", ix), want);
            }
        }
    }
    CHECK_EQ_STR(wh_fpath(got, sizeof(got), "%s[%lld]%%", "x", -3LL), "x[-3]%");
    CHECK_EQ_STR(wh_fpath(got, sizeof(got), "no conversion"), "no conversion");
}
