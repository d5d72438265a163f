#!/usr/bin/env python3
"""Checks of the Helm chart (charts/kruise-webhook/) with Helm itself: `helm lint`, and
`helm template` compared with manifests/ as kubectl's kustomize renders it (check.py's reader),
so that the two ways to install cannot drift apart; then the values, each where OpenKruise's
chart puts the same thing, reaching the objects they configure, with the program's own facts
(build/tools/manifests) still holding.

    chart.py --bin build/kruise-webhook --tool build/tools/manifests [test-name ...]

Helm is helm.sh/helm/v3 at the version scripts/go-tools.sh pins, built with Go from the module
proxy into build/gotools/ once ($HELM names another). Without Go or the proxy every test says
so in one line and the suite passes: nothing here can be checked without Helm. Ends with
"N passed, N failed".
"""

import argparse
import filecmp
import os
import re
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
sys.path.insert(0, HERE)

import check as tree  # noqa: E402  (test/manifests/check.py: the tree, the program's facts)
import kubectl as kubectl_mod  # noqa: E402
from testlib import Suite, check  # noqa: E402

CHART = os.path.join(ROOT, "charts", "kruise-webhook")
HELM = None
SUITE = Suite("wh-chart-")
test = SUITE.test


def find_helm():
    """(path, None), or (None, why) when Helm cannot be had here."""
    named = os.environ.get("HELM")
    if named:
        return (named, None) if os.access(named, os.X_OK) else (None, "HELM=%s is not an "
                                                                      "executable" % named)
    r = subprocess.run([os.path.join(ROOT, "scripts", "go-tools.sh"), "helm",
                        os.path.join(ROOT, "build", "gotools")], capture_output=True, text=True,
                       timeout=1800)
    if r.returncode == 3:
        return None, r.stdout.strip()
    if r.returncode != 0:
        raise RuntimeError("scripts/go-tools.sh helm: %s%s" % (r.stdout, r.stderr[-3000:]))
    return r.stdout.strip().splitlines()[-1], None


def helm(*args):
    r = subprocess.run([HELM] + list(args), capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, "helm %s: %s%s" % (" ".join(args), r.stdout[-2000:],
                                                r.stderr[-2000:]))
    return r.stdout, r.stderr


def template(tmp, values=None, sets=()):
    """The documents `helm template` renders with values (a dict, written to a file) and
    --set sets, as `helm install` would apply them (release kruise-webhook)."""
    args = ["template", "kruise-webhook", CHART]
    if values is not None:
        path = os.path.join(tmp, "values-%d.yaml" % len(os.listdir(tmp)))
        with open(path, "w") as f:
            yaml.safe_dump(values, f)
        args += ["-f", path]
    for s in sets:
        args += ["--set", s]
    out, _ = helm(*args)
    return [d for d in yaml.safe_load_all(out) if d]


def key(d):
    return d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]


def same_objects(got, want, what):
    g = {key(d): d for d in got}
    w = {key(d): d for d in want}
    check(len(g) == len(got), "%s: an object twice" % what)
    check(set(g) == set(w), "%s: only the chart renders %s; only the manifests %s" % (
        what, sorted(set(g) - set(w)), sorted(set(w) - set(g))))
    differ = [k for k in g if g[k] != w[k]]
    check(not differ, "%s: these differ from the manifests: %s" % (what, differ))


def skipped():
    """True when Helm cannot be had (main said why, once)."""
    return HELM is None


@test
def chart_lints_clean(tmp):
    """helm lint --strict: no warning and no error, with the defaults and with every optional
    part on (the CRDs, monitoring, a priority class)."""
    if skipped():
        return
    for sets in ((), ("crds.managed=true", "monitoring.serviceMonitor.enabled=true",
                      "monitoring.prometheusRule.enabled=true",
                      "manager.priorityClassName=system-cluster-critical")):
        args = ["lint", "--strict", CHART]
        for s in sets:
            args += ["--set", s]
        out, err = helm(*args)
        check(not re.search(r"\[(WARNING|ERROR)\]", out + err) and
              "1 chart(s) linted, 0 chart(s) failed" in out, "helm %s:\n%s%s" % (
                  " ".join(args), out, err))


