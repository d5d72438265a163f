#ifndef WH_K8S_PODVALIDATION_H
#define WH_K8S_PODVALIDATION_H

/* The part of Kubernetes' create-time Pod validation (pkg/apis/core/validation ValidatePodSpec
 * and validatePodMetadataAndSpec, k8s 1.32, with the PodValidationOptions OpenKruise uses) that
 * a Pod spec made of containers, init containers and volumes can trip, with upstream's messages
 * and paths. Covered:
 *  - volumes: name (required, DNS-1123 label, duplicate), exactly one source, and the checks of
 *    emptyDir, hostPath, gitRepo, gcePersistentDisk, awsElasticBlockStore, secret, nfs,
 *    glusterfs, flocker, persistentVolumeClaim, rbd, cinder, cephfs, downwardAPI, fc,
 *    flexVolume, configMap, azureFile, projected, csi, ephemeral and image sources;
 *  - containers and init containers: name (required, DNS-1123 label, duplicates across both
 *    lists), image (required, no surrounding whitespace), terminationMessagePolicy, ports,
 *    env and envFrom (names, valueFrom sources, field and resource selectors, key selectors),
 *    volumeMounts (known volume, unique mountPath, subPath/subPathExpr, mountPropagation,
 *    recursiveReadOnly), volumeDevices (PVC-backed, unique, no clash with mounts),
 *    imagePullPolicy, resources (names, non-negative values, requests <= limits), resizePolicy,
 *    securityContext (user/group ids, procMount, seccomp and AppArmor profiles, privilege
 *    escalation), probes and lifecycle handlers, restartPolicy rules of regular and init
 *    containers, host port conflicts.
 * Not covered (they cannot occur in this use): pod-level fields (affinity, tolerations, DNS
 * config, security context, topology spread, overhead, OS), resource claims, ephemeral
 * containers, Windows host-process rules, hugepages divisibility.
 * Thread rule: thread-safe (no shared state); inputs are only read. */

#include <jansson.h>

#include "k8s/fielderr.h"

/* Validates a Pod spec (borrowed JSON in the v1 form: volumes, containers, initContainers,
 * restartPolicy, dnsPolicy, terminationGracePeriodSeconds, serviceAccountName) at path "spec",
 * as ValidatePodCreate does for the fields above. */
void wh_validate_pod_spec(struct wh_field_errors *l, const json_t *spec);

#endif
