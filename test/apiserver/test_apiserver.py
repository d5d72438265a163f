#!/usr/bin/env python3
"""End-to-end tests of the fake kube-apiserver: each test talks HTTPS to a server started
as a subprocess. Run: python3 test/apiserver/test_apiserver.py [name-substring ...]
Prints "N passed, N failed" last and exits non-zero on failure."""

import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
TLS = os.path.join(HERE, "..", "data", "tls")
CA = os.path.join(TLS, "ca.pem")
CERT, KEY = os.path.join(TLS, "server.pem"), os.path.join(TLS, "server-key.pem")
CLIENT_CERT, CLIENT_KEY = os.path.join(TLS, "client.pem"), os.path.join(TLS, "client-key.pem")
TOKEN = "test-token-123"
BOOKMARK_INTERVAL = 0.3

sys.path.insert(0, HERE)

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


class Failure(Exception):
    pass


def check(cond, msg="check failed"):
    if not cond:
        raise Failure(msg)


def eq(got, want, what=""):
    if got != want:
        raise Failure("%s: got %r, want %r" % (what or "value", got, want))


# ----- server process ----------------------------------------------------------------------

class ServerProc(object):
    def __init__(self, *args, tls=True):
        self.log = tempfile.NamedTemporaryFile(prefix="fakeapi-", suffix=".log", delete=False).name
        cmd = [sys.executable, os.path.join(HERE, "apiserver.py"), "--port", "0", "--log", self.log]
        if tls:
            cmd += ["--cert", CERT, "--key", KEY]
        else:
            cmd += ["--plain-http"]
        cmd += list(args)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode()
        prefix = "listening on %s://127.0.0.1:" % ("https" if tls else "http")
        if not line.startswith(prefix):
            self.proc.kill()
            raise RuntimeError("unexpected first line %r; stderr: %s" % (line, self.proc.stderr.read().decode()))
        self.first_line = line
        self.port = int(line.strip().rsplit(":", 1)[1])
        self.tls = tls

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        err = self.proc.stderr.read().decode()
        os.unlink(self.log)
        return self.proc.returncode, err


def ssl_ctx(client_cert=False):
    ctx = ssl.create_default_context(cafile=CA)
    if client_cert:
        ctx.load_cert_chain(CLIENT_CERT, CLIENT_KEY)
    return ctx


class Api(object):
    """One keep-alive connection."""

    def __init__(self, port, token=TOKEN, client_cert=False, tls=True):
        self.port, self.token, self.client_cert, self.tls = port, token, client_cert, tls
        self.conn = None

    def _connect(self):
        if self.tls:
            self.conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=ssl_ctx(self.client_cert),
                                                    timeout=15)
        else:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)

    def raw(self, method, path, body=None, ctype="application/json", headers=None):
        h = dict(headers or {})
        if self.token:
            h.setdefault("Authorization", "Bearer " + self.token)
        if body is not None:
            if not isinstance(body, (bytes, str)):
                body = json.dumps(body)
            if isinstance(body, str):
                body = body.encode()
            h["Content-Type"] = ctype
        for attempt in (0, 1):
            if self.conn is None:
                self._connect()
            try:
                self.conn.request(method, path, body=body, headers=h)
                resp = self.conn.getresponse()
                data = resp.read()
                return resp.status, resp, data
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise

    def req(self, method, path, body=None, ctype="application/json", headers=None):
        status, resp, data = self.raw(method, path, body, ctype, headers)
        try:
            doc = json.loads(data) if data else None
        except ValueError:
            doc = data.decode(errors="replace")
        return status, doc

    def ok(self, method, path, body=None, ctype="application/json", want=None):
        status, doc = self.req(method, path, body, ctype)
        if want is None:
            want = 201 if method == "POST" and not path.startswith("/_control/") else 200
        if status != want:
            raise Failure("%s %s: status %d (want %d): %s" % (method, path, status, want, doc))
        return doc

    def close(self):
        if self.conn:
            self.conn.close()


class Watch(object):
    def __init__(self, port, path, token=TOKEN):
        self.conn = http.client.HTTPSConnection("127.0.0.1", port, context=ssl_ctx(), timeout=10)
        self.conn.request("GET", path, headers={"Authorization": "Bearer " + token} if token else {})
        self.resp = self.conn.getresponse()
        self.buf = b""

    def next(self, timeout=5.0):
        """The next event, None on a clean end of stream (the terminating chunk); raises
        socket.timeout if none comes, http.client.IncompleteRead if the stream is cut."""
        self.conn.sock.settimeout(timeout)
        while b"\n" not in self.buf:
            data = self.resp.read1(65536)
            if not data:
                if self.buf:
                    raise Failure("stream ended inside an event: %r" % self.buf)
                return None
            self.buf += data
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line)

    def next_non_bookmark(self, timeout=5.0):
        while True:
            ev = self.next(timeout)
            if ev is None or ev["type"] != "BOOKMARK":
                return ev

    def expect(self, types, timeout=5.0):
        """Read events (skipping bookmarks) and compare their types; returns the events."""
        evs = [self.next_non_bookmark(timeout) for _ in types]
        eq([e and e["type"] for e in evs], list(types), "watch event types")
        return evs

    def close(self):
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass
        self.conn.close()


def wait_for(fn, timeout=5.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    raise Failure("timed out waiting for " + what)


S = None     # the main server, started with --token --client-ca --kruise-crds
A = None     # an Api on it


def ns_path(res, ns="default", name=None, group=None):
    base = "/apis/%s" % group if group else "/api/v1"
    p = "%s/namespaces/%s/%s" % (base, ns, res)
    return p + "/" + name if name else p


def pod(name, labels=None, ns="default", **extra):
    o = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
         "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    if labels is not None:
        o["metadata"]["labels"] = labels
    o.update(extra)
    return o


def cm(name, data=None, ns="default", labels=None):
    o = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data or {"k": "v"}}
    if labels:
        o["metadata"]["labels"] = labels
    return o


def deploy(name, replicas=1):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "x"}]}}}}


def sidecarset(name, version="v1beta1"):
    return {"apiVersion": "apps.kruise.io/" + version, "kind": "SidecarSet", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": "x"}}, "containers": [{"name": "s", "image": "y"}]}}


def rv_of(o):
    return int(o["metadata"]["resourceVersion"])


def current_rv():
    return int(A.ok("GET", "/_control/rv")["resourceVersion"])


# ----- startup, TLS, authentication ------------------------------------------------------------

@test
def startup_line_and_tls():
    check(S.first_line.endswith("\n") and S.first_line.count("\n") == 1, "one line")
    eq(S.first_line.strip(), "listening on https://127.0.0.1:%d" % S.port)
    # The default context verifies the chain and the host name 127.0.0.1 against the SANs.
    st, doc = A.req("GET", "/api")
    eq(st, 200)
    ctx = ssl_ctx()
    with socket.create_connection(("127.0.0.1", S.port)) as raw:
        with ctx.wrap_socket(raw, server_hostname="localhost") as s:
            check(s.version() in ("TLSv1.2", "TLSv1.3"))


@test
def auth_token_and_client_cert():
    st, doc = Api(S.port, token=None).req("GET", "/api/v1/namespaces")
    eq(st, 401)
    eq(doc, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "Unauthorized",
             "reason": "Unauthorized", "code": 401})
    eq(Api(S.port, token="wrong").req("GET", "/api/v1/namespaces")[0], 401)
    eq(Api(S.port, token=None).req("GET", "/api", headers={"Authorization": "Basic eDp5"})[0], 401)
    eq(Api(S.port).req("GET", "/api/v1/namespaces")[0], 200)
    eq(Api(S.port, token=None, client_cert=True).req("GET", "/api/v1/namespaces")[0], 200)
    st, resp, data = Api(S.port, token=None).raw("GET", "/healthz")
    eq((st, data), (200, b"ok"))
    eq(Api(S.port, token=None).req("GET", "/_control/rv")[0], 200)


@test
def keep_alive_reuses_connection():
    api = Api(S.port)
    api.ok("GET", "/api")
    sock = api.conn.sock
    for _ in range(5):
        api.ok("GET", "/api/v1/namespaces")
        api.req("GET", "/api/v1/namespaces/default/pods/nope")
    check(api.conn.sock is sock, "connection was reused")
    api.close()


# ----- discovery ---------------------------------------------------------------------------

