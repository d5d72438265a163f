#!/usr/bin/env python3
"""Checks of manifests/ (what `kubectl apply -k` installs) against the program itself: the tree
rendered offline with kubectl's kustomize, compared with the facts the program's own tables
give (build/tools/manifests facts: the route table, the convertible kinds, the binary's
defaults, the configuration the Deployment's arguments give), the CRDs regenerated from the
Go-type model, the RBAC rules against every call the server makes to an API server, and the
alert expressions against the metrics the server exports.

    check.py --bin build/kruise-webhook --tool build/tools/manifests [test-name ...]

$KUBECTL picks the kubectl (default: PATH; a fresh Debian 12 gets kubernetes-client through
apt-get). Without one the tree is read by following its kustomization files, with a note.
Ends with "N passed, N failed".
"""

import argparse
import base64
import copy
import filecmp
import http.client
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
sys.path.insert(0, HERE)

import kubectl as kubectl_mod  # noqa: E402  (next to this file)
from testlib import FakeApiServer, Suite, check, http_get, stop_all, track  # noqa: E402

MANIFESTS = os.path.join(ROOT, "manifests")
BIN = TOOL = None
KUBECTL = None
SUITE = Suite("wh-manifests-")
test = SUITE.test
_rendered = {}

# --- the tree --------------------------------------------------------------------------------


def load_tree(directory):
    """The tree read without kustomize: every resource of the kustomization files, followed
    through `bases` and `resources`, with `namespace` set on namespaced objects that have none.
    Used when no kubectl can be had."""
    k = yaml.safe_load(open(os.path.join(directory, "kustomization.yaml")))
    docs = []
    for entry in (k.get("bases") or []) + (k.get("resources") or []):
        path = os.path.join(directory, entry)
        if os.path.isdir(path):
            docs += load_tree(path)
        else:
            docs += [d for d in yaml.safe_load_all(open(path)) if d]
    ns = k.get("namespace")
    for d in docs:
        if ns and d["kind"] not in CLUSTER_KINDS:
            d["metadata"]["namespace"] = ns
    return docs