@test
def chart_defaults_render_the_manifests(tmp):
    """helm template with the default values is `kubectl kustomize manifests/`, object for
    object; with crds.managed it is manifests/with-crds/; with both monitoring parts it adds
    manifests/monitoring/."""
    if skipped():
        return
    same_objects(template(tmp), tree.render(""), "defaults")
    same_objects(template(tmp, sets=["crds.managed=true"]), tree.render("with-crds"),
                 "crds.managed=true")
    same_objects(template(tmp, sets=["monitoring.serviceMonitor.enabled=true",
                                     "monitoring.prometheusRule.enabled=true"]),
                 tree.render("") + tree.render("monitoring"), "monitoring")


@test
def chart_files_are_the_manifests_and_its_version_the_servers(tmp):
    """The chart's copies of manifests/crds/ and the PrometheusRule are byte for byte what
    scripts/chart-files.sh copies (run make crds after changing them); the chart's version and
    appVersion and its default image tag are the server's version (WH_VERSION)."""
    out = os.path.join(tmp, "files")
    subprocess.run([os.path.join(ROOT, "scripts", "chart-files.sh"), out], check=True)
    have = os.path.join(CHART, "files")
    for sub in ("", "crds"):
        cmp = filecmp.dircmp(os.path.join(have, sub), os.path.join(out, sub))
        check(not cmp.left_only and not cmp.right_only and not cmp.diff_files,
              "charts/kruise-webhook/files/%s: only in the chart %s, only copied %s, differ %s "
              "(run make crds)" % (sub, cmp.left_only, cmp.right_only, cmp.diff_files))
        _, mismatch, errors = filecmp.cmpfiles(os.path.join(have, sub), os.path.join(out, sub),
                                               cmp.common_files, shallow=False)
        check(not mismatch and not errors, "differ: %s" % (mismatch + errors))
    meta = yaml.safe_load(open(os.path.join(CHART, "Chart.yaml")))
    values = yaml.safe_load(open(os.path.join(CHART, "values.yaml")))
    version = tree.facts()["version"]
    check(meta["version"] == meta["appVersion"] == values["manager"]["image"]["tag"] == version,
          "chart %s, app %s, image tag %s, server %s" % (meta["version"], meta["appVersion"],
                                                         values["manager"]["image"]["tag"],
                                                         version))


# Values a user of OpenKruise's chart would set, each different from the default.
CUSTOM = {
    "installation": {"namespace": "kw-system", "createNamespace": False},
    "featureGates": "ResourcesDeletionProtection=true,EnableSortSidecarContainerByName=true",
    "imagePullSecrets": [{"name": "regcred"}],
    "manager": {
        "replicas": 3,
        "image": {"repository": "registry.example.com/platform/kruise-webhook", "tag": "0.1.0-p1",
                  "pullPolicy": "Always"},
        "webhook": {"port": 9443},
        "metrics": {"port": 9090},
        "healthProbe": {"port": 8100},
        "resources": {"requests": {"cpu": "200m", "memory": "128Mi"},
                      "limits": {"cpu": "2", "memory": "512Mi"}},
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "node-role", "operator": "In", "values": ["infra"]}]}]}},
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "infra",
                         "effect": "NoSchedule"}],
        "priorityClassName": "system-cluster-critical",
    },
    "webhookConfiguration": {"timeoutSeconds": 9},
    "podDisruptionBudget": {"enabled": True, "minAvailable": 2},
    "serviceAccount": {"annotations": {"iam.example.com/role": "kruise-webhook"}},
    "monitoring": {"serviceMonitor": {"enabled": True, "interval": "15s"},
                   "prometheusRule": {"enabled": True}},
}