@test
def discovery_core_and_groups():
    eq(A.ok("GET", "/api")["versions"], ["v1"])
    v1 = A.ok("GET", "/api/v1")
    eq(v1["kind"], "APIResourceList")
    eq(v1["groupVersion"], "v1")
    byname = {r["name"]: r for r in v1["resources"]}
    for res in ("namespaces", "pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "events"):
        check(res in byname, res)
    eq(byname["pods"]["namespaced"], True)
    eq(byname["pods"]["kind"], "Pod")
    eq(byname["pods"]["singularName"], "pod")
    eq(byname["namespaces"]["namespaced"], False)
    check("watch" in byname["pods"]["verbs"] and "patch" in byname["pods"]["verbs"])
    eq(byname["pods/status"]["verbs"], ["get", "patch", "update"])
    check("configmaps/status" not in byname)
    apis = A.ok("GET", "/apis")
    eq(apis["kind"], "APIGroupList")
    groups = {g["name"]: g for g in apis["groups"]}
    for g in ("apps", "networking.k8s.io", "apiextensions.k8s.io", "admissionregistration.k8s.io",
              "coordination.k8s.io", "policy", "apps.kruise.io", "policy.kruise.io"):
        check(g in groups, g)
    eq(groups["apps"]["preferredVersion"], {"groupVersion": "apps/v1", "version": "v1"})
    eq(groups["apps.kruise.io"]["preferredVersion"]["version"], "v1beta1")
    eq([v["version"] for v in groups["apps.kruise.io"]["versions"]], ["v1beta1", "v1alpha1"])
    apps = A.ok("GET", "/apis/apps/v1")
    names = {r["name"] for r in apps["resources"]}
    eq(names, {"deployments", "deployments/status", "replicasets", "replicasets/status", "statefulsets",
               "statefulsets/status", "controllerrevisions", "daemonsets", "daemonsets/status"})
    kr = {r["name"]: r for r in A.ok("GET", "/apis/apps.kruise.io/v1beta1")["resources"]}
    eq(kr["sidecarsets"]["namespaced"], False)
    eq(kr["clonesets"]["namespaced"], True)
    check("sidecarsets/status" in kr)
    check("ephemeraljobs" not in kr, "EphemeralJob is v1alpha1-only upstream")
    check("ephemeraljobs" in {r["name"] for r in A.ok("GET", "/apis/apps.kruise.io/v1alpha1")["resources"]})
    pub = A.ok("GET", "/apis/policy.kruise.io")
    eq((pub["kind"], pub["preferredVersion"]["version"]), ("APIGroup", "v1beta1"))
    eq(A.ok("GET", "/version")["major"], "1")
    eq(A.req("GET", "/apis/nope.example.com/v1")[0], 404)
    eq(A.req("GET", "/apis/apps/v2")[0], 404)


@test
def kube_aware_version_order():
    from fakekube.resources import compare_kube_versions, sort_kube_versions
    eq(sort_kube_versions(["v1alpha1", "v1beta1", "v1", "v2", "v1beta2", "v10", "v2alpha3", "foo", "bar",
                           "v11alpha2"]),
       ["v10", "v2", "v1", "v1beta2", "v1beta1", "v11alpha2", "v2alpha3", "v1alpha1", "bar", "foo"])
    check(compare_kube_versions("v1", "v1beta1") > 0)
    check(compare_kube_versions("v1beta1", "v1alpha1") > 0)
    check(compare_kube_versions("v1beta1", "v1beta1") == 0)


def crd(group, plural, kind, versions, scope="Namespaced", storage=None, status_versions=()):
    storage = storage or versions[0][0]
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": plural + "." + group},
            "spec": {"group": group, "scope": scope,
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": kind + "List"},
                     "versions": [{"name": v, "served": served, "storage": v == storage,
                                   "schema": {"openAPIV3Schema": {"type": "object",
                                                                  "x-kubernetes-preserve-unknown-fields": True}},
                                   "subresources": {"status": {}} if v in status_versions else {}}
                                  for v, served in versions]}}


@test
def crd_lifecycle_and_preferred_version():
    c = crd("example.com", "widgets", "Widget",
            [("v1alpha1", True), ("v1beta2", True), ("v1", True), ("v1beta1", True), ("v2alpha1", True),
             ("v3", False)], storage="v1beta1", status_versions=("v1",))
    out = A.ok("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", c)
    eq(out["metadata"]["generation"], 1)
    conds = {x["type"]: x["status"] for x in out["status"]["conditions"]}
    eq(conds, {"NamesAccepted": "True", "Established": "True"})
    eq(out["status"]["storedVersions"], ["v1beta1"])
    grp = A.ok("GET", "/apis/example.com")
    eq([v["version"] for v in grp["versions"]], ["v1", "v1beta2", "v1beta1", "v2alpha1", "v1alpha1"])
    eq(grp["preferredVersion"], {"groupVersion": "example.com/v1", "version": "v1"})
    eq(A.req("GET", "/apis/example.com/v3")[0], 404)
    rl = {r["name"]: r for r in A.ok("GET", "/apis/example.com/v1")["resources"]}
    eq(set(rl), {"widgets", "widgets/status"})
    eq(set(r["name"] for r in A.ok("GET", "/apis/example.com/v1beta1")["resources"]), {"widgets"})
    w = A.ok("POST", ns_path("widgets", group="example.com/v1beta1"),
             {"apiVersion": "example.com/v1beta1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"a": 1}})
    eq(w["apiVersion"], "example.com/v1beta1")
    eq(w["metadata"]["generation"], 1)
    # Stored once, served at every version with the URL's apiVersion and no conversion.
    g = A.ok("GET", ns_path("widgets", name="w1", group="example.com/v1"))
    eq((g["apiVersion"], g["kind"], g["spec"]), ("example.com/v1", "Widget", {"a": 1}))
    lst = A.ok("GET", ns_path("widgets", group="example.com/v1alpha1"))
    eq(lst["kind"], "WidgetList")
    eq(lst["items"][0]["apiVersion"], "example.com/v1alpha1")
    eq(lst["items"][0]["kind"], "Widget")
    # A body naming another served version of the group is accepted.
    A.ok("POST", ns_path("widgets", group="example.com/v1"),
         {"apiVersion": "example.com/v1alpha1", "kind": "Widget", "metadata": {"name": "w2"}})
    eq(A.req("POST", ns_path("widgets", group="example.com/v1"),
             {"apiVersion": "other.com/v1", "kind": "Widget", "metadata": {"name": "w3"}})[0], 400)
    # Status subresource only at v1.
    eq(A.req("GET", ns_path("widgets", name="w1", group="example.com/v1") + "/status")[0], 200)
    eq(A.req("GET", ns_path("widgets", name="w1", group="example.com/v1beta1") + "/status")[0], 404)
    wa = Watch(S.port, ns_path("widgets", group="example.com/v1") + "?watch=1")
    wa.expect(["ADDED", "ADDED"])
    st = A.ok("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com")
    eq((st["kind"], st["status"], st["details"]["kind"]), ("Status", "Success", "customresourcedefinitions"))
    evs = []
    while True:
        ev = wa.next_non_bookmark()
        if ev is None:
            break
        evs.append(ev["type"])
    eq(evs, ["DELETED", "DELETED"], "custom resources deleted with their CRD, then the watch ends")
    eq(A.req("GET", "/apis/example.com")[0], 404)
    st, doc = A.req("GET", ns_path("widgets", group="example.com/v1"))
    eq(st, 404)
    check("example.com" not in {g["name"] for g in A.ok("GET", "/apis")["groups"]})


@test
def crd_validation():
    bad = crd("example.com", "gadgets", "Gadget", [("v1", True), ("v2", True)], storage="v1")
    bad["metadata"]["name"] = "wrong.example.com"
    st, doc = A.req("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", bad)
    eq((st, doc["reason"]), (422, "Invalid"))
    check('CustomResourceDefinition.apiextensions.k8s.io "wrong.example.com" is invalid' in doc["message"],
          doc["message"])
    two = crd("example.com", "gadgets", "Gadget", [("v1", True), ("v2", True)])
    two["spec"]["versions"][1]["storage"] = True
    st, doc = A.req("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", two)
    eq(st, 422)
    check("exactly one version marked as storage version" in doc["message"], doc["message"])


@test
def crd_cluster_scope_and_update_ends_watches():
    A.ok("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
         crd("example.org", "knobs", "Knob", [("v1", True)], scope="Cluster"))
    A.ok("POST", "/apis/example.org/v1/knobs", {"metadata": {"name": "k1"}})
    eq(A.req("POST", "/apis/example.org/v1/namespaces/default/knobs", {"metadata": {"name": "k2"}})[0], 404)
    k = A.ok("GET", "/apis/example.org/v1/knobs/k1")
    check("namespace" not in k["metadata"])
    w = Watch(S.port, "/apis/example.org/v1/knobs?watch=1")
    w.expect(["ADDED"])
    cur = A.ok("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/knobs.example.org")
    cur["spec"]["names"]["shortNames"] = ["kn"]
    out = A.ok("PUT", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/knobs.example.org", cur)
    eq(out["metadata"]["generation"], 2)
    eq(w.next_non_bookmark(), None, "a CRD spec change ends the custom resource's watches cleanly")
    # A CRD status-only change does not.
    w2 = Watch(S.port, "/apis/example.org/v1/knobs?watch=1&timeoutSeconds=2")
    w2.expect(["ADDED"])
    st = A.ok("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/knobs.example.org")
    st["status"]["conditions"][0]["message"] = "touched"
    A.ok("PUT", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/knobs.example.org/status", st)
    t0 = time.monotonic()
    eq(w2.next_non_bookmark(), None)
    check(time.monotonic() - t0 > 1.0, "watch lasted until its timeout")


# ----- create / get ------------------------------------------------------------------------

@test
def create_sets_system_fields():
    before = current_rv()
    p = A.ok("POST", ns_path("pods"), pod("p1", {"app": "a"}))
    md = p["metadata"]
    eq((p["apiVersion"], p["kind"]), ("v1", "Pod"))
    check(len(md["uid"]) == 36, md["uid"])
    check(time.strptime(md["creationTimestamp"], "%Y-%m-%dT%H:%M:%SZ"))
    eq(rv_of(p), before + 1)
    check("generation" not in md, "no generation on pods")
    eq(p["status"]["phase"], "Pending")
    d = A.ok("POST", ns_path("deployments", group="apps/v1"), deploy("d1"))
    eq(d["metadata"]["generation"], 1)
    eq(rv_of(d), before + 2)
    c = A.ok("POST", ns_path("configmaps"), cm("c1"))
    check("generation" not in c["metadata"])
    g = A.ok("GET", ns_path("pods", name="p1"))
    eq(g, p)
    gen = A.ok("POST", ns_path("configmaps"), {"metadata": {"generateName": "gen-"}, "data": {}})
    name = gen["metadata"]["name"]
    check(name.startswith("gen-") and len(name) == 9, name)
    ns = A.ok("POST", "/api/v1/namespaces", {"metadata": {"name": "team-a"}})
    eq((ns["spec"], ns["status"]), ({"finalizers": ["kubernetes"]}, {"phase": "Active"}))
    eq(ns["metadata"]["labels"], {"kubernetes.io/metadata.name": "team-a"})
    # Status cannot be set on create for kinds with a status subresource.
    d2 = deploy("d2")
    d2["status"] = {"replicas": 5}
    check("status" not in A.ok("POST", ns_path("deployments", group="apps/v1"), d2))


@test
def create_errors():
    A.ok("POST", ns_path("pods"), pod("dup"))
    st, doc = A.req("POST", ns_path("pods"), pod("dup"))
    eq(st, 409)
    eq(doc, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
             "message": 'pods "dup" already exists', "reason": "AlreadyExists",
             "details": {"name": "dup", "kind": "pods"}, "code": 409})
    st, doc = A.req("POST", ns_path("deployments", group="apps/v1"), deploy("dd"))
    st, doc = A.req("POST", ns_path("deployments", group="apps/v1"), deploy("dd"))
    eq((doc["message"], doc["details"]), ('deployments.apps "dd" already exists',
                                         {"name": "dd", "group": "apps", "kind": "deployments"}))
    st, doc = A.req("POST", ns_path("pods", ns="nowhere"), pod("x", ns="nowhere"))
    eq(st, 404)
    eq((doc["message"], doc["details"]), ('namespaces "nowhere" not found', {"name": "nowhere", "kind": "namespaces"}))
    st, doc = A.req("POST", ns_path("pods"), pod("x", ns="other"))
    eq((st, doc["reason"]), (400, "BadRequest"))
    eq(doc["message"], "the namespace of the provided object does not match the namespace sent on the request")
    st, doc = A.req("POST", ns_path("pods"), b'{"metadata": {"name": ')
    eq((st, doc["reason"]), (400, "BadRequest"))
    st, doc = A.req("POST", ns_path("configmaps"), {"metadata": {}})
    eq((st, doc["reason"]), (422, "Invalid"))
    eq(doc["message"], 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required')
    eq(doc["details"]["causes"], [{"reason": "FieldValueRequired", "field": "metadata.name",
                                   "message": "Required value: name or generateName is required"}])
    st, doc = A.req("POST", ns_path("configmaps"), {"metadata": {"name": "Bad_Name"}})
    eq(st, 422)
    check(doc["message"].startswith('ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": '
                                    'a lowercase RFC 1123 subdomain'), doc["message"])
    st, doc = A.req("POST", ns_path("configmaps"), {"metadata": {"name": "ok", "labels": {"a": "bad value"}}})
    eq(st, 422)
    st, doc = A.req("POST", ns_path("configmaps"), {"metadata": {"name": "rv", "resourceVersion": "5"}})
    eq((st, doc["message"]), (500, "resourceVersion should not be set on objects to be created"))
    st, doc = A.req("POST", ns_path("pods"), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "k"}})
    eq(st, 400)
    st, doc = A.req("POST", ns_path("pods"), {"apiVersion": "apps/v1", "kind": "Pod", "metadata": {"name": "k"}})
    eq(st, 400)
    eq(A.req("POST", "/api/v1/pods", pod("x"))[0], 405)
    st, doc = A.req("POST", ns_path("configmaps"), "metadata: {name: y}", "application/yaml")
    eq((st, doc["reason"]), (415, "UnsupportedMediaType"))


@test
def not_found_shapes():
    st, doc = A.req("GET", ns_path("pods", name="x"))
    eq(st, 404)
    eq(doc, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
             "message": 'pods "x" not found', "reason": "NotFound", "details": {"name": "x", "kind": "pods"},
             "code": 404})
    st, doc = A.req("GET", ns_path("sidecarsets", name="x", group="apps.kruise.io/v1beta1").replace(
        "/namespaces/default", ""))
    eq(doc["message"], 'sidecarsets.apps.kruise.io "x" not found')
    eq(doc["details"], {"name": "x", "group": "apps.kruise.io", "kind": "sidecarsets"})
    for path in ("/api/v1/namespaces/default/foos", "/api/v1/foos", "/api/v1/pods/x",
                 "/apis/apps.kruise.io/v1beta1/namespaces/default/sidecarsets",
                 "/api/v1/namespaces/default/pods/x/log",
                 "/api/v1/namespaces/default/configmaps/x/status", "/nope", "/api/v2",
                 "/apis/apps/v1beta1/deployments"):
        st, doc = A.req("GET", path)
        eq(st, 404, path)
        eq((doc["reason"], doc["message"]), ("NotFound", "the server could not find the requested resource"), path)


# ----- update / status / generation ----------------------------------------------------------

@test
def update_conflicts_and_unconditional():
    c = A.ok("POST", ns_path("configmaps"), cm("u1"))
    c["data"] = {"k": "v2"}
    c2 = A.ok("PUT", ns_path("configmaps", name="u1"), c)
    eq(rv_of(c2), rv_of(c) + 1)
    st, doc = A.req("PUT", ns_path("configmaps", name="u1"), c)  # stale resourceVersion
    eq(st, 409)
    eq(doc, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
             "message": 'Operation cannot be fulfilled on configmaps "u1": the object has been modified; please '
                        'apply your changes to the latest version and try again',
             "reason": "Conflict", "details": {"name": "u1", "kind": "configmaps"}, "code": 409})
    d = A.ok("POST", ns_path("deployments", group="apps/v1"), deploy("u2"))
    d2 = dict(d, metadata=dict(d["metadata"], resourceVersion="1"))
    st, doc = A.req("PUT", ns_path("deployments", name="u2", group="apps/v1"), d2)
    check(doc["message"].startswith('Operation cannot be fulfilled on deployments.apps "u2": the object has been '
                                    'modified'), doc["message"])
    # No resourceVersion: unconditional.
    del c["metadata"]["resourceVersion"]
    c["data"] = {"k": "v3"}
    eq(A.ok("PUT", ns_path("configmaps", name="u1"), c)["data"], {"k": "v3"})
    eq(A.req("PUT", ns_path("configmaps", name="missing"), cm("missing"))[0], 404)
    st, doc = A.req("PUT", ns_path("configmaps", name="u1"), cm("other"))
    eq((st, doc["message"]), (400, "the name of the object (other) does not match the name on the URL (u1)"))
    bad_uid = A.ok("GET", ns_path("configmaps", name="u1"))
    bad_uid["metadata"]["uid"] = "00000000-0000-0000-0000-000000000000"
    st, doc = A.req("PUT", ns_path("configmaps", name="u1"), bad_uid)
    eq(st, 409)
    check("Precondition failed: UID in precondition" in doc["message"], doc["message"])