CLUSTER_KINDS = {"Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
                 "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}


def render(sub=""):
    """The documents of manifests/<sub> as `kubectl apply -k` applies them."""
    if sub not in _rendered:
        directory = os.path.join(MANIFESTS, sub)
        if KUBECTL:
            text = kubectl_mod.kustomize(KUBECTL, directory)
            _rendered[sub] = [d for d in yaml.safe_load_all(text) if d]
        else:
            _rendered[sub] = load_tree(directory)
    return copy.deepcopy(_rendered[sub])


def one(docs, kind, name=None):
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    check(len(found) == 1, "exactly one %s %s, found %d" % (kind, name or "", len(found)))
    return found[0]


def container(docs):
    dep = one(docs, "Deployment")
    return dep, dep["spec"]["template"]["spec"]["containers"][0]


def deployment_env(ctr, namespace):
    env = {}
    for e in ctr.get("env", []):
        if "value" in e:
            env[e["name"]] = e["value"]
        elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "metadata.namespace":
            env[e["name"]] = namespace
    return env


def facts(args=(), env=None):
    """What the program says (tools/manifests.c facts), for the configuration args and env
    give (the environment is otherwise empty: no stray settings)."""
    r = subprocess.run([TOOL, "facts"] + list(args), capture_output=True, text=True,
                       env=env or {}, timeout=60)
    check(r.returncode == 0, "manifests facts: %s" % r.stderr)
    return json.loads(r.stdout)


def deployment_facts(docs):
    dep, ctr = container(docs)
    return facts(ctr.get("args", []), deployment_env(ctr, dep["metadata"]["namespace"]))


def entries(docs):
    """(configuration kind, entry) of both webhook configurations."""
    out = []
    for d in docs:
        if d["kind"] in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
            out += [(d["kind"], e) for e in d["webhooks"]]
    return out


def port_of(ctr, name_or_number):
    if isinstance(name_or_number, int):
        return name_or_number
    ports = [p["containerPort"] for p in ctr["ports"] if p["name"] == name_or_number]
    check(len(ports) == 1, "container port %s" % name_or_number)
    return ports[0]


# --- the tests -------------------------------------------------------------------------------


@test
def tree_renders_and_parses(tmp):
    """Every kustomization of the tree renders; every document has a kind and a name, none
    twice; the base holds no CRD, with-crds holds the base and the CRDs; kubectl's rendering
    of manifests/ is what following the kustomization files gives."""
    trees = {}
    for sub in ("", "base", "crds", "with-crds", "monitoring", "migration"):
        docs = render(sub)
        keys = [(d["apiVersion"], d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"])
                for d in docs]
        check(all(k[0] and k[1] and k[3] for k in keys), "%s: a document without kind or name" % sub)
        check(len(set(keys)) == len(keys), "%s: a document twice" % sub)
        trees[sub] = set(keys)
    check(trees[""] == trees["base"], "manifests/ is the base")
    check(not any(k[1] == "CustomResourceDefinition" for k in trees["base"]), "no CRD in the base")
    check(trees["with-crds"] == trees["base"] | trees["crds"], "with-crds = base + crds")
    # migration/ (docs/migrating.md): the base adopting kruise-manager's Secret, no entries yet.
    check(trees["migration"] == trees["base"], "migration has the base's objects")
    mig = render("migration")
    dep, ctr = container(mig)
    check(deployment_env(ctr, "")["SECRET_NAME"] == "kruise-webhook-certs", "adopts the Secret")
    check(all(not e for _, e in entries(mig)), "migration's configurations start empty")
    if KUBECTL:
        plain = {(d["apiVersion"], d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"])
                 for d in load_tree(MANIFESTS)}
        check(plain == trees[""], "kubectl renders what the kustomization files list: %s" %
              (plain ^ trees[""]))


@test
def webhook_paths_are_the_route_table(tmp):
    """Every entry is one that the route table (handlers/handler.h: struct wh_webhook_entry)
    declares for its path, with the table's name, rules, sideEffects, objectSelector and
    namespaceSelector expressions (besides the namespaces every entry skips), in a
    configuration of the route's kind, served with the Deployment's configuration; every entry
    the table declares for a route so served is there, and every such admission route declares
    one, but an alias (the Helm chart's older names, never registered); /convert is left to the
    CRDs."""
    docs = render()
    f = deployment_facts(docs)
    routes = {r["path"]: r for r in f["routes"]}
    registered = set()
    for kind, e in entries(docs):
        path = e["clientConfig"]["service"]["path"]
        r = routes.get(path)
        check(r is not None, "%s: %s is not a route of the server" % (e["name"], path))
        if r is None:
            continue
        want = "mutate" if kind.startswith("Mutating") else "validate"
        check(r["kind"] == want, "%s: %s is a %s route in a %s" % (e["name"], path, r["kind"], kind))
        check(r["served"], "%s: %s is not served with the Deployment's flags" % (e["name"], path))
        declared = {d["name"]: d for d in r["entries"]}
        d = declared.get(e["name"])
        check(d is not None, "%s: the route table declares %s for %s" % (e["name"], sorted(declared),
                                                                        path))
        if d is None:
            continue
        registered.add((path, e["name"]))
        check(e.get("rules") == d["rules"], "%s: rules %s, the route table's %s" %
              (e["name"], e.get("rules"), d["rules"]))
        check(e.get("sideEffects") == d["sideEffects"], "%s: sideEffects %s, the route table's %s" %
              (e["name"], e.get("sideEffects"), d["sideEffects"]))
        check(e.get("objectSelector") == d.get("objectSelector"), "%s: objectSelector %s, the "
              "route table's %s" % (e["name"], e.get("objectSelector"), d.get("objectSelector")))
        exprs = [x for x in e.get("namespaceSelector", {}).get("matchExpressions", [])
                 if x["key"] != "kubernetes.io/metadata.name"]
        check(exprs == d["namespaceExpressions"], "%s: namespaceSelector %s, the route table's %s" %
              (e["name"], exprs, d["namespaceExpressions"]))
    for r in f["routes"]:
        if r["alias_of"]:
            check(r["alias_of"] in routes and not r["entries"], "alias %s of %s" % (r["path"],
                                                                                 r["alias_of"]))
            continue
        if not r["served"] or r["kind"] == "convert":
            continue
        check(r["entries"], "served path %s declares no webhook entry" % r["path"])
        for d in r["entries"]:
            check((r["path"], d["name"]) in registered, "served path %s has no entry %s" %
                  (r["path"], d["name"]))


@test
def webhook_entries_time_out_fail_closed_and_skip_system_namespaces(tmp):
    """Each entry: timeoutSeconds below 30 and above the server's request deadline, failure
    policy Fail, a namespaceSelector that skips kube-system and the server's own namespace,
    the Service of the tree as target, no caBundle (the server's)."""
    docs = render()
    f = deployment_facts(docs)
    svc = one(docs, "Service")
    for _, e in entries(docs):
        name = e["name"]
        t = e.get("timeoutSeconds")
        check(t is not None and f["config"]["request_deadline_ms"] / 1000 < t < 30,
              "%s: timeoutSeconds %s (request deadline %d ms)" % (name, t,
                                                                 f["config"]["request_deadline_ms"]))
        check(e.get("failurePolicy") == "Fail", "%s: failurePolicy" % name)
        exprs = e.get("namespaceSelector", {}).get("matchExpressions", [])
        skipped = [x for x in exprs if x["key"] == "kubernetes.io/metadata.name" and
                   x["operator"] == "NotIn"]
        check(skipped and {"kube-system", svc["metadata"]["namespace"]} <= set(skipped[0]["values"]),
              "%s: namespaceSelector %s" % (name, exprs))
        target = e["clientConfig"]["service"]
        check((target["name"], target["namespace"]) ==
              (svc["metadata"]["name"], svc["metadata"]["namespace"]), "%s: target" % name)
        check("caBundle" not in e["clientConfig"], "%s: a caBundle in the manifests" % name)


UPSTREAM_MARKERS = os.path.join(ROOT, "test", "data", "upstream", "webhook-markers.txt")
# Upstream's entries this tree does not serve yet, by the work that brings them; the list
# empties as they land, and then the server answers every one of upstream's paths.
NOT_YET = set()


@test
def served_entries_are_upstreams_markers(tmp):
    """Every webhook entry of the route table is one of upstream's +kubebuilder:webhook markers
    at the pinned commit (test/data/upstream/webhook-markers.txt): the same path, name, group,
    resources, versions and verbs; and upstream's entries the table lacks are exactly NOT_YET."""
    upstream = {}
    for line in open(UPSTREAM_MARKERS):
        if line.strip() and not line.startswith("#"):
            path, name, groups, resources, versions, verbs = line.split()
            upstream[name] = (path, groups.replace('""', ""), resources, versions, verbs)
    f = deployment_facts(render())
    ours = set()
    for r in f["routes"]:
        if r["alias_of"] or r["kind"] == "convert":
            continue
        for e in r["entries"]:
            ours.add(e["name"])
            got = [(r["path"], ";".join(x["apiGroups"]), ";".join(x["resources"]),
                    ";".join(x["apiVersions"]), ";".join(o.lower() for o in x["operations"]))
                   for x in e["rules"]]
            check(got == [upstream.get(e["name"])],
                  "%s: %s, upstream's marker %s" % (e["name"], got, upstream.get(e["name"])))
    missing = set(upstream) - ours
    check(missing == NOT_YET, "upstream's entries not served: %s, NOT_YET lists %s" %
          (sorted(missing - NOT_YET), sorted(NOT_YET - missing)))


@test
def crds_declare_every_converted_kind_and_version(tmp):
    """with-crds has a CRD for every kind /convert serves: served at both versions, v1beta1
    stored, the status subresource, conversion by webhook through the tree's Service to
    /convert on its port; the CRDs of the table's kinds of one version (PodProbeMarker,
    EphemeralJob) serve and store that version, convert nothing, and a route of the server
    admits that kind at that version; and nothing else."""
    docs = render("with-crds")
    f = deployment_facts(docs)
    svc = one(docs, "Service")
    crds = {(d["spec"]["group"], d["spec"]["names"]["kind"]): d for d in docs
            if d["kind"] == "CustomResourceDefinition"}
    kinds = {(k["group"], k["kind"]) for k in f["convert_kinds"]}
    single = {(c["group"], c["kind"]): c["only"] for c in f["crds"] if c.get("only")}
    check(not kinds & set(single), "converted kinds of one version: %s" % sorted(kinds & set(single)))
    check(set(crds) == kinds | set(single),
          "CRDs %s, /convert kinds and kinds of one version %s" % (sorted(set(crds) ^ (kinds | set(single))), ""))
    admitted = {(g, res, v) for route in f["routes"] for e in route["entries"]
                for r in e["rules"] for g in r["apiGroups"] for res in r["resources"]
                for v in r["apiVersions"]}
    for (group, kind), d in crds.items():
        spec = d["spec"]
        vers = {v["name"]: v for v in spec["versions"]}
        for v in vers.values():
            check(v["served"] and v["subresources"].get("status") == {}, "%s %s" % (kind, v["name"]))
            s = v["schema"]["openAPIV3Schema"]
            check(s.get("type") == "object" and "spec" in s["properties"], "%s: schema" % kind)
        check(d["metadata"]["name"] == "%s.%s" % (spec["names"]["plural"], group), kind + " name")
        if (group, kind) in single:
            check(sorted(vers) == [single[(group, kind)]] and vers[single[(group, kind)]]["storage"],
                  "%s: versions %s" % (kind, sorted(vers)))
            check("conversion" not in spec, "%s: a conversion for a kind of one version" % kind)
            check((group, spec["names"]["plural"], single[(group, kind)]) in admitted,
                  "%s: no route admits %s at %s" % (kind, spec["names"]["plural"], single[(group, kind)]))
            continue
        check(sorted(vers) == sorted(f["versions"]), "%s: versions %s" % (kind, sorted(vers)))
        check([v["name"] for v in spec["versions"] if v["storage"]] == ["v1beta1"], kind + " storage")
        conv = spec["conversion"]
        target = conv["webhook"]["clientConfig"]["service"]
        check(conv["strategy"] == "Webhook" and target["path"] == "/convert" and
              (target["name"], target["namespace"]) ==
              (svc["metadata"]["name"], svc["metadata"]["namespace"]) and
              target["port"] in [p["port"] for p in svc["spec"]["ports"]],
              "%s: conversion %s" % (kind, conv))
        check("v1" in conv["webhook"]["conversionReviewVersions"], kind)


@test
def crds_are_generated_from_the_model(tmp):
    """manifests/crds/ is what `make crds` writes now: the Go-type model, upstream's markers
    and the CRD table (regenerate with make crds after changing them)."""
    out = os.path.join(tmp, "crds")
    os.makedirs(out)
    r = subprocess.run([TOOL, "crds", out], capture_output=True, text=True, env={}, timeout=120)
    check(r.returncode == 0, "manifests crds: %s" % r.stderr)
    have = os.path.join(MANIFESTS, "crds")
    cmp = filecmp.dircmp(have, out)
    check(not cmp.left_only and not cmp.right_only,
          "files: only checked in %s, only generated %s" % (cmp.left_only, cmp.right_only))
    _, mismatch, errors = filecmp.cmpfiles(have, out, sorted(os.listdir(out)), shallow=False)
    check(not mismatch and not errors, "differ from the generated files (run make crds): %s" %
          (mismatch + errors))


WEBHOOK_FILES = {"base": os.path.join(MANIFESTS, "base", "webhookconfigurations.yaml"),
                 "chart": os.path.join(ROOT, "charts", "kruise-webhook", "templates",
                                       "webhookconfigurations.yaml")}


def generated_webhook_files(tmp):
    """{"base": path, "chart": path}: what `make crds` writes now (the generator run with
    manifests/base/deployment.yaml), under tmp."""
    out = {k: os.path.join(tmp, "generated-" + k) for k in WEBHOOK_FILES}
    for d in out.values():
        os.makedirs(d, exist_ok=True)
    r = subprocess.run([TOOL, "webhooks", os.path.join(MANIFESTS, "base", "deployment.yaml"),
                        out["base"], out["chart"]], capture_output=True, text=True, env={},
                       timeout=60)
    check(r.returncode == 0, "manifests webhooks: %s" % r.stderr)
    return {k: os.path.join(d, "webhookconfigurations.yaml") for k, d in out.items()}


def webhook_files_differences(files, generated):
    """{key: message} for each file of files ({"base": path, "chart": path}) that is not the
    generated one of its key, naming its first differing line."""
    diffs = {}
    for k, path in files.items():
        have = open(path).read().splitlines()
        made = open(generated[k]).read().splitlines()
        if have == made:
            continue
        n = next((i for i, (a, b) in enumerate(zip(have, made)) if a != b), min(len(have),
                                                                                len(made)))
        diffs[k] = "%s line %d: %r, the generator writes %r" % (
            os.path.relpath(path, ROOT), n + 1, have[n] if n < len(have) else "(end)",
            made[n] if n < len(made) else "(end)")
    return diffs


@test
def webhook_configurations_are_generated_from_the_route_table(tmp):
    """manifests/base/webhookconfigurations.yaml and the chart's template of the same name are
    line for line what `make crds` writes now from the route table, with the entries of the
    routes the Deployment's flags serve (regenerate with make crds after adding a route or
    changing its entries; an entry edited by hand fails here)."""
    diffs = webhook_files_differences(WEBHOOK_FILES, generated_webhook_files(tmp))
    check(not diffs, "not what make crds writes (run make crds; do not edit by hand): %s" %
          "; ".join(diffs.values()))


@test
def a_hand_edit_of_the_webhook_configurations_is_caught(tmp):
    """The comparison above, on copies of the generated files edited as by hand (a timeout in
    the base, an operation in the chart, then an entry's objectSelector removed): each file is
    reported at the line edited; the copies unedited are not reported."""
    generated = generated_webhook_files(tmp)
    check(not webhook_files_differences(generated, generated), "a file differs from itself")
    edits = {"base": ("    timeoutSeconds: 10\n", "    timeoutSeconds: 11\n"),
             "chart": ("          - DELETE\n", "          - CREATE\n")}
    copies, lines = {}, {}
    for k, (old, new) in edits.items():
        text = open(generated[k]).read()
        check(old in text, "%s holds %r" % (k, old))
        lines[k] = text[:text.index(old)].count("\n") + 1
        copies[k] = os.path.join(tmp, k + ".yaml")
        with open(copies[k], "w") as f:
            f.write(text.replace(old, new, 1))
    diffs = webhook_files_differences(copies, generated)
    check(sorted(diffs) == sorted(edits), "both edits reported: %s" % diffs)
    for k, d in diffs.items():
        check(d.startswith("%s line %d: " % (os.path.relpath(copies[k], ROOT), lines[k])),
              "%s: %s" % (k, d))
    text = open(generated["base"]).read()
    at = text.index("    objectSelector:\n")
    with open(copies["base"], "w") as f:
        f.write(text[:at] + text[text.index("  - name:", at):])
    diffs = webhook_files_differences({"base": copies["base"]}, generated)
    check(" line %d: " % (text[:at].count("\n") + 1) in diffs.get("base", ""),
          "a removed objectSelector: %s" % diffs)


@test
def names_match_the_binary_defaults(tmp):
    """The Namespace, Service, Secret, webhook configurations and ports of the tree are the
    binary's defaults, and the Deployment's arguments and environment keep them."""
    docs = render()
    f = deployment_facts(docs)
    d, c = f["defaults"], f["config"]
    for key in ("namespace", "service", "secret", "mutating", "validating", "port", "health_port",
                "metrics_port"):
        check(d[key] == c[key], "the Deployment changes %s: %s -> %s" % (key, d[key], c[key]))
    check(one(docs, "Namespace")["metadata"]["name"] == d["namespace"], "Namespace")
    svc = one(docs, "Service")
    check(svc["metadata"]["name"] == d["service"], "Service name %s" % svc["metadata"]["name"])
    one(docs, "MutatingWebhookConfiguration", d["mutating"])
    one(docs, "ValidatingWebhookConfiguration", d["validating"])
    dep, ctr = container(docs)
    for obj in docs:
        if obj["kind"] not in CLUSTER_KINDS:
            check(obj["metadata"]["namespace"] == d["namespace"], "%s %s namespace" %
                  (obj["kind"], obj["metadata"]["name"]))
    check(port_of(ctr, svc["spec"]["ports"][0]["targetPort"]) == d["port"], "Service targetPort")
    probe_ports = {port_of(ctr, p["httpGet"]["port"]) for p in
                   (ctr["startupProbe"], ctr["livenessProbe"], ctr["readinessProbe"])}
    check(probe_ports == {d["health_port"]}, "probes on %s" % probe_ports)
    check(port_of(ctr, "metrics") == d["metrics_port"], "metrics port")
    labels = dep["spec"]["template"]["metadata"]["labels"]
    for sel in (svc["spec"]["selector"], one(docs, "PodDisruptionBudget")["spec"]["selector"]
                ["matchLabels"], dep["spec"]["selector"]["matchLabels"]):
        check(all(labels.get(k) == v for k, v in sel.items()), "selector %s" % sel)
    sa = dep["spec"]["template"]["spec"]["serviceAccountName"]
    one(docs, "ServiceAccount", sa)
    for b in docs:
        if b["kind"] in ("RoleBinding", "ClusterRoleBinding"):
            check({"kind": "ServiceAccount", "name": sa, "namespace": d["namespace"]} in b["subjects"],
                  "%s %s binds %s" % (b["kind"], b["metadata"]["name"], b["subjects"]))


@test
def deployment_survives_drains_and_rollouts(tmp):
    """Two replicas, none unavailable during a rollout, spread across nodes, a disruption
    budget, non-root with a read-only root, RuntimeDefault seccomp, every capability dropped,
    probes, requests and limits, and a grace period longer than the drain."""
    docs = render()
    f = deployment_facts(docs)
    dep, ctr = container(docs)
    spec = dep["spec"]
    pod = spec["template"]["spec"]
    check(spec["replicas"] == 2, "replicas")
    check(spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0, "maxUnavailable")
    check(any(t["topologyKey"] == "kubernetes.io/hostname" for t in
              pod.get("topologySpreadConstraints", [])), "spread across nodes")
    check(one(docs, "PodDisruptionBudget")["spec"].get("minAvailable") == 1, "PDB")
    psc, csc = pod["securityContext"], ctr["securityContext"]
    check(psc.get("runAsNonRoot") and psc.get("runAsUser", 0) != 0, "non-root")
    check(psc["seccompProfile"]["type"] == "RuntimeDefault", "seccomp")
    check(csc.get("readOnlyRootFilesystem") and csc.get("allowPrivilegeEscalation") is False and
          csc["capabilities"]["drop"] == ["ALL"] and not csc["capabilities"].get("add"),
          "container securityContext %s" % csc)
    check(ctr["readinessProbe"]["httpGet"]["path"] == "/readyz" and
          ctr["livenessProbe"]["httpGet"]["path"] == "/healthz", "probes")
    res = ctr["resources"]
    check(all(res[a].get(b) for a in ("requests", "limits") for b in ("cpu", "memory")), "resources")
    drain = (f["config"]["shutdown_grace_ms"] + f["config"]["shutdown_delay_ms"]) / 1000
    check(f["config"]["shutdown_delay_ms"] > 0, "a shutdown delay, for the endpoints to drop a "
          "stopping replica before its listener closes")
    check(pod["terminationGracePeriodSeconds"] > drain, "grace period %s, drain %ss" %
          (pod["terminationGracePeriodSeconds"], drain))
    check(f["config"]["leader_elect"], "one writer among the replicas (--leader-elect)")


@test
def image_holds_what_the_binary_links_and_what_the_deployment_runs(tmp):
    """The Dockerfile's runtime stage installs the Debian package of every library the binary
    links (its NEEDED entries, found with ldconfig and dpkg here), runs as the Deployment's
    non-root user with the binary as entrypoint, and make image's tag is the Deployment's
    image."""
    text = open(os.path.join(ROOT, "Dockerfile")).read()
    stages = re.split(r"^FROM ", text, flags=re.M)
    check(len(stages) == 3 and stages[1].startswith("debian:12 ") and
          stages[2].startswith("debian:12-slim"), "build on debian:12, run on debian:12-slim")
    runtime = stages[2]
    docs = render()
    f = deployment_facts(docs)
    dep, ctr = container(docs)
    check(ctr["image"] == "kruise-webhook:" + f["version"], "image %s, make image tags %s" %
          (ctr["image"], "kruise-webhook:" + f["version"]))
    user = re.search(r"^USER (\d+)(:\d+)?$", runtime, re.M)
    check(user and int(user.group(1)) == dep["spec"]["template"]["spec"]["securityContext"]
          ["runAsUser"] != 0, "USER is the Deployment's runAsUser")
    check('ENTRYPOINT ["/usr/local/bin/kruise-webhook"]' in runtime, "the binary as entrypoint")
    installed = set(re.findall(r"\b(lib[a-z0-9.+-]+)\b", runtime.split("COPY")[0]))
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]",
                        subprocess.run(["readelf", "-d", BIN], capture_output=True,
                                       text=True).stdout)
    check(needed, "readelf -d %s" % BIN)
    cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    for lib in needed:
        if lib.startswith(("libc.so", "libm.so", "libpthread.so")):
            continue  # in every image
        if lib.startswith(("libasan.", "libubsan.", "libtsan.", "liblsan.")):
            continue  # a sanitizer build's runtime; the image is built without
        m = re.search(r"^\s+%s \(.*\) => (\S+)$" % re.escape(lib), cache, re.M)
        check(m, "ldconfig does not know %s" % lib)
        owner = subprocess.run(["dpkg", "-S", os.path.realpath(m.group(1))], capture_output=True,
                               text=True).stdout.split(":")[0]
        check(owner in installed, "%s comes from %s, which the runtime stage does not install "
              "(%s)" % (lib, owner, sorted(installed)))


# --- RBAC against the calls the server makes ---------------------------------------------------

# What the server is made to do against the fake API server, beyond starting, syncing its
# certificates and stopping: vectors of test/vectors (their cluster objects loaded first, the
# request sent to their endpoint). A feature that calls the API server adds its vectors here,
# and the check then requires its rules (and only them). Expected rows from features being
# built: WorkloadSpread (update workloadspreads/status; get/list of the workloads it spreads),
# PodUnavailableBudget (update podunavailablebudgets/status; get pods for evictions; list of
# the workloads it counts).
EXERCISES = [
    "deletion-protection/002-namespace-cascading-running-pod-denied.json",  # list pods
    "deletion-protection/004-namespace-cascading-bound-pvc-denied.json",  # list PVCs
    "pub/001-delete-allowed-decrements.json",  # update podunavailablebudgets/status
    "pub/002-delete-denied-unavailable-allowed-zero.json",  # get a PUB (a denial is confirmed)
    "pub/003-eviction-allowed-decrements.json",  # get the evicted pod
    "workloadspread/001-create-cloneset-picks-first-subset.json",  # update workloadspreads/status
    "workloadspread/003-create-all-subsets-full-no-patch.json",  # get a WorkloadSpread (no room)
    # get the Pod and its Node (a vector of test/handler-vectors)
    "handler-vectors/containerrecreaterequest/crr-12-prestop-httpget-ports-grace.json",
]

NON_RESOURCE = re.compile(r"^/(api|apis(/[^/]+(/[^/]+)?)?|version|healthz|readyz|livez)/?$")


def request_attributes(r):
    """(verb, group, resource, namespace, name) of a request in the fake API server's log, as
    the real API server's RequestInfo makes them (a list or watch with a metadata.name field
    selector names that object); None for non-resource paths (discovery, allowed to all)."""
    path = r["path"]
    if NON_RESOURCE.match(path):
        return None
    parts = path.strip("/").split("/")
    if parts[0] == "api":
        group, rest = "", parts[2:]
    else:
        group, rest = parts[1], parts[3:]
    ns = None
    if len(rest) >= 2 and rest[0] == "namespaces" and (len(rest) > 2):
        ns, rest = rest[1], rest[2:]
    resource, name, sub = rest[0], rest[1] if len(rest) > 1 else None, rest[2] if len(rest) > 2 else None
    query = dict(q.split("=", 1) for q in (r.get("query") or "").split("&") if "=" in q)
    watch = query.get("watch") in ("1", "true")
    m = re.match(r"metadata\.name(%3D|=){1,2}([^,&]+)$",
                 (query.get("fieldSelector") or "").replace("%3D%3D", "%3D"))
    verb = {"POST": "create", "PUT": "update", "PATCH": "patch"}.get(r["method"])
    if r["method"] == "GET":
        verb = "watch" if watch else ("get" if name else "list")
        if not name and m:
            name = m.group(2)
    elif r["method"] == "DELETE":
        verb = "delete" if name else "deletecollection"
    if sub:
        resource += "/" + sub
    return verb, group, resource, ns, name


def rbac_rules(docs, sa, namespace):
    """[(rule, namespace or None for cluster-wide)] granted to the ServiceAccount."""
    roles = {(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]): d for d in docs
             if d["kind"] in ("Role", "ClusterRole")}
    out = []
    for b in docs:
        if b["kind"] not in ("RoleBinding", "ClusterRoleBinding"):
            continue
        if {"kind": "ServiceAccount", "name": sa, "namespace": namespace} not in b["subjects"]:
            continue
        ref = b["roleRef"]
        role_ns = b["metadata"].get("namespace") if ref["kind"] == "Role" else None
        role = roles[(ref["kind"], role_ns, ref["name"])]
        scope = b["metadata"].get("namespace") if b["kind"] == "RoleBinding" else None
        out += [(rule, scope) for rule in role["rules"]]
    return out


