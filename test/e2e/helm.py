#!/usr/bin/env python3
"""The Helm chart installed into a real kube-apiserver (v1.26.1, ../shared/k8s, or
KUBE_APISERVER and ETCD) with Helm itself, as a user installs it, and uninstalled:

  1. `helm install` (the CRDs included) creates every object `helm template` renders, and its
     notes warn that admission depends on a Ready replica;
  2. with no replica Ready (no kubelet runs here) a Pod creation is refused through
     failurePolicy Fail, as the README warns, and scripts/check-install.sh says so and fails;
  3. `helm uninstall` removes every object of the release, no webhook configuration is left,
     and a Pod is admitted again.

The server itself does not run: nothing here schedules its Pods. Its own API server, started
and stopped here, so that nothing of run.py's scenarios is in the way. One "skipped" line, exit
0, when Helm (Go, the module proxy) or the API server cannot be had.

    helm.py [--k8s DIR]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

from cluster import Cluster, Skip
from kube import Kube, object_path, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "manifests"))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
import chart as chart_mod  # noqa: E402  (test/manifests/chart.py: finds or builds Helm)
import kubectl as kubectl_mod  # noqa: E402

CHART = os.path.join(ROOT, "charts", "kruise-webhook")
RELEASE = "kruise-webhook"
CONFIGS = ("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
           "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations")
SETS = ["crds.managed=true"]


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.25"}]}}


def run(helm, kubeconfig, workdir):
    def helm_run(*args, timeout=300):
        r = subprocess.run([helm, "--kubeconfig", kubeconfig] + list(args), capture_output=True,
                           text=True, timeout=timeout,
                           env=dict(os.environ, HELM_CACHE_HOME=os.path.join(workdir, "cache"),
                                    HELM_CONFIG_HOME=os.path.join(workdir, "config"),
                                    HELM_DATA_HOME=os.path.join(workdir, "data")))
        check(r.returncode == 0, "helm %s: %s%s" % (" ".join(args), r.stdout[-2000:],
                                                    r.stderr[-2000:]))
        return r.stdout

    kube = Kube(kubeconfig, workdir)
    sets = sum((["--set", s] for s in SETS), [])
    docs = [d for d in yaml.safe_load_all(helm_run("template", RELEASE, CHART, *sets)) if d]
    # every CRD of the chart's files (crds.managed) and the 11 objects of the server itself
    crds = len([n for n in os.listdir(os.path.join(CHART, "files", "crds")) if n.endswith(".yaml")])
    check(len(docs) == crds + 11, "helm template: %d objects, %d CRDs" % (len(docs), crds))
    t0 = time.time()
    # As the README installs it: the release in the current namespace, the objects in
    # installation.namespace (the chart creates it).
    notes = helm_run("install", RELEASE, CHART, *sets)
    check("every Pod creation in the namespaces they cover is refused" in notes and
          "scripts/check-install.sh --namespace kruise-system" in notes and
          "kubectl delete mutatingwebhookconfiguration kruise-webhook-server-mutating" in notes,
          "helm install's notes warn, give the check and the way out: %s" % notes[-2000:])
    missing = [d["kind"] + " " + d["metadata"]["name"] for d in docs
               if kube.get(object_path(d)) is None]
    check(not missing, "not created by helm install: %s" % missing)
    print("ok   helm install created all %d objects (%.1fs)" % (len(docs), time.time() - t0))

    # No replica can be Ready here: every Pod creation the entries cover is refused.
    st, out = kube.call("POST", "/api/v1/namespaces/default/pods?dryRun=All", pod("blocked"))
    check(st >= 400 and "failed calling webhook" in out.get("message", ""),
          "a Pod with no replica Ready: %s %s" % (st, out))
    kubectl = kubectl_mod.find()
    if kubectl:
        r = subprocess.run([os.path.join(ROOT, "scripts", "check-install.sh")],
                           capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, KUBECTL=kubectl, KUBECONFIG=kubeconfig))
        check(r.returncode == 1 and "could not call the webhook, so every Pod creation it "
              "covers is refused now" in r.stderr, "check-install.sh on an install with no "
              "Ready replica: %d %r %r" % (r.returncode, r.stdout, r.stderr))
        print("ok   no replica Ready: a Pod is refused, and check-install.sh says why")
    else:
        print("ok   no replica Ready: a Pod is refused (check-install.sh not run: %s)" %
              kubectl_mod.reason)

    t0 = time.time()
    # Not --wait: it would wait for the namespace, which only a controller manager finishes
    # deleting (none runs here). CRDs go once the API server has finalized them.
    helm_run("uninstall", RELEASE)

    def left():
        out = []
        for d in docs:
            obj = kube.get(object_path(d))
            if obj is not None and not (d["kind"] == "Namespace" and
                                        obj.get("status", {}).get("phase") == "Terminating"):
                out.append(d["kind"] + " " + d["metadata"]["name"])
        return out
    try:
        wait_for(lambda: not left(), 30, "helm uninstall to remove its objects", step=0.2)
    except TimeoutError:
        raise Failure("left by helm uninstall: %s" % left())
    for path in CONFIGS:
        items = kube.get(path)["items"]
        check(not items, "webhook configurations left: %s" % [i["metadata"]["name"]
                                                               for i in items])
    out = kube.create("/api/v1/namespaces/default/pods", pod("admitted"))
    check(out["metadata"]["name"] == "admitted", "a Pod after uninstall: %s" % out)
    wait_for(lambda: not helm_run("list", "--all", "-q").strip(), 10, "no release left")
    print("ok   helm uninstall removed every object, no webhook configuration is left and Pods "
          "are admitted (%.1fs)" % (time.time() - t0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--k8s", default=os.environ.get("K8S_DIR") or
                    os.path.join(ROOT, "..", "shared", "k8s"))
    args = ap.parse_args()
    helm, why = chart_mod.find_helm()
    if not helm:
        print("e2e helm: skipped: %s" % why)
        return 0
    workdir = tempfile.mkdtemp(prefix="wh-e2e-helm-")
    cluster = Cluster(args.k8s, workdir)
    failed = 0
    try:
        try:
            kubeconfig = cluster.start()
        except Skip as e:
            print("e2e helm: skipped: %s" % e)
            return 0
        try:
            run(helm, kubeconfig, workdir)
        except Exception as e:  # noqa: BLE001 - every failure is reported the same way
            failed = 1
            print("FAIL helm install and uninstall: %s" % e)
    finally:
        cluster.stop()
    if failed:
        print("(logs kept in %s)" % workdir)
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    print("%d passed, %d failed" % (1 - failed, failed))
    return failed


if __name__ == "__main__":
    sys.exit(main())
