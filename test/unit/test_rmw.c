/* kube/rmw: the read-modify-write loop against an in-process object store whose writes can be
 * made to conflict: decisions are always made on the object as it is, nothing is lost or
 * doubled, dry runs never write, and attempts and deadlines bound the loop. */
#include "test/unit/test.h"

#include <pthread.h>
#include <stdlib.h>

#include "kube/rmw.h"
#include "util/deadline.h"
#include "util/json.h"
#include "util/time.h"

/* An object with a resourceVersion and a counter in its status; puts with a stale version
 * conflict, like the API server. */
struct store {
    pthread_mutex_t mu;
    json_t *obj; /* NULL: absent */
    long long rv;
    int gets, puts, creates;
    int conflict_next; /* puts to refuse with a conflict although fresh (another writer) */
};

static json_t *make(long long rv, long long count)
{
    char rvs[32];
    snprintf(rvs, sizeof(rvs), "%lld", rv);
    return json_pack("{s:{s:s,s:s},s:{s:I}}", "metadata", "name", "o", "resourceVersion", rvs,
                     "status", "count", (json_int_t)count);
}

static long long count_in(const json_t *obj)
{
    return (long long)json_integer_value(json_object_get(wh_json_obj(obj, "status"), "count"));
}

static enum wh_err st_get(void *arg, json_t **out, struct wh_errbuf *eb)
{
    struct store *s = arg;
    pthread_mutex_lock(&s->mu);
    s->gets++;
    *out = s->obj ? wh_json_copy(s->obj) : NULL;
    pthread_mutex_unlock(&s->mu);
    return *out ? WH_OK : wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "o not found");
}

static enum wh_err st_put(void *arg, const json_t *obj, bool create, json_t **stored,
                          struct wh_errbuf *eb)
{
    struct store *s = arg;
    enum wh_err rc = WH_OK;
    pthread_mutex_lock(&s->mu);
    s->puts++;
    const char *rv = wh_json_meta_str(obj, "resourceVersion");
    if (create) {
        s->creates++;
        if (s->obj)
            rc = wh_errbuf_set(eb, WH_ERR_CONFLICT, "already exists");
    } else if (!s->obj) {
        rc = wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "o not found");
    } else if (s->conflict_next > 0 || !rv || strtoll(rv, NULL, 10) != s->rv) {
        if (s->conflict_next > 0) {
            s->conflict_next--;
            /* someone else wrote in between: the version moves on */
            s->rv++;
            json_decref(s->obj);
            s->obj = make(s->rv, count_in(obj) - 1);
        }
        rc = wh_errbuf_set(eb, WH_ERR_CONFLICT, "the object has been modified");
    }
    if (!rc) {
        s->rv++;
        long long count = count_in(obj);
        json_decref(s->obj);
        s->obj = make(s->rv, count);
        if (stored)
            *stored = wh_json_copy(s->obj);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static struct wh_rmw_io io_of(struct store *s)
{
    return (struct wh_rmw_io){.get = st_get, .put = st_put, .arg = s};
}

static void store_init(struct store *s, bool present)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->mu, NULL);
    s->rv = 10;
    s->obj = present ? make(s->rv, 0) : NULL;
}

static void store_fini(struct store *s)
{
    json_decref(s->obj);
    pthread_mutex_destroy(&s->mu);
}

static long long count_of(struct store *s)
{
    return count_in(s->obj);
}

/* Adds one to status.count; creates {count: 1} when absent. */
static enum wh_err increment(void *arg, const json_t *current, json_t **desired,
                             struct wh_errbuf *eb)
{
    (void)eb;
    int *calls = arg;
    if (calls)
        (*calls)++;
    long long n = current ? count_in(current) : 0;
    *desired = current ? wh_json_copy(current) : make(0, 0);
    json_object_set_new(wh_json_obj_ensure(*desired, "status"), "count", json_integer(n + 1));
    return WH_OK;
}

static enum wh_err nothing(void *arg, const json_t *current, json_t **desired, struct wh_errbuf *eb)
{
    (void)arg;
    (void)current;
    (void)desired;
    (void)eb;
    return WH_OK;
}