def allows(rule, scope, verb, group, resource, ns, name):
    if scope is not None and ns != scope and not (resource == "namespaces" and name == scope):
        return False
    if not any(g in ("*", group) for g in rule["apiGroups"]):
        return False
    if not any(r in ("*", resource) for r in rule["resources"]):
        return False
    if not any(v in ("*", verb) for v in rule["verbs"]):
        return False
    names = rule.get("resourceNames")
    return not names or name in names


class Server:
    """The binary with the Deployment's arguments and environment, in the cluster mode the
    Deployment runs in (Service names, the Secret store), every listener on loopback."""

    def __init__(self, tmp, docs, api):
        dep, ctr = container(docs)
        env = deployment_env(ctr, dep["metadata"]["namespace"])
        env.update(KUBECONFIG=api.kubeconfig,
                   WEBHOOK_CERT_DIR=os.path.join(tmp, "certs"), WEBHOOK_PORT="0")
        args = [a for a in ctr.get("args", []) if not a.startswith(("--health-addr",
                                                                   "--metrics-addr"))]
        self.log_path = os.path.join(tmp, "server.log")
        self.log = open(self.log_path, "wb")
        # A shorter CA publication delay than the default 5 s: the CA rotation of
        # exercise_all then ends sooner, with the same calls.
        self.proc = track(subprocess.Popen(
            [BIN] + args + ["--bind-address", "127.0.0.1", "--health-addr", "127.0.0.1:0",
                            "--metrics-addr", "127.0.0.1:0", "--log-format", "text",
                            "--shutdown-delay", "0",
                            "--ca-publish-delay", "500ms"],
            stdout=self.log, stderr=self.log, env=dict(os.environ, **env)))
        deadline = time.time() + 60
        while True:
            m = re.search(rb"listening https=(\d+) health=(\d+) metrics=(\d+)", self.text())
            if m:
                break
            check(self.proc.poll() is None and time.time() < deadline,
                  "the server did not start:\n%s" % self.text()[-3000:].decode(errors="replace"))
            time.sleep(0.05)
        self.port, self.health, self.metrics = map(int, m.groups())
        self.ca = None

    def text(self):
        with open(self.log_path, "rb") as f:
            return f.read()

    def plain(self, port, path):
        status, data = http_get(port, path)
        return status, data.decode(errors="replace")

    def metric(self, name):
        total = 0.0
        for line in self.plain(self.metrics, "/metrics")[1].splitlines():
            m = re.match(r"([a-z_]+)(\{.*\})? (\S+)$", line)
            if m and m.group(1) == name:
                total += float(m.group(3))
        return total

    def wait_caught_up(self, api):
        """Waits until every informer has seen the fake API server's current resourceVersion
        (a bookmark, sent again while waiting, carries it to informers with nothing to
        watch), so the next review is answered from caches that hold what was just loaded."""
        deadline = time.time() + 30
        target = int(api.call("POST", "/_control/bookmark")[1]["resourceVersion"])
        while True:
            rvs = [float(m.group(1)) for m in re.finditer(
                r'^kruise_webhook_informer_resource_version\{[^}]*\} (\S+)$',
                self.plain(self.metrics, "/metrics")[1], re.M)]
            if rvs and min(rvs) >= target:
                return
            check(time.time() < deadline, "the caches did not reach resourceVersion %d" % target)
            time.sleep(0.05)
            api.call("POST", "/_control/bookmark")

    def wait_ready(self):
        deadline = time.time() + 60
        while self.plain(self.health, "/readyz")[0] != 200:
            check(time.time() < deadline, "not ready: %s" % (self.plain(self.health, "/readyz"),))
            time.sleep(0.05)

    def review(self, path, request, cadata):
        ctx = ssl.create_default_context(cadata=cadata)
        ctx.check_hostname = False
        c = http.client.HTTPSConnection("127.0.0.1", self.port, context=ctx, timeout=30)
        c.request("POST", path, json.dumps({"apiVersion": "admission.k8s.io/v1",
                                            "kind": "AdmissionReview", "request": request}),
                  {"Content-Type": "application/json"})
        r = c.getresponse()
        out = json.loads(r.read())
        c.close()
        return r.status, out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(30)
        self.log.close()
        text = self.text().decode(errors="replace")
        check(self.proc.returncode == 0 and "Sanitizer" not in text and "runtime error" not in text,
              "the server exited with %s:\n%s" % (self.proc.returncode, text[-3000:]))