@test
def noop_update_keeps_resource_version():
    c = A.ok("POST", ns_path("configmaps"), cm("noop"))
    w = Watch(S.port, ns_path("configmaps") + "?watch=1&resourceVersion=%d" % rv_of(c))
    c2 = A.ok("PUT", ns_path("configmaps", name="noop"), c)
    eq(rv_of(c2), rv_of(c))
    p = A.ok("PATCH", ns_path("configmaps", name="noop"), {"data": {"k": "v"}}, "application/merge-patch+json")
    eq(rv_of(p), rv_of(c))
    A.ok("PATCH", ns_path("configmaps", name="noop"), {"data": {"k": "changed"}}, "application/merge-patch+json")
    ev = w.next_non_bookmark()
    eq((ev["type"], ev["object"]["data"]), ("MODIFIED", {"k": "changed"}), "first event is the real change")
    w.close()


@test
def generation_and_status_rules():
    d = A.ok("POST", ns_path("deployments", group="apps/v1"), deploy("g1"))
    path = ns_path("deployments", name="g1", group="apps/v1")
    d["metadata"]["labels"] = {"x": "y"}
    d = A.ok("PUT", path, d)
    eq(d["metadata"]["generation"], 1, "metadata change does not bump generation")
    d["spec"]["replicas"] = 3
    d["status"] = {"replicas": 99}
    d = A.ok("PUT", path, d)
    eq(d["metadata"]["generation"], 2, "spec change bumps generation")
    check("status" not in d, "main resource PUT ignores .status")
    d["status"] = {"replicas": 3, "observedGeneration": 2}
    d["spec"]["replicas"] = 7
    d["metadata"]["labels"] = {"ignored": "yes"}
    s = A.ok("PUT", path + "/status", d)
    eq(s["status"], {"replicas": 3, "observedGeneration": 2})
    eq((s["spec"]["replicas"], s["metadata"]["labels"], s["metadata"]["generation"]), (3, {"x": "y"}, 2),
       "status PUT changes only .status")
    s2 = A.ok("PATCH", path + "/status", {"status": {"readyReplicas": 1}, "spec": {"replicas": 50}},
              "application/merge-patch+json")
    eq((s2["status"]["readyReplicas"], s2["spec"]["replicas"]), (1, 3))
    s3 = A.ok("GET", path + "/status")
    eq(s3, s2)
    stale = dict(s, metadata=dict(s["metadata"]))
    st, doc = A.req("PUT", path + "/status", stale)
    eq(st, 409, "status update checks resourceVersion")
    # Pods: status subresource too.
    p = A.ok("POST", ns_path("pods"), pod("gp"))
    p["status"] = {"phase": "Running"}
    eq(A.ok("PUT", ns_path("pods", name="gp"), p)["status"]["phase"], "Pending")
    p = A.ok("GET", ns_path("pods", name="gp"))
    p["status"] = {"phase": "Running"}
    eq(A.ok("PUT", ns_path("pods", name="gp") + "/status", p)["status"]["phase"], "Running")
    # Custom resource with status subresource (kruise CRDs have one).
    ss = A.ok("POST", "/apis/apps.kruise.io/v1beta1/sidecarsets", sidecarset("gs"))
    ss["spec"]["containers"][0]["image"] = "z"
    ss["status"] = {"matchedPods": 3}
    ss = A.ok("PUT", "/apis/apps.kruise.io/v1beta1/sidecarsets/gs", ss)
    eq((ss["metadata"]["generation"], "status" in ss), (2, False))
    ss = A.ok("PATCH", "/apis/apps.kruise.io/v1beta1/sidecarsets/gs/status", {"status": {"matchedPods": 3}},
              "application/merge-patch+json")
    eq((ss["status"], ss["metadata"]["generation"]), ({"matchedPods": 3}, 2))
    # Kinds without a status subresource keep .status as ordinary content.
    c = cm("gc")
    c["status"] = {"x": 1}
    eq(A.ok("POST", ns_path("configmaps"), c)["status"], {"x": 1})