TEST(rmw_conflicts_decide_again_on_fresh_object)
{
    struct store s;
    store_init(&s, true);
    struct wh_rmw_io io = io_of(&s);
    s.conflict_next = 3;
    int calls = 0;
    struct wh_rmw_result res;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_rmw_run(&io, NULL, increment, &calls, &res, &eb), WH_OK);
    /* every conflicting writer "incremented" too (count-1 each time it moved): the decision
     * is made again on what is there, so the final count is theirs plus ours */
    CHECK_EQ_INT(res.conflicts, 3);
    CHECK_EQ_INT(res.writes, 4);
    CHECK_EQ_INT(calls, 4);
    CHECK_EQ_INT(s.gets, 4); /* no base offered: the first read and one per conflict */
    CHECK(res.stored != NULL);
    CHECK_EQ_INT(count_in(res.stored), count_of(&s));
    wh_rmw_result_fini(&res);
    store_fini(&s);
}

TEST(rmw_base_saves_the_first_read)
{
    struct store s;
    store_init(&s, true);
    struct wh_rmw_io io = io_of(&s);
    json_t *base = wh_json_copy(s.obj);
    struct wh_rmw_opts o = {.base = base};
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_rmw_run(&io, &o, increment, NULL, NULL, &eb), WH_OK);
    CHECK_EQ_INT(s.gets, 0);
    CHECK_EQ_INT(count_of(&s), 1);
    /* a stale base conflicts once, then the loop reads and wins */
    CHECK_EQ_INT(wh_rmw_run(&io, &o, increment, NULL, NULL, &eb), WH_OK);
    CHECK_EQ_INT(s.gets, 1);
    CHECK_EQ_INT(count_of(&s), 2);
    json_decref(base);
    store_fini(&s);
}

TEST(rmw_dry_run_and_nothing_to_write)
{
    struct store s;
    store_init(&s, true);
    struct wh_rmw_io io = io_of(&s);
    struct wh_rmw_opts o = {.dry_run = true};
    struct wh_rmw_result res;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_rmw_run(&io, &o, increment, NULL, &res, &eb), WH_OK);
    CHECK_EQ_INT(s.puts, 0);
    CHECK_EQ_INT(count_of(&s), 0);
    CHECK(res.decided && count_in(res.decided) == 1);
    CHECK(res.stored == NULL);
    wh_rmw_result_fini(&res);
    CHECK_EQ_INT(wh_rmw_run(&io, NULL, nothing, NULL, &res, &eb), WH_OK);
    CHECK_EQ_INT(s.puts, 0);
    CHECK(res.decided == NULL && res.stored == NULL);
    wh_rmw_result_fini(&res);
    store_fini(&s);
}

TEST(rmw_limits)
{
    struct store s;
    store_init(&s, true);
    struct wh_rmw_io io = io_of(&s);
    struct wh_errbuf eb = {{0}};
    /* attempts: 2 writes, both refused */
    s.conflict_next = 5;
    struct wh_rmw_opts o = {.max_attempts = 2, .backoff_ms = 1};
    struct wh_rmw_result res;
    CHECK_EQ_INT(wh_rmw_run(&io, &o, increment, NULL, &res, &eb), WH_ERR_CONFLICT);
    CHECK_EQ_INT(res.writes, 2);
    wh_rmw_result_fini(&res);
    /* the deadline: conflicts forever, stopped by a deadline 50 ms away */
    s.conflict_next = 1000000;
    struct wh_rmw_opts d = {.deadline_ns = wh_time_mono_ns() + 50 * 1000000LL, .backoff_ms = 5};
    CHECK_EQ_INT(wh_rmw_run(&io, &d, increment, NULL, &res, &eb), WH_ERR_TIMEOUT);
    CHECK(strstr(eb.msg, "deadline") != NULL);
    CHECK(res.conflicts >= 1);
    wh_rmw_result_fini(&res);
    /* the thread's deadline is the default */
    int64_t prev = wh_deadline_set(wh_time_mono_ns() + 30 * 1000000LL);
    CHECK_EQ_INT(wh_rmw_run(&io, NULL, increment, NULL, NULL, &eb), WH_ERR_TIMEOUT);
    wh_deadline_set(prev);
    s.conflict_next = 0;
    store_fini(&s);
}

