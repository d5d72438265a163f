#!/usr/bin/env python3
"""Moves webhook entries from kruise-manager's configurations to kruise-webhook's, path by
path, and back (docs/migrating.md). Reaches the cluster through `kubectl proxy` (kubectl's
current context, or --kubeconfig), on a loopback port for the time it runs.

    scripts/migrate-webhooks.py status
    scripts/migrate-webhooks.py move PATH...     # to kruise-webhook
    scripts/migrate-webhooks.py back PATH...     # to kruise-manager again
    scripts/migrate-webhooks.py move --all       # every path kruise-webhook has an entry for

For each PATH, `move`:
  1. reads both servers' configurations and the Secret kruise-webhook serves from, and stops
     unless kruise-manager's entries for PATH trust the CA of that Secret (kruise-webhook
     adopted it: manifests/migration/);
  2. writes kruise-webhook's entries for PATH (from --entries, by default the configurations
     of manifests/base/) with the caBundle kruise-manager's entries already have, so they are
     trusted from the first request; kruise-manager's entries are kept in an annotation of
     kruise-webhook's configuration, for `back`;
  3. removes kruise-manager's entries for PATH from its configuration and from its `template`
     annotation, which kruise-manager rebuilds its entries from (without that it would put
     them back).
Steps 2 and 3 are two PUTs sent back to back (through `kubectl proxy`, which does the
authentication), in that order, each conditioned on the resourceVersion read in step 1: a
concurrent change fails the command before the second write (run it again: it finishes a
half-done move). A path is therefore never without an entry; between the two writes, for the
milliseconds the second one takes, both servers answer it, with the same answer.

`back` does the opposite in the same order: kruise-manager's entries first (the saved ones),
then kruise-webhook's removed. `status` prints who serves each path (`both!` or `nobody!`
would be a problem).
"""

import argparse
import base64
import http.client
import json
import os
import shutil
import ssl
import subprocess
import sys
from urllib.parse import urlparse

import yaml

KRUISE = {"MutatingWebhookConfiguration": "kruise-mutating-webhook-configuration",
          "ValidatingWebhookConfiguration": "kruise-validating-webhook-configuration"}
SAVED = "kruise-webhook.io/moved-from-kruise-manager"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Stop(Exception):
    pass


def find_kubectl(name):
    """The kubectl to run: name as a path, or looked up on PATH. Stops, saying what the command
    needs, when there is none (before anything is read or written)."""
    path = name if os.sep in name else shutil.which(name)
    if path and os.access(path, os.X_OK) and not os.path.isdir(path):
        return path
    raise Stop("needs kubectl to reach the cluster (it runs `kubectl proxy`, which "
               "authenticates with your kubeconfig), and %s; install kubectl (Debian: apt-get "
               "install kubernetes-client) or name one with --kubectl PATH or $KUBECTL" %
               ("%s is not an executable" % name if os.sep in name else
                "there is no %s on PATH" % name))


