#!/usr/bin/env python3
"""WorkloadSpread's bookkeeping under contention (issue 13): two kruise-webhook processes against
one API server, one WorkloadSpread whose first subset has maxReplicas 10 and whose second is
unlimited, and 50 Pod CREATE reviews sent at once, split across both processes, with 10 dry-run
reviews in the same storm. Afterwards exactly 10 Pods are patched into the first subset and 40
into the second, the WorkloadSpread's status records the 10 (the unlimited subset keeps no
record, as upstream), no request fails, and the dry runs change nothing. Through the project's
fake API server and through a real kube-apiserver (../shared/k8s; skipped with one line when it
cannot be started). Ends with "N passed, N failed".

Usage: workloadspread.py --bin build/kruise-webhook [test-name ...]
"""

import argparse
import base64
import http.client
import json
import os
import ssl
import sys
import threading
import time

import certs
from certs import ApiServer, Server, wait_for
from testlib import Failure, Suite, check, real_apiserver_or_skip, stop_all

SUITE = Suite("wh-workloadspread-")
test = SUITE.test

NS = "ws-storm"
CREATES = 50
DRY_RUNS = 10
LIMIT = 10
ANNOTATION = "apps.kruise.io/matched-workloadspread"
CONFIGS = "ws-storm"  # empty webhook configurations of the test's own

CLONESET = {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
            "metadata": {"name": "cs-storm", "namespace": NS},
            "spec": {"replicas": CREATES, "selector": {"matchLabels": {"app": "storm"}},
                     "template": {"metadata": {"labels": {"app": "storm"}},
                                  "spec": {"containers": [{"name": "main", "image": "nginx"}]}}}}

WS = {"apiVersion": "apps.kruise.io/v1beta1", "kind": "WorkloadSpread",
      "metadata": {"name": "ws-storm", "namespace": NS},
      "spec": {"targetRef": {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
                             "name": "cs-storm"},
               "subsets": [{"name": "zone-a", "maxReplicas": LIMIT,
                            "requiredNodeSelector": {"matchExpressions": [
                                {"key": "zone", "operator": "In", "values": ["a"]}]}},
                           {"name": "zone-b",
                            "requiredNodeSelector": {"matchExpressions": [
                                {"key": "zone", "operator": "In", "values": ["b"]}]}}]}}

WS_PATH = "/apis/apps.kruise.io/v1beta1/namespaces/%s/workloadspreads" % NS
CS_PATH = "/apis/apps.kruise.io/v1alpha1/namespaces/%s/clonesets" % NS


def crd(group, plural, kind, versions):
    open_schema = {"openAPIV3Schema": {"type": "object",
                                       "x-kubernetes-preserve-unknown-fields": True}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "%s.%s" % (plural, group)},
            "spec": {"group": group, "scope": "Namespaced",
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind,
                               "listKind": kind + "List"},
                     "versions": [{"name": v, "served": True, "storage": i == 0,
                                   "subresources": {"status": {}}, "schema": open_schema}
                                  for i, v in enumerate(versions)]}}


def configs():
    return [{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
             "metadata": {"name": CONFIGS}, "webhooks": []}
            for kind in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")]


def create(api, path, obj, deadline=30):
    """POSTs obj, retrying while a fresh CRD is being established."""
    end = time.time() + deadline
    while True:
        st, out = api.call("POST", path, obj)
        if st in (200, 201):
            return out
        if time.time() > end:
            raise Failure("create %s: %s %s" % (path, st, out))
        time.sleep(0.2)


def setup_cluster(api, real):
    if real:
        # CloneSet serves v1alpha1 only while the group prefers v1beta1, as older OpenKruise
        # releases did: its cache must find the version that serves it
        for c in (crd("apps.kruise.io", "workloadspreads", "WorkloadSpread",
                      ["v1beta1", "v1alpha1"]),
                  crd("apps.kruise.io", "clonesets", "CloneSet", ["v1alpha1"])):
            st, out = api.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                               c)
            check(st == 201, "create CRD: %s %s" % (st, out))
    create(api, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                       "metadata": {"name": NS}})
    for c in configs():
        kind = c["kind"].lower() + "s"
        create(api, "/apis/admissionregistration.k8s.io/v1/" + kind, c)
    create(api, CS_PATH, CLONESET)
    create(api, WS_PATH, WS)


def start_servers(tmp, api):
    args = ["--webhook-host", "127.0.0.1", "--service-name", CONFIGS,
            "--mutating-webhook-configuration-name", CONFIGS,
            "--validating-webhook-configuration-name", CONFIGS, "--log-level", "info"]
    servers = []
    for name in ("a", "b"):
        servers.append(Server(tmp, name, api, args))
    for s in servers:
        wait_for(s.ready, 60, s.name + " ready")
        wait_for(lambda: (s.metric("kruise_webhook_cache_objects",
                                   resource="workloadspreads.apps.kruise.io") or 0) >= 1,
                 30, s.name + " caching the WorkloadSpread")
    return servers