def run_server(tmp, docs, exercise, after=None):
    """Starts the fake API server with the tree's objects (service form, as applied) and the
    server as the Deployment configures it, waits until it is ready, runs exercise(server, api,
    ca), stops the server, and returns the API requests it made plus what after() returned
    while it was still running."""
    objects = [d for d in docs if d["kind"] in ("Namespace", "Service", "CustomResourceDefinition",
                                                "MutatingWebhookConfiguration",
                                                "ValidatingWebhookConfiguration")]
    api = FakeApiServer(tmp)
    api.objects(objects)
    s = None
    try:
        s = Server(tmp, docs, api)
        s.wait_ready()
        ns = one(docs, "Namespace")["metadata"]["name"]
        secret_name = deployment_env(container(docs)[1], ns)["SECRET_NAME"]
        secret = api.call("GET", "/_control/objects")[1]
        ca = [o for o in secret if o["kind"] == "Secret" and
              o["metadata"]["name"] == secret_name][0]["data"]["ca-cert.pem"]
        ca = base64.b64decode(ca).decode()
        exercise(s, api, ca)
        extra = after(s) if after else None
        s.stop()
        s = None
        return api.requests(clear=False), extra
    finally:
        stop_all(s, api)


def exercise_all(s, api, ca):
    """The vectors of EXERCISES, then the Secret emptied (as Helm leaves it): the writer fills
    it in again (an update) with a new CA, and rotates the caBundles to it."""
    for rel in EXERCISES:
        base = "" if rel.startswith("handler-vectors/") else "vectors"
        v = json.load(open(os.path.join(ROOT, "test", base, rel)))
        api.objects(v.get("cluster", []))
        s.wait_caught_up(api)
        st, out = s.review(v["endpoint"], v["request"], ca)
        check(st == 200 and out["response"]["allowed"] == v["expect"]["allowed"],
              "%s: %s %s" % (rel, st, out))
    ns = None
    for o in api.call("GET", "/_control/objects")[1]:
        if o["kind"] == "Secret":
            ns, name = o["metadata"]["namespace"], o["metadata"]["name"]
    api.objects([{"apiVersion": "v1", "kind": "Secret",
                  "metadata": {"namespace": ns, "name": name}}])
    # A new CA: published beside the old one until every replica's serving report (a Lease)
    # shows the new certificate, then the old one goes.
    deadline = time.time() + 30
    while s.metric("kruise_webhook_certs_ca_rotations_total") < 1:
        check(time.time() < deadline, "the CA rotation after the emptied Secret did not end")
        time.sleep(0.1)


