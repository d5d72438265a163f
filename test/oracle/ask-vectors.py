#!/usr/bin/env python3
"""Asks upstream's own handlers (kwh-oracle serve) the cases of admission vectors, and says
where their answer is not what a vector expects: the check that a vector written by hand, or
ported from a _test.go table, states upstream's answer and not ours.

    test/oracle/ask-vectors.py [--oracle build/oracle/kwh-oracle] DIR|FILE...

    test/oracle/ask-vectors.py --write DIR|FILE...   (expect.object becomes upstream's answer,
                                                       and a whole expect that says "ask": true)

For each vector: the oracle is started with the vector's feature gates (one oracle per set of
gates), its world replaced by the vector's cluster (POST /_oracle/world), the request posted
to the vector's endpoint, and the answer compared as the vector harness compares ours:
allowed, status code, the message's substrings, and the object after the patch (or no patch).
Exit status 1 when any vector disagrees."""
import argparse
import base64
import copy
import difflib
import json
import os
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request


def unescape(tok):
    return tok.replace("~1", "/").replace("~0", "~")


def parent(doc, path):
    toks = [unescape(t) for t in path.split("/")[1:]]
    cur = doc
    for t in toks[:-1]:
        cur = cur[int(t)] if isinstance(cur, list) else cur[t]
    return cur, toks[-1]


def apply_patch(doc, ops):
    doc = copy.deepcopy(doc)
    for op in ops:
        kind, path = op["op"], op["path"]
        if path == "":
            if kind in ("add", "replace"):
                doc = copy.deepcopy(op["value"])
                continue
            raise ValueError("cannot %s the whole document" % kind)
        p, last = parent(doc, path)
        if kind == "remove":
            if isinstance(p, list):
                del p[int(last)]
            else:
                del p[last]
        elif kind in ("add", "replace"):
            value = copy.deepcopy(op["value"])
            if isinstance(p, list):
                if last == "-":
                    p.append(value)
                elif kind == "add":
                    p.insert(int(last), value)
                else:
                    p[int(last)] = value
            else:
                p[last] = value
        else:
            raise ValueError("unsupported patch op %s" % kind)
    return doc


def drop_ignored(obj, paths):
    for path in paths or []:
        try:
            p, last = parent(obj, path)
            if isinstance(p, list):
                p[int(last)] = None
            else:
                p[last] = None
        except (KeyError, IndexError, TypeError, ValueError):
            pass
    return obj


class Oracle:
    def __init__(self, binary, gates, certdir):
        self.tmp = tempfile.mkdtemp(prefix="ask-vectors-")
        portfile = os.path.join(self.tmp, "port")
        args = [binary, "serve", "-cert-dir", certdir, "-port-file", portfile]
        if gates:
            args += ["-feature-gates", gates]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 60
        while not os.path.exists(portfile) or not open(portfile).read().strip():
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("oracle did not start: %s" % self.proc.stderr.read().decode())
            time.sleep(0.1)
        self.port = int(open(portfile).read())
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False
        self.ctx.verify_mode = ssl.CERT_NONE

    def post(self, path, body):
        req = urllib.request.Request("https://127.0.0.1:%d%s" % (self.port, path),
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=self.ctx, timeout=30) as r:
            return json.loads(r.read())

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def gates_of(vector):
    return ",".join("%s=%s" % (k, "true" if v else "false")
                    for k, v in sorted((vector.get("featureGates") or {}).items()))


def check(oracle, vector, write):
    oracle.post("/_oracle/world", {"objects": vector.get("cluster") or []})
    review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
              "request": vector["request"]}
    resp = oracle.post(vector["endpoint"], review)["response"]
    exp, problems = vector["expect"], []
    status = resp.get("status") or {}
    patch = json.loads(base64.b64decode(resp["patch"])) if resp.get("patch") else []
    if write and exp.get("ask"):
        # a case written without its answer: upstream's becomes the expectation
        exp.clear()
        exp["allowed"] = resp.get("allowed")
        if not resp.get("allowed") or status.get("code") not in (None, 200):
            exp["code"] = status.get("code")
            exp["messageContains"] = [status.get("message") or ""]
        if patch:
            exp["object"] = apply_patch(vector["request"]["object"], patch)
        elif resp.get("allowed"):
            exp["noPatch"] = True
        return []
    if resp.get("allowed") != exp["allowed"]:
        problems.append("allowed %s, expected %s" % (resp.get("allowed"), exp["allowed"]))
    if "code" in exp and status.get("code") != exp["code"]:
        problems.append("code %s, expected %s" % (status.get("code"), exp["code"]))
    for s in exp.get("messageContains") or []:
        if s not in (status.get("message") or ""):
            problems.append("message %r lacks %r" % (status.get("message"), s))
    if exp.get("noPatch") and patch:
        problems.append("a patch, expected none: %s" % json.dumps(patch))
    if "object" in exp:
        got = apply_patch(vector["request"]["object"], patch)
        want = drop_ignored(copy.deepcopy(exp["object"]), exp.get("ignorePaths"))
        if drop_ignored(got, exp.get("ignorePaths")) != want:
            diff = difflib.unified_diff(
                json.dumps(want, indent=1, sort_keys=True).splitlines(),
                json.dumps(got, indent=1, sort_keys=True).splitlines(), "expected",
                "upstream's", lineterm="")
            if write:
                vector["expect"]["object"] = got
            else:
                problems.append("object after the patch:\n" + "\n".join(diff))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default="build/oracle/kwh-oracle")
    ap.add_argument("--write", action="store_true",
                    help="replace a mutating vector's expect.object with upstream's answer")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    files = []
    for p in a.paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in names if n.endswith(".json")]
        else:
            files.append(p)
    vectors = [(f, json.load(open(f))) for f in sorted(files)]
    vectors = [(f, v) for f, v in vectors if "request" in v]
    certdir = tempfile.mkdtemp(prefix="ask-vectors-certs-")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                    "/CN=127.0.0.1", "-keyout", os.path.join(certdir, "tls.key"), "-out",
                    os.path.join(certdir, "tls.crt")], check=True, capture_output=True)
    oracles, bad = {}, 0
    try:
        for f, v in vectors:
            g = gates_of(v)
            if g not in oracles:
                oracles[g] = Oracle(a.oracle, g, certdir)
            before = json.dumps(v["expect"], sort_keys=True)
            problems = check(oracles[g], v, a.write)
            if a.write and json.dumps(v["expect"], sort_keys=True) != before:
                with open(f, "w") as out:
                    json.dump(v, out, indent=2)
                    out.write("\n")
                print("WROTE %s" % f)
            if problems:
                bad += 1
                print("DIFFERS %s\n  %s" % (f, "\n  ".join(problems)))
        print("%d/%d vectors answered by upstream as they expect" % (len(vectors) - bad,
                                                                      len(vectors)))
    finally:
        for o in oracles.values():
            o.stop()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
