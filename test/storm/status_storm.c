/* status-storm: one process of the status write-back contention test (test/integration/
 * writeback.py). It caches PodUnavailableBudgets as the server does, then N threads at once each
 * add 1 to status.totalReplicas of one PUB through wh_cluster_write_status, the primitive the
 * WorkloadSpread and PUB handlers write with. Several such processes against one API server
 * must together add exactly their total: none lost, none doubled.
 *
 * Usage: status-storm --kubeconfig FILE --namespace NS --name PUB [--threads N]
 * Prints "writes=N failed=N conflicts=N" and exits 0 when no write failed. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/cluster.h"
#include "log/log.h"
#include "util/json.h"
#include "util/time.h"

struct shared {
    struct wh_cluster *cl;
    const char *ns, *name;
    pthread_mutex_t mu;
    pthread_cond_t go;
    bool started;
    int failed, conflicts;
};

static enum wh_err increment(void *arg, const json_t *current, json_t **desired,
                             struct wh_errbuf *eb)
{
    (void)arg;
    (void)eb;
    const json_t *n = json_object_get(json_object_get(current, "status"), "totalReplicas");
    *desired = wh_json_copy(current);
    json_object_set_new(wh_json_obj_ensure(*desired, "status"), "totalReplicas",
                        json_integer(json_integer_value(n) + 1));
    return WH_OK;
}

static void *worker(void *arg)
{
    struct shared *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->started)
        pthread_cond_wait(&s->go, &s->mu);
    pthread_mutex_unlock(&s->mu);
    struct wh_errbuf eb = {{0}};
    struct wh_rmw_result res;
    enum wh_err rc = wh_cluster_write_status(s->cl, WH_RES_PUB, s->ns, s->name, increment, NULL,
                                             NULL, &res, &eb);
    pthread_mutex_lock(&s->mu);
    s->conflicts += res.conflicts;
    if (rc) {
        s->failed++;
        fprintf(stderr, "status-storm: write failed: %s\n", eb.msg);
    }
    pthread_mutex_unlock(&s->mu);
    wh_rmw_result_fini(&res);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *kubeconfig = NULL, *ns = NULL, *name = NULL;
    long threads = 50;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--kubeconfig") == 0)
            kubeconfig = argv[i + 1];
        else if (strcmp(argv[i], "--namespace") == 0)
            ns = argv[i + 1];
        else if (strcmp(argv[i], "--name") == 0)
            name = argv[i + 1];
        else if (strcmp(argv[i], "--threads") == 0)
            threads = strtol(argv[i + 1], NULL, 10);
    }
    if (!kubeconfig || !ns || !name || threads < 1 || threads > 1000) {
        fprintf(stderr, "usage: status-storm --kubeconfig F --namespace NS --name PUB "
                        "[--threads 1..1000]\n");
        return 2;
    }
    wh_json_init();
    curl_global_init(CURL_GLOBAL_DEFAULT);
    wh_log_setup(WH_LOG_WARN, WH_LOG_TEXT);
    struct wh_errbuf eb = {{0}};
    struct wh_kube_opts ko = {.kubeconfig = kubeconfig, .timeout_ms = 10000, .max_retries = 2};
    struct wh_kube_client *client = NULL;
    struct shared s = {.ns = ns, .name = name};
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.go, NULL);
    if (wh_kube_client_new(&ko, &client, &eb) || wh_cluster_new_api(client, &s.cl, &eb)) {
        fprintf(stderr, "status-storm: %s\n", eb.msg);
        return 2;
    }
    (void)wh_cluster_declare(s.cl, WH_RES_PUB, ns);
    char why[256] = "";
    if (wh_cluster_start(s.cl, &eb)) {
        fprintf(stderr, "status-storm: %s\n", eb.msg);
        return 2;
    }
    for (int i = 0; i < 1000 && !wh_cluster_synced(s.cl, why, sizeof(why)); i++)
        wh_time_sleep_ms(10);
    pthread_t *t = calloc((size_t)threads, sizeof(*t));
    for (long i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, &s);
    pthread_mutex_lock(&s.mu);
    s.started = true;
    pthread_cond_broadcast(&s.go);
    pthread_mutex_unlock(&s.mu);
    for (long i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    printf("writes=%ld failed=%d conflicts=%d\n", threads, s.failed, s.conflicts);
    free(t);
    wh_cluster_free(s.cl);
    curl_global_cleanup();
    return s.failed ? 1 : 0;
}
