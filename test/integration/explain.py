#!/usr/bin/env python3
"""kruise-webhook explain through the binary against the project's fake API server (issue 27):
explain pod says per SidecarSet whether /mutate-pod would inject it and what changed since the
Pod was created; explain eviction and explain delete pod predict the PodUnavailableBudget's
answer, say the budget and what would change it, and leave the PUB's status as it was; explain
delete KIND predicts deletion protection; usage errors and absent objects exit 2; and no request
but GET reaches the API server. Ends with "N passed, N failed".

Usage: explain.py --bin build/kruise-webhook [test-name ...]
"""

import argparse
import json
import subprocess
import sys

from testlib import FakeApiServer, Suite, check, stop_all

SUITE = Suite("wh-explain-")
test = SUITE.test
BIN = None
NS = "shop"
PUB_PATH = "/apis/policy.kruise.io/v1beta1/namespaces/%s/podunavailablebudgets/pub" % NS


def sidecarset(name, app, container, hash_):
    return {"apiVersion": "apps.kruise.io/v1beta1", "kind": "SidecarSet",
            "metadata": {"name": name, "annotations": {
                "kruise.io/sidecarset-hash": hash_,
                "kruise.io/sidecarset-hash-without-image": hash_ + "-w"}},
            "spec": {"selector": {"matchLabels": {"app": app}},
                     "containers": [{"name": container, "image": "busybox"}]}}


def pub(allowed):
    return {"apiVersion": "policy.kruise.io/v1beta1", "kind": "PodUnavailableBudget",
            "metadata": {"name": "pub", "namespace": NS},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "maxUnavailable": 2},
            "status": {"totalReplicas": 5, "desiredAvailable": 3, "currentAvailable": 3 + allowed,
                       "unavailableAllowed": allowed, "observedGeneration": 1}}


def ready_pod(name, injected):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NS, "labels": {"app": "web"},
                         "annotations": {"pub.kruise.io/related-pub": "pub",
                                         "kruise.io/sidecarset-hash": json.dumps(injected)}},
            "spec": {"containers": [{"name": "main", "image": "nginx"}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                       "containerStatuses": [{"name": "main", "image": "nginx", "imageID": "i",
                                              "ready": True}]}}


def cluster(tmp, allowed=0):
    api = FakeApiServer(tmp, ["--kruise-crds"])
    gone = {"hash": "g1", "sidecarSetName": "gone", "sidecarList": ["g"],
            "updateTimestamp": "2024-01-01T00:00:00Z"}
    old = {"hash": "h1", "sidecarSetName": "log-agent", "sidecarList": ["log"],
           "updateTimestamp": "2024-01-01T00:00:00Z"}
    api.objects([
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}},
        {"apiVersion": "v1", "kind": "Namespace",
         "metadata": {"name": "kept", "labels": {"policy.kruise.io/delete-protection": "Always"}}},
        sidecarset("log-agent", "web", "log", "h2"),
        sidecarset("db-agent", "db", "dbx", "d1"),
        pub(allowed),
        ready_pod("web-0", {"log-agent": old, "gone": gone}),
    ])
    return api


def explain(api, *args):
    p = subprocess.run([BIN, "explain"] + list(args) + ["--kubeconfig", api.kubeconfig],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


@test
def explain_pod_says_what_mutate_pod_would_do_and_what_changed(tmp):
    api = cluster(tmp)
    try:
        rc, out, err = explain(api, "pod", NS + "/web-0")
        check(rc == 0, "rc %d: %s %s" % (rc, out, err))
        lines = out.splitlines()
        check(any(l.split()[:2] == ["log-agent", "injected"] for l in lines), out)
        check(any(l.split()[:3] == ["db-agent", "not", "injected"] and "selector" in l
                  for l in lines), out)
        check("log-agent: the Pod has it at hash h1; the SidecarSet was updated since (now h2)"
              in out, out)
        check("gone: the Pod has it, but the SidecarSet no longer exists" in out, out)
        check("an eviction now: refused (429)" in out or "an eviction now: refused (" in out, out)
    finally:
        stop_all(api)


@test
def explain_pod_names_the_persistentpodstate_topology(tmp):
    """The PersistentPodState step speaks in explain pod too (issue 27): the topology a Pod of
    its StatefulSet gets back, and for a Pod it has no record of, that it has none."""
    api = cluster(tmp)
    zone, host = "topology.kubernetes.io/zone", "kubernetes.io/hostname"
    sts = {"apiVersion": "apps.kruise.io/v1beta1", "kind": "StatefulSet", "name": "db",
           "uid": "u-db", "controller": True}
    try:
        api.objects([
            {"apiVersion": "apps.kruise.io/v1beta1", "kind": "PersistentPodState",
             "metadata": {"name": "db-state", "namespace": NS},
             "spec": {"targetRef": {"apiVersion": "apps.kruise.io/v1beta1",
                                    "kind": "StatefulSet", "name": "db"},
                      "requiredPersistentTopology": {"keys": [zone]},
                      "preferredPersistentTopology": [
                          {"weight": 50, "preference": {"keys": [host]}}]},
             "status": {"observedGeneration": 1, "podStates": {"db-0": {
                 "nodeName": "node-7", "nodeTopologyLabels": {zone: "zone-b", host: "node-7"}}}}},
        ] + [{"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": n, "namespace": NS, "labels": {"app": "db"},
                           "ownerReferences": [sts]},
              "spec": {"containers": [{"name": "main", "image": "postgres"}]}}
             for n in ("db-0", "db-1")])
        rc, out, err = explain(api, "pod", NS + "/db-0")
        check(rc == 0, "rc %d: %s %s" % (rc, out, err))
        check("persistentpodstate db-state: the Pod's recorded topology: nodeSelector "
              "%s=zone-b; preferred (weight 50) %s=node-7" % (zone, host) in out, out)
        rc, out, err = explain(api, "pod", NS + "/db-1")
        check(rc == 0, "rc %d: %s %s" % (rc, out, err))
        check('persistentpodstate db-state: no record of a Pod named "db-1"' in out, out)
    finally:
        stop_all(api)