@test
def rbac_is_exactly_what_the_server_calls(tmp):
    """The server, run as the Deployment runs it against the fake API server (start, Secret
    created and later refilled, leader election and serving reports, caBundles and CRD
    conversions written, caches listed and watched, deletion protection's live reads, the
    vectors of EXERCISES, a clean stop): every call it makes is allowed by the tree's RBAC, and
    every rule, verb, resource and name the RBAC grants was used (least privilege)."""
    docs = render("with-crds")
    dep, ctr = container(docs)
    ns = dep["metadata"]["namespace"]
    rules = rbac_rules(docs, dep["spec"]["template"]["spec"]["serviceAccountName"], ns)
    check(rules, "RBAC bound to the ServiceAccount")
    reqs, _ = run_server(tmp, docs, exercise_all)
    used = set()
    denied = []
    for r in reqs:
        a = request_attributes(r)
        if a is None:
            continue
        ok = [i for i, (rule, scope) in enumerate(rules) if allows(rule, scope, *a)]
        if not ok:
            denied.append("%s %s (%s %s?%s)" % (a[0], a, r["method"], r["path"], r.get("query")))
        verb, group, resource, req_ns, name = a
        # A call counts for the narrowest rules that allow it: a wildcard rule is used only
        # by calls nothing narrower allows.
        narrow = [i for i in ok if "*" not in rules[i][0]["resources"] + rules[i][0]["apiGroups"]]
        for i in narrow or ok:
            rule = rules[i][0]
            used.add((i, verb if verb in rule["verbs"] else "*",
                      resource if resource in rule["resources"] else "*",
                      name if rule.get("resourceNames") else None))
    check(not denied, "calls the RBAC does not allow:\n  " + "\n  ".join(sorted(set(denied))))
    unused = []
    for i, (rule, scope) in enumerate(rules):
        for verb in rule["verbs"]:
            for resource in rule["resources"]:
                for name in rule.get("resourceNames") or [None]:
                    if (i, verb, resource, name) not in used:
                        unused.append("%s %s/%s%s (%s)" % (verb, rule["apiGroups"], resource,
                                                            " " + name if name else "",
                                                            scope or "cluster-wide"))
    check(not unused, "granted but never used:\n  " + "\n  ".join(unused))
    return len(reqs)