def pod_review(i, dry):
    name = "cs-storm-%s%d" % ("dry-" if dry else "", i)
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": NS, "labels": {"app": "storm"},
                        "ownerReferences": [{"apiVersion": "apps.kruise.io/v1alpha1",
                                             "kind": "CloneSet", "name": "cs-storm", "uid": "u",
                                             "controller": True}]},
           "spec": {"containers": [{"name": "main", "image": "nginx"}]}}
    options = {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
    if dry:
        options["dryRun"] = ["All"]
    return name, {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                  "request": {"uid": "uid-" + name,
                              "kind": {"group": "", "version": "v1", "kind": "Pod"},
                              "resource": {"group": "", "version": "v1", "resource": "pods"},
                              "subResource": "", "operation": "CREATE", "namespace": NS,
                              "name": name, "object": pod, "oldObject": None, "dryRun": dry,
                              "options": options, "userInfo": {"username": "storm"}}}


def storm(servers):
    """Sends every review at once (connections opened first, released by a barrier); returns
    {name: (dry, http status, response)} and the wall time from release to the last answer."""
    jobs = [(i, False) for i in range(CREATES)] + [(i, True) for i in range(DRY_RUNS)]
    results = {}
    lock = threading.Lock()
    barrier = threading.Barrier(len(jobs) + 1)
    ctxs = [ssl.create_default_context(cafile=os.path.join(s.cert_dir, "ca-cert.pem"))
            for s in servers]

    def one(k, i, dry):
        s = servers[k % len(servers)]
        name, review = pod_review(i, dry)
        body = json.dumps(review)
        c = http.client.HTTPSConnection("127.0.0.1", s.port, context=ctxs[k % len(servers)],
                                        timeout=30)
        c.connect()
        barrier.wait()
        try:
            c.request("POST", "/mutate-pod", body=body,
                      headers={"Content-Type": "application/json"})
            r = c.getresponse()
            out = (dry, r.status, json.loads(r.read()).get("response"))
        except Exception as e:  # noqa: BLE001 - a failed request is a result to report
            out = (dry, 0, repr(e))
        finally:
            c.close()
        with lock:
            results[name] = out

    threads = [threading.Thread(target=one, args=(k, i, dry)) for k, (i, dry) in enumerate(jobs)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.time()
    for t in threads:
        t.join(60)
    return results, time.time() - t0


def subset_of(response):
    patch = response.get("patch")
    if not patch:
        return None
    for op in json.loads(base64.b64decode(patch)):
        path, value = op.get("path", ""), op.get("value")
        if path == "/metadata/annotations/" + ANNOTATION.replace("/", "~1"):
            return json.loads(value)["subset"]
        if path == "/metadata/annotations" and ANNOTATION in (value or {}):
            return json.loads(value[ANNOTATION])["subset"]
    return None


def check_storm(api, servers, results, wall):
    check(len(results) == CREATES + DRY_RUNS, "answers: %d" % len(results))
    given = {"zone-a": [], "zone-b": [], None: []}
    for name, (dry, status, resp) in sorted(results.items()):
        check(status == 200 and isinstance(resp, dict) and resp.get("allowed") is True,
              "%s failed: %s %s" % (name, status, resp))
        if dry:
            check(subset_of(resp) is None, "dry run %s got a subset" % name)
            continue
        given.setdefault(subset_of(resp), []).append(name)
    check(not given[None], "Pods without a subset: %s" % given[None])
    check(len(given["zone-a"]) == LIMIT and len(given["zone-b"]) == CREATES - LIMIT,
          "zone-a got %d, zone-b %d" % (len(given["zone-a"]), len(given["zone-b"])))
    st, ws = api.call("GET", WS_PATH + "/ws-storm")
    check(st == 200, "read the WorkloadSpread: %s" % st)
    entries = {e["name"]: e for e in
               ws.get("status", {}).get("versionedSubsetStatuses", {}).get("versionIgnored", [])}
    a, b = entries.get("zone-a", {}), entries.get("zone-b", {})
    check(a.get("missingReplicas") == 0, "zone-a missingReplicas %s" % a.get("missingReplicas"))
    check(sorted(a.get("creatingPods", {})) == sorted(given["zone-a"]),
          "zone-a creatingPods %s, patched %s" % (sorted(a.get("creatingPods", {})),
                                                   sorted(given["zone-a"])))
    check(b.get("missingReplicas") == -1 and not b.get("creatingPods"),
          "zone-b (unlimited) keeps no record: %s" % b)
    check(not any(n.startswith("cs-storm-dry-") for n in a.get("creatingPods", {})),
          "a dry run was recorded")
    conflicts = [s.metric("kruise_webhook_workloadspread_status_conflicts_total") or 0
                 for s in servers]
    writes = [s.metric("kruise_webhook_workloadspread_status_writes_total") or 0
              for s in servers]
    check(sum(writes) == LIMIT, "status writes %s" % writes)
    print("  storm: %d creates + %d dry runs in %.3f s; writes %s, conflicts %s (per process)" %
          (CREATES, DRY_RUNS, wall, [int(w) for w in writes], [int(c) for c in conflicts]))


def run_storm(tmp, api, real):
    servers = []
    try:
        setup_cluster(api, real)
        servers = start_servers(tmp, api)
        results, wall = storm(servers)
        check_storm(api, servers, results, wall)
    finally:
        stop_all(*(servers + [api]))


@test
def two_processes_fake_apiserver_exact(tmp):
    run_storm(tmp, ApiServer(tmp), False)


@test
def two_processes_real_apiserver_exact(tmp):
    api = real_apiserver_or_skip(tmp)
    if api:
        run_storm(tmp, api, True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    certs.BIN = os.path.abspath(args.bin)
    return SUITE.run(args.names)


if __name__ == "__main__":
    sys.exit(main())
