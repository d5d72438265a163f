#ifndef WH_KUBE_RESOURCE_H
#define WH_KUBE_RESOURCE_H

/* The Kubernetes resources this server reads or writes, as one catalogue. A kind served at
 * several versions lists them in preference order; the version actually used is the cluster's
 * preferred one among them, found by discovery (kube/cluster.c), so the server works against
 * older and newer OpenKruise CRDs. Thread rule: immutable. */

#include <stdbool.h>
#include <stdint.h>

enum wh_resource_id {
    WH_RES_NAMESPACE,
    WH_RES_POD,
    WH_RES_CONFIGMAP,
    WH_RES_SECRET,
    WH_RES_SERVICE,
    WH_RES_PVC,
    WH_RES_CONTROLLERREVISION,
    WH_RES_DEPLOYMENT,
    WH_RES_REPLICASET,
    WH_RES_STATEFULSET,
    WH_RES_INGRESS,
    WH_RES_CRD,
    WH_RES_MUTATING_WEBHOOK_CONFIGURATION,
    WH_RES_VALIDATING_WEBHOOK_CONFIGURATION,
    WH_RES_LEASE,
    WH_RES_SIDECARSET,
    WH_RES_CLONESET,
    WH_RES_ADVANCED_STATEFULSET,
    WH_RES_UNITEDDEPLOYMENT,
    WH_RES_WORKLOADSPREAD,
    WH_RES_PUB,
    WH_RES_JOB,
    WH_RES_PERSISTENTPODSTATE,
    WH_RES_PODPROBEMARKER,
    WH_RES_BROADCASTJOB,
    WH_RES_ADVANCEDCRONJOB,
    WH_RES_EPHEMERALJOB,
    WH_RES_STORAGECLASS,
    WH_RES_ADVANCED_DAEMONSET,
    WH_RES_NODE,
    WH_RES_IMAGEPULLJOB,
    WH_RES_IMAGELISTPULLJOB,
    WH_RES_NODEIMAGE,
    WH_RES_CRR,
    WH_RES_RESOURCEDISTRIBUTION,
    WH_RES_COUNT
};

#define WH_RES_BIT(id) (1u << (id))

struct wh_resource {
    const char *group;       /* "" for the core group */
    const char *versions[3]; /* preference order, NULL-terminated */
    const char *resource;    /* plural, as in URLs */
    const char *kind;
    bool namespaced;
};

/* Returns: the static description of id. */
const struct wh_resource *wh_resource_get(enum wh_resource_id id);

/* Returns: the id whose group and kind match (any listed version), or WH_RES_COUNT. */
enum wh_resource_id wh_resource_by_kind(const char *group, const char *kind);

#endif