@test
def chart_values_reach_what_they_configure(tmp):
    """With every value changed: the namespace holds every namespaced object and is skipped by
    every entry, and is not created; the image, pull policy, secrets, replicas, resources,
    node selection, tolerations and priority class are the Pods'; the three ports are the
    container's, the Service's target and what the server's flags give (the program's facts);
    the feature gates are the server's; timeouts, the budget and the ServiceMonitor follow. The
    manifests' own checks (paths, names, RBAC subjects) hold for the result."""
    if skipped():
        return
    docs = template(tmp, CUSTOM)
    ns = "kw-system"
    check(not [d for d in docs if d["kind"] == "Namespace"], "createNamespace false: none")
    for d in docs:
        if d["kind"] not in tree.CLUSTER_KINDS:
            check(d["metadata"]["namespace"] == ns, "%s %s in %s" % (d["kind"],
                                                                   d["metadata"]["name"],
                                                                   d["metadata"]["namespace"]))
    dep, ctr = tree.container(docs)
    pod = dep["spec"]["template"]["spec"]
    m = CUSTOM["manager"]
    check(dep["spec"]["replicas"] == 3, "replicas")
    check(ctr["image"] == "registry.example.com/platform/kruise-webhook:0.1.0-p1" and
          ctr["imagePullPolicy"] == "Always", "image %s %s" % (ctr["image"],
                                                              ctr["imagePullPolicy"]))
    check(pod["imagePullSecrets"] == [{"name": "regcred"}], "pull secrets")
    check(ctr["resources"] == m["resources"], "resources %s" % ctr["resources"])
    check(pod["nodeSelector"] == m["nodeSelector"] and pod["tolerations"] == m["tolerations"],
          "node selector and tolerations")
    check(pod["affinity"]["nodeAffinity"] == m["nodeAffinity"] and
          "podAntiAffinity" in pod["affinity"], "affinity %s" % pod["affinity"])
    check(pod["priorityClassName"] == "system-cluster-critical", "priority class")
    f = tree.deployment_facts(docs)
    check(f["config"]["port"] == tree.port_of(ctr, "webhook-server") == 9443, "HTTPS port %s" %
          f["config"]["port"])
    check(f["config"]["health_port"] == tree.port_of(ctr, "health") == 8100, "health port")
    check(f["config"]["metrics_port"] == tree.port_of(ctr, "metrics") == 9090, "metrics port")
    svc = tree.one(docs, "Service", "kruise-webhook-server")
    check(tree.port_of(ctr, svc["spec"]["ports"][0]["targetPort"]) == 9443, "Service target")
    msvc = tree.one(docs, "Service", "kruise-webhook-server-metrics")
    check(tree.port_of(ctr, msvc["spec"]["ports"][0]["targetPort"]) == 9090 and
          msvc["spec"]["ports"][0]["port"] == 9090, "metrics Service")
    check("--feature-gates=" + CUSTOM["featureGates"] in ctr["args"], "gates %s" % ctr["args"])
    check(f["config"]["namespace"] == ns, "the server's namespace %s" % f["config"]["namespace"])
    for kind, e in tree.entries(docs):
        check(e["timeoutSeconds"] == 9, "%s timeoutSeconds" % e["name"])
        check(e["clientConfig"]["service"]["namespace"] == ns, "%s target" % e["name"])
        skip = [x for x in e["namespaceSelector"]["matchExpressions"]
                if x["key"] == "kubernetes.io/metadata.name"][0]["values"]
        check(ns in skip and "kruise-system" not in skip, "%s skips %s" % (e["name"], skip))
    check(tree.one(docs, "PodDisruptionBudget")["spec"]["minAvailable"] == 2, "budget")
    sa = tree.one(docs, "ServiceAccount")
    check(sa["metadata"]["annotations"] == CUSTOM["serviceAccount"]["annotations"], "SA")
    for b in docs:
        if b["kind"] in ("RoleBinding", "ClusterRoleBinding"):
            check({"kind": "ServiceAccount", "name": sa["metadata"]["name"], "namespace": ns}
                  in b["subjects"], "%s binds the ServiceAccount in %s" % (b["kind"], ns))
    sm = tree.one(docs, "ServiceMonitor")
    check(sm["spec"]["namespaceSelector"]["matchNames"] == [ns] and
          sm["spec"]["endpoints"][0]["interval"] == "15s", "ServiceMonitor %s" % sm["spec"])
    check(tree.one(docs, "PrometheusRule")["metadata"]["namespace"] == ns, "PrometheusRule")
    # The served paths are the entries' with these gates (/validate-service only with
    # ResourcesDeletionProtection), as for the manifests.
    routes = {r["path"]: r for r in f["routes"]}
    for kind, e in tree.entries(docs):
        r = routes.get(e["clientConfig"]["service"]["path"])
        check(r is not None and r["served"], "%s: not served with the chart's flags" % e["name"])
    off = template(tmp, sets=["podDisruptionBudget.enabled=false"])
    check(not [d for d in off if d["kind"] == "PodDisruptionBudget"], "budget off")


