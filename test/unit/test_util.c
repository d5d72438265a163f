#include "test/unit/test.h"
#include "test/support/tls_fixture.h"

#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/base64.h"
#include "util/buf.h"
#include "util/cpu.h"
#include "util/json.h"
#include "util/str.h"
#include "util/time.h"

TEST(buf_grows_and_stops_at_cap)
{
    struct wh_buf b;
    wh_buf_init(&b, 10);
    CHECK_EQ_INT(wh_buf_adds(&b, "hello"), WH_OK);
    CHECK_EQ_INT(wh_buf_printf(&b, "%d", 1234), WH_OK);
    CHECK_EQ_STR(b.data, "hello1234");
    CHECK_EQ_INT(wh_buf_adds(&b, "ab"), WH_ERR_TOO_BIG);
    CHECK_EQ_STR(b.data, "hello1234"); /* unchanged after a refused append */
    CHECK_EQ_INT(wh_buf_addc(&b, '!'), WH_OK);
    CHECK_EQ_INT(b.len, 10);
    size_t len = 0;
    char *s = wh_buf_take(&b, &len);
    CHECK_EQ_STR(s, "hello1234!");
    CHECK_EQ_INT(len, 10);
    CHECK(b.data == NULL && b.len == 0);
    free(s);
    wh_buf_fini(&b);
}

/* An answer built by doubling (200 000 bytes in 262 144) is handed over at its length; a buffer
 * with less than 4 KiB unused is handed over as it is. Contents and length are wh_buf_take's. */
TEST(buf_take_fitted_cuts_what_doubling_left)
{
    struct wh_buf b;
    wh_buf_init(&b, (size_t)1 << 30);
    for (int i = 0; i < 20000; i++)
        CHECK_EQ_INT(wh_buf_add(&b, "0123456789", 10), WH_OK);
    CHECK(b._alloc >= 262144);
    size_t len = 0;
    char *s = wh_buf_take_fitted(&b, &len);
    CHECK_EQ_INT(len, 200000);
    CHECK(s[199999] == '9' && s[200000] == '\0' && strncmp(s + 123450, "0123456789", 10) == 0);
    CHECK(malloc_usable_size(s) < 200000 + 4096);
    CHECK(b.data == NULL && b.len == 0);
    free(s);

    wh_buf_init(&b, 64);
    CHECK_EQ_INT(wh_buf_adds(&b, "small"), WH_OK);
    size_t alloc = b._alloc;
    s = wh_buf_take_fitted(&b, &len);
    CHECK_EQ_STR(s, "small");
    CHECK_EQ_INT(len, 5);
    CHECK(malloc_usable_size(s) >= alloc);
    free(s);
    s = wh_buf_take_fitted(&b, &len); /* empty: "" as wh_buf_take */
    CHECK_EQ_STR(s, "");
    CHECK_EQ_INT(len, 0);
    free(s);
}

TEST(buf_add_int_writes_what_printf_does)
{
    const long long cases[] = {0, 7, -7, 10, 1234567890123LL, -1000, LLONG_MAX, LLONG_MIN};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char want[32];
        snprintf(want, sizeof(want), "%lld", cases[i]);
        struct wh_buf b;
        wh_buf_init(&b, 64);
        CHECK_EQ_INT(wh_buf_add_int(&b, cases[i]), WH_OK);
        CHECK_EQ_STR(b.data, want);
        wh_buf_fini(&b);
    }
    struct wh_buf b;
    wh_buf_init(&b, 3);
    CHECK_EQ_INT(wh_buf_add_int(&b, 1234), WH_ERR_TOO_BIG);
    CHECK_EQ_INT(b.len, 0);
    wh_buf_fini(&b);
}

TEST(str_to_ll_is_strict)
{
    long long v = 0;
    CHECK_EQ_INT(wh_str_to_ll("9876", 1, 65535, &v), WH_OK);
    CHECK_EQ_INT(v, 9876);
    CHECK_EQ_INT(wh_str_to_ll("-1", 0, 10, &v), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_str_to_ll("12a", 0, 100, &v), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_str_to_ll("", 0, 100, &v), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_str_to_ll(" 5", 0, 100, &v), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_str_to_ll("99999999999999999999", 0, 100, &v), WH_ERR_INVALID);
}