@test
def secret_and_configmap_rules():
    sec = A.ok("POST", ns_path("secrets"), {"metadata": {"name": "s1"}, "data": {"a": "eA=="},
                                            "stringData": {"b": "yy"}})
    eq((sec["type"], sec["data"], "stringData" in sec), ("Opaque", {"a": "eA==", "b": "eXk="}, False))
    # PUT without type: defaults to Opaque again, which is fine...
    put = {"metadata": {"name": "s1", "resourceVersion": sec["metadata"]["resourceVersion"]}, "data": {"c": "eg=="}}
    out = A.ok("PUT", ns_path("secrets", name="s1"), put)
    eq((out["type"], out["data"]), ("Opaque", {"c": "eg=="}))
    # ...but the type of an existing Secret cannot change.
    tls = A.ok("POST", ns_path("secrets"), {"metadata": {"name": "s2"}, "type": "kubernetes.io/tls",
                                            "data": {"tls.crt": "", "tls.key": ""}})
    st, doc = A.req("PUT", ns_path("secrets", name="s2"), {"metadata": {"name": "s2"}, "data": {}})
    eq((st, doc["reason"]), (422, "Invalid"))
    eq(doc["message"], 'Secret "s2" is invalid: type: Invalid value: "Opaque": field is immutable')
    eq(tls["type"], "kubernetes.io/tls")
    eq(A.req("POST", ns_path("secrets"), {"metadata": {"name": "s3"}, "data": {"a": "not base64!"}})[0], 400)
    c = cm("im")
    c["immutable"] = True
    A.ok("POST", ns_path("configmaps"), c)
    st, doc = A.req("PATCH", ns_path("configmaps", name="im"), {"data": {"k": "x"}}, "application/merge-patch+json")
    eq((st, doc["reason"]), (422, "Invalid"))
    A.ok("PATCH", ns_path("configmaps", name="im"), {"metadata": {"labels": {"a": "b"}}},
         "application/merge-patch+json")


# ----- patch ---------------------------------------------------------------------------------

@test
def patch_merge_json_strategic():
    path = ns_path("configmaps", name="pt")
    A.ok("POST", ns_path("configmaps"), cm("pt", {"a": "1", "b": "2"}, labels={"l": "1"}))
    out = A.ok("PATCH", path, {"data": {"a": None, "c": "3"}, "metadata": {"labels": {"m": "2"}}},
               "application/merge-patch+json")
    eq(out["data"], {"b": "2", "c": "3"})
    eq(out["metadata"]["labels"], {"l": "1", "m": "2"})
    ops = [{"op": "add", "path": "/data/d", "value": "4"}, {"op": "remove", "path": "/data/b"},
           {"op": "replace", "path": "/data/c", "value": "33"}, {"op": "copy", "from": "/data/c", "path": "/data/e"},
           {"op": "move", "from": "/data/d", "path": "/data/f"}, {"op": "test", "path": "/data/f", "value": "4"},
           {"op": "add", "path": "/metadata/annotations", "value": {"x/y": "z"}},
           {"op": "add", "path": "/metadata/labels/a~1b", "value": "v"}]
    out = A.ok("PATCH", path, ops, "application/json-patch+json")
    eq(out["data"], {"c": "33", "e": "33", "f": "4"})
    eq(out["metadata"]["annotations"], {"x/y": "z"})
    eq(out["metadata"]["labels"]["a/b"], "v")
    st, doc = A.req("PATCH", path, [{"op": "test", "path": "/data/c", "value": "nope"}], "application/json-patch+json")
    eq((st, doc["reason"], doc["message"]),
       (422, "Invalid", "the server rejected our request due to an error in our request"))
    st, doc = A.req("PATCH", path, [{"op": "replace", "path": "/data/zz", "value": "1"}],
                    "application/json-patch+json")
    eq(st, 422)
    eq(A.ok("GET", path)["data"], {"c": "33", "e": "33", "f": "4"}, "failed patches change nothing")
    # Strategic merge patch is applied as a merge patch for built-in kinds...
    out = A.ok("PATCH", path, {"data": {"g": "7"}}, "application/strategic-merge-patch+json")
    eq(out["data"]["g"], "7")
    # ...and refused for custom resources, like the real server.
    A.ok("POST", "/apis/apps.kruise.io/v1beta1/sidecarsets", sidecarset("sp"))
    st, doc = A.req("PATCH", "/apis/apps.kruise.io/v1beta1/sidecarsets/sp", {"spec": {}},
                    "application/strategic-merge-patch+json")
    eq((st, doc["reason"]), (415, "UnsupportedMediaType"))
    check("application/merge-patch+json" in doc["message"], doc["message"])
    eq(A.req("PATCH", path, {"data": {}}, "text/plain")[0], 415)
    eq(A.req("PATCH", path, b"{not json", "application/merge-patch+json")[0], 400)
    eq(A.req("PATCH", path, {"op": "add"}, "application/json-patch+json")[0], 400)
    eq(A.req("PATCH", ns_path("configmaps", name="absent"), {"data": {}}, "application/merge-patch+json")[0], 404)
    cur = A.ok("GET", path)
    # A resourceVersion in the patch is a precondition.
    st, doc = A.req("PATCH", path, {"metadata": {"resourceVersion": "1"}, "data": {"h": "8"}},
                    "application/merge-patch+json")
    eq((st, doc["reason"]), (409, "Conflict"))
    out = A.ok("PATCH", path, {"metadata": {"resourceVersion": cur["metadata"]["resourceVersion"]},
                               "data": {"h": "8"}}, "application/merge-patch+json")
    eq(out["data"]["h"], "8")
    st, doc = A.req("PATCH", path, {"metadata": {"name": "renamed"}}, "application/merge-patch+json")
    eq(st, 400)
    # Content-Type parameters are ignored.
    A.ok("PATCH", path, {"data": {"i": "9"}}, "application/merge-patch+json; charset=utf-8")


# ----- delete / finalizers -------------------------------------------------------------------

@test
def delete_results_and_preconditions():
    p = A.ok("POST", ns_path("pods"), pod("d1"))
    out = A.ok("DELETE", ns_path("pods", name="d1"))
    eq((out["kind"], out["metadata"]["name"]), ("Pod", "d1"), "pods: the deleted object")
    eq(rv_of(out), rv_of(p) + 1)
    eq(A.req("GET", ns_path("pods", name="d1"))[0], 404)
    eq(A.req("DELETE", ns_path("pods", name="d1"))[0], 404)
    c = A.ok("POST", ns_path("configmaps"), cm("d2"))
    out = A.ok("DELETE", ns_path("configmaps", name="d2"))
    eq(out, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
             "details": {"name": "d2", "kind": "configmaps", "uid": c["metadata"]["uid"]}})
    d = A.ok("POST", ns_path("deployments", group="apps/v1"), deploy("d3"))
    out = A.ok("DELETE", ns_path("deployments", name="d3", group="apps/v1"))
    eq(out["details"], {"name": "d3", "group": "apps", "kind": "deployments", "uid": d["metadata"]["uid"]})
    c = A.ok("POST", ns_path("configmaps"), cm("d4"))
    st, doc = A.req("DELETE", ns_path("configmaps", name="d4"),
                    {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "wrong"}})
    eq(st, 409)
    eq(doc["message"], 'Operation cannot be fulfilled on configmaps "d4": Precondition failed: UID in precondition: '
                       'wrong, UID in object meta: %s' % c["metadata"]["uid"])
    st, doc = A.req("DELETE", ns_path("configmaps", name="d4"), {"preconditions": {"resourceVersion": "1"}})
    eq(st, 409)
    check("Precondition failed: ResourceVersion in precondition: 1" in doc["message"], doc["message"])
    A.ok("DELETE", ns_path("configmaps", name="d4"),
         {"preconditions": {"uid": c["metadata"]["uid"], "resourceVersion": c["metadata"]["resourceVersion"]}})
    # DeleteOptions are decoded before the object is looked up.
    eq(A.req("DELETE", ns_path("configmaps", name="d5"), b"{bad")[0], 400)
    A.ok("POST", ns_path("configmaps"), cm("d5"))
    eq(A.req("DELETE", ns_path("configmaps", name="d5"), b"{bad")[0], 400)