TEST(rmw_absent_objects)
{
    struct store s;
    store_init(&s, false);
    struct wh_rmw_io io = io_of(&s);
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_rmw_run(&io, NULL, increment, NULL, NULL, &eb), WH_ERR_NOT_FOUND);
    CHECK_EQ_INT(s.puts, 0);
    struct wh_rmw_opts o = {.create = true};
    CHECK_EQ_INT(wh_rmw_run(&io, &o, increment, NULL, NULL, &eb), WH_OK);
    CHECK_EQ_INT(s.creates, 1);
    CHECK_EQ_INT(count_of(&s), 1);
    store_fini(&s);
}

struct storm {
    struct store *s;
    int n;
};

static void *storm_thread(void *arg)
{
    struct storm *st = arg;
    struct wh_rmw_io io = io_of(st->s);
    for (int i = 0; i < st->n; i++) {
        struct wh_errbuf eb = {{0}};
        struct wh_rmw_opts o = {.backoff_ms = 1};
        if (wh_rmw_run(&io, &o, increment, NULL, NULL, &eb) != WH_OK)
            fprintf(stderr, "storm write failed: %s\n", eb.msg);
    }
    return NULL;
}

TEST(rmw_concurrent_writers_lose_nothing)
{
    struct store s;
    store_init(&s, true);
    pthread_t t[8];
    struct storm st = {&s, 25};
    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, storm_thread, &st);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ_INT(count_of(&s), 200);
    store_fini(&s);
}

TEST(rmw_newer)
{
    CHECK(wh_rmw_newer("10", "9"));
    CHECK(!wh_rmw_newer("9", "10"));
    CHECK(!wh_rmw_newer("10", "10"));
    CHECK(wh_rmw_newer("1", NULL));
    CHECK(wh_rmw_newer("1", ""));
    CHECK(!wh_rmw_newer(NULL, "1"));
    CHECK(!wh_rmw_newer("abc", "1"));
    CHECK(!wh_rmw_newer("2", "x1"));
}

/* Writes nothing while status.count is 0 (a budget spent), else spends one. */
static enum wh_err spend_if_any(void *arg, const json_t *current, json_t **desired,
                                struct wh_errbuf *eb)
{
    (void)eb;
    int *calls = arg;
    (*calls)++;
    long long n = count_in(current);
    if (n <= 0)
        return WH_OK;
    *desired = wh_json_copy(current);
    json_object_set_new(wh_json_obj_ensure(*desired, "status"), "count", json_integer(n - 1));
    return WH_OK;
}

TEST(rmw_confirm_unchanged_rereads_a_stale_base)
{
    struct store s;
    store_init(&s, true); /* count 0 in a stale copy ... */
    json_t *stale = wh_json_copy(s.obj);
    json_decref(s.obj);
    s.rv++;
    s.obj = make(s.rv, 2); /* ... while the object now has 2 */
    struct wh_rmw_io io = io_of(&s);
    int calls = 0;
    struct wh_errbuf eb = {{0}};
    /* without confirmation the stale copy decides: nothing spent */
    struct wh_rmw_opts o = {.base = stale};
    CHECK_EQ_INT(wh_rmw_run(&io, &o, spend_if_any, &calls, NULL, &eb), WH_OK);
    CHECK_EQ_INT(s.gets, 0);
    CHECK_EQ_INT(count_in(s.obj), 2);
    /* with it, one read and the decision taken again: one spent */
    o.confirm_unchanged = true;
    calls = 0;
    CHECK_EQ_INT(wh_rmw_run(&io, &o, spend_if_any, &calls, NULL, &eb), WH_OK);
    CHECK_EQ_INT(s.gets, 1);
    CHECK_EQ_INT(calls, 2);
    CHECK_EQ_INT(count_in(s.obj), 1);
    /* a no-write decision on a live read is final: one read, no loop */
    json_decref(s.obj);
    s.rv++;
    s.obj = make(s.rv, 0);
    calls = 0;
    struct wh_rmw_opts live = {.confirm_unchanged = true};
    CHECK_EQ_INT(wh_rmw_run(&io, &live, spend_if_any, &calls, NULL, &eb), WH_OK);
    CHECK_EQ_INT(calls, 1);
    CHECK_EQ_INT(s.gets, 2);
    json_decref(stale);
    store_fini(&s);
}
