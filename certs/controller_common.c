#include "certs/controller_int.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "certs/report.h"
#include "metrics/metrics.h"

const char *const wh_ctl_kind_names[WH_CTL_KINDS] = {
    [WH_CTL_SECRET] = "Secret",
    [WH_CTL_MUTATING] = "MutatingWebhookConfiguration",
    [WH_CTL_VALIDATING] = "ValidatingWebhookConfiguration",
    [WH_CTL_CRD] = "CustomResourceDefinition",
};

void wh_ctl_trigger(struct wh_certs_controller *c)
{
    pthread_mutex_lock(&c->mu);
    c->trigger = true;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

void wh_ctl_deadline_after(struct timespec *ts, int64_t ns)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ns += ts->tv_nsec;
    ts->tv_sec += (time_t)(ns / 1000000000);
    ts->tv_nsec = (long)(ns % 1000000000);
}

bool wh_ctl_sleep_unless_stopped(struct wh_certs_controller *c, int64_t ms)
{
    struct timespec ts;
    wh_ctl_deadline_after(&ts, ms * WH_CTL_MS);
    pthread_mutex_lock(&c->mu);
    while (!c->stop && pthread_cond_timedwait(&c->cv, &c->mu, &ts) == 0)
        ;
    bool stop = c->stop;
    pthread_mutex_unlock(&c->mu);
    return stop;
}

void wh_ctl_count_write(struct wh_certs_controller *c, enum wh_ctl_kind k, enum wh_err rc)
{
    if (rc) {
        wh_metric_add(c->m.failures[k], 1);
        return;
    }
    wh_metric_add(c->m.writes[k], 1);
    pthread_mutex_lock(&c->mu);
    c->st.writes++;
    pthread_mutex_unlock(&c->mu);
}

void wh_ctl_count_writes(struct wh_certs_controller *c, enum wh_ctl_kind k,
                         const struct wh_rmw_result *res, enum wh_err rc)
{
    for (int i = 0; i < res->conflicts; i++)
        wh_ctl_count_write(c, k, WH_ERR_CONFLICT);
    if (res->writes > res->conflicts)
        wh_ctl_count_write(c, k, rc);
}

bool wh_ctl_serving_serial(struct wh_certs_controller *c, char *out, size_t outsz)
{
    char raw[128];
    if (!c->hooks.serving_serial(c->hooks.serial_arg, raw, sizeof(raw)))
        return false;
    wh_certs_report_serial_norm(raw, out, outsz);
    return true;
}