@test
def finalizers_delay_deletion():
    c = cm("f1")
    c["metadata"]["finalizers"] = ["example.com/keep"]
    c = A.ok("POST", ns_path("configmaps"), c)
    w = Watch(S.port, ns_path("configmaps") + "?watch=1&resourceVersion=%d" % rv_of(c))
    out = A.ok("DELETE", ns_path("configmaps", name="f1"))
    eq(out["kind"], "ConfigMap", "a pending deletion returns the object")
    check(out["metadata"].get("deletionTimestamp"), "deletionTimestamp set")
    eq(out["metadata"]["deletionGracePeriodSeconds"], 0)
    again = A.ok("DELETE", ns_path("configmaps", name="f1"))
    eq(again["metadata"]["resourceVersion"], out["metadata"]["resourceVersion"], "second delete changes nothing")
    add = dict(out, metadata=dict(out["metadata"], finalizers=["example.com/keep", "example.com/more"]))
    st, doc = A.req("PUT", ns_path("configmaps", name="f1"), add)
    eq((st, doc["reason"]), (422, "Invalid"))
    check("no new finalizers can be added if the object is being deleted" in doc["message"], doc["message"])
    A.ok("PATCH", ns_path("configmaps", name="f1"), {"data": {"k": "still-here"}}, "application/merge-patch+json")
    A.ok("PATCH", ns_path("configmaps", name="f1"), {"metadata": {"finalizers": None}}, "application/merge-patch+json")
    eq(A.req("GET", ns_path("configmaps", name="f1"))[0], 404, "gone once the last finalizer is removed")
    evs = w.expect(["MODIFIED", "MODIFIED", "MODIFIED", "DELETED"])
    check(evs[0]["object"]["metadata"]["deletionTimestamp"])
    eq([rv_of(e["object"]) for e in evs], list(range(rv_of(c) + 1, rv_of(c) + 5)))
    w.close()


@test
def namespace_deletion_removes_contents():
    A.ok("POST", "/api/v1/namespaces", {"metadata": {"name": "doomed"}})
    A.ok("POST", ns_path("pods", ns="doomed"), pod("p", ns="doomed"))
    A.ok("POST", ns_path("configmaps", ns="doomed"), cm("c"))
    A.ok("POST", "/apis/apps.kruise.io/v1beta1/namespaces/doomed/clonesets",
         {"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet", "metadata": {"name": "cs"}})
    w = Watch(S.port, "/api/v1/pods?watch=1")
    w.expect(["ADDED"])
    st, doc = A.req("DELETE", "/api/v1/namespaces/default")
    eq((st, doc["reason"], doc["message"]),
       (403, "Forbidden", 'namespaces "default" is forbidden: this namespace may not be deleted'))
    out = A.ok("DELETE", "/api/v1/namespaces/doomed")
    eq(out["kind"], "Namespace")
    eq(w.next_non_bookmark()["type"], "DELETED")
    for path in (ns_path("pods", ns="doomed", name="p"), ns_path("configmaps", ns="doomed", name="c"),
                 "/apis/apps.kruise.io/v1beta1/namespaces/doomed/clonesets/cs", "/api/v1/namespaces/doomed"):
        eq(A.req("GET", path)[0], 404, path)
    w.close()


@test
def delete_collection():
    for i in range(4):
        A.ok("POST", ns_path("configmaps"), cm("dc%d" % i, labels={"grp": "a" if i < 3 else "b"}))
    out = A.ok("DELETE", ns_path("configmaps") + "?labelSelector=grp%3Da")
    eq((out["kind"], sorted(i["metadata"]["name"] for i in out["items"])), ("ConfigMapList", ["dc0", "dc1", "dc2"]))
    eq([i["metadata"]["name"] for i in A.ok("GET", ns_path("configmaps"))["items"]], ["dc3"])


@test
def dry_run_changes_nothing():
    before = current_rv()
    out = A.ok("POST", ns_path("configmaps") + "?dryRun=All", cm("dry"))
    eq(out["metadata"]["name"], "dry")
    eq(A.req("GET", ns_path("configmaps", name="dry"))[0], 404)
    A.ok("POST", ns_path("configmaps"), cm("dry"))
    A.ok("DELETE", ns_path("configmaps", name="dry") + "?dryRun=All")
    A.ok("PATCH", ns_path("configmaps", name="dry") + "?dryRun=All", {"data": {"x": "1"}},
         "application/merge-patch+json")
    eq(A.ok("GET", ns_path("configmaps", name="dry"))["data"], {"k": "v"})
    eq(current_rv(), before + 1)
    eq(A.req("POST", ns_path("configmaps") + "?dryRun=Some", cm("dry2"))[0], 400)


# ----- list ----------------------------------------------------------------------------------

def names(lst):
    return [i["metadata"]["name"] for i in lst["items"]]


@test
def list_shape_and_label_selectors():
    data = [("a1", {"app": "a", "tier": "web", "n": "5"}), ("a2", {"app": "a", "tier": "db"}),
            ("b1", {"app": "b", "n": "12"}), ("c1", {})]
    for n, l in data:
        A.ok("POST", ns_path("pods"), pod(n, l))
    A.ok("POST", "/api/v1/namespaces", {"metadata": {"name": "ns2"}})
    A.ok("POST", ns_path("pods", ns="ns2"), pod("z1", {"app": "a"}, ns="ns2"))
    lst = A.ok("GET", ns_path("pods"))
    eq((lst["kind"], lst["apiVersion"]), ("PodList", "v1"))
    eq(lst["metadata"]["resourceVersion"], str(current_rv()))
    check("kind" not in lst["items"][0] and "apiVersion" not in lst["items"][0],
          "built-in list items carry no kind/apiVersion")
    eq(names(lst), ["a1", "a2", "b1", "c1"])
    eq(names(A.ok("GET", "/api/v1/pods")), ["a1", "a2", "b1", "c1", "z1"])
    cases = {"app=a": ["a1", "a2"], "app==a": ["a1", "a2"], "app!=a": ["b1", "c1"], "app": ["a1", "a2", "b1"],
             "!app": ["c1"], "app in (a,b)": ["a1", "a2", "b1"], "app notin (a)": ["b1", "c1"],
             "app=a,tier=web": ["a1"], "app in (a), tier notin (web)": ["a2"], "n>6": ["b1"], "n<6": ["a1"],
             "tier,!n": ["a2"], "": ["a1", "a2", "b1", "c1"]}
    from urllib.parse import quote
    for sel, want in cases.items():
        eq(names(A.ok("GET", ns_path("pods") + "?labelSelector=" + quote(sel))), want, sel)
    for bad in ("app in a", "app=(", "!", "app=a b", "bad key=1"):
        st, doc = A.req("GET", ns_path("pods") + "?labelSelector=" + quote(bad))
        eq((st, doc["reason"]), (400, "BadRequest"), bad)
    eq(A.ok("GET", "/apis/apps/v1/deployments")["items"], [])
    dl = A.ok("GET", "/apis/apps/v1/namespaces/default/deployments")
    eq((dl["kind"], dl["apiVersion"], dl["items"]), ("DeploymentList", "apps/v1", []))
    A.ok("POST", "/apis/apps.kruise.io/v1beta1/sidecarsets", sidecarset("s1"))
    sl = A.ok("GET", "/apis/apps.kruise.io/v1beta1/sidecarsets")
    eq((sl["kind"], sl["items"][0]["kind"], sl["items"][0]["apiVersion"]),
       ("SidecarSetList", "SidecarSet", "apps.kruise.io/v1beta1"), "custom resource items carry kind/apiVersion")


@test
def field_selectors():
    p = pod("f1", {"x": "1"})
    p["spec"]["nodeName"] = "node-a"
    A.ok("POST", ns_path("pods"), p)
    A.ok("POST", ns_path("pods"), pod("f2"))
    f3 = A.ok("POST", ns_path("pods"), pod("f3"))
    f3["status"] = {"phase": "Running"}
    A.ok("PUT", ns_path("pods", name="f3") + "/status", f3)
    A.ok("POST", "/api/v1/namespaces", {"metadata": {"name": "fs"}})
    A.ok("POST", ns_path("pods", ns="fs"), pod("f1", ns="fs"))
    from urllib.parse import quote
    # Across namespaces, items come in storage key order: "<namespace>/<name>".
    cases = {"metadata.name=f1": ["f1", "f1"], "metadata.name!=f1": ["f2", "f3"],
             "metadata.namespace=fs": ["f1"], "metadata.namespace==default,metadata.name=f1": ["f1"],
             "status.phase=Running": ["f3"], "status.phase!=Running": ["f1", "f2", "f1"],
             "spec.nodeName=node-a": ["f1"], "spec.nodeName=": ["f2", "f3", "f1"]}
    for sel, want in cases.items():
        eq(names(A.ok("GET", "/api/v1/pods?fieldSelector=" + quote(sel))), want, sel)
    st, doc = A.req("GET", "/api/v1/pods?fieldSelector=spec.bogus%3Dx")
    eq((st, doc["message"]), (400, "field label not supported: spec.bogus"))
    eq(A.req("GET", "/api/v1/configmaps?fieldSelector=status.phase%3Dx")[0], 400)
    eq(A.req("GET", "/api/v1/pods?fieldSelector=nonsense")[0], 400)
    eq(names(A.ok("GET", "/api/v1/namespaces?fieldSelector=metadata.name%3Dfs")), ["fs"])


@test
def pagination_is_consistent():
    for i in range(7):
        A.ok("POST", ns_path("configmaps"), cm("pg%d" % i))
    first = A.ok("GET", ns_path("configmaps") + "?limit=3")
    eq(names(first), ["pg0", "pg1", "pg2"])
    token = first["metadata"]["continue"]
    eq(first["metadata"]["remainingItemCount"], 4)
    snap = first["metadata"]["resourceVersion"]
    # Changes after the first page do not show up in later pages: they are served at its RV.
    A.ok("POST", ns_path("configmaps"), cm("pg35"))
    A.ok("DELETE", ns_path("configmaps", name="pg4"))
    second = A.ok("GET", ns_path("configmaps") + "?limit=3&continue=" + token)
    eq(names(second), ["pg3", "pg4", "pg5"])
    eq(second["metadata"]["resourceVersion"], snap)
    third = A.ok("GET", ns_path("configmaps") + "?limit=3&continue=" + second["metadata"]["continue"])
    eq(names(third), ["pg6"])
    check("continue" not in third["metadata"] and "remainingItemCount" not in third["metadata"])
    sel = A.ok("GET", ns_path("configmaps") + "?limit=2&labelSelector=")
    check("remainingItemCount" in sel["metadata"])
    eq(A.req("GET", ns_path("configmaps") + "?limit=3&continue=garbage")[0], 400)
    eq(A.req("GET", ns_path("configmaps") + "?limit=3&resourceVersion=5&continue=" + token)[0], 400)
    A.ok("POST", "/_control/compact")
    st, doc = A.req("GET", ns_path("configmaps") + "?limit=3&continue=" + token)
    eq((st, doc["reason"], doc["code"]), (410, "Expired", 410))
    check(doc["message"].startswith("The provided continue parameter is too old"), doc["message"])
    check(doc["metadata"].get("continue"), "an expired continue comes with a token to go on inconsistently")
    rest = A.ok("GET", ns_path("configmaps") + "?limit=10&continue=" + doc["metadata"]["continue"])
    eq(names(rest), ["pg3", "pg35", "pg5", "pg6"], "the rest after page 1, as things are now")