@test
def explain_eviction_predicts_the_budget_and_changes_nothing(tmp):
    api = cluster(tmp, allowed=1)
    try:
        before = api.get(PUB_PATH)
        rc, out, err = explain(api, "eviction", NS + "/web-0")
        check(rc == 0, "rc %d: %s %s" % (rc, out, err))
        check(out.startswith("eviction of pod shop/web-0: allowed\n"), out)
        check("1 of 5 Pods are unavailable or being disrupted; the budget allows 2" in out, out)
        check("would be recorded in status.disruptedPods" in out, out)
        after = api.get(PUB_PATH)
        check(after["status"] == before["status"] and
              after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"],
              "the PUB changed: %s -> %s" % (before, after))
        api.objects([pub(0)])
        rc, out, err = explain(api, "eviction", NS + "/web-0")
        check(rc == 1, "rc %d: %s %s" % (rc, out, err))
        check('refused (' in out and '"pub" is forbidden: pub unavailable allowed is negative'
              in out, out)
        check("warning: 2 of 5 Pods are unavailable or being disrupted; the budget allows 2; 1 "
              "more must become available" in out, out)
        rc, out, err = explain(api, "delete", "pod", NS + "/web-0")
        check(rc == 1 and out.startswith("deletion of pod shop/web-0: refused"), out + err)
    finally:
        stop_all(api)


@test
def explain_sends_get_requests_only(tmp):
    api = cluster(tmp)
    try:
        api.requests(clear=True)
        for args in (["pod", NS + "/web-0"], ["eviction", NS + "/web-0"],
                     ["delete", "pod", NS + "/web-0"], ["delete", "namespace", "kept"]):
            explain(api, *args)
        reqs = api.requests()
        check(reqs, "no request reached the API server")
        writes = [(r["method"], r["path"]) for r in reqs if r["method"] != "GET"]
        check(not writes, "writes: %s" % writes)
    finally:
        stop_all(api)


@test
def explain_delete_predicts_deletion_protection(tmp):
    api = cluster(tmp)
    try:
        rc, out, err = explain(api, "delete", "namespace", "kept")
        check(rc == 0 and "feature gate ResourcesDeletionProtection is off" in out, out + err)
        gate = "--feature-gates=ResourcesDeletionProtection=true"
        rc, out, err = explain(api, "delete", "namespace", "kept", gate)
        check(rc == 1 and out.startswith("deletion of namespaces kept (/validate-namespace): "
                                         "refused"), "rc %d: %s %s" % (rc, out, err))
        rc, out, err = explain(api, "delete", "ns", NS, gate)
        check(rc == 0 and "allowed" in out and "it has no label policy.kruise.io/delete-"
              "protection" in out, "rc %d: %s %s" % (rc, out, err))
    finally:
        stop_all(api)


@test
def explain_usage_and_absent_objects_exit_2(tmp):
    api = cluster(tmp)
    try:
        rc, out, err = explain(api, "pod", NS + "/nope")
        check(rc == 2 and 'pods "nope" not found' in err, "rc %d: %s %s" % (rc, out, err))
        rc, out, err = explain(api, "sidecar", "x")
        check(rc == 2 and "cannot explain \"sidecar\"" in err, err)
        rc, out, err = explain(api, "delete", "configmap", "x")
        check(rc == 2 and "no webhook of this server judges the deletion of configmap" in err, err)
        rc, out, err = explain(api, "pod")
        check(rc == 2 and "explain pod takes one [NS/]NAME" in err, err)
    finally:
        stop_all(api)


def main():
    global BIN
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    BIN = a.bin
    sys.exit(SUITE.run(a.names))


if __name__ == "__main__":
    main()