TEST(str_durations)
{
    long long ms = 0;
    CHECK_EQ_INT(wh_str_to_duration_ms("10s", &ms), WH_OK);
    CHECK_EQ_INT(ms, 10000);
    CHECK_EQ_INT(wh_str_to_duration_ms("1h30m", &ms), WH_OK);
    CHECK_EQ_INT(ms, 5400000);
    CHECK_EQ_INT(wh_str_to_duration_ms("250ms", &ms), WH_OK);
    CHECK_EQ_INT(ms, 250);
    CHECK_EQ_INT(wh_str_to_duration_ms("7", &ms), WH_OK);
    CHECK_EQ_INT(ms, 7000);
    CHECK_EQ_INT(wh_str_to_duration_ms("5x", &ms), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_str_to_duration_ms("1h30", &ms), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_str_to_duration_ms("", &ms), WH_ERR_INVALID);
}

TEST(str_bool)
{
    bool b = false;
    CHECK_EQ_INT(wh_str_to_bool("True", &b), WH_OK);
    CHECK(b);
    CHECK_EQ_INT(wh_str_to_bool("false", &b), WH_OK);
    CHECK(!b);
    CHECK_EQ_INT(wh_str_to_bool("maybe", &b), WH_ERR_INVALID);
}

TEST(base64_round_trip)
{
    const char *cases[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *e = wh_base64_encode(cases[i], strlen(cases[i]));
        CHECK_EQ_STR(e, enc[i]);
        unsigned char *d = NULL;
        size_t n = 0;
        CHECK_EQ_INT(wh_base64_decode(e, strlen(e), &d, &n), WH_OK);
        CHECK_EQ_INT(n, strlen(cases[i]));
        CHECK(d && memcmp(d, cases[i], n) == 0);
        free(d);
        free(e);
    }
    unsigned char *d = NULL;
    size_t n = 0;
    CHECK_EQ_INT(wh_base64_decode("Zm9v\nYmFy", 9, &d, &n), WH_OK);
    CHECK_EQ_INT(n, 6);
    free(d);
    CHECK_EQ_INT(wh_base64_decode("Zm9v!", 5, &d, &n), WH_ERR_PARSE);
    CHECK_EQ_INT(wh_base64_decode("Zg=a", 4, &d, &n), WH_ERR_PARSE);
    CHECK_EQ_INT(wh_base64_decode("Zh==", 4, &d, &n), WH_ERR_PARSE); /* non-zero pad bits */
}

/* Every byte value in every position of the 3-byte group, every tail length: the encoding reads
 * back, and appending writes exactly what the one-shot encoding does. */
TEST(base64_every_byte_and_tail)
{
    unsigned char in[259];
    for (size_t len = 0; len <= sizeof(in); len++) {
        for (size_t i = 0; i < len; i++)
            in[i] = (unsigned char)(i * 7 + len);
        char *e = wh_base64_encode(in, len);
        CHECK_EQ_INT(strlen(e), 4 * ((len + 2) / 3));
        unsigned char *d = NULL;
        size_t n = 0;
        CHECK_EQ_INT(wh_base64_decode(e, strlen(e), &d, &n), WH_OK);
        CHECK_EQ_INT(n, len);
        CHECK(d && memcmp(d, in, len) == 0);
        struct wh_buf b;
        wh_buf_init(&b, 1 << 20);
        CHECK_EQ_INT(wh_buf_adds(&b, "x"), WH_OK);
        CHECK_EQ_INT(wh_base64_encode_append(&b, in, len), WH_OK);
        CHECK_EQ_STR(b.data + 1, e);
        wh_buf_fini(&b);
        free(d);
        free(e);
    }
}