@test
def list_resource_version_semantics():
    c = A.ok("POST", ns_path("configmaps"), cm("rv1"))
    A.ok("PATCH", ns_path("configmaps", name="rv1"), {"data": {"k": "new"}}, "application/merge-patch+json")
    A.ok("POST", ns_path("configmaps"), cm("rv2"))
    now = current_rv()
    for rv in ("0", "1", str(now)):
        lst = A.ok("GET", ns_path("configmaps") + "?resourceVersion=" + rv)
        eq((names(lst), lst["metadata"]["resourceVersion"]), (["rv1", "rv2"], str(now)), rv)
    old = A.ok("GET", ns_path("configmaps") + "?resourceVersionMatch=Exact&resourceVersion=%d" % rv_of(c))
    eq((names(old), old["items"][0]["data"], old["metadata"]["resourceVersion"]),
       (["rv1"], {"k": "v"}, str(rv_of(c))))
    st, doc = A.req("GET", ns_path("configmaps") + "?resourceVersionMatch=Exact")
    eq((st, doc["reason"]), (422, "Invalid"))
    eq(doc["message"], 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
                       'resourceVersionMatch is forbidden unless resourceVersion is provided')
    eq(A.req("GET", ns_path("configmaps") + "?resourceVersion=abc")[0], 400)
    A.ok("POST", "/_control/compact")
    st, doc = A.req("GET", ns_path("configmaps") + "?resourceVersionMatch=Exact&resourceVersion=%d" % rv_of(c))
    eq((st, doc["reason"]), (410, "Expired"))
    # A resourceVersion newer than the store's: waits up to 3 s for it, then 504 with Retry-After.
    t0 = time.monotonic()
    st, resp, data = A.raw("GET", ns_path("configmaps") + "?resourceVersion=%d" % (now + 1000))
    doc = json.loads(data)
    eq((st, doc["reason"], resp.getheader("Retry-After")), (504, "Timeout", "1"))
    check(doc["message"].startswith("Timeout: Too large resource version: %d, current: " % (now + 1000)),
          doc["message"])
    check(2.5 < time.monotonic() - t0 < 6, "waited about 3 s")
    # ...and answers as soon as the store gets there.
    target = current_rv() + 1
    threading.Timer(0.3, lambda: Api(S.port).ok("POST", ns_path("configmaps"), cm("late"))).start()
    lst = A.ok("GET", ns_path("configmaps") + "?resourceVersion=%d" % target)
    check("late" in names(lst))


# ----- watch ---------------------------------------------------------------------------------

@test
def watch_initial_then_live_chunked():
    A.ok("POST", ns_path("pods"), pod("w1"))
    A.ok("POST", ns_path("pods"), pod("w2"))
    w = Watch(S.port, ns_path("pods") + "?watch=1")
    eq(w.resp.status, 200)
    eq(w.resp.getheader("Transfer-Encoding"), "chunked")
    eq(w.resp.getheader("Content-Type"), "application/json")
    evs = w.expect(["ADDED", "ADDED"])
    eq([e["object"]["metadata"]["name"] for e in evs], ["w1", "w2"])
    eq((evs[0]["object"]["kind"], evs[0]["object"]["apiVersion"]), ("Pod", "v1"), "watch objects carry kind")
    A.ok("PATCH", ns_path("pods", name="w1"), {"metadata": {"labels": {"a": "b"}}}, "application/merge-patch+json")
    A.ok("DELETE", ns_path("pods", name="w2"))
    A.ok("POST", ns_path("pods"), pod("w3"))
    evs = w.expect(["MODIFIED", "DELETED", "ADDED"])
    eq([e["object"]["metadata"]["name"] for e in evs], ["w1", "w2", "w3"])
    check(rv_of(evs[0]["object"]) < rv_of(evs[1]["object"]) < rv_of(evs[2]["object"]))
    w.close()
    w0 = Watch(S.port, ns_path("pods") + "?watch=true&resourceVersion=0")
    eq(sorted(e["object"]["metadata"]["name"] for e in w0.expect(["ADDED", "ADDED"])), ["w1", "w3"])
    w0.close()


@test
def watch_from_resource_version_replays_history():
    a = A.ok("POST", ns_path("configmaps"), cm("h1"))
    A.ok("PATCH", ns_path("configmaps", name="h1"), {"data": {"k": "2"}}, "application/merge-patch+json")
    A.ok("POST", ns_path("pods"), pod("other-kind"))
    A.ok("DELETE", ns_path("configmaps", name="h1"))
    w = Watch(S.port, ns_path("configmaps") + "?watch=1&resourceVersion=%d" % rv_of(a))
    evs = w.expect(["MODIFIED", "DELETED"])
    eq(evs[0]["object"]["data"], {"k": "2"})
    A.ok("POST", ns_path("configmaps"), cm("h2"))
    eq(w.next_non_bookmark()["object"]["metadata"]["name"], "h2")
    w.close()
    # From the RV before the create: the ADDED as well.
    w = Watch(S.port, ns_path("configmaps") + "?watch=1&resourceVersion=%d" % (rv_of(a) - 1))
    w.expect(["ADDED", "MODIFIED", "DELETED", "ADDED"])
    w.close()


@test
def watch_too_old_gets_410_event():
    a = A.ok("POST", ns_path("configmaps"), cm("old"))
    A.ok("POST", "/_control/compact")
    now = current_rv()
    w = Watch(S.port, ns_path("configmaps") + "?watch=1&resourceVersion=%d" % (rv_of(a) - 1))
    eq(w.resp.status, 200)
    ev = w.next()
    eq(ev, {"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                        "message": "too old resource version: %d (%d)" % (rv_of(a) - 1, now),
                                        "reason": "Expired", "code": 410}})
    eq(w.next(), None, "stream ends after the error")
    w2 = Watch(S.port, ns_path("configmaps") + "?watch=1&resourceVersion=%d&timeoutSeconds=1" % now)
    eq(w2.next_non_bookmark(), None, "watching from the compaction point is fine")


@test
def watch_bookmarks_and_timeout():
    A.ok("POST", ns_path("pods"), pod("b1"))
    rv = current_rv()
    t0 = time.monotonic()
    w = Watch(S.port, ns_path("pods") + "?watch=1&allowWatchBookmarks=true&timeoutSeconds=2&resourceVersion=%d" % rv)
    ev = w.next(3)
    eq(ev, {"type": "BOOKMARK", "object": {"kind": "Pod", "apiVersion": "v1",
                                           "metadata": {"resourceVersion": str(rv)}}})
    A.ok("POST", ns_path("configmaps"), cm("bump"))
    ev = w.next(3)
    eq((ev["type"], ev["object"]["metadata"]["resourceVersion"]), ("BOOKMARK", str(rv + 1)),
       "bookmarks carry the global resourceVersion")
    n = 0
    while w.next(3) is not None:
        n += 1
    el = time.monotonic() - t0
    check(1.8 < el < 3.5, "timeoutSeconds ended the stream after %.1f s" % el)
    check(n >= 2, "periodic bookmarks")
    w = Watch(S.port, ns_path("pods") + "?watch=1&timeoutSeconds=1")
    eq(w.next_non_bookmark()["type"], "ADDED")
    try:
        ev = w.next(0.7)
        check(ev is None or ev["type"] != "BOOKMARK", "no bookmarks unless asked")
    except socket.timeout:
        pass


@test
def watch_selectors_enter_and_leave():
    A.ok("POST", ns_path("pods"), pod("s1", {"app": "a"}))
    A.ok("POST", ns_path("pods"), pod("s2", {"app": "b"}))
    w = Watch(S.port, ns_path("pods") + "?watch=1&labelSelector=app%3Da")
    eq(w.expect(["ADDED"])[0]["object"]["metadata"]["name"], "s1")
    A.ok("PATCH", ns_path("pods", name="s1"), {"metadata": {"labels": {"app": "c"}}}, "application/merge-patch+json")
    ev = w.expect(["DELETED"])[0]
    eq((ev["object"]["metadata"]["name"], ev["object"]["metadata"]["labels"]), ("s1", {"app": "a"}),
       "leaving the selection: DELETED with the last matching content")
    eq(rv_of(ev["object"]), current_rv(), "...and the new resourceVersion")
    A.ok("PATCH", ns_path("pods", name="s2"), {"metadata": {"labels": {"app": "a"}}}, "application/merge-patch+json")
    eq(w.expect(["ADDED"])[0]["object"]["metadata"]["name"], "s2")
    A.ok("PATCH", ns_path("pods", name="s2"), {"metadata": {"annotations": {"x": "y"}}},
         "application/merge-patch+json")
    w.expect(["MODIFIED"])
    A.ok("POST", ns_path("pods"), pod("s3", {"app": "zzz"}))
    A.ok("DELETE", ns_path("pods", name="s2"))
    eq(w.expect(["DELETED"])[0]["object"]["metadata"]["name"], "s2", "non-matching changes are not sent")
    w.close()
    p = A.ok("GET", ns_path("pods", name="s3"))
    w = Watch(S.port, "/api/v1/pods?watch=1&fieldSelector=status.phase%3DRunning&resourceVersion=" +
              p["metadata"]["resourceVersion"])
    p["status"] = {"phase": "Running"}
    A.ok("PUT", ns_path("pods", name="s3") + "/status", p)
    eq(w.expect(["ADDED"])[0]["object"]["metadata"]["name"], "s3")
    w.close()