class Api:
    """The API server through `kubectl proxy` on a loopback port (kubectl does the
    authentication), so that the two writes of a move go out back to back from here."""

    def __init__(self, opts):
        cmd = [find_kubectl(opts.kubectl)] + (["--kubeconfig", opts.kubeconfig] if opts.kubeconfig else []) + \
            ["proxy", "--port=0", "--address=127.0.0.1"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("Starting to serve on "):
            self.close()
            raise Stop("%s: %s%s" % (" ".join(cmd), line, self.proc.stderr.read()))
        self.addr = line.split()[-1]

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def call(self, method, path, body=None):
        conn = http.client.HTTPConnection(self.addr, timeout=30)
        try:
            conn.request(method, path, json.dumps(body) if body is not None else None,
                         {"Content-Type": "application/json"})
            r = conn.getresponse()
            data = r.read()
        finally:
            conn.close()
        try:
            out = json.loads(data) if data else {}
        except ValueError:
            # kubectl proxy's own answer (no cluster configured, or none reachable) is text
            raise Stop("%s %s through kubectl proxy: %s %s (is kubectl's current context the "
                       "cluster? kubectl cluster-info tells)" %
                       (method, path, r.status, data[:200].decode(errors="replace").strip()))
        if r.status >= 300:
            raise Stop("%s %s: %s %s" % (method, path, r.status, out.get("message", data[:200])))
        return out


def config_path(kind, name):
    return "/apis/admissionregistration.k8s.io/v1/%ss/%s" % (kind.lower(), name)


def get(api, kind, name):
    return api.call("GET", config_path(kind, name))


def path_of(entry):
    cc = entry.get("clientConfig") or {}
    if cc.get("service"):
        return cc["service"].get("path") or "/"
    return urlparse(cc.get("url", "")).path or "/"


def ca_der(pem_or_b64):
    """The DER of the first certificate of a caBundle (base64 of PEM) or of PEM bytes."""
    text = pem_or_b64
    if isinstance(text, str) and "BEGIN" not in text:
        text = base64.b64decode(text).decode()
    if isinstance(text, bytes):
        text = text.decode()
    start = text.find("-----BEGIN CERTIFICATE-----")
    end = text.find("-----END CERTIFICATE-----", start)
    if start < 0 or end < 0:
        return None
    return ssl.PEM_cert_to_DER_cert(text[start:end + len("-----END CERTIFICATE-----")])


def template(cfg):
    text = (cfg["metadata"].get("annotations") or {}).get("template")
    return json.loads(text) if text else None


def set_template(cfg, entries):
    cfg["metadata"].setdefault("annotations", {})["template"] = json.dumps(entries,
                                                                           separators=(",", ":"))


def saved(cfg):
    return json.loads((cfg["metadata"].get("annotations") or {}).get(SAVED) or "{}")


def set_saved(cfg, value):
    ann = cfg["metadata"].setdefault("annotations", {})
    if value:
        ann[SAVED] = json.dumps(value, separators=(",", ":"), sort_keys=True)
    else:
        ann.pop(SAVED, None)


def load_entries(opts):
    """{kind: (our configuration's name, {path: [our entries]})} from --entries."""
    out = {}
    with open(opts.entries) as f:
        for d in yaml.safe_load_all(f):
            if not d or d.get("kind") not in KRUISE:
                continue
            by_path = out.setdefault(d["kind"], (d["metadata"]["name"], {}))[1]
            for e in d.get("webhooks") or []:
                by_path.setdefault(path_of(e), []).append(e)
    if not out:
        raise Stop("%s holds no webhook configuration" % opts.entries)
    return out


def read_state(api, ours):
    state = {}
    for kind, (name, _) in ours.items():
        state[kind] = (get(api, kind, name), get(api, kind, KRUISE[kind]))
    return state


def replace(api, objs):
    """PUTs objs one after the other, each conditioned on the resourceVersion it was read at;
    the first failure stops before the next write."""
    for o in objs:
        api.call("PUT", config_path(o["kind"], o["metadata"]["name"]), o)


def served_ca(api, opts):
    ns, name = opts.secret.split("/", 1)
    secret = api.call("GET", "/api/v1/namespaces/%s/secrets/%s" % (ns, name))
    pem = base64.b64decode((secret.get("data") or {}).get("ca-cert.pem", "")).decode()
    der = ca_der(pem)
    if not der:
        raise Stop("Secret %s has no ca-cert.pem: is kruise-webhook running with "
                   "SECRET_NAME=%s?" % (opts.secret, name))
    return der


def move(api, opts, ours, paths):
    ca = served_ca(api, opts)
    for p in paths:
        kind = next((k for k, (_, by) in ours.items() if p in by), None)
        if not kind:
            raise Stop("%s: no entry for it in %s" % (p, opts.entries))
        mine, theirs = read_state(api, ours)[kind]
        live = [e for e in theirs.get("webhooks") or [] if path_of(e) == p]
        if any(path_of(e) == p for e in mine.get("webhooks") or []):
            if live and p in saved(mine):
                finish(api, theirs, p)  # the second write of an earlier run failed
            elif live:
                raise Stop("%s: both configurations have entries for it; fix by hand" % p)
            print("%s: already moved" % p)
            continue
        if not live:
            raise Stop("%s: kruise-manager's %s has no entry for it" % (p, KRUISE[kind]))
        bundle = live[0]["clientConfig"].get("caBundle")
        if not bundle or ca_der(bundle) != ca:
            raise Stop("%s: kruise-manager's entries do not trust the CA of Secret %s; adopt its "
                       "Secret first (docs/migrating.md)" % (p, opts.secret))
        new = json.loads(json.dumps(ours[kind][1][p]))
        for e in new:
            e["clientConfig"]["caBundle"] = bundle
        mine["webhooks"] = (mine.get("webhooks") or []) + new
        tmpl = template(theirs)
        keep = saved(mine)
        keep[p] = {"live": live, "template": [e for e in tmpl or [] if path_of(e) == p]}
        set_saved(mine, keep)
        without(theirs, p)
        replace(api, [mine, theirs])
        print("%s: moved to kruise-webhook (%s)" % (p, ", ".join(e["name"] for e in new)))


def without(theirs, p):
    """kruise-manager's configuration without its entries for p, in the live list and in the
    template it rebuilds them from."""
    theirs["webhooks"] = [e for e in theirs.get("webhooks") or [] if path_of(e) != p]
    tmpl = template(theirs)
    if tmpl is not None:
        set_template(theirs, [e for e in tmpl if path_of(e) != p])


def finish(api, theirs, p):
    without(theirs, p)
    replace(api, [theirs])


def back(api, opts, ours, paths):
    for p in paths:
        kind = next((k for k, (_, by) in ours.items() if p in by), None)
        if not kind:
            raise Stop("%s: no entry for it in %s" % (p, opts.entries))
        mine, theirs = read_state(api, ours)[kind]
        keep = saved(mine)
        if p not in keep:
            raise Stop("%s: not moved by this script (no saved entries in %s)" % (p, SAVED))
        if any(path_of(e) == p for e in theirs.get("webhooks") or []):
            raise Stop("%s: kruise-manager already has entries for it; fix by hand" % p)
        theirs["webhooks"] = (theirs.get("webhooks") or []) + keep[p]["live"]
        tmpl = template(theirs)
        if tmpl is not None:
            set_template(theirs, tmpl + keep[p]["template"])
        mine["webhooks"] = [e for e in mine.get("webhooks") or [] if path_of(e) != p]
        del keep[p]
        set_saved(mine, keep)
        replace(api, [theirs, mine])
        print("%s: back to kruise-manager" % p)


def status(api, ours):
    state = read_state(api, ours)
    bad = 0
    for kind, (_, by) in sorted(ours.items()):
        mine, theirs = state[kind]
        for p in sorted(by):
            a = any(path_of(e) == p for e in mine.get("webhooks") or [])
            b = any(path_of(e) == p for e in theirs.get("webhooks") or [])
            who = {(True, False): "kruise-webhook", (False, True): "kruise-manager",
                   (True, True): "both!", (False, False): "nobody!"}[(a, b)]
            bad += who.endswith("!")
            print("%-48s %s" % (p, who))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["status", "move", "back"])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--all", action="store_true", help="every path of --entries")
    ap.add_argument("--entries", default=os.path.join(ROOT, "manifests", "base",
                                                       "webhookconfigurations.yaml"),
                    help="kruise-webhook's configurations (YAML): the entries to write")
    ap.add_argument("--secret", default="kruise-system/kruise-webhook-certs",
                    help="NAMESPACE/NAME of the Secret kruise-webhook serves from")
    ap.add_argument("--kubectl", default=os.environ.get("KUBECTL", "kubectl"))
    ap.add_argument("--kubeconfig")
    opts = ap.parse_args()
    paths = opts.paths
    if opts.command != "status" and not paths and not opts.all:
        ap.error("name the paths, or --all")
    api = None
    try:
        ours = load_entries(opts)
        api = Api(opts)
        if opts.command == "status":
            return status(api, ours)
        if opts.all:
            paths = sorted({p for _, by in ours.values() for p in by})
        (move if opts.command == "move" else back)(api, opts, ours, paths)
    except Stop as e:
        print("migrate-webhooks: %s" % e, file=sys.stderr)
        return 1
    finally:
        if api:
            api.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
