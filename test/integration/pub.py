#!/usr/bin/env python3
"""PodUnavailableBudget exact under concurrency (issue 14): two kruise-webhook processes against
one real kube-apiserver (../shared/k8s), one PUB with unavailableAllowed 5 over ready Pods, and
storms of reviews POSTed straight to both servers over HTTPS at once:

  - 100 dry-run evictions: every one allowed, the PUB unchanged;
  - 100 evictions: exactly 5 allowed, 95 denied with the budget message, the PUB's status lists
    exactly those 5 in disruptedPods with unavailableAllowed 0;
  - the same with 20 DELETEs and 20 in-place image UPDATEs mixed in: exactly 5 allowed in all,
    recorded in disruptedPods (DELETE, eviction) or unavailablePods (UPDATE);
  - 100 evictions against a budget of 50, which both replicas spend at once (most writes race
    the other replica's): exactly 50 allowed and recorded.
No request fails or times out. Prints each storm's wall time and the conflict retries the
servers counted. Skipped with one line when no real API server can be started. Ends with
"N passed, N failed".

Usage: pub.py --bin build/kruise-webhook [test-name ...]
"""

import argparse
import http.client
import json
import os
import re
import ssl
import sys
import threading
import time

import certs
from certs import Server
from testlib import Failure, Suite, check, real_apiserver_or_skip, stop_all
from writeback import PUB_CRD

SUITE = Suite("wh-pub-")
test = SUITE.test

NS = "storm"
BUDGET = 5
PODS = 140  # 100 for the evictions, 20 DELETEs, 20 UPDATEs
PUB_PATH = "/apis/policy.kruise.io/v1beta1/namespaces/%s/podunavailablebudgets/pub" % NS
NEGATIVE = 'podunavailablebudget.policy.kruise.io "pub" is forbidden: pub unavailable allowed is negative'
CONFIGS = "pub-storm"  # empty webhook configurations of our own: nothing routes to the servers


def pod_name(i):
    return "web-%03d" % i


def create_cluster(api):
    st, out = api.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", PUB_CRD)
    check(st == 201, "create CRD: %s %s" % (st, out))
    st, out = api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                      "metadata": {"name": NS}})
    check(st == 201, "create namespace: %s %s" % (st, out))
    for kind in ("mutatingwebhookconfigurations", "validatingwebhookconfigurations"):
        body = {"apiVersion": "admissionregistration.k8s.io/v1", "metadata": {"name": CONFIGS},
                "webhooks": []}
        st, out = api.call("POST", "/apis/admissionregistration.k8s.io/v1/" + kind, body)
        check(st == 201, "create %s: %s %s" % (kind, st, out))
    pub = {"apiVersion": "policy.kruise.io/v1beta1", "kind": "PodUnavailableBudget",
           "metadata": {"name": "pub", "namespace": NS},
           "spec": {"selector": {"matchLabels": {"app": "web"}}, "maxUnavailable": BUDGET}}
    deadline = time.time() + 30
    while True:
        st, out = api.call("POST", PUB_PATH.rsplit("/", 1)[0], pub)
        if st == 201:
            break
        if time.time() > deadline:
            raise Failure("create PUB: %s %s" % (st, out))
        time.sleep(0.2)  # the CRD is being established
    for i in range(PODS):
        p = {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": pod_name(i), "namespace": NS, "labels": {"app": "web"},
                          "annotations": {"pub.kruise.io/related-pub": "pub",
                                          "kruise.io/related-pub": "pub"}},
             "spec": {"containers": [{"name": "main", "image": "nginx:1.25"}]}}
        st, created = api.call("POST", "/api/v1/namespaces/%s/pods" % NS, p)
        check(st == 201, "create pod: %s %s" % (st, created))
        created["status"] = {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}],
            "containerStatuses": [{"name": "main", "image": "nginx:1.25", "ready": True,
                                   "restartCount": 0, "imageID": "docker.io/library/nginx@sha256:"
                                   "0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
                                   "state": {"running": {}}}]}
        st, out = api.call("PUT", "/api/v1/namespaces/%s/pods/%s/status" % (NS, pod_name(i)),
                           created)
        check(st == 200, "pod status: %s %s" % (st, out))


def reset_budget(api, budget=BUDGET):
    """The controller's part: a full budget and no records."""
    st, pub = api.call("GET", PUB_PATH)
    check(st == 200, "get PUB: %s" % st)
    pub["status"] = {"observedGeneration": 1, "totalReplicas": PODS,
                     "desiredAvailable": PODS - budget, "currentAvailable": PODS,
                     "unavailableAllowed": budget}
    st, out = api.call("PUT", PUB_PATH + "/status", pub)
    check(st == 200, "reset PUB status: %s %s" % (st, out))
    return out


