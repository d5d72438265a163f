#!/usr/bin/env python3
"""The status write-back primitive (kube/cluster.h wh_cluster_write_status) under contention
between processes: two status-storm processes, each adding 1 to one counter in a PUB's status
from 50 threads at once, must end with exactly 100 -- none lost, none doubled -- through the
project's fake API server and through a real kube-apiserver (../shared/k8s; skipped with one
line when it cannot be started). Ends with "N passed, N failed".

Usage: writeback.py --storm build/test/status-storm [test-name ...]
"""

import argparse
import os
import subprocess
import sys
import time

from testlib import Failure, Suite, check, real_apiserver_or_skip
from certs import ApiServer  # the fake API server fixture

SUITE = Suite("wh-writeback-")
test = SUITE.test
STORM = None
PER_PROCESS = 50

PUB_PATH = "/apis/policy.kruise.io/v1beta1/namespaces/default/podunavailablebudgets"

PUB = {"apiVersion": "policy.kruise.io/v1beta1", "kind": "PodUnavailableBudget",
       "metadata": {"name": "storm", "namespace": "default"},
       "spec": {"selector": {"matchLabels": {"app": "storm"}}, "maxUnavailable": 1}}

PUB_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "podunavailablebudgets.policy.kruise.io"},
    "spec": {"group": "policy.kruise.io", "scope": "Namespaced",
             "names": {"plural": "podunavailablebudgets", "singular": "podunavailablebudget",
                       "kind": "PodUnavailableBudget", "listKind": "PodUnavailableBudgetList",
                       "shortNames": ["pub"]},
             "versions": [{"name": "v1beta1", "served": True, "storage": True,
                           "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {
                               "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


def storm(kubeconfig, workdir):
    """Runs two storm processes at once; returns their outputs."""
    procs = []
    for i in range(2):
        log = open(os.path.join(workdir, "storm-%d.log" % i), "wb")
        procs.append((subprocess.Popen(
            [STORM, "--kubeconfig", kubeconfig, "--namespace", "default", "--name", "storm",
             "--threads", str(PER_PROCESS)], stdout=subprocess.PIPE, stderr=log), log))
    outs = []
    for p, log in procs:
        out, _ = p.communicate(timeout=300)
        log.close()
        outs.append((p.returncode, out.decode().strip()))
    return outs


def check_storm(outs, status):
    for rc, out in outs:
        check(rc == 0, "a storm process failed writes: %s" % out)
    total = (status or {}).get("totalReplicas")
    check(total == 2 * PER_PROCESS,
          "the counter ended at %s, not %d (outputs: %s)" % (total, 2 * PER_PROCESS, outs))
    print("  %s" % "; ".join(out for _, out in outs))


@test
def two_processes_fake_apiserver_exact(tmp):
    api = ApiServer(tmp)
    try:
        api.objects([PUB])
        outs = storm(api.kubeconfig, tmp)
        check_storm(outs, (api.get(PUB_PATH + "/storm") or {}).get("status"))
    finally:
        api.stop()


@test
def two_processes_real_apiserver_exact(tmp):
    api = real_apiserver_or_skip(tmp)
    if not api:
        return
    try:
        st, out = api.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                           PUB_CRD)
        check(st == 201, "create CRD: %s %s" % (st, out))
        deadline = time.time() + 30
        while True:
            st, out = api.call("POST", PUB_PATH, PUB)
            if st == 201:
                break
            if time.time() > deadline:
                raise Failure("create PUB: %s %s" % (st, out))
            time.sleep(0.2)  # the CRD is being established
        t0 = time.time()
        outs = storm(api.kubeconfig, tmp)
        print("  storm took %.2fs" % (time.time() - t0))
        st, obj = api.call("GET", PUB_PATH + "/storm")
        check_storm(outs, (obj or {}).get("status"))
    finally:
        api.stop()


def main():
    global STORM
    ap = argparse.ArgumentParser()
    ap.add_argument("--storm", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    STORM = os.path.abspath(args.storm)
    return SUITE.run(args.names)


if __name__ == "__main__":
    sys.exit(main())