@test
def readme_points_the_image_at_a_registry(tmp):
    """The README's two ways to name your registry, as written there: the kustomization of
    your own next to the clone (its `images:` entry) and the chart's
    manager.image.repository; each gives the Deployment that image and changes nothing else."""
    readme = open(os.path.join(ROOT, "README.md")).read()
    install = readme.split("### Install\n", 1)[1].split("\n### ", 1)[0]
    text = install.split("```yaml\n", 1)[1].split("```", 1)[0]
    mine = os.path.join(tmp, "kruise-webhook-install")
    os.makedirs(mine)
    os.symlink(ROOT, os.path.join(tmp, "kruise-webhook"))
    with open(os.path.join(mine, "kustomization.yaml"), "w") as f:
        f.write(text)
    want = yaml.safe_load(text)["images"][0]
    image = "%s:%s" % (want["newName"], want["newTag"])
    if tree.KUBECTL:
        docs = [d for d in yaml.safe_load_all(kubectl_mod.kustomize(tree.KUBECTL, mine)) if d]
        _, ctr = tree.container(docs)
        check(ctr["image"] == image, "the kustomization's image: %s" % ctr["image"])
        base = tree.render("")
        for d in docs:
            if d["kind"] == "Deployment":
                d["spec"]["template"]["spec"]["containers"][0]["image"] = tree.container(
                    base)[1]["image"]
        same_objects(docs, base, "the README's kustomization, image aside")
    if skipped():
        return
    sets = re.findall(r"--set (\S+)", install.split("helm install kruise-webhook", 1)[1]
                      .split("```", 1)[0].split("\n#", 1)[0])
    check(sets == ["manager.image.repository=" + want["newName"]], "the README's helm install: %s"
          % sets)
    _, ctr = tree.container(template(tmp, sets=sets))
    check(ctr["image"] == "%s:%s" % (want["newName"], tree.facts()["version"]),
          "the chart's image: %s" % ctr["image"])


def main():
    global HELM
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    tree.BIN, tree.TOOL = os.path.abspath(args.bin), os.path.abspath(args.tool)
    tree.KUBECTL = kubectl_mod.find()
    HELM, why = find_helm()
    if HELM:
        print("chart: %s (%s)" % (HELM, subprocess.run([HELM, "version", "--short"],
                                                      capture_output=True, text=True).stdout
                                  .strip()))
    else:
        print("chart: skipped: %s" % why)
    if not tree.KUBECTL:
        print("chart: manifests/ read by following its kustomization files (%s)" %
              kubectl_mod.reason)
    return SUITE.run(args.names)


if __name__ == "__main__":
    sys.exit(main())