def pods_by_name(api):
    st, out = api.call("GET", "/api/v1/namespaces/%s/pods" % NS)
    check(st == 200, "list pods: %s" % st)
    return {p["metadata"]["name"]: p for p in out["items"]}


def review(uid, kind, resource, sub, op, name, obj, old, options):
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": uid, "kind": kind, "resource": resource, "subResource": sub,
                        "operation": op, "namespace": NS, "name": name, "object": obj,
                        "oldObject": old, "options": options, "dryRun": "dryRun" in options,
                        "userInfo": {"username": "storm"}}}


POD_KIND = {"group": "", "version": "v1", "kind": "Pod"}
PODS_RESOURCE = {"group": "", "version": "v1", "resource": "pods"}


def eviction(i, dry):
    evict = {"apiVersion": "policy/v1", "kind": "Eviction",
             "metadata": {"name": pod_name(i), "namespace": NS}}
    opts = {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
    if dry:
        evict["deleteOptions"] = {"dryRun": ["All"]}
        opts["dryRun"] = ["All"]
    return pod_name(i), "EVICT", review("evict-%d-%d" % (i, dry), {"group": "policy", "version": "v1",
                                                                   "kind": "Eviction"},
                                        PODS_RESOURCE, "eviction", "CREATE", pod_name(i), evict,
                                        None, opts)


def deletion(i, live):
    opts = {"apiVersion": "meta.k8s.io/v1", "kind": "DeleteOptions"}
    return pod_name(i), "DELETE", review("delete-%d" % i, POD_KIND, PODS_RESOURCE, "", "DELETE",
                                         pod_name(i), None, live, opts)


def update(i, live):
    new = json.loads(json.dumps(live))
    new["spec"]["containers"][0]["image"] = "nginx:1.26"
    opts = {"apiVersion": "meta.k8s.io/v1", "kind": "UpdateOptions"}
    return pod_name(i), "UPDATE", review("update-%d" % i, POD_KIND, PODS_RESOURCE, "", "UPDATE",
                                         pod_name(i), new, live, opts)


class Client:
    """HTTPS to one server, trusting its own CA."""

    def __init__(self, server):
        self.port = server.port
        self.ctx = ssl.create_default_context(cafile=os.path.join(server.cert_dir, "ca-cert.pem"))

    def post(self, body):
        c = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=30)
        try:
            c.request("POST", "/validate-pod", body=json.dumps(body),
                      headers={"Content-Type": "application/json"})
            r = c.getresponse()
            return r.status, json.loads(r.read() or b"null")
        finally:
            c.close()


def storm(clients, requests):
    """Sends every request at once, alternating servers; returns [(pod, op, status, response)]
    and the wall time."""
    results = [None] * len(requests)
    barrier = threading.Barrier(len(requests))

    def run(k):
        name, op, body = requests[k]
        barrier.wait()
        try:
            st, out = clients[k % len(clients)].post(body)
            results[k] = (name, op, st, (out or {}).get("response") or {})
        except Exception as e:  # noqa: BLE001 - a failed request is a result to report
            results[k] = (name, op, 0, {"error": repr(e)})

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(requests))]
    for t in threads:
        t.start()
    t0 = time.time()
    for t in threads:
        t.join(120)
    return results, time.time() - t0


def outcome(results):
    """(allowed [(pod, op)], denied count); fails on anything but an allow or the budget's
    denial."""
    allowed, denied = [], 0
    for name, op, st, resp in results:
        check(st == 200, "%s %s: HTTP %s %s" % (op, name, st, resp))
        if resp.get("allowed"):
            allowed.append((name, op))
            continue
        status = resp.get("status") or {}
        check(status.get("code") == 403 and status.get("message") == NEGATIVE,
              "%s %s: unexpected answer %s" % (op, name, resp))
        denied += 1
    return allowed, denied


RETRIES_RE = re.compile(r'^kruise_webhook_pub_conflict_retries_total\{outcome="([a-z_]+)"\} (\S+)$',
                        re.M)


def retries(servers):
    total = 0
    for s in servers:
        text = s.plain(s.metrics_port, "/metrics")[1].decode()
        total += sum(float(v) for _, v in RETRIES_RE.findall(text))
    return int(total)