# --- alerts against the metrics the server exports -------------------------------------------


PROMQL_WORDS = {"sum", "rate", "irate", "increase", "histogram_quantile", "by", "without", "on",
                "ignoring", "group_left", "group_right", "and", "or", "unless", "max", "min",
                "avg", "count", "time", "absent", "clamp_min", "clamp_max", "le", "bool",
                "max_over_time", "min_over_time", "avg_over_time", "offset", "vector", "scalar",
                "label_replace", "topk", "bottomk", "abs", "delta", "changes", "resets"}


def metric_names(expr):
    """The metric names a PromQL expression reads (identifiers outside braces and strings that
    are not functions, keywords or label names in by()/on() lists)."""
    expr = re.sub(r'"[^"]*"', "", expr)
    expr = re.sub(r"\{[^}]*\}", "", expr)
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", expr)
    expr = re.sub(r"\[[^\]]*\]", "", expr)
    return {w for w in re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", expr) if w not in PROMQL_WORDS}


def exported(metrics_text):
    """Metric names on /metrics, with a histogram's _bucket/_sum/_count series."""
    names = set()
    for line in metrics_text.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)", line)
        if m:
            names.add(m.group(1))
            if m.group(2) == "histogram":
                names |= {m.group(1) + s for s in ("_bucket", "_sum", "_count")}
        elif line and not line.startswith("#"):
            names.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))
    return names