@test
def watch_single_object_and_watch_prefix():
    A.ok("POST", ns_path("configmaps"), cm("one"))
    A.ok("POST", ns_path("configmaps"), cm("two"))
    w = Watch(S.port, ns_path("configmaps", name="one") + "?watch=1")
    w.expect(["ADDED"])
    A.ok("PATCH", ns_path("configmaps", name="two"), {"data": {"a": "1"}}, "application/merge-patch+json")
    A.ok("PATCH", ns_path("configmaps", name="one"), {"data": {"a": "1"}}, "application/merge-patch+json")
    eq(w.expect(["MODIFIED"])[0]["object"]["metadata"]["name"], "one")
    w.close()
    w = Watch(S.port, "/api/v1/watch/namespaces/default/configmaps")
    eq(sorted(e["object"]["metadata"]["name"] for e in w.expect(["ADDED", "ADDED"])), ["one", "two"])
    w.close()
    w = Watch(S.port, "/api/v1/watch/namespaces/default/configmaps/two")
    eq(w.expect(["ADDED"])[0]["object"]["metadata"]["name"], "two")
    w.close()
    eq(A.req("GET", ns_path("configmaps", name="one") + "?watch=1&fieldSelector=metadata.name%3Dtwo")[0], 400)


@test
def watch_send_initial_events():
    A.ok("POST", ns_path("configmaps"), cm("i1"))
    st, doc = A.req("GET", ns_path("configmaps") + "?watch=1&sendInitialEvents=true")
    eq((st, doc["reason"]), (422, "Invalid"))
    w = Watch(S.port, ns_path("configmaps") + "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
              "&resourceVersionMatch=NotOlderThan")
    eq(w.next()["type"], "ADDED")
    ev = w.next()
    eq(ev, {"type": "BOOKMARK", "object": {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {
        "resourceVersion": str(current_rv()), "annotations": {"k8s.io/initial-events-end": "true"}}}})
    w.close()
    eq(A.req("GET", ns_path("configmaps") + "?sendInitialEvents=true")[0], 422)


@test
def watch_custom_resource_versions():
    A.ok("POST", "/apis/apps.kruise.io/v1beta1/sidecarsets", sidecarset("cr1"))
    wa = Watch(S.port, "/apis/apps.kruise.io/v1alpha1/sidecarsets?watch=1")
    wb = Watch(S.port, "/apis/apps.kruise.io/v1beta1/sidecarsets?watch=1")
    eq(wa.expect(["ADDED"])[0]["object"]["apiVersion"], "apps.kruise.io/v1alpha1")
    eq(wb.expect(["ADDED"])[0]["object"]["apiVersion"], "apps.kruise.io/v1beta1")
    A.ok("POST", "/apis/apps.kruise.io/v1alpha1/sidecarsets", sidecarset("cr2", "v1alpha1"))
    eq(wa.expect(["ADDED"])[0]["object"]["apiVersion"], "apps.kruise.io/v1alpha1")
    eq(wb.expect(["ADDED"])[0]["object"]["apiVersion"], "apps.kruise.io/v1beta1")
    counts = A.ok("GET", "/_control/watches")
    eq(counts.get("sidecarsets.apps.kruise.io"), 2)
    wa.close()
    wb.close()


@test
def watch_client_disconnect_is_quiet():
    ws = [Watch(S.port, ns_path("pods") + "?watch=1") for _ in range(3)]
    wait_for(lambda: A.ok("GET", "/_control/watches").get("pods") == 3, what="3 watches")
    for w in ws:
        w.close()
    wait_for(lambda: "pods" not in A.ok("GET", "/_control/watches"), what="watches to go away")
    # Closing while events flow.
    w = Watch(S.port, ns_path("configmaps") + "?watch=1")
    stop = threading.Event()

    def writer():
        api = Api(S.port)
        i = 0
        while not stop.is_set():
            api.req("POST", ns_path("configmaps"), cm("flow%d" % i))
            i += 1
    t = threading.Thread(target=writer)
    t.start()
    w.next_non_bookmark()
    w.close()
    time.sleep(0.3)
    stop.set()
    t.join()
    wait_for(lambda: "configmaps" not in A.ok("GET", "/_control/watches"), what="watch to go away")
    with open(S.log) as f:
        log = f.read()
    check("Traceback" not in log, "no traceback in the server log")


@test
def drop_watches_is_abrupt():
    A.ok("POST", ns_path("pods"), pod("dw"))
    ws = [Watch(S.port, ns_path("pods") + "?watch=1"), Watch(S.port, "/apis/apps/v1/deployments?watch=1")]
    ws[0].expect(["ADDED"])
    wait_for(lambda: sum(A.ok("GET", "/_control/watches").values()) == 2, what="2 watches")
    eq(A.ok("POST", "/_control/drop-watches")["dropped"], 2)
    for w in ws:
        try:
            ev = w.next(5)
            raise Failure("expected an abrupt end, got %r" % (ev,))
        except (http.client.IncompleteRead, ConnectionError, ssl.SSLError, http.client.HTTPException):
            pass
    wait_for(lambda: not A.ok("GET", "/_control/watches"), what="no watches")


@test
def concurrent_watchers_see_the_same_order():
    ws = [Watch(S.port, ns_path("configmaps") + "?watch=1") for _ in range(4)]
    wait_for(lambda: A.ok("GET", "/_control/watches").get("configmaps") == 4, what="watches")

    def writer(k):
        api = Api(S.port)
        for i in range(15):
            api.ok("POST", ns_path("configmaps"), cm("cw-%d-%d" % (k, i)))
    ts = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    seqs = []
    for w in ws:
        seqs.append([rv_of(w.next_non_bookmark()["object"]) for _ in range(60)])
        w.close()
    eq(len(set(seqs[0])), 60)
    eq(seqs[0], sorted(seqs[0]))
    for s in seqs[1:]:
        eq(s, seqs[0])


# ----- control endpoint ------------------------------------------------------------------------