@test
def two_servers_one_budget_exact(tmp):
    api = real_apiserver_or_skip(tmp)
    if api is None:
        return
    servers = []
    try:
        create_cluster(api)
        base = reset_budget(api)
        args = ["--webhook-host", "127.0.0.1", "--mutating-webhook-configuration-name", CONFIGS,
                "--validating-webhook-configuration-name", CONFIGS, "--threads", "4",
                "--feature-gates", "PodUnavailableBudgetUpdateGate=true"]
        for name in ("a", "b"):
            servers.append(Server(tmp, name, api, args))
        certs.wait_for(lambda: all(s.ready() for s in servers), 60, "both servers ready")
        clients = [Client(s) for s in servers]

        # 1. dry runs: all allowed, nothing written
        results, wall = storm(clients, [eviction(i, True) for i in range(100)])
        allowed, denied = outcome(results)
        st, pub = api.call("GET", PUB_PATH)
        check(len(allowed) == 100 and denied == 0, "dry runs: %d allowed" % len(allowed))
        check(pub["metadata"]["resourceVersion"] == base["metadata"]["resourceVersion"],
              "a dry run wrote the PUB: %s" % pub.get("status"))
        print("  100 dry-run evictions: %.2fs, all allowed, PUB unchanged" % wall)

        # 2. evictions: exactly the budget
        before = retries(servers)
        results, wall = storm(clients, [eviction(i, False) for i in range(100)])
        allowed, denied = outcome(results)
        st, pub = api.call("GET", PUB_PATH)
        status = pub.get("status") or {}
        check(len(allowed) == BUDGET and denied == 100 - BUDGET,
              "evictions: %d allowed, %d denied" % (len(allowed), denied))
        check(status.get("unavailableAllowed") == 0, "status: %s" % status)
        check(sorted(status.get("disruptedPods") or {}) == sorted(n for n, _ in allowed),
              "disruptedPods %s, allowed %s" % (sorted(status.get("disruptedPods") or {}), allowed))
        print("  100 evictions: %.2fs, %d allowed, %d denied, %d conflict retries" %
              (wall, len(allowed), denied, retries(servers) - before))

        # 3. evictions, DELETEs and in-place UPDATEs together
        reset_budget(api)
        live = pods_by_name(api)
        reqs = [eviction(i, False) for i in range(100)]
        reqs += [deletion(i, live[pod_name(i)]) for i in range(100, 120)]
        reqs += [update(i, live[pod_name(i)]) for i in range(120, 140)]
        before = retries(servers)
        results, wall = storm(clients, reqs)
        allowed, denied = outcome(results)
        st, pub = api.call("GET", PUB_PATH)
        status = pub.get("status") or {}
        check(len(allowed) == BUDGET and denied == len(reqs) - BUDGET,
              "mixed: %d allowed, %d denied" % (len(allowed), denied))
        check(status.get("unavailableAllowed") == 0, "status: %s" % status)
        want_disrupted = sorted(n for n, op in allowed if op != "UPDATE")
        want_unavailable = sorted(n for n, op in allowed if op == "UPDATE")
        check(sorted(status.get("disruptedPods") or {}) == want_disrupted and
              sorted(status.get("unavailablePods") or {}) == want_unavailable,
              "records %s, allowed %s" % (status, allowed))
        print("  100 evictions + 20 DELETEs + 20 UPDATEs: %.2fs, %d allowed (%s), %d denied, "
              "%d conflict retries" % (wall, len(allowed),
                                       ", ".join(sorted(set(op for _, op in allowed))), denied,
                                       retries(servers) - before))

        # 4. a budget both replicas spend at once: every write races the other replica's
        reset_budget(api, 50)
        before = retries(servers)
        results, wall = storm(clients, [eviction(i, False) for i in range(100)])
        allowed, denied = outcome(results)
        st, pub = api.call("GET", PUB_PATH)
        status = pub.get("status") or {}
        check(len(allowed) == 50 and denied == 50,
              "budget 50: %d allowed, %d denied" % (len(allowed), denied))
        check(status.get("unavailableAllowed") == 0 and
              sorted(status.get("disruptedPods") or {}) == sorted(n for n, _ in allowed),
              "budget 50: status %s" % status)
        print("  100 evictions, budget 50: %.2fs, %d allowed, %d denied, %d conflict retries" %
              (wall, len(allowed), denied, retries(servers) - before))
    finally:
        stop_all(*(servers + [api]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    certs.BIN = os.path.abspath(args.bin)
    return SUITE.run(args.names)


if __name__ == "__main__":
    sys.exit(main())