@test
def alerts_and_dashboards_name_exported_metrics(tmp):
    """Every metric the PrometheusRule's expressions read is on /metrics of the server run as
    the Deployment runs it (after the exercises of the RBAC check), and every expression
    selects the ServiceMonitor's job; the ServiceMonitor scrapes the metrics Service, which
    reaches the container's /metrics; every alert has a section in docs/operations.md."""
    docs = render("with-crds")
    mon = render("monitoring")
    rule = one(mon, "PrometheusRule")
    sm = one(mon, "ServiceMonitor")
    svc = one(mon, "Service")
    dep, ctr = container(docs)
    labels = dep["spec"]["template"]["metadata"]["labels"]
    check(all(labels.get(k) == v for k, v in svc["spec"]["selector"].items()),
          "the metrics Service selects the server's Pods")
    check(sm["spec"]["namespaceSelector"]["matchNames"] == [svc["metadata"]["namespace"]],
          "ServiceMonitor namespace")
    port_names = {p.get("name") for p in svc["spec"]["ports"]}
    for ep in sm["spec"]["endpoints"]:
        check(ep["port"] in port_names and ep.get("path", "/metrics") == "/metrics",
              "ServiceMonitor endpoint %s" % ep)
        sp = [p for p in svc["spec"]["ports"] if p["name"] == ep["port"]][0]
        check(port_of(ctr, sp["targetPort"]) == deployment_facts(docs)["config"]["metrics_port"],
              "the Service's %s port reaches /metrics" % ep["port"])
    check(all(svc["metadata"]["labels"].get(k) == v for k, v in
              sm["spec"]["selector"]["matchLabels"].items()), "ServiceMonitor selects the Service")

    def scrape(s):
        return s.plain(s.metrics, "/metrics")[1]

    def some_reviews(s, api, ca):
        exercise_all(s, api, ca)
    _, text = run_server(tmp, docs, some_reviews, after=scrape)
    have = exported(text)
    runbook = open(os.path.join(ROOT, "docs", "operations.md")).read()
    alerts = [r for g in rule["spec"]["groups"] for r in g["rules"] if "alert" in r]
    check(alerts, "alerts")
    for r in alerts:
        missing = metric_names(r["expr"]) - have
        check(not missing, "%s reads %s, which /metrics does not have" % (r["alert"], missing))
        selectors = re.findall(r"[a-z_]+\{([^}]*)\}", r["expr"])
        check(selectors and all('job="%s"' % svc["metadata"]["name"] in sel for sel in selectors),
              "%s: every series of the job %s (kruise-manager exports the same names)" %
              (r["alert"], svc["metadata"]["name"]))
        check("### " + r["alert"] in runbook, "docs/operations.md has no section for %s" % r["alert"])
        check(r.get("labels", {}).get("severity") and r.get("annotations", {}).get("runbook_url"),
              "%s: severity and runbook_url" % r["alert"])


def main():
    global BIN, TOOL, KUBECTL
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    BIN, TOOL = os.path.abspath(args.bin), os.path.abspath(args.tool)
    KUBECTL = kubectl_mod.find()
    if KUBECTL:
        print("manifests: rendered with %s (%s)" % (KUBECTL, kubectl_mod.version(KUBECTL)))
    else:
        print("manifests: %s; the tree is read by following its kustomization files" %
              kubectl_mod.reason)
    return SUITE.run(args.names)


if __name__ == "__main__":
    sys.exit(main())