@test
def control_reset():
    A.ok("POST", ns_path("configmaps"), cm("r1"))
    A.ok("POST", "/api/v1/namespaces", {"metadata": {"name": "scratch"}})
    A.ok("DELETE", "/api/v1/namespaces/kube-node-lease")
    A.ok("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clonesets.apps.kruise.io")
    sc = A.ok("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sidecarsets.apps.kruise.io")
    sc["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"] = "Zm9v"
    A.ok("PUT", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sidecarsets.apps.kruise.io", sc)
    A.ok("POST", "/_control/fail?code=500&count=5&path_prefix=/nothing")
    before = current_rv()
    A.ok("POST", "/_control/reset")
    check(current_rv() > before, "resourceVersion keeps growing")
    eq(names(A.ok("GET", "/api/v1/namespaces")), ["default", "kube-node-lease", "kube-public", "kube-system"])
    eq(A.ok("GET", "/api/v1/configmaps")["items"], [])
    A.ok("GET", "/apis/apps.kruise.io/v1beta1/namespaces/default/clonesets")
    sc = A.ok("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sidecarsets.apps.kruise.io")
    check("caBundle" not in sc["spec"]["conversion"]["webhook"]["clientConfig"], "baseline CRDs restored")
    eq(A.ok("GET", "/_control/fail")["rules"], [])
    eq(len(A.ok("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")["items"]), 18)


@test
def control_fail_injection():
    A.ok("POST", "/_control/fail?code=500&count=2&path_prefix=/api/v1/namespaces/default/configmaps&methods=GET")
    st, doc = A.req("GET", ns_path("configmaps"))
    eq((st, doc["reason"], doc["kind"]), (500, "InternalError", "Status"))
    eq(A.req("POST", ns_path("configmaps"), cm("fi"))[0], 201, "methods filter")
    eq(A.req("GET", "/api/v1/namespaces")[0], 200, "path filter")
    eq(A.req("GET", ns_path("configmaps"))[0], 500)
    eq(A.req("GET", ns_path("configmaps"))[0], 200, "count exhausted")
    A.ok("POST", "/_control/fail?code=429")
    st, resp, data = A.raw("GET", "/api/v1/namespaces")
    doc = json.loads(data)
    eq((st, resp.getheader("Retry-After"), doc["reason"], doc["details"]["retryAfterSeconds"]),
       (429, "1", "TooManyRequests", 1))
    A.ok("POST", "/_control/fail?code=503&count=-1&path_prefix=/apis/apps")
    for _ in range(3):
        eq(A.req("GET", "/apis/apps/v1/deployments")[0], 503)
    eq(len(A.ok("GET", "/_control/fail")["rules"]), 1)
    A.ok("POST", "/_control/fail?clear=1")
    eq(A.req("GET", "/apis/apps/v1/deployments")[0], 200)
    A.ok("POST", "/_control/fail?code=410&path_prefix=/api/v1/pods")
    w = Api(S.port).req("GET", "/api/v1/pods?watch=1")
    eq(w[0], 410, "watch requests can fail too")
    eq(A.req("POST", "/_control/fail?code=abc")[0], 400)


@test
def control_delay():
    A.ok("POST", "/_control/delay?ms=400&count=1&path_prefix=/api/v1/namespaces")
    t0 = time.monotonic()
    A.ok("GET", "/api/v1/namespaces")
    check(time.monotonic() - t0 >= 0.38, "delayed")
    t0 = time.monotonic()
    A.ok("GET", "/api/v1/namespaces")
    check(time.monotonic() - t0 < 0.3, "only once")


@test
def control_requests_log():
    A.ok("GET", "/_control/requests?clear=1")
    Api(S.port).raw("PATCH", ns_path("configmaps", name="x") + "?dryRun=All", b"{}",
                    "application/merge-patch+json", {"User-Agent": "kruise-webhook-test/1.0"})
    Api(S.port, token=None).raw("GET", "/api/v1/namespaces")
    log = A.ok("GET", "/_control/requests")
    eq(len(log), 2, "control requests are not logged")
    e = log[0]
    eq((e["method"], e["path"], e["query"], e["contentType"], e["userAgent"], e["authorization"], e["code"]),
       ("PATCH", "/api/v1/namespaces/default/configmaps/x", "dryRun=All", "application/merge-patch+json",
        "kruise-webhook-test/1.0", True, 404))
    eq((log[1]["authorization"], log[1]["code"]), (False, 401))
    A.ok("DELETE", "/_control/requests")
    eq(A.ok("GET", "/_control/requests"), [])


@test
def control_objects_bulk():
    items = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bulk"}},
             {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bp", "namespace": "bulk"},
              "spec": {"containers": []}, "status": {"phase": "Running", "podIP": "10.0.0.1"}},
             {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "SidecarSet", "metadata": {"name": "bs"},
              "spec": {}, "status": {"matchedPods": 1}},
             {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "nons"}}]
    out = A.ok("POST", "/_control/objects", items, want=200)
    eq(out["count"], 4)
    p = A.ok("GET", ns_path("pods", ns="bulk", name="bp"))
    eq(p["status"], {"phase": "Running", "podIP": "10.0.0.1"})
    eq(A.ok("GET", "/apis/apps.kruise.io/v1beta1/sidecarsets/bs")["status"], {"matchedPods": 1})
    eq(A.ok("GET", ns_path("configmaps", name="nons"))["metadata"]["namespace"], "default")
    # Upsert.
    items[1]["status"]["phase"] = "Succeeded"
    A.ok("POST", "/_control/objects", {"items": [items[1]]}, want=200)
    eq(A.ok("GET", ns_path("pods", ns="bulk", name="bp"))["status"]["phase"], "Succeeded")
    dump = A.ok("GET", "/_control/objects")
    check(any(o["kind"] == "Pod" and o["metadata"]["name"] == "bp" for o in dump))
    check(any(o["kind"] == "SidecarSet" and o["apiVersion"] == "apps.kruise.io/v1beta1" for o in dump))
    st, doc = A.req("POST", "/_control/objects", [{"apiVersion": "v9", "kind": "Nope", "metadata": {"name": "x"}}])
    eq(st, 400)
    # A CRD posted in bulk registers its resource for the items after it.
    bulk_crd = crd("bulk.example.com", "things", "Thing", [("v1", True)])
    A.ok("POST", "/_control/objects", [bulk_crd, {"apiVersion": "bulk.example.com/v1", "kind": "Thing",
                                                  "metadata": {"name": "t", "namespace": "bulk"}}], want=200)
    A.ok("GET", "/apis/bulk.example.com/v1/namespaces/bulk/things/t")


# ----- robustness ----------------------------------------------------------------------------

@test
def concurrent_writes():
    errors = []

    def worker(k):
        try:
            api = Api(S.port)
            for i in range(25):
                api.ok("POST", ns_path("configmaps"), cm("cc-%d-%d" % (k, i)))
                api.ok("PATCH", ns_path("configmaps", name="cc-%d-%d" % (k, i)), {"data": {"i": str(i)}},
                       "application/merge-patch+json")
            api.close()
        except Exception as e:  # noqa: BLE001 - collected and reported below
            errors.append(e)
    before = current_rv()
    ts = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    eq(errors, [])
    lst = A.ok("GET", ns_path("configmaps"))
    eq(len(lst["items"]), 200)
    rvs = [rv_of(o) for o in lst["items"]]
    eq(len(set(rvs)), 200)
    eq(current_rv(), before + 400)


@test
def large_bodies():
    big = "x" * (2 * 1024 * 1024)
    out = A.ok("POST", ns_path("configmaps"), cm("big", {"blob": big}))
    eq(len(out["data"]["blob"]), len(big))
    eq(len(A.ok("GET", ns_path("configmaps", name="big"))["data"]["blob"]), len(big))
    st, doc = Api(S.port).req("POST", ns_path("configmaps"), cm("huge", {"blob": "y" * (3 * 1024 * 1024 + 10)}))
    eq((st, doc["reason"]), (413, "RequestEntityTooLarge"))


@test
def chunked_request_body():
    conn = http.client.HTTPSConnection("127.0.0.1", S.port, context=ssl_ctx(), timeout=10)
    body = json.dumps(cm("chunky")).encode()
    conn.request("POST", ns_path("configmaps"), body=iter([body[:10], body[10:]]),
                 headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"},
                 encode_chunked=True)
    resp = conn.getresponse()
    eq(resp.status, 201)
    resp.read()
    conn.close()


# ----- other command line modes ------------------------------------------------------------

@test
def plain_http_state_and_no_namespace_check():
    state = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump([crd("state.example.com", "bits", "Bit", [("v1", True)]),
               {"apiVersion": "state.example.com/v1", "kind": "Bit", "metadata": {"name": "b", "namespace": "x"}},
               {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}], state)
    state.close()
    s = ServerProc("--state", state.name, "--no-namespace-check", "--kruise-crds-alpha-only", tls=False)
    try:
        eq(s.first_line.strip(), "listening on http://127.0.0.1:%d" % s.port)
        api = Api(s.port, token=None, tls=False)
        eq(api.ok("GET", "/apis/state.example.com/v1/namespaces/x/bits/b")["kind"], "Bit")
        api.ok("POST", ns_path("pods", ns="not-there"), pod("p", ns="not-there"))
        kr = api.ok("GET", "/apis/apps.kruise.io")
        eq([v["version"] for v in kr["versions"]], ["v1alpha1"])
        eq(api.req("GET", "/apis/apps.kruise.io/v1beta1/sidecarsets")[0], 404)
        api.ok("POST", "/_control/reset")
        api.ok("GET", "/apis/state.example.com/v1/bits")
        eq(api.req("GET", ns_path("configmaps", name="c"))[0], 404, "only CRDs of the state file survive reset")
        api.close()
    finally:
        rc, err = s.stop()
        os.unlink(state.name)
    eq(rc, 0)


@test
def client_ca_only_requires_a_certificate():
    s = ServerProc("--client-ca", CA)
    try:
        eq(Api(s.port, token=None).req("GET", "/api")[0], 401)
        eq(Api(s.port, token=None, client_cert=True).req("GET", "/api")[0], 200)
        eq(Api(s.port, token="anything").req("GET", "/api")[0], 401)
    finally:
        s.stop()


@test
def sigterm_with_open_watch_exits_cleanly():
    s = ServerProc("--token", TOKEN)
    w = Watch(s.port, "/api/v1/pods?watch=1")
    Api(s.port).ok("GET", "/api/v1/namespaces")
    t0 = time.monotonic()
    rc, err = s.stop()
    eq(rc, 0)
    check(time.monotonic() - t0 < 5, "stopped quickly")
    eq(err, "", "nothing on stderr")
    try:
        w.next(2)
    except (OSError, http.client.HTTPException):
        pass


@test
def stops_when_its_parent_dies():
    # A wrapper that does not exec (like some interpreter shims) gets the SIGTERM instead of
    # the server; the server notices that its parent is gone and stops.
    cmd = "%s %s --plain-http --port 0; true" % (sys.executable, os.path.join(HERE, "apiserver.py"))
    wrapper = subprocess.Popen(["bash", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = wrapper.stdout.readline().decode()
    port = int(line.strip().rsplit(":", 1)[1])
    eq(Api(port, token=None, tls=False).req("GET", "/api")[0], 200)
    wrapper.terminate()
    wrapper.wait(5)

    def gone():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return False
        except OSError:
            return True
    wait_for(gone, 5, "the orphaned server to stop")
    wrapper.stdout.close()
    wrapper.stderr.close()


def main():
    global S, A
    only = sys.argv[1:]
    S = ServerProc("--token", TOKEN, "--client-ca", CA, "--kruise-crds", "--bookmark-interval",
                   str(BOOKMARK_INTERVAL))
    A = Api(S.port)
    passed = failed = 0
    try:
        for fn in TESTS:
            if only and not any(o in fn.__name__ for o in only):
                continue
            try:
                A.ok("POST", "/_control/reset")
                A.ok("POST", "/_control/drop-watches")
                wait_for(lambda: not A.ok("GET", "/_control/watches"), what="watches from earlier tests to end")
                t0 = time.monotonic()
                fn()
                passed += 1
                print("ok   %s (%.2fs)" % (fn.__name__, time.monotonic() - t0))
            except Exception:  # noqa: BLE001 - every failure is reported, then counted
                failed += 1
                print("FAIL %s\n%s" % (fn.__name__, traceback.format_exc()))
            sys.stdout.flush()
    finally:
        with open(S.log) as f:
            log = f.read()
        rc, err = S.stop()
    if "Traceback" in log or err:
        failed += 1
        print("FAIL server log has tracebacks or stderr output:\n%s\n%s" % (err, log[-4000:]))
    elif rc != 0:
        failed += 1
        print("FAIL server exit code %r" % rc)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
