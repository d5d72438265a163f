#!/usr/bin/env python3
"""Records the cases of upstream's own _test.go tables for the workload webhooks, for
`kwh-oracle port`, which turns them into vectors answered by upstream's handlers:

    test/oracle/upstream-tests/record.py SRC OUT

SRC: upstream's source tree at the pinned commit (make oracle leaves one in build/oracle/kruise-*).
It is copied to OUT/kruise, each function a table calls is given a first statement that prints
what it was handed (record.go.tmpl, added to the package as a _test.go file), and `go test -v`
runs the packages' tests offline (the module cache of the oracle build has every dependency).
The test names come from go test's "=== RUN" lines. Written: OUT/cases-<kind>.jsonl, one case a
line: the test, the path, and either the request a test handed to Handle or the kind, version,
operation and objects of the function it called (a spec, strategy or subset function's argument
is put in a valid object), with the gates the test changed and its fake client's objects.

A request a test built by hand lacks what the API server always sends (uid, kind, userInfo,
name): those are filled in, and the case says so ("note"). Tables of pure helpers
(getIntOrPercentValue, getPercentValue, validateNonnegativeIntOrPercent, GetDefaultStorageClass)
hand no object and record nothing; a request whose object is not JSON (HandleDecodeError's
"invalid json") cannot travel in an AdmissionReview and is left out.
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CS = "/validate-apps-kruise-io-cloneset"
STS = "/validate-apps-kruise-io-statefulset"
DS = "/validate-apps-kruise-io-daemonset"
UD = "/validate-apps-kruise-io-uniteddeployment"

# file -> [(text of the function's signature, the statement recording its call)]
HOOKS = [
    ("cloneset/validating/validation.go", [
        ("validateCloneSet(cloneSet, oldCloneSet *appsv1alpha1.CloneSet)",
         f'defer kwhCall("{CS}", "CloneSet", "v1alpha1", cloneSet, oldCloneSet, h.Client)()'),
        ("validateCloneSetUpdate(cloneSet, oldCloneSet *appsv1alpha1.CloneSet)",
         f'defer kwhCall("{CS}", "CloneSet", "v1alpha1", cloneSet, oldCloneSet, h.Client)()'),
        ("func ValidateCloneSetV1beta1(cloneSet, oldCloneSet",
         f'defer kwhCall("{CS}", "CloneSet", "v1beta1", cloneSet, oldCloneSet, nil)()'),
        ("func ValidateCloneSetUpdateV1beta1(cloneSet, oldCloneSet",
         f'defer kwhCall("{CS}", "CloneSet", "v1beta1", cloneSet, oldCloneSet, nil)()'),
        ("func validateUpdateStrategyV1beta1(strategy", "defer kwhCloneSetStrategy(strategy, replicas)()"),
    ]),
    ("statefulset/validating/statefulset_validation.go", [
        ("func validateStatefulSet(statefulSet",
         f'defer kwhCall("{STS}", "StatefulSet", "v1beta1", statefulSet, nil, nil)()'),
        ("func ValidateStatefulSetUpdate(statefulSet, oldStatefulSet",
         f'defer kwhCall("{STS}", "StatefulSet", "v1beta1", statefulSet, oldStatefulSet, nil)()'),
        ("func ValidateVolumeClaimTemplateUpdate(c client.Client, sts, oldSts",
         f'defer kwhCall("{STS}", "StatefulSet", "v1beta1", sts, oldSts, c)()'),
        ("func validateReserveOrdinals(spec", f'defer kwhSpec("{STS}", "StatefulSet", "v1beta1", spec)()'),
    ]),
    ("daemonset/validating/daemonset_validation.go", [
        ("func validateDaemonSet(ds", f'defer kwhCall("{DS}", "DaemonSet", "v1alpha1", ds, nil, nil)()'),
        ("func validateDaemonSetSpec(spec", f'defer kwhSpec("{DS}", "DaemonSet", "v1alpha1", spec)()'),
        ("func validateDaemonSetUpdateStrategy(strategy",
         f'defer kwhStrategy("{DS}", "DaemonSet", "v1alpha1", strategy, false)()'),
        ("func validateRollingUpdateDaemonSet(rollingUpdate",
         f'defer kwhStrategy("{DS}", "DaemonSet", "v1alpha1", rollingUpdate, true)()'),
        ("func validateDaemonSetV1beta1(ds", f'defer kwhCall("{DS}", "DaemonSet", "v1beta1", ds, nil, nil)()'),
        ("func validateDaemonSetSpecV1beta1(spec", f'defer kwhSpec("{DS}", "DaemonSet", "v1beta1", spec)()'),
        ("func validateDaemonSetUpdateStrategyV1beta1(strategy",
         f'defer kwhStrategy("{DS}", "DaemonSet", "v1beta1", strategy, false)()'),
        ("func validateRollingUpdateDaemonSetV1beta1(rollingUpdate",
         f'defer kwhStrategy("{DS}", "DaemonSet", "v1beta1", rollingUpdate, true)()'),
    ]),
    ("daemonset/validating/daemonset_create_update_handler.go", [
        ("validateDaemonSetUpdate(ds, oldDs *appsv1alpha1",
         f'defer kwhCall("{DS}", "DaemonSet", "v1alpha1", ds, oldDs, nil)()'),
        ("validateDaemonSetUpdateV1beta1(ds, oldDs",
         f'defer kwhCall("{DS}", "DaemonSet", "v1beta1", ds, oldDs, nil)()'),
        ("Handle(ctx context.Context, req admission.Request)", f'defer kwhHandle("{DS}", req)()'),
    ]),
    ("uniteddeployment/validating/uniteddeployment_validation.go", [
        ("func validateUnitedDeploymentV1beta1(unitedDeployment",
         f'defer kwhCall("{UD}", "UnitedDeployment", "v1beta1", unitedDeployment, nil, nil)()'),
        ("func ValidateUnitedDeploymentUpdateV1beta1(unitedDeployment, oldUnitedDeployment",
         f'defer kwhCall("{UD}", "UnitedDeployment", "v1beta1", unitedDeployment, oldUnitedDeployment, nil)()'),
        ("func validateSubsetReplicasV1beta1(expectedReplicas", "defer kwhSubsets(expectedReplicas, subsets)()"),
    ]),
    ("uniteddeployment/validating/uniteddeployment_create_update_handler.go", [
        ("Handle(ctx context.Context, req admission.Request)", f'defer kwhHandle("{UD}", req)()'),
    ]),
    ("uniteddeployment/mutating/uniteddeployment_create_update_handler.go", [
        ("Handle(ctx context.Context, req admission.Request)",
         'defer kwhHandle("/mutate-apps-kruise-io-uniteddeployment", req)()'),
    ]),
]
PACKAGES = ["./pkg/webhook/cloneset/validating/", "./pkg/webhook/statefulset/validating/",
            "./pkg/webhook/daemonset/validating/", "./pkg/webhook/uniteddeployment/..."]
# Gates as this server and upstream default them: a case keeps only the ones its test changed.
DEFAULT_GATES = {"TemplateNoDefaults": False, "StatefulSetAutoDeletePVC": True,
                 "StatefulSetAutoResizePVCGate": False, "DefaultHostNetworkHostPortsInPodTemplates": False}
# Tests that call a function the handler reaches only with a gate on, and do not set it.
GATE_FOR_TEST = {"TestValidateVolumeClaimTemplateUpdate": {"StatefulSetAutoResizePVCGate": True}}
KINDS = {"daemonsets": "DaemonSet", "uniteddeployments": "UnitedDeployment", "clonesets": "CloneSet",
         "statefulsets": "StatefulSet"}
FILLED_UID = "7a4ef9b2-1c1e-4f64-9d2b-5b0f0c9e0f02"


def instrument(tree):
    tmpl = open(os.path.join(HERE, "record.go.tmpl")).read()
    for rel, hooks in HOOKS:
        path = os.path.join(tree, "pkg/webhook", rel)
        lines = open(path).read().split("\n")
        for sig, stmt in hooks:
            at = [i for i, l in enumerate(lines) if l.startswith("func ") and sig in l]
            if len(at) != 1:
                sys.exit(f"record: {rel}: {len(at)} functions match {sig!r}")
            i = at[0]
            while not lines[i].rstrip().endswith("{"):
                i += 1
            lines.insert(i + 1, "\t" + stmt)
        open(path, "w").write("\n".join(lines))
        pkg = os.path.dirname(path)
        with open(os.path.join(pkg, "zz_kwhrec_test.go"), "w") as f:
            f.write(tmpl.replace("package PKG", "package " + os.path.basename(pkg)))


def as_sent(rec):
    """The request as the API server sends it: what a hand-built one lacks, filled in."""
    q, what = rec["request"], []
    if not q.get("uid"):
        q["uid"] = FILLED_UID
        what.append("uid")
    res = q.get("resource") or {}
    k = q.get("kind") or {}
    if not k.get("kind"):
        q["kind"] = {"group": res.get("group", ""), "version": res.get("version", ""),
                     "kind": KINDS.get(res.get("resource"), "")}
        what.append("kind")
    obj = q.get("object") or q.get("oldObject") or {}
    md = obj.get("metadata", {}) if isinstance(obj, dict) else {}
    for key in ("namespace", "name"):
        if not q.get(key) and md.get(key):
            q[key] = md[key]
            what.append(key)
    if not (q.get("userInfo") or {}).get("username"):
        q["userInfo"] = {"username": "kubernetes-admin"}
        what.append("userInfo")
    if what:
        rec["note"] = "The test's request with what the API server always sends filled in: " + ", ".join(what) + "."


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    tree = os.path.join(out, "kruise")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(src, tree, symlinks=True)
    instrument(tree)
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local", GOPROXY="off")
    go = shutil.which("go") or "/usr/local/go/bin/go"
    run = subprocess.run([go, "test", "-count=1", "-v", "-run", "^Test"] + PACKAGES, cwd=tree, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode:
        sys.stderr.write(run.stdout[-4000:])
        sys.exit("record: upstream's tests failed")
    by_kind, test, left_out = {}, None, []
    for line in run.stdout.splitlines():
        m = re.match(r"=== RUN\s+(\S+)", line)
        if m:
            test = m.group(1)
            continue
        if not line.startswith("KWHREC "):
            continue
        rec = json.loads(line[len("KWHREC "):])
        rec["test"] = test
        if "request" in rec:
            if rec["request"] is None:  # an object that is not JSON: json.Marshal refused it
                left_out.append(test)
                continue
            as_sent(rec)
        gates = rec.pop("gates")
        gates.update(GATE_FOR_TEST.get(test.split("/")[0], {}))
        gates = {g: on for g, on in gates.items() if DEFAULT_GATES.get(g) != on}
        if gates:
            rec["gates"] = gates
        if not rec.get("world"):
            rec.pop("world", None)
        by_kind.setdefault(rec["path"].rsplit("-", 1)[1], []).append(rec)
    for kind, recs in sorted(by_kind.items()):
        with open(os.path.join(out, f"cases-{kind}.jsonl"), "w") as f:
            for rec in recs:
                f.write(json.dumps(rec, sort_keys=True) + "\n")
        print(f"record: {kind}: {len(recs)} cases")
    for t in left_out:
        print(f"record: {t}: left out (its object is not JSON)")


if __name__ == "__main__":
    main()