TEST(json_type_names_ours_and_go)
{
    json_t *v = wh_test_json("[true, 1, 1.5, \"s\", null, {}, []]");
    static const char *const ours[] = {"boolean", "number", "number", "string",
                                       "null",    "object", "array"};
    static const char *const go[] = {"bool", "number", "number", "string",
                                     "null", "object", "array"};
    for (size_t i = 0; i < 7; i++) {
        CHECK_EQ_STR(wh_json_type_name(json_array_get(v, i)), ours[i]);
        CHECK_EQ_STR(wh_json_go_type_name(json_array_get(v, i)), go[i]);
    }
    json_decref(v);
}

/* --- util/cpu: workers follow the cgroup's CPU limit ---------------------------------------- */

TEST(cpu_count_follows_the_cgroup_limit)
{
    char root[256];
    CHECK(wh_tls_fixture_tmpdir(root, sizeof(root)));
    long all = wh_cpu_count("/nonexistent-root");
    CHECK(all >= 1);
    /* cgroup v2 inside a container: the files at the top. */
    wh_test_write_file(root, "proc/self/cgroup", "0::/\n");
    wh_test_write_file(root, "sys/fs/cgroup/cpu.max", "max 100000\n");
    CHECK_EQ_INT(wh_cpu_count(root), all);
    wh_test_write_file(root, "sys/fs/cgroup/cpu.max", "50000 100000\n");
    CHECK_EQ_INT(wh_cpu_count(root), 1);
    /* v2 seen from the host: the process's own cgroup, and its parent's limit counts. */
    wh_test_write_file(root, "proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
    wh_test_write_file(root, "sys/fs/cgroup/cpu.max", "max 100000\n");
    wh_test_write_file(root, "sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "max 100000\n");
    wh_test_write_file(root, "sys/fs/cgroup/kubepods/pod1/cpu.max", "100 100000\n");
    CHECK_EQ_INT(wh_cpu_count(root), 1);
    wh_tls_fixture_rmtree(root);

    /* cgroup v1: quota over period, rounded up; -1 is no limit. */
    CHECK(wh_tls_fixture_tmpdir(root, sizeof(root)));
    wh_test_write_file(root, "proc/self/cgroup", "5:cpuacct,cpu:/pod2\n4:memory:/pod2\n");
    wh_test_write_file(root, "sys/fs/cgroup/cpuacct,cpu/pod2/cpu.cfs_quota_us", "-1\n");
    wh_test_write_file(root, "sys/fs/cgroup/cpuacct,cpu/pod2/cpu.cfs_period_us", "100000\n");
    CHECK_EQ_INT(wh_cpu_count(root), all);
    wh_test_write_file(root, "sys/fs/cgroup/cpuacct,cpu/pod2/cpu.cfs_quota_us", "10000\n");
    CHECK_EQ_INT(wh_cpu_count(root), 1);
    /* Garbage is no limit, never zero workers. */
    wh_test_write_file(root, "sys/fs/cgroup/cpuacct,cpu/pod2/cpu.cfs_quota_us", "lots\n");
    CHECK_EQ_INT(wh_cpu_count(root), all);
    wh_tls_fixture_rmtree(root);
}

/* Labels and annotations read as Go's map[string]string holds them: a null value is "" (the
 * key is there), an absent key NULL. */
TEST(labels_and_annotations_read_null_as_empty)
{
    json_t *o = wh_test_json("{\"metadata\":{\"labels\":{\"a\":\"x\",\"n\":null},"
                             "\"annotations\":{\"n\":null,\"s\":\"1\"}}}");
    CHECK_EQ_STR(wh_json_label(o, "a"), "x");
    CHECK_EQ_STR(wh_json_label(o, "n"), "");
    CHECK(wh_json_label(o, "gone") == NULL);
    CHECK_EQ_STR(wh_json_annotation(o, "n"), "");
    CHECK_EQ_STR(wh_json_annotation(o, "s"), "1");
    CHECK(wh_json_annotation(o, "a") == NULL);
    CHECK(wh_json_annotation(NULL, "a") == NULL);
    json_decref(o);
}
