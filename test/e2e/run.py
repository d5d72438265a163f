#!/usr/bin/env python3
"""End-to-end tests: kruise-webhook behind a real kube-apiserver (v1.26.1, ../shared/k8s),
the way a user meets it. Nothing here sends a review to the server directly except the load
of the restart test: objects are created, read and deleted through the API server, which
calls the server with the caBundles and URLs the server's own certificate controller wrote.

    run.py --bin build/kruise-webhook [--harness build/test/vector-harness] [--k8s DIR]
           [--kruise-manager build/kruise-manager/kruise-manager] [scenario ...]

The API server comes from DIR/start.sh (default ../shared/k8s; KUBE_APISERVER and ETCD point
at other binaries, as envtest's KUBEBUILDER_ASSETS). When neither can be had the suite prints
one "skipped" line and exits 0. Everything listens on 127.0.0.1. The scenarios run in order
on one API server (each states what it leaves behind); the last line is "N passed, N failed".
"""

import argparse
import base64
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import yaml

from cluster import Cluster, Skip
from kube import ApiError, Kube, object_path, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "manifests"))
import kubectl as kubectl_mod  # noqa: E402  (test/manifests/kubectl.py)
import kruise_manager as km_mod  # noqa: E402  (next to this file)
NS = "kruise-system"
SECRET = "kruise-webhook-server-certs"  # the defaults: what manifests/ names
MUTATING = "kruise-webhook-server-mutating"
VALIDATING = "kruise-webhook-server-validating"
CRDS = []  # every converted kind's CRD of manifests/crds/, filled in by install_base
CFG_PATH = "/apis/admissionregistration.k8s.io/v1/%swebhookconfigurations/%s"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
SS_PATH = "/apis/apps.kruise.io/%s/sidecarsets"

# Bounds the suite asserts (README, "Running in a cluster"): a watch resumes within about a
# second of the API server's return (informer backoff capped at 1 s), so a SidecarSet created
# as soon as the API server is back reaches the next Pod within RESUME_BOUND of the return; a
# caBundle reset is repaired within REPAIR_BOUND (a watch event, then one write). Both leave
# room for 2 shared cores and the sanitizer build.
RESUME_BOUND = 2.5
REPAIR_BOUND = 3.0
# A cert dir deleted under a URL-mode server is noticed within the reload interval (the
# suite's servers use 200 ms) and written back; the bound leaves room for the sync and for 2
# shared cores under the sanitizers. Before issue 22 it took the next resync, 44-55 s.
RESTORE_BOUND = 1.5


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def free_port():
    """A free loopback port below the kernel's ephemeral range (32768 and up), which the server
    keeps through restarts: the webhook URLs name it. Ports that other processes get from the
    kernel with bind(0) come from the ephemeral range, so none of them can take it meanwhile."""
    import random
    for _ in range(200):
        port = random.randrange(20000, 32000)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            s.close()
    raise Failure("no free port in 20000-32000")


# --- the server under test -------------------------------------------------------------------


class Server:
    """kruise-webhook in URL mode on 127.0.0.1:port, configured through the environment as a
    Deployment would configure it (so `certs inspect` run with the same environment sees the
    same settings)."""

    def __init__(self, ctx, name, env, args=()):
        self.ctx = ctx
        self.name = name
        self.env = dict(os.environ, KUBECONFIG=ctx.kubeconfig, WEBHOOK_HOST="127.0.0.1",
                        WEBHOOK_PORT=str(ctx.port))
        self.env.update(env)
        self.log_path = os.path.join(ctx.dir, "server-%s.log" % name)
        self.args = [ctx.bin, "--bind-address", "127.0.0.1", "--health-addr", "127.0.0.1:0",
                     "--metrics-addr", "127.0.0.1:0", "--log-format", "text", "--shutdown-delay", "0",
                     "--cert-reload-interval", "200ms"] + list(args)
        self.proc = None
        self.started = time.time()

    def start(self):
        self.started = time.time()
        self.log = open(self.log_path, "ab")
        self.mark = os.path.getsize(self.log_path)
        self.proc = subprocess.Popen(self.args, stdout=self.log, stderr=self.log, env=self.env)
        m = wait_for(lambda: self._listening(), 60, self.name + " listening")
        self.health_port, self.metrics_port = int(m.group(1)), int(m.group(2))
        return self

    def _listening(self):
        if self.proc.poll() is not None:
            raise Failure("%s exited with %s:\n%s" % (self.name, self.proc.returncode,
                                                      self.log_text()[-3000:]))
        return re.search(r"listening https=\d+ health=(\d+) metrics=(\d+)", self.log_text())

    def log_text(self):
        with open(self.log_path, "rb") as f:
            f.seek(self.mark)
            return f.read().decode(errors="replace")

    def plain(self, port, path):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            c.request("GET", path)
            r = c.getresponse()
            return r.status, r.read().decode(errors="replace")
        finally:
            c.close()

    def readyz(self):
        return self.plain(self.health_port, "/readyz")

    def wait_ready(self, timeout=60):
        wait_for(lambda: self.readyz()[0] == 200, timeout, self.name + " ready")
        return time.time() - self.started

    def metric(self, name, **labels):
        total = None
        for line in self.plain(self.metrics_port, "/metrics")[1].splitlines():
            m = re.match(r"([a-z_]+)(\{(.*)\})? (\S+)$", line)
            if not m or m.group(1) != name:
                continue
            got = dict(re.findall(r'(\w+)="([^"]*)"', m.group(3) or ""))
            if all(got.get(k) == v for k, v in labels.items()):
                total = (total or 0) + float(m.group(4))
        return total

    def stop(self):
        """SIGTERM; a non-zero exit or a sanitizer report is a failure."""
        if not self.proc or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        text = self.log_text()
        check(self.proc.returncode == 0 and "Sanitizer" not in text and "runtime error" not in text,
              "%s exited with %s:\n%s" % (self.name, self.proc.returncode, text[-3000:]))


# --- helpers -------------------------------------------------------------------------------------


def url_form(ctx, files, text=None):
    """The manifests in URL form for our port: what an operator installs for URL mode (files
    of the repository, or YAML text when files is None)."""
    out = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "url-mode-manifests.py"),
                          "--host", "127.0.0.1", "--port", str(ctx.port)] +
                         ([os.path.join(ROOT, f) for f in files] if files else ["-"]),
                         input=text, capture_output=True, text=True, check=True).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def rendered(ctx, sub):
    """manifests/<sub> as `kubectl apply -k` applies it, in URL form, as YAML documents:
    rendered by kubectl's kustomize; without kubectl, read by following the kustomization
    files (ctx.kubectl_note says so)."""
    directory = os.path.join(ROOT, "manifests", sub)
    if ctx.kubectl:
        return url_form(ctx, None, kubectl_mod.kustomize(ctx.kubectl, directory))
    import check as manifests_check  # test/manifests/check.py: its reader of the tree
    return url_form(ctx, None, yaml.safe_dump_all(manifests_check.load_tree(directory)))


def kubectl_apply(ctx, docs):
    """`kubectl apply -f -` of docs (client-side apply, as an operator runs it); returns its
    output. Without kubectl: server-side apply of each document."""
    if not ctx.kubectl:
        res = [ctx.kube.apply(object_path(d), d, manager="e2e-install") for d in docs]
        check(all(st in (200, 201) for st, _ in res), "apply: %s" % res)
        return "%d objects applied server-side (no kubectl)" % len(docs)
    r = subprocess.run([ctx.kubectl, "--kubeconfig", ctx.kubeconfig, "apply", "-f", "-"],
                       input=yaml.safe_dump_all(docs), capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, "kubectl apply: %s%s" % (r.stdout[-2000:], r.stderr[-2000:]))
    return r.stdout



def config(ctx, mutating):
    return ctx.kube.get(CFG_PATH % ("mutating" if mutating else "validating",
                                    MUTATING if mutating else VALIDATING))


def bundles(ctx):
    """{where: decoded caBundle} for every entry of both configurations and both CRDs."""
    out = {}
    for mutating in (True, False):
        for e in config(ctx, mutating)["webhooks"]:
            b = e["clientConfig"].get("caBundle")
            out[e["name"]] = base64.b64decode(b) if b else b""
    for name in CRDS:
        cc = ctx.kube.get(CRD_PATH + name)["spec"]["conversion"]["webhook"]["clientConfig"]
        out[name] = base64.b64decode(cc["caBundle"]) if cc.get("caBundle") else b""
    return out


def secret_items(ctx):
    return secret_items_of(ctx, SECRET)


def secret_items_of(ctx, name):
    s = ctx.kube.get("/api/v1/namespaces/%s/secrets/%s" % (NS, name))
    return s, {k: base64.b64decode(v) for k, v in (s or {}).get("data", {}).items()}


def namespace(ctx, name, labels=None):
    st, out = ctx.kube.call("POST", "/api/v1/namespaces",
                            {"apiVersion": "v1", "kind": "Namespace",
                             "metadata": {"name": name, "labels": labels or {}}})
    check(st in (201, 409), "namespace %s: %s %s" % (name, st, out))


def sidecarset(name, container, version="v1beta1", **spec):
    body = {"selector": {"matchLabels": {"app": "web"}},
            "containers": [{"name": container, "image": "busybox:1.36",
                            "command": ["sleep", "3600"]}]}
    body.update(spec)
    return {"apiVersion": "apps.kruise.io/" + version, "kind": "SidecarSet",
            "metadata": {"name": name}, "spec": body}


def create_pod(ctx, ns, name, labels=None):
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "labels": labels or {"app": "web"}},
           "spec": {"containers": [{"name": "app", "image": "nginx:1.25"}]}}
    return ctx.kube.create("/api/v1/namespaces/%s/pods" % ns, pod)


def container_names(pod):
    return [c["name"] for c in pod["spec"]["containers"]]


def probe_cert(ctx, cert_pem, key_pem):
    """Presents cert_pem as a TLS client certificate to the API server. Go's crypto/tls parses
    every client certificate with x509.ParseCertificate before anything else and aborts the
    handshake when it cannot (the chain is not verified here: the request is then merely
    unauthenticated). So an HTTP answer means Go read the certificate; a handshake abort, that
    it did not. Returns True for read."""
    cert = os.path.join(ctx.dir, "probe-cert.pem")
    key = os.path.join(ctx.dir, "probe-key.pem")
    with open(cert, "wb") as f:
        f.write(cert_pem)
    with open(key, "wb") as f:
        f.write(key_pem)
    os.chmod(key, 0o600)
    tls = ssl.create_default_context(cafile=ctx.kube.files["certificate-authority-data"])
    tls.load_cert_chain(cert, key)
    try:
        with socket.create_connection((ctx.kube.host, ctx.kube.port), 10) as raw:
            with tls.wrap_socket(raw, server_hostname=ctx.kube.host) as s:
                s.sendall(b"GET /version HTTP/1.1\r\nHost: k\r\nConnection: close\r\n\r\n")
                return s.recv(64).startswith(b"HTTP/1.1 ")
    except (ssl.SSLError, ConnectionError):
        return False


def certs_generate(ctx, name, *args):
    d = os.path.join(ctx.dir, name)
    subprocess.run([ctx.bin, "certs", "generate", "--out", d, "--host", "127.0.0.1"] + list(args),
                   check=True, stdout=subprocess.DEVNULL)
    return {n: open(os.path.join(d, n), "rb").read()
            for n in ("ca-cert.pem", "ca-key.pem", "cert.pem", "key.pem")}


def check_read_by_apiserver(ctx, items, what):
    check(probe_cert(ctx, items["ca-cert.pem"], items["ca-key.pem"]),
          "the API server cannot read the CA of %s" % what)
    check(probe_cert(ctx, items["cert.pem"], items["key.pem"]),
          "the API server cannot read the serving certificate of %s" % what)


def non_der(cert_pem):
    """cert_pem with basicConstraints cA encoded as 0x01 (the bug of issue 10)."""
    der = ssl.PEM_cert_to_DER_cert(cert_pem.decode())
    i = der.find(bytes([0x30, 0x03, 0x01, 0x01, 0xFF]))
    check(i > 0, "no basicConstraints cA TRUE to break")
    return ssl.DER_cert_to_PEM_cert(der[:i + 4] + b"\x01" + der[i + 5:]).encode()


# --- the scenarios ---------------------------------------------------------------------------

SCENARIOS = []


def scenario(fn):
    SCENARIOS.append(fn)
    return fn


@scenario
def vectors_through_the_api_server(ctx):
    """The vector harness's real-cluster mode (make test-vectors KUBECONFIG=...) on this API
    server: every vector of test/vectors and test/handler-vectors, its cluster objects created
    through the API server, v1alpha1 CloneSets converted by the harness's server (the CRDs' URL
    names the suite's port)."""
    if not ctx.harness:
        return "skipped: no --harness"
    lasts = []
    # Of test/handler-vectors (upstream's _test.go tables, whose fake client takes any object;
    # test/oracle/upstream-tests/valid-clusters.py makes their clusters valid objects), every
    # area but ContainerRecreateRequest's: its answers copy the Pod's uid and the fields the
    # API server defaults in a Pod, which a real API server assigns (its e2e scenario is
    # image_jobs_distributions_and_recreate_requests_with_the_gates_on).
    areas = os.environ.get("E2E_HANDLER_VECTOR_AREAS")
    real = areas.split() if areas else [
        a for a in sorted(os.listdir(os.path.join(ROOT, "test", "handler-vectors")))
        if a != "containerrecreaterequest"]
    staged = tempfile.mkdtemp(prefix="handler-vectors-")
    for area in real:
        os.symlink(os.path.join(ROOT, "test", "handler-vectors", area), os.path.join(staged, area))
    for folder in (os.path.join(ROOT, "test", "vectors"), staged):
        r = subprocess.run([ctx.harness, "--bin", ctx.bin, "--vectors", folder,
                            "--kubeconfig", ctx.kubeconfig,
                            "--port", str(ctx.port)], capture_output=True, text=True, timeout=900)
        last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        report = os.path.join(ctx.dir, "harness-%s.out" % os.path.basename(folder))
        with open(report, "w") as f:
            f.write(r.stdout + r.stderr)
        check(r.returncode == 0, "harness: %s (the whole report: %s)\n%s%s" % (
            last, report, r.stdout[-4000:], r.stderr[-2000:]))
        lasts.append("%s: %s" % (os.path.basename(folder), last))
    shutil.rmtree(staged)
    return "; ".join(lasts)


@scenario
def install_fills_every_cabundle_and_is_ready(ctx):
    """`kubectl apply -k manifests/with-crds/` in URL form: the tree rendered by kubectl's
    kustomize, every entry and CRD conversion pointed at the suite's port, applied with
    `kubectl apply`; every object exists (the Deployment too, though no kubelet runs it).
    The server (Secret store, RSA, the defaults' names) creates its Secret, fills every
    caBundle and the CRDs', and is ready once it has called itself through them."""
    docs = rendered(ctx, "with-crds")
    kubectl_apply(ctx, docs)
    for d in docs:
        check(ctx.kube.get(object_path(d)) is not None, "%s %s applied" % (d["kind"],
                                                                          d["metadata"]["name"]))
    ctx.server = Server(ctx, "a", {"WEBHOOK_CERT_WRITER": "secret",
                                   "WEBHOOK_CERT_DIR": os.path.join(ctx.dir, "certs-a")},
                        ["--feature-gates", "ResourcesDeletionProtection=true"]).start()
    took = ctx.server.wait_ready()
    check("called this server as the API server does" in ctx.server.log_text(), "the self-call")
    _, items = secret_items(ctx)
    check(items.get("ca-cert.pem"), "Secret %s/%s written" % (NS, SECRET))
    ctx.ca = items["ca-cert.pem"]
    for where, b in bundles(ctx).items():
        check(b == ctx.ca, "caBundle of %s is the Secret's CA" % where)
    return "ready %.1fs after start" % took


def readme_commands(section):
    """The command lines of the first sh block under the README heading `### <section>`,
    comments dropped: the tests run what the README shows."""
    text = open(os.path.join(ROOT, "README.md")).read()
    block = text.split("### %s\n" % section, 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines()
            if line.split("#", 1)[0].strip()]


@scenario
def readme_install_check_passes(ctx):
    """The README's install check (section "Check the install"), run as written: a Pod
    created as a server-side dry run comes back mutated through the API server, and certs
    inspect --secret finds the Secret's certificates valid and every caBundle trusting their
    CA. The server runs outside the cluster (URL mode), so certs inspect runs here
    (KRUISE_WEBHOOK) instead of in the Deployment."""
    if not ctx.kubectl:
        return "skipped: no kubectl to run it with (%s)" % kubectl_mod.reason
    cmds = readme_commands("Check the install")
    check(cmds == ["scripts/check-install.sh"], "the README's check: %s" % cmds)
    r = subprocess.run(cmds[0].split(), cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, KUBECTL=ctx.kubectl, KUBECONFIG=ctx.kubeconfig,
                                KRUISE_WEBHOOK=ctx.bin))
    check(r.returncode == 0 and r.stdout.rstrip().endswith("install ok") and
          "came back mutated by /mutate-pod" in r.stdout,
          "%s: exit %d\n%s%s" % (cmds[0], r.returncode, r.stdout[-3000:], r.stderr[-2000:]))
    return r.stdout.strip().splitlines()[0]


@scenario
def api_server_reads_every_generated_certificate(ctx):
    """Every certificate the server can generate, presented to the API server's TLS (Go's
    x509.ParseCertificate): the Secret store's (RSA), `certs generate` RSA and ECDSA; the
    cert dir's (ECDSA) in the gates-off scenario. The CA as generated before issue 10 is
    refused: the probe can tell."""
    _, items = secret_items(ctx)
    check_read_by_apiserver(ctx, items, "the Secret")
    rsa = certs_generate(ctx, "gen-rsa")
    ecdsa = certs_generate(ctx, "gen-ecdsa", "--ecdsa")
    check_read_by_apiserver(ctx, rsa, "certs generate")
    check_read_by_apiserver(ctx, ecdsa, "certs generate --ecdsa")
    check(not probe_cert(ctx, non_der(ecdsa["ca-cert.pem"]), ecdsa["ca-key.pem"]),
          "the API server read a CA whose cA flag is 0x01")


@scenario
def sidecarsets_are_defaulted_and_validated(ctx):
    """A SidecarSet created at v1beta1 and one at v1alpha1 come back defaulted with their hash
    annotations; an invalid one is refused with the validation message."""
    for version, name, container in (("v1beta1", "e2e-beta", "beta-agent"),
                                     ("v1alpha1", "e2e-alpha", "alpha-agent")):
        out = ctx.kube.create(SS_PATH % version,
                              sidecarset(name, container, version,
                                         selector={"matchLabels": {"app": name}}))
        check(out["apiVersion"] == "apps.kruise.io/" + version, out["apiVersion"])
        ann = out["metadata"].get("annotations", {})
        check("kruise.io/sidecarset-hash" in ann, "%s: hash annotation: %s" % (version, ann))
        spec = out["spec"]
        check(spec["updateStrategy"]["type"] == "RollingUpdate", "%s: updateStrategy" % version)
        c = spec["containers"][0]
        check(c["podInjectPolicy"] == "BeforeAppContainer" and
              c["imagePullPolicy"] == "IfNotPresent", "%s: container defaults: %s" % (version, c))
    bad = sidecarset("e2e-invalid", "bad-agent")
    del bad["spec"]["selector"]
    st, out = ctx.kube.call("POST", SS_PATH % "v1beta1", bad)
    msg = (out or {}).get("message", "")
    # Refused with upstream's code (500) and message.
    check(st == 500 and 'admission webhook "vsidecarset.kb.io" denied the request: '
          "spec.selector: Required value: no selector defined for SidecarSet" in msg,
          "invalid SidecarSet: %s %s" % (st, msg))
    check(ctx.kube.get(SS_PATH % "v1beta1" + "/e2e-invalid") is None, "nothing stored")


JOBS_PATH = "/apis/apps.kruise.io/%s/namespaces/e2e-jobs/%s"


def job_pod_template(restart="Never"):
    return {"spec": {"containers": [{"name": "main", "image": "busybox"}],
                     "restartPolicy": restart}}


def refused_create(ctx, path, obj, code, entry, message):
    """obj POSTed to path is refused by the webhook entry with code and message, and not
    stored."""
    st, out = ctx.kube.call("POST", path, obj)
    msg = (out or {}).get("message", "")
    check(st == code and 'admission webhook "%s" denied the request: ' % entry in msg and
          message in msg, "%s: %s %s" % (obj["metadata"]["name"], st, msg))
    check(ctx.kube.get(path + "/" + obj["metadata"]["name"]) is None, "nothing stored")


@scenario
def job_kinds_are_defaulted_and_validated(ctx):
    """A BroadcastJob (at both versions) and an AdvancedCronJob come back with upstream's
    defaults, their Pod templates' included; an EphemeralJob is admitted; an invalid one of each
    is refused with upstream's code and message. Leaves the namespace e2e-jobs and the objects
    created in it."""
    namespace(ctx, "e2e-jobs")
    for version in ("v1beta1", "v1alpha1"):
        name = "e2e-bcj-" + version
        out = ctx.kube.create(JOBS_PATH % (version, "broadcastjobs"), {
            "apiVersion": "apps.kruise.io/" + version, "kind": "BroadcastJob",
            "metadata": {"name": name}, "spec": {"template": job_pod_template()}})
        spec = out["spec"]
        check(spec["completionPolicy"] == {"type": "Always"} and
              spec["parallelism"] == 2147483647 and spec["failurePolicy"]["type"] == "FailFast",
              "%s: defaults: %s" % (name, spec))
        c = spec["template"]["spec"]["containers"][0]
        check(c.get("imagePullPolicy") == "Always" and
              c.get("terminationMessagePolicy") == "File" and
              spec["template"]["spec"].get("dnsPolicy") == "ClusterFirst",
              "%s: Pod template defaults: %s" % (name, spec["template"]))
    refused_create(ctx, JOBS_PATH % ("v1beta1", "broadcastjobs"),
                   {"apiVersion": "apps.kruise.io/v1beta1", "kind": "BroadcastJob",
                    "metadata": {"name": "e2e-bcj-always"},
                    "spec": {"template": job_pod_template("Always")}},
                   500, "vbroadcastjob.kb.io", 'spec.template.spec.restartPolicy: Invalid value: '
                   '"Always": pod restartPolicy can only be Never or OnFailure')

    def cronjob(name, schedule, **spec):
        spec.update(schedule=schedule, template={"jobTemplate": {"spec": {
            "template": job_pod_template("OnFailure")}}})
        return {"apiVersion": "apps.kruise.io/v1beta1", "kind": "AdvancedCronJob",
                "metadata": {"name": name}, "spec": spec}

    out = ctx.kube.create(JOBS_PATH % ("v1beta1", "advancedcronjobs"),
                          cronjob("e2e-acj", "CRON_TZ=Asia/Shanghai @every 1h30m"))
    spec = out["spec"]
    check(spec.get("concurrencyPolicy") == "Allow" and spec.get("paused") is False and
          spec.get("successfulJobsHistoryLimit") == 3 and spec.get("failedJobsHistoryLimit") == 1,
          "AdvancedCronJob defaults: %s" % spec)
    c = spec["template"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    check(c.get("imagePullPolicy") == "Always", "AdvancedCronJob's Pod template: %s" % c)
    refused_create(ctx, JOBS_PATH % ("v1beta1", "advancedcronjobs"),
                   cronjob("e2e-acj-bad", "0 0 * *"), 422, "vadvancedcronjob.kb.io",
                   'spec.schedule: Invalid value: "0 0 * *": expected exactly 5 fields, found 4: '
                   '[0 0 * *]')
    refused_create(ctx, JOBS_PATH % ("v1beta1", "advancedcronjobs"),
                   cronjob("e2e-acj-zone", "0 * * * *", timeZone="Mars/Olympus"),
                   422, "vadvancedcronjob.kb.io",
                   'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus')

    def ephemeraljob(name, **container):
        container.update(name="debugger", image="busybox", imagePullPolicy="IfNotPresent",
                         terminationMessagePolicy="File")
        return {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "EphemeralJob",
                "metadata": {"name": name},
                "spec": {"selector": {"matchLabels": {"app": "e2e"}}, "replicas": 1,
                         "template": {"ephemeralContainers": [container]}}}

    out = ctx.kube.create(JOBS_PATH % ("v1alpha1", "ephemeraljobs"),
                          ephemeraljob("e2e-ejob", targetContainerName="main"))
    check(out["spec"]["template"]["ephemeralContainers"][0]["targetContainerName"] == "main",
          "EphemeralJob stored as sent: %s" % out["spec"])
    refused_create(ctx, JOBS_PATH % ("v1alpha1", "ephemeraljobs"),
                   ephemeraljob("e2e-ejob-ports", ports=[{"containerPort": 80}]),
                   400, "vephemeraljobs.kb.io",
                   "ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container")


@scenario
def image_kinds_are_defaulted_and_validated(ctx):
    """A NodeImage comes back with upstream's defaults (each tag's createdAt and pull policy
    timeout and backoff) and one with a duplicated tag is refused with upstream's message; with
    the default gates (ImagePullJobGate and ResourceDistributionGate off) an ImagePullJob is
    defaulted and then refused, and a ResourceDistribution refused, with upstream's 403. Leaves
    the namespace e2e-images and the NodeImage e2e-node."""
    namespace(ctx, "e2e-images")
    path = "/apis/apps.kruise.io/v1beta1/nodeimages"

    def nodeimage(name, *tags):
        return {"apiVersion": "apps.kruise.io/v1beta1", "kind": "NodeImage",
                "metadata": {"name": name},
                "spec": {"images": {"nginx": {"tags": [
                    {"tag": t, "pullPolicy": {"ttlSecondsAfterFinished": 300}} for t in tags]}}}}

    out = ctx.kube.create(path, nodeimage("e2e-node", "1.25", "1.24"))
    tags = out["spec"]["images"]["nginx"]["tags"]
    check([t["tag"] for t in tags] == ["1.24", "1.25"] and
          all(t.get("createdAt") and t["pullPolicy"].get("timeoutSeconds") == 600 and
              t["pullPolicy"].get("backoffLimit") == 3 for t in tags),
          "NodeImage defaults: %s" % tags)
    refused_create(ctx, path, nodeimage("e2e-node-dup", "1.25", "1.25"), 400,
                   "vnodeimage.kb.io", "duplicated tag 1.25 for image nginx")
    pulljob = {"apiVersion": "apps.kruise.io/v1beta1", "kind": "ImagePullJob",
               "metadata": {"name": "e2e-pull"},
               "spec": {"image": "nginx:1.25", "parallelism": 1}}
    refused_create(ctx, "/apis/apps.kruise.io/v1beta1/namespaces/e2e-images/imagepulljobs",
                   pulljob, 403, "vimagepulljob-v1beta1.kb.io",
                   "feature-gate ImagePullJobGate is not enabled")
    rd = {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "ResourceDistribution",
          "metadata": {"name": "e2e-rd"},
          "spec": {"resource": {"apiVersion": "v1", "kind": "ConfigMap",
                                "metadata": {"name": "shared"}, "data": {"k": "v"}},
                   "targets": {"includedNamespaces": {"list": [{"name": "e2e-images"}]}}}}
    refused_create(ctx, "/apis/apps.kruise.io/v1alpha1/resourcedistributions", rd, 403,
                   "vresourcedistribution.kb.io",
                   "feature-gate ResourceDistributionGate is not enabled")


@scenario
def image_jobs_distributions_and_recreate_requests_with_the_gates_on(ctx):
    """With ImagePullJobGate and ResourceDistributionGate on (the server restarted with them,
    and without them again at the end), through the API server:
    - an ImagePullJob at both versions and an ImageListPullJob come back with upstream's
      defaults (completion policy Always, pull policy 600 s and 3 tries, IfNotPresent, the
      protection finalizer on a v1alpha1 create), and an invalid one of each is refused with
      upstream's message;
    - a ResourceDistribution of a ConfigMap is admitted (after the dry-run create of the
      ConfigMap in kruise's namespace) and one of a Pod refused with upstream's 422;
    - a ContainerRecreateRequest for a running Pod on a Node is filled from the Pod (node and
      Pod labels, the container's status context, failure policy Fail), and one for a pending
      Pod, for a Pod whose container has no status yet, or for a container the Pod lacks is
      refused with upstream's message.
    Leaves objects in the namespace e2e-images and the Node e2e-crr-node."""
    namespace(ctx, "e2e-images")
    images = "/apis/apps.kruise.io/%s/namespaces/e2e-images/%s"
    plain_args = ctx.server.args
    ctx.server.stop()
    ctx.server.args = plain_args + [
        "--feature-gates", "ImagePullJobGate=true,ResourceDistributionGate=true"]
    try:
        ctx.server.start().wait_ready()
        for version in ("v1alpha1", "v1beta1"):
            name = "e2e-pull-" + version
            out = ctx.kube.create(images % (version, "imagepulljobs"), {
                "apiVersion": "apps.kruise.io/" + version, "kind": "ImagePullJob",
                "metadata": {"name": name}, "spec": {"image": "nginx:1.25", "parallelism": 2}})
            spec = out["spec"]
            check(spec["completionPolicy"]["type"] == "Always" and
                  spec["pullPolicy"] == {"timeoutSeconds": 600, "backoffLimit": 3} and
                  spec["imagePullPolicy"] == "IfNotPresent", "%s defaults: %s" % (name, spec))
            finalizers = out["metadata"].get("finalizers") or []
            check(("apps.kruise.io/deletion-protection" in finalizers) == (version == "v1alpha1"),
                  "%s finalizers: %s" % (name, finalizers))
            refused_create(ctx, images % (version, "imagepulljobs"), {
                "apiVersion": "apps.kruise.io/" + version, "kind": "ImagePullJob",
                "metadata": {"name": name + "-bad"},
                "spec": {"image": "nginx:1.25", "parallelism": "50%"}}, 400,
                "vimagepulljob-v1beta1.kb.io", "parallelism does not support percentage value")
        out = ctx.kube.create(images % ("v1beta1", "imagelistpulljobs"), {
            "apiVersion": "apps.kruise.io/v1beta1", "kind": "ImageListPullJob",
            "metadata": {"name": "e2e-list"}, "spec": {"images": ["nginx:1.25", "redis:7"]}})
        spec = out["spec"]
        check(spec["completionPolicy"]["type"] == "Always" and
              spec["pullPolicy"] == {"timeoutSeconds": 600, "backoffLimit": 3},
              "ImageListPullJob defaults: %s" % spec)
        refused_create(ctx, images % ("v1beta1", "imagelistpulljobs"), {
            "apiVersion": "apps.kruise.io/v1beta1", "kind": "ImageListPullJob",
            "metadata": {"name": "e2e-list-dup"}, "spec": {"images": ["redis:7", "redis:7"]}},
            400, "vimagelistpulljob-v1beta1.kb.io", "images cannot have duplicate values")

        rd_path = "/apis/apps.kruise.io/v1beta1/resourcedistributions"

        def distribution(name, resource):
            return {"apiVersion": "apps.kruise.io/v1beta1", "kind": "ResourceDistribution",
                    "metadata": {"name": name},
                    "spec": {"resource": resource, "targets": {
                        "includedNamespaces": {"list": [{"name": "e2e-images"}]}}}}
        ctx.kube.create(rd_path, distribution("e2e-rd", {
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shared"},
            "data": {"k": "v"}}))
        refused_create(ctx, rd_path, distribution("e2e-rd-pod", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "some-pod"}}), 422,
            "vresourcedistribution.kb.io", "spec.resource: Invalid value: Pod: unknown or "
            "unsupported resource GroupKind, only support [Secret ConfigMap]")

        node = "e2e-crr-node"
        st, out = ctx.kube.call("POST", "/api/v1/nodes", {
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": node}})
        check(st in (201, 409), "node: %s %s" % (st, out))
        pods = "/api/v1/namespaces/e2e-images/pods"
        for name, on_node, running in (("crr-running", True, True),
                                       ("crr-starting", True, False),
                                       ("crr-pending", False, False)):
            spec = {"terminationGracePeriodSeconds": 20,
                    "containers": [{"name": "app", "image": "nginx:1.25"}]}
            if on_node:
                spec["nodeName"] = node
            pod = ctx.kube.create(pods, {"apiVersion": "v1", "kind": "Pod",
                                         "metadata": {"name": name}, "spec": spec})
            if running:
                pod["status"] = {"phase": "Running", "containerStatuses": [{
                    "name": "app", "image": "nginx:1.25", "imageID": "", "ready": True,
                    "restartCount": 2, "containerID": "containerd://0123abcd",
                    "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}
                ctx.kube.put(pods + "/%s/status" % name, pod)
        crr_path = images % ("v1alpha1", "containerrecreaterequests")

        def crr(name, pod, container="app"):
            return {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "ContainerRecreateRequest",
                    "metadata": {"name": name},
                    "spec": {"podName": pod, "containers": [{"name": container}]}}

        # The server reads the Pod from its cache, which learns of its status by the watch.
        def created():
            st, out = ctx.kube.call("POST", crr_path, crr("e2e-crr", "crr-running"))
            return out if st == 201 else None
        out = wait_for(created, 10, "the ContainerRecreateRequest admitted")
        labels = out["metadata"].get("labels") or {}
        running = ctx.kube.get(pods + "/crr-running")
        check(labels.get("crr.apps.kruise.io/node-name") == node and
              labels.get("crr.apps.kruise.io/pod-uid") == running["metadata"]["uid"] and
              labels.get("crr.apps.kruise.io/active") == "true", "CRR labels: %s" % labels)
        spec = out["spec"]
        check(spec["strategy"].get("failurePolicy") == "Fail" and
              spec["strategy"].get("terminationGracePeriodSeconds") == 20 and
              spec["containers"][0].get("statusContext") ==
              {"containerID": "containerd://0123abcd", "restartCount": 2},
              "CRR filled from the Pod: %s" % spec)
        refused_create(ctx, crr_path, crr("e2e-crr-pending", "crr-pending"), 400,
                       "mcontainerrecreaterequest.kb.io",
                       "not allowed to recreate containers in a pending Pod")
        refused_create(ctx, crr_path, crr("e2e-crr-starting", "crr-starting"), 400,
                       "mcontainerrecreaterequest.kb.io",
                       "not found app containerStatus in Pod Status")
        refused_create(ctx, crr_path, crr("e2e-crr-missing", "crr-running", "sidecar"), 400,
                       "mcontainerrecreaterequest.kb.io", "container sidecar not found in Pod")
    finally:
        ctx.server.stop()
        ctx.server.args = plain_args
        ctx.server.start().wait_ready()


@scenario
def pod_gets_its_sidecars_only_where_the_sidecarset_matches(ctx):
    """A Pod created through the API server in a namespace the SidecarSet selects gets the
    sidecar; the same Pod in another namespace does not."""
    namespace(ctx, "e2e-inject", {"e2e": "inject"})
    namespace(ctx, "e2e-plain")
    ctx.kube.create(SS_PATH % "v1beta1",
                    sidecarset("e2e-log", "log-agent",
                               namespaceSelector={"matchLabels": {"e2e": "inject"}}))
    # The server learns of the SidecarSet through its watch: a Pod may come first.
    n = [0]

    def injected_pod():
        n[0] += 1
        p = create_pod(ctx, "e2e-inject", "web-%d" % n[0])
        return p if "log-agent" in container_names(p) else None
    pod = wait_for(injected_pod, 10, "a Pod with the sidecar")
    check(container_names(pod) == ["log-agent", "app"], container_names(pod))
    check(pod["metadata"]["annotations"]["kruise.io/sidecarset-injected-list"] == "e2e-log",
          pod["metadata"]["annotations"])
    other = create_pod(ctx, "e2e-plain", "web")
    check(container_names(other) == ["app"], "no sidecar outside: %s" % container_names(other))


PPS_PATH = "/apis/apps.kruise.io/%s/namespaces/%s/persistentpodstates"
PPM_PATH = "/apis/apps.kruise.io/v1alpha1/namespaces/%s/podprobemarkers"


def owned_pod(name, owner, labels=None, annotations=None, **container):
    """A Pod as a workload's controller creates it: its controller owner and the readiness
    gate OpenKruise's own controllers add."""
    c = {"name": "app", "image": "nginx:1.25"}
    c.update(container)
    md = {"name": name, "labels": labels or {"app": "stateful"},
          "ownerReferences": [dict(owner, uid="0b4e6a6e-0000-4000-8000-00000000000%d" % len(name),
                                   controller=True)]}
    if annotations:
        md["annotations"] = annotations
    spec = {"containers": [c]}
    if owner["apiVersion"].startswith("apps.kruise.io/"):
        spec["readinessGates"] = [{"conditionType": "KruisePodReady"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec}


def admitted(ctx, ns, pod, cond, what):
    """Creates pod once the server's caches make cond(answer) true: dry runs first (the
    server learns of new objects through its watches), then the Pod itself."""
    path = "/api/v1/namespaces/%s/pods" % ns

    def dry():
        st, out = ctx.kube.call("POST", path + "?dryRun=All", pod)
        check(st == 201, "dry run: %s %s" % (st, out))
        return cond(out)
    wait_for(dry, 10, what)
    out = ctx.kube.create(path, pod)
    check(cond(out), "%s: %s" % (what, json.dumps(out)[:2000]))
    return out


def denied(ctx, path, obj, webhook, message):
    st, out = ctx.kube.call("POST", path, obj)
    msg = (out or {}).get("message", "")
    want = 'admission webhook "%s" denied the request: %s' % (webhook, message)
    check(st == 400 and want in msg, "refused with upstream's message: %s %s" % (st, msg))


@scenario
def persistentpodstate_sends_a_recreated_pod_back_and_probes_move_with_the_gates_on(ctx):
    """Issue 24, through the real API server:
    - a Pod created (again) under a name the PersistentPodState of its Advanced StatefulSet
      recorded gets that zone as its nodeSelector, the recorded node as a preferred term after
      its own, and kruise.io/injected-persistent-pod-state; a PersistentPodState targeting a
      Deployment and a PodProbeMarker with a probe named Ready are refused with upstream's
      messages;
    - with gates EnhancedLivenessProbe and EnablePodProbeMarkerOnServerless on (the server
      restarted with them, and again without them at the end), a CloneSet's Pod asking for
      the enhanced liveness probe has its livenessProbe, as the API server defaulted it, moved
      into apps.kruise.io/container-probe-context, and a Pod a PodProbeMarker selects carries
      its probe in kruise.io/podprobe."""
    ns = "e2e-pps"
    namespace(ctx, ns)
    zone, host = "topology.kubernetes.io/zone", "kubernetes.io/hostname"
    pps = {"apiVersion": "apps.kruise.io/v1beta1", "kind": "PersistentPodState",
           "metadata": {"name": "web-state"},
           "spec": {"targetRef": {"apiVersion": "apps.kruise.io/v1beta1", "kind": "StatefulSet",
                                  "name": "web"},
                    "requiredPersistentTopology": {"keys": [zone]},
                    "preferredPersistentTopology": [{"weight": 50, "preference": {"keys": [host]}}]}}
    out = ctx.kube.create(PPS_PATH % ("v1beta1", ns), pps)
    out["status"] = {"observedGeneration": 1, "podStates": {"web-0": {
        "nodeName": "node-7", "nodeTopologyLabels": {zone: "zone-b", host: "node-7"}}}}
    ctx.kube.put(PPS_PATH % ("v1beta1", ns) + "/web-state/status", out)
    sts = {"apiVersion": "apps.kruise.io/v1beta1", "kind": "StatefulSet", "name": "web"}
    pod = owned_pod("web-0", sts)
    pod["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 5, "preference": {"matchExpressions": [{"key": "ssd", "operator": "Exists"}]}}]}}
    got = admitted(ctx, ns, pod, lambda p: (p["spec"].get("nodeSelector") or {}).get(zone),
                   "the recorded zone")
    check(got["spec"]["nodeSelector"] == {zone: "zone-b"}, got["spec"]["nodeSelector"])
    check(got["spec"]["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] == [
        {"weight": 5, "preference": {"matchExpressions": [{"key": "ssd", "operator": "Exists"}]}},
        {"weight": 50, "preference": {"matchExpressions": [
            {"key": host, "operator": "In", "values": ["node-7"]}]}}], got["spec"]["affinity"])
    check(got["metadata"]["annotations"].get("kruise.io/injected-persistent-pod-state") ==
          "web-state", got["metadata"].get("annotations"))
    other = ctx.kube.create("/api/v1/namespaces/%s/pods" % ns, owned_pod("web-5", sts))
    check("nodeSelector" not in other["spec"], "no record, no topology: %s" % other["spec"])
    bad = json.loads(json.dumps(pps))
    bad["metadata"]["name"] = "deploy-state"
    bad["spec"]["targetRef"] = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}
    denied(ctx, PPS_PATH % ("v1beta1", ns), bad, "vpersistentpodstate.kb.io",
           'spec.targetRef: Invalid value: v1beta1.TargetReference{APIVersion:"apps/v1", '
           'Kind:"Deployment", Name:"d"}: targetRef.Kind must be StatefulSet or in '
           "PPS_Watch_Custom_Workload_WhiteList")
    ppm = {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "PodProbeMarker",
           "metadata": {"name": "healthy"},
           "spec": {"selector": {"matchLabels": {"app": "probed"}},
                    "probes": [{"name": "healthy", "containerName": "app",
                                "probe": {"exec": {"command": ["/healthy.sh"]}},
                                "podConditionType": "game.kruise.io/healthy"}]}}
    wrong = json.loads(json.dumps(ppm))
    wrong["metadata"]["name"] = "native"
    wrong["spec"]["probes"][0]["name"] = "Ready"
    denied(ctx, PPM_PATH % ns, wrong, "vpodprobemarker.kb.io",
           'spec.probes: Invalid value: "Ready": probe name can\'t be Ready')
    ctx.kube.create(PPM_PATH % ns, ppm)

    gates = "ResourcesDeletionProtection=true,EnhancedLivenessProbe=true," \
            "EnablePodProbeMarkerOnServerless=true"
    plain_args = ctx.server.args
    ctx.server.stop()
    ctx.server.args = plain_args + ["--feature-gates", gates]
    try:
        ctx.server.start().wait_ready()
        cs = {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet", "name": "cs"}
        live = owned_pod("cs-live", cs, annotations={"apps.kruise.io/using-enhanced-liveness": "true"},
                         livenessProbe={"httpGet": {"path": "/healthz", "port": 8080}})
        got = admitted(ctx, ns, live,
                       lambda p: "apps.kruise.io/container-probe-context" in
                       (p["metadata"].get("annotations") or {}), "the probe moved")
        check("livenessProbe" not in got["spec"]["containers"][0], got["spec"]["containers"])
        check(got["metadata"]["annotations"]["apps.kruise.io/container-probe-context"] ==
              '[{"name":"app","livenessProbe":{"httpGet":{"path":"/healthz","port":8080,'
              '"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,'
              '"failureThreshold":3}}]', got["metadata"]["annotations"])
        probed = {"apiVersion": "v1", "kind": "Pod",
                  "metadata": {"name": "probed", "labels": {"app": "probed"}},
                  "spec": {"containers": [{"name": "app", "image": "nginx:1.25"}]}}
        got = admitted(ctx, ns, probed, lambda p: "kruise.io/podprobe" in
                       (p["metadata"].get("annotations") or {}), "the PodProbeMarker's probe")
        ann = got["metadata"]["annotations"]
        check(ann["kruise.io/podprobe"] ==
              '[{"name":"healthy","containerName":"app","probe":{"exec":{"command":'
              '["/healthy.sh"]}},"podConditionType":"game.kruise.io/healthy"}]' and
              ann["kruise.io/podprobemarker-list"] == "healthy", ann)
    finally:
        ctx.server.stop()
        ctx.server.args = plain_args
        ctx.server.start().wait_ready()


@scenario
def v1alpha1_is_stored_as_v1beta1_and_read_back(ctx):
    """A SidecarSet written at v1alpha1 with the fields v1beta1 moved (spec.namespace, the
    custom-version label) is stored in etcd as v1beta1 and read at either version, each
    conversion made by the server's /convert."""
    before = ctx.server.metric("controller_runtime_webhook_requests_total", webhook="/convert")
    obj = sidecarset("e2e-conv", "conv-agent", "v1alpha1", namespace="e2e-conv-ns")
    obj["metadata"]["labels"] = {"apps.kruise.io/sidecarset-custom-version": "v3"}
    ctx.kube.create(SS_PATH % "v1alpha1", obj)
    stored = json.loads(ctx.cluster.etcd_get("/registry/apps.kruise.io/sidecarsets/e2e-conv"))
    check(stored["apiVersion"] == "apps.kruise.io/v1beta1", "stored %s" % stored["apiVersion"])
    check(stored["spec"].get("namespaceSelector") ==
          {"matchLabels": {"kubernetes.io/metadata.name": "e2e-conv-ns"}} and
          "namespace" not in stored["spec"] and stored["spec"].get("customVersion") == "v3",
          "stored spec: %s" % stored["spec"])
    beta = ctx.kube.get(SS_PATH % "v1beta1" + "/e2e-conv")
    check(beta["spec"]["namespaceSelector"] == stored["spec"]["namespaceSelector"], "v1beta1 read")
    alpha = ctx.kube.get(SS_PATH % "v1alpha1" + "/e2e-conv")
    check(alpha["apiVersion"] == "apps.kruise.io/v1alpha1" and
          alpha["metadata"]["labels"].get("apps.kruise.io/sidecarset-custom-version") == "v3" and
          "customVersion" not in alpha["spec"], "v1alpha1 read: %s" % alpha)
    after = ctx.server.metric("controller_runtime_webhook_requests_total", webhook="/convert")
    check((after or 0) > (before or 0), "/convert was called (%s -> %s)" % (before, after))


@scenario
def schemas_prune_what_a_version_does_not_define(ctx):
    """The generated schemas at work (a CloneSet): a field no version defines is pruned by the
    API server, as with upstream's CRDs, and a v1alpha1 write is stored as v1beta1 through
    /convert. The Pod template's schema keeps unknown fields, but the defaulting webhook stores
    Go's encoding of the object, as upstream's patch does: a container field Go does not know
    is gone too."""
    namespace(ctx, "e2e-prune")
    obj = {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
           "metadata": {"name": "web", "namespace": "e2e-prune"},
           "spec": {"replicas": 1, "notAField": "dropped",
                    "selector": {"matchLabels": {"app": "web"}},
                    "scaleStrategy": {"maxUnavailable": 1, "notAFieldEither": True},
                    "template": {"metadata": {"labels": {"app": "web"}},
                                 "spec": {"containers": [{"name": "app", "image": "nginx",
                                                          "futureContainerField": "gone"}]}}}}
    ctx.kube.create("/apis/apps.kruise.io/v1alpha1/namespaces/e2e-prune/clonesets", obj)
    stored = json.loads(ctx.cluster.etcd_get("/registry/apps.kruise.io/clonesets/e2e-prune/web"))
    spec = stored["spec"]
    check(stored["apiVersion"] == "apps.kruise.io/v1beta1", "stored %s" % stored["apiVersion"])
    check("notAField" not in spec and "notAFieldEither" not in spec["scaleStrategy"] and
          spec["scaleStrategy"].get("maxUnavailable") == 1, "unknown fields pruned: %s" % spec)
    check("futureContainerField" not in spec["template"]["spec"]["containers"][0],
          "the template as Go encodes it: %s" % spec["template"])


WL_NS = "e2e-workloads"


def workload(kind, name, spec):
    return {"apiVersion": "apps.kruise.io/v1beta1", "kind": kind,
            "metadata": {"name": name, "namespace": WL_NS}, "spec": spec}


def pod_template(app, **extra):
    labels = {"app": app}
    labels.update(extra)
    return {"metadata": {"labels": labels},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.25"}]}}


def wl_path(kind, name=""):
    return "/apis/apps.kruise.io/v1beta1/namespaces/%s/%ss%s" % (WL_NS, kind.lower(),
                                                                 "/" + name if name else "")


def check_template_defaults(t, what):
    """SetDefaultPodSpec's marks: the core defaults and kruise's Always pull policy for a tagged
    image (for in-place update)."""
    s = t["spec"]
    c = s["containers"][0]
    check((s.get("dnsPolicy"), s.get("restartPolicy"), s.get("schedulerName"),
           s.get("terminationGracePeriodSeconds"), s.get("securityContext")) ==
          ("ClusterFirst", "Always", "default-scheduler", 30, {}), "%s: Pod spec defaults: %s" % (what, s))
    check((c.get("imagePullPolicy"), c.get("terminationMessagePath"),
           c.get("terminationMessagePolicy")) == ("Always", "/dev/termination-log", "File"),
          "%s: container defaults: %s" % (what, c))


@scenario
def workloads_are_defaulted_as_upstream(ctx):
    """A CloneSet applied with kubectl, and an Advanced StatefulSet, an Advanced DaemonSet and a
    UnitedDeployment created through the API server, come back with upstream's defaults
    (apis/apps/defaults: the strategies, limits and the Pod templates')."""
    namespace(ctx, WL_NS)
    kubectl_apply(ctx, [workload("CloneSet", "web", {"replicas": 2,
                                                     "selector": {"matchLabels": {"app": "web"}},
                                                     "template": pod_template("web")})])
    cs = ctx.kube.get(wl_path("CloneSet", "web"))["spec"]
    check(cs.get("revisionHistoryLimit") == 10 and cs["updateStrategy"] ==
          {"type": "RollingUpdate", "rollingUpdate": {"podUpdatePolicy": "ReCreate", "partition": 0,
                                                      "maxUnavailable": "20%", "maxSurge": 0}},
          "CloneSet defaults: %s" % cs)
    check_template_defaults(cs["template"], "CloneSet")

    sts = ctx.kube.create(wl_path("StatefulSet"), workload(
        "StatefulSet", "db", {"serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                              "template": pod_template("db")}))["spec"]
    check((sts.get("replicas"), sts.get("revisionHistoryLimit"), sts.get("podManagementPolicy")) ==
          (1, 10, "OrderedReady") and sts["updateStrategy"] ==
          {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1,
                                                      "podUpdatePolicy": "ReCreate",
                                                      "minReadySeconds": 0}} and
          sts.get("persistentVolumeClaimRetentionPolicy") ==
          {"whenDeleted": "Retain", "whenScaled": "Retain"}, "Advanced StatefulSet defaults: %s" % sts)
    check_template_defaults(sts["template"], "Advanced StatefulSet")

    ds = ctx.kube.create(wl_path("DaemonSet"), workload(
        "DaemonSet", "agent", {"selector": {"matchLabels": {"app": "agent"}},
                               "template": pod_template("agent")}))["spec"]
    check(ds.get("burstReplicas") == 250 and ds.get("revisionHistoryLimit") == 10 and
          ds["updateStrategy"] == {"type": "RollingUpdate",
                                   "rollingUpdate": {"rollingUpdateType": "Standard",
                                                     "maxUnavailable": 1, "maxSurge": 0}},
          "Advanced DaemonSet defaults: %s" % ds)

    ud = ctx.kube.create(wl_path("UnitedDeployment"), workload(
        "UnitedDeployment", "multi", {
            "selector": {"matchLabels": {"app": "multi"}},
            "template": {"statefulSetTemplate": {"metadata": {"labels": {"app": "multi"}},
                                                 "spec": {"selector": {"matchLabels": {"app": "multi"}},
                                                          "template": pod_template("multi")}}},
            "topology": {"subsets": [{"name": "a", "maxReplicas": 3}, {"name": "b"}]}}))["spec"]
    check((ud.get("replicas"), ud.get("revisionHistoryLimit"), ud.get("updateStrategy")) ==
          (1, 10, {"type": "Manual", "manualUpdate": {}}) and
          [x.get("minReplicas") for x in ud["topology"]["subsets"]] == [0, 0],
          "UnitedDeployment defaults: %s" % ud)
    check_template_defaults(ud["template"]["statefulSetTemplate"]["spec"]["template"],
                            "UnitedDeployment's statefulSetTemplate")


def refused(ctx, method, path, body, webhook, code, message):
    st, out = ctx.kube.call(method, path, body)
    msg = (out or {}).get("message", "")
    check(st == code and ('admission webhook "%s" denied the request: ' % webhook) in msg and
          message in msg, "%s %s: expected %d with %r, got %s %s" % (method, path, code, message, st, msg))


@scenario
def invalid_workloads_are_refused_with_upstream_messages(ctx):
    """Each kind's invalid object refused through the API server with upstream's answer code and
    message, nothing stored; a CloneSet UPDATE that changes the selector is refused (the
    CloneSet of workloads_are_defaulted_as_upstream is left as it was)."""
    namespace(ctx, WL_NS)
    bad = workload("CloneSet", "bad", {"replicas": 1, "selector": {"matchLabels": {"app": "bad"}},
                                       "template": pod_template("other")})
    refused(ctx, "POST", wl_path("CloneSet"), bad, "vcloneset.kb.io", 422,
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: "
            "`selector` does not match template `labels`")
    check(ctx.kube.get(wl_path("CloneSet", "bad")) is None, "no invalid CloneSet stored")

    cs = ctx.kube.get(wl_path("CloneSet", "web"))
    cs["spec"]["selector"] = {"matchLabels": {"app": "web", "tier": "front"}}
    cs["spec"]["template"]["metadata"]["labels"]["tier"] = "front"
    refused(ctx, "PUT", wl_path("CloneSet", "web"), cs, "vcloneset.kb.io", 422,
            "spec: Forbidden: updates to cloneset spec for fields other than")
    check(ctx.kube.get(wl_path("CloneSet", "web"))["spec"]["selector"] ==
          {"matchLabels": {"app": "web"}}, "the CloneSet's selector unchanged")

    bad = workload("StatefulSet", "bad", {"selector": {"matchLabels": {"app": "bad"}},
                                          "podManagementPolicy": "Sometimes",
                                          "template": pod_template("bad")})
    refused(ctx, "POST", wl_path("StatefulSet"), bad, "vstatefulset.kb.io", 422,
            "spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'")

    bad = workload("DaemonSet", "bad", {"selector": {"matchLabels": {"app": "bad"}},
                                        "template": pod_template("bad"),
                                        "updateStrategy": {"type": "Sometimes"}})
    refused(ctx, "POST", wl_path("DaemonSet"), bad, "vdaemonset.kb.io", 500,  # upstream's code
            "spec.updateStrategy: Unsupported value: v1beta1.DaemonSetUpdateStrategy{Type:\"Sometimes\", "
            "RollingUpdate:(*v1beta1.RollingUpdateDaemonSet)(nil)}: supported values: \"RollingUpdate\", \"OnDelete\"")

    bad = workload("UnitedDeployment", "bad", {
        "selector": {"matchLabels": {"app": "bad"}},
        "template": {"deploymentTemplate": {"metadata": {"labels": {"app": "bad"}},
                                            "spec": {"selector": {"matchLabels": {"app": "bad"}},
                                                     "template": pod_template("bad")}}},
        "topology": {"subsets": [{"name": "a"}, {"name": "a"}]}})
    refused(ctx, "POST", wl_path("UnitedDeployment"), bad, "vuniteddeployment.kb.io", 422,
            "spec.topology.subsets[1].name: Invalid value: \"a\": duplicated subset name a")
    for kind in ("StatefulSet", "DaemonSet", "UnitedDeployment"):
        check(ctx.kube.get(wl_path(kind, "bad")) is None, "no invalid %s stored" % kind)


@scenario
def protected_namespace_deletion_is_refused(ctx):
    """DELETE of a Namespace labelled delete-protection Always is refused with the reason; an
    unlabelled one is deleted (it stays Terminating: no namespace controller here)."""
    namespace(ctx, "e2e-protected", {"policy.kruise.io/delete-protection": "Always"})
    namespace(ctx, "e2e-free")
    st, out = ctx.kube.call("DELETE", "/api/v1/namespaces/e2e-protected")
    msg = (out or {}).get("message", "")
    check(st == 403 and "forbidden by ResourcesProtectionDeletion for "  # upstream's words
          "policy.kruise.io/delete-protection=Always" in msg,
          "protected: %s %s" % (st, msg))
    check(ctx.kube.get("/api/v1/namespaces/e2e-protected")["status"]["phase"] == "Active", "kept")
    st, out = ctx.kube.call("DELETE", "/api/v1/namespaces/e2e-free")
    check(st == 200 and out["status"]["phase"] == "Terminating", "free: %s %s" % (st, out))


def kubectl_stdin(ctx, verb, doc):
    """`kubectl VERB -f -` of doc; returns (exit status, stdout, stderr)."""
    r = subprocess.run([ctx.kubectl, "--kubeconfig", ctx.kubeconfig, verb, "-f", "-"],
                       input=yaml.safe_dump(doc), capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def explain(ctx, *args):
    """`kruise-webhook explain ARGS` against the suite's API server; (exit status, stdout)."""
    r = subprocess.run([ctx.bin, "explain"] + list(args) + ["--kubeconfig", ctx.kubeconfig],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode in (0, 1), "explain %s: %d %s %s" % (args, r.returncode, r.stdout,
                                                           r.stderr))
    return r.returncode, r.stdout


@scenario
def kubectl_prints_the_admission_warnings(ctx):
    """`kubectl apply` of a SidecarSet whose namespaceSelector matches no namespace prints
    the server's warning, and `kubectl create` of a v1alpha1 object prints its own; both are
    created (a warning never refuses)."""
    if not ctx.kubectl:
        return "skipped: " + kubectl_mod.reason
    nowhere = sidecarset("e2e-nowhere", "nowhere-agent",
                         namespaceSelector={"matchLabels": {"e2e": "no-such-namespace"}})
    rc, out, err = kubectl_stdin(ctx, "apply", nowhere)
    check(rc == 0 and "Warning: spec.namespaceSelector matches no namespace that exists: nothing "
          "is injected until one does" in err, "kubectl apply: %d %s %s" % (rc, out, err))
    check(ctx.kube.get(SS_PATH % "v1beta1" + "/e2e-nowhere") is not None, "created")
    old = sidecarset("e2e-old", "old-agent", "v1alpha1",
                     selector={"matchLabels": {"app": "e2e-old"}})
    rc, out, err = kubectl_stdin(ctx, "create", old)
    check(rc == 0 and "Warning: apps.kruise.io/v1alpha1 SidecarSet is an older version; "
          "apps.kruise.io/v1beta1 is served (use it)" in err,
          "kubectl create: %d %s %s" % (rc, out, err))
    for name in ("e2e-nowhere", "e2e-old"):
        ctx.kube.delete(SS_PATH % "v1beta1" + "/" + name)


@scenario
def kubectl_prints_the_warnings_that_read_live_pods(ctx):
    """The warnings that ask the API server for Pods: a PodUnavailableBudget whose selector
    matches no Pod, and a SidecarSet that upstream admits (its selector and e2e-log's are
    disjoint by upstream's rule) though an existing Pod is selected by both and both inject
    log-agent."""
    if not ctx.kubectl:
        return "skipped: " + kubectl_mod.reason
    namespace(ctx, "e2e-inject", {"e2e": "inject"})
    pub = {"apiVersion": "policy.kruise.io/v1beta1", "kind": "PodUnavailableBudget",
           "metadata": {"name": "nothing", "namespace": "e2e-inject"},
           "spec": {"selector": {"matchLabels": {"app": "no-such-app"}}, "maxUnavailable": 1}}
    rc, out, err = kubectl_stdin(ctx, "apply", pub)
    check(rc == 0 and "Warning: spec.selector matches no Pod in namespace e2e-inject yet: the "
          "budget covers none" in err, "kubectl apply PUB: %d %s %s" % (rc, out, err))
    create_pod(ctx, "e2e-inject", "both", {"app": "web", "tier": "front"})
    tier = sidecarset("e2e-tier", "log-agent",
                      selector={"matchExpressions": [{"key": "tier", "operator": "Exists"}]})
    rc, out, err = kubectl_stdin(ctx, "apply", tier)
    check(rc == 0, "kubectl apply SidecarSet: %d %s %s" % (rc, out, err))
    check("Warning: container log-agent is injected by SidecarSet e2e-log too, into Pods both "
          "select (e2e-inject/" in err, "kubectl apply SidecarSet: %s" % err)
    ctx.kube.delete(SS_PATH % "v1beta1" + "/e2e-tier")
    ctx.kube.delete("/apis/policy.kruise.io/v1beta1/namespaces/e2e-inject/"
                    "podunavailablebudgets/nothing")


@scenario
def explain_pod_gives_the_decision_mutate_pod_made(ctx):
    """For Pods created through the API server, one the SidecarSet e2e-log (left by the
    injection scenario) selects and one it does not, `explain pod` says what /mutate-pod did:
    injected at the SidecarSet's current hash, or not and why."""
    namespace(ctx, "e2e-inject", {"e2e": "inject"})
    namespace(ctx, "e2e-plain")
    pod = create_pod(ctx, "e2e-inject", "explained")
    plain = create_pod(ctx, "e2e-plain", "explained")
    check("log-agent" in container_names(pod) and "log-agent" not in container_names(plain),
          "injection: %s %s" % (container_names(pod), container_names(plain)))
    rc, out = explain(ctx, "pod", "e2e-inject/explained")
    line = [l.split() for l in out.splitlines() if l.split()[:1] == ["e2e-log"]]
    check(rc == 0 and line and line[0][1] == "injected", out)
    check("e2e-log: the Pod has it, at the SidecarSet's current hash" in out, out)
    rc, out = explain(ctx, "pod", "e2e-plain/explained")
    line = [l.split() for l in out.splitlines() if l.split()[:1] == ["e2e-log"]]
    check(rc == 0 and line and line[0][1:3] == ["not", "injected"], out)


@scenario
def explain_eviction_predicts_the_next_eviction(ctx):
    """A PodUnavailableBudget of 2 over 5 ready Pods (its status as the PUB controller, which
    does not run here, would write it): before each of three evictions `explain eviction`
    predicts its answer (allowed, allowed, refused with "2 of 5 Pods are unavailable"), and
    the API server's answer to the eviction is that one; the refusal carries the warning."""
    ns = "e2e-pub"
    namespace(ctx, ns)
    pubs = "/apis/policy.kruise.io/v1beta1/namespaces/%s/podunavailablebudgets" % ns
    ctx.kube.create(pubs, {"apiVersion": "policy.kruise.io/v1beta1",
                           "kind": "PodUnavailableBudget", "metadata": {"name": "budget"},
                           "spec": {"selector": {"matchLabels": {"app": "budgeted"}},
                                    "maxUnavailable": 2}})
    for i in range(5):
        pod = ctx.kube.create("/api/v1/namespaces/%s/pods" % ns, {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "b-%d" % i, "labels": {"app": "budgeted"}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.25"}]}})
        check(pod["metadata"].get("annotations", {}).get("kruise.io/related-pub") == "budget",
              "the Pod names its PUB: %s" % pod["metadata"].get("annotations"))
        pod["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                         "containerStatuses": [{"name": "app", "image": "nginx:1.25",
                                                "imageID": "nginx@sha256:0", "ready": True,
                                                "restartCount": 0, "state": {"running": {}}}]}
        ctx.kube.put("/api/v1/namespaces/%s/pods/b-%d/status" % (ns, i), pod)
    pub = ctx.kube.get(pubs + "/budget")
    pub["status"] = {"totalReplicas": 5, "desiredAvailable": 3, "currentAvailable": 5,
                     "unavailableAllowed": 2, "observedGeneration": pub["metadata"]["generation"]}
    ctx.kube.put(pubs + "/budget/status", pub)
    for i, expect in enumerate((0, 0, 1)):
        name = "b-%d" % i
        rc, out = explain(ctx, "eviction", "%s/%s" % (ns, name))
        check(rc == expect, "explain eviction %s: exit %d, expected %d: %s" % (name, rc, expect,
                                                                              out))
        st, body = ctx.kube.call("POST", "/api/v1/namespaces/%s/pods/%s/eviction" % (ns, name),
                                 {"apiVersion": "policy/v1", "kind": "Eviction",
                                  "metadata": {"name": name, "namespace": ns}})
        check((st == 201) == (rc == 0), "eviction of %s: %s %s; explain said %s" %
              (name, st, body, out))
        if rc:
            check("warning: 2 of 5 Pods are unavailable or being disrupted; the budget allows 2"
                  in out, out)
            check(any("2 of 5 Pods are unavailable or being disrupted; the budget allows 2" in w
                      for w in ctx.kube.warnings), "the refusal's warning: %s" % ctx.kube.warnings)
        else:
            # the server's write-back must be seen before the next prediction
            wait_for(lambda: name in (ctx.kube.get(pubs + "/budget").get("status", {})
                                      .get("disruptedPods") or {}), 10, "%s recorded" % name)
    return "explain predicted allowed, allowed, refused; the evictions answered the same"


@scenario
def reset_cabundle_is_repaired(ctx):
    """caBundle reset to Cg== (a newline) on an entry and a CRD: repaired from the watch, and
    Pods are admitted again."""
    cfg = config(ctx, True)
    for e in cfg["webhooks"]:
        e["clientConfig"]["caBundle"] = "Cg=="
    ctx.kube.put(CFG_PATH % ("mutating", MUTATING), cfg)
    crd = ctx.kube.get(CRD_PATH + CRDS[0])
    crd["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"] = "Cg=="
    ctx.kube.put(CRD_PATH + CRDS[0], crd)
    t0 = time.time()
    wait_for(lambda: all(b == ctx.ca for b in bundles(ctx).values()), REPAIR_BOUND,
             "every caBundle repaired")
    took = time.time() - t0
    pod = create_pod(ctx, "e2e-inject", "after-repair")
    check("log-agent" in container_names(pod), "admitted and injected after the repair")
    return "repaired in %.2fs" % took


class Load:
    """Reviews sent straight to the server from two threads while the API server is away:
    it must keep answering them from its caches."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.stop = threading.Event()
        self.ok = self.bad = 0
        self.errors = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, daemon=True) for _ in range(2)]

    def review(self, conn, uid):
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "load", "namespace": "e2e-inject", "labels": {"app": "web"}},
               "spec": {"containers": [{"name": "app", "image": "nginx:1.25"}]}}
        body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                           "request": {"uid": uid, "kind": {"group": "", "version": "v1",
                                                            "kind": "Pod"},
                                       "resource": {"group": "", "version": "v1",
                                                    "resource": "pods"},
                                       "namespace": "e2e-inject", "operation": "CREATE",
                                       "userInfo": {"username": "e2e"}, "object": pod,
                                       "options": {"apiVersion": "meta.k8s.io/v1",
                                                   "kind": "CreateOptions"}}})
        conn.request("POST", "/mutate-pod", body, {"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read()
        resp = json.loads(data)["response"] if r.status == 200 else {}
        patch = json.loads(base64.b64decode(resp.get("patch", ""))) if resp.get("patch") else []
        return r.status == 200 and resp.get("allowed") and "log-agent" in json.dumps(patch), data

    def run(self):
        tls = ssl.create_default_context(cadata=self.ctx.ca.decode())
        conn, n = None, 0
        while not self.stop.is_set():
            n += 1
            try:
                conn = conn or http.client.HTTPSConnection("127.0.0.1", self.ctx.port,
                                                           context=tls, timeout=10)
                ok, data = self.review(conn, "load-%s-%d" % (threading.get_ident(), n))
            except (OSError, http.client.HTTPException, ValueError) as e:
                ok, data, conn = False, repr(e).encode(), None
            with self.lock:
                if ok:
                    self.ok += 1
                else:
                    self.bad += 1
                    self.errors.append(data[:300])
            time.sleep(0.005)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(15)


@scenario
def api_server_restart_under_load(ctx):
    """The API server stopped for a few seconds and started again while reviews keep coming:
    the server answers every one from its caches, stays ready, its watches resume, and a
    SidecarSet created after the restart reaches the next Pod within RESUME_BOUND of the API
    server's return."""
    s = ctx.server
    with Load(ctx) as load:
        time.sleep(0.5)
        argv = ctx.cluster.stop_apiserver()
        try:
            down_ok = load.ok
            # Away long enough for a backoff without a low cap (client-go's: 30 s) to grow
            # past the bound: with it, the watches came back 5 to 15 s late.
            for _ in range(100):
                check(s.readyz()[0] == 200, "ready while the API server is away")
                time.sleep(0.1)
            check(load.ok > down_ok, "reviews answered while the API server was away: "
                  "%d ok, %d failed: %s" % (load.ok, load.bad, load.errors[:2]))
        finally:
            ctx.cluster.start_apiserver(argv)
        wait_for(ctx.kube.ready, 60, "the API server back")
        back = time.time()
        ctx.kube.create(SS_PATH % "v1beta1",
                        sidecarset("e2e-late", "late-agent",
                                   namespaceSelector={"matchLabels": {"e2e": "inject"}}))
        created = time.time()
        n = [0]

        def next_pod_has_it():
            n[0] += 1
            return "late-agent" in container_names(create_pod(ctx, "e2e-inject", "late-%d" % n[0]))
        wait_for(next_pod_has_it, 30, "a Pod with the SidecarSet created after the restart",
                 step=0.05)
        reached = time.time()
    check(load.bad == 0, "%d of %d reviews failed: %s" % (load.bad, load.ok + load.bad,
                                                          load.errors[:3]))
    check(reached - back <= RESUME_BOUND,
          "a SidecarSet created when the API server was back reached a Pod %.2fs after the "
          "return (bound %.1fs)" % (reached - back, RESUME_BOUND))
    return ("%d reviews, none failed; SidecarSet created %.2fs after the API server was back "
            "reached a Pod %.2fs later" % (load.ok, created - back, reached - created))


@scenario
def server_restart_reuses_certificates_and_answers_at_once(ctx):
    """SIGTERM and start again: the Secret is not rewritten, the same certificate is served,
    the server is ready at once and the API server's calls go through."""
    before, items = secret_items(ctx)
    ctx.server.stop()
    took = ctx.server.start().wait_ready()
    log = ctx.server.log_text()
    check("generated a new" not in log, "no certificate generated:\n" + log[-2000:])
    after, _ = secret_items(ctx)
    check(after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"],
          "the Secret was not written")
    check(took < 10, "ready %.1fs after start" % took)
    pod = create_pod(ctx, "e2e-inject", "after-restart")
    check("log-agent" in container_names(pod), "the first Pod after the restart is injected")
    return "ready %.2fs after start" % took


@scenario
def feature_gates_off_unserved_entries_go_and_reapply_works(ctx):
    """The server again with the default gates, the cert dir as its store and ECDSA keys:
    - the entries for /validate-service and /validate-ingress (turned off) are removed, so a
      labelled Service can be deleted (it failed with 'no webhook is served at this path');
    - re-applying the URL-form manifests is accepted and changes nothing the server keeps
      (the Service form is what the API server refuses once the server wrote its URLs);
    - the new ECDSA certificates reach every caBundle, Pods are injected through them, and
      the API server reads the cert dir's certificates."""
    ctx.server.stop()
    certs = os.path.join(ctx.dir, "certs-c")
    ctx.server = Server(ctx, "c", {"WEBHOOK_CERT_DIR": certs},
                        ["--cert-key-type", "ecdsa"]).start()
    ctx.server.wait_ready()
    paths = lambda: [e["clientConfig"]["url"].rsplit("/", 1)[1]  # noqa: E731
                     for e in config(ctx, False)["webhooks"]]
    wait_for(lambda: "validate-service" not in paths() and "validate-ingress" not in paths(),
             10, "the unserved entries removed")
    check("validate-namespace" in paths(), "served entries kept")
    ctx.kube.create("/api/v1/namespaces/e2e-plain/services",
                    {"apiVersion": "v1", "kind": "Service",
                     "metadata": {"name": "kept", "labels": {
                         "policy.kruise.io/delete-protection": "Always"}},
                     "spec": {"ports": [{"port": 80}]}})
    st, out = ctx.kube.call("DELETE", "/api/v1/namespaces/e2e-plain/services/kept")
    check(st == 200, "Service deleted: %s %s" % (st, out))

    ca = open(os.path.join(certs, "ca-cert.pem"), "rb").read()
    wait_for(lambda: all(b == ca for b in bundles(ctx).values()), 10, "the new CA everywhere")
    ctx.ca = ca
    items = {n: open(os.path.join(certs, n), "rb").read()
             for n in ("ca-cert.pem", "ca-key.pem", "cert.pem", "key.pem")}
    check_read_by_apiserver(ctx, items, "the cert dir")
    pod = create_pod(ctx, "e2e-inject", "ecdsa")
    check("log-agent" in container_names(pod), "injected through the ECDSA certificates")

    docs = [d for d in rendered(ctx, "with-crds") if "WebhookConfiguration" in d["kind"]]
    kubectl_apply(ctx, docs)
    wait_for(lambda: "validate-service" not in paths(), 10, "removed again after the re-apply")
    wait_for(lambda: all(b == ca for b in bundles(ctx).values()), 10, "caBundles kept")


@scenario
def certs_inspect_knows_the_url_mode_host(ctx):
    """`certs inspect DIR --cluster` with the server's environment, and with none of its
    settings (no WEBHOOK_HOST, no WEBHOOK_PORT): the host and port the cluster's entries call
    (127.0.0.1 and the suite's port) are the ones checked, and every CRD converted there is
    checked (issue 22: without both variables it said "0 of 0" and "match: yes")."""
    d = os.path.join(ctx.dir, "certs-c")
    bare = {k: v for k, v in os.environ.items() if k not in ("WEBHOOK_HOST", "WEBHOOK_PORT")}
    for env in (ctx.server.env, dict(bare, KUBECONFIG=ctx.kubeconfig)):
        r = subprocess.run([ctx.bin, "certs", "inspect", d, "--cluster"], capture_output=True,
                           text=True, env=env, timeout=60)
        check(r.returncode == 0 and "valid for 127.0.0.1: yes" in r.stdout and
              "CRDs converted by us: %d of %d trust the CA" % (len(CRDS), len(CRDS)) in r.stdout
              and "match: yes" in r.stdout,
              "inspect: %s\n%s%s" % (r.returncode, r.stdout, r.stderr))


@scenario
def deleting_the_cert_dir_fails_no_pod(ctx):
    """Issue 22: the cert dir of a URL-mode server (its store) deleted while Pods are created
    in a loop of 200: the server notices within its reload interval and writes back the
    certificates it presents (the caBundles trust them); no new CA is published alone, and no
    Pod create fails (before: x509 unknown authority for 2-3 % of them, noticed 44-55 s
    later)."""
    s = ctx.server
    d = s.env.get("WEBHOOK_CERT_DIR")
    if not d or s.env.get("WEBHOOK_CERT_WRITER") == "secret":
        return "skipped: needs the URL-mode server of feature_gates_off_... (run the whole suite)"
    ca = open(os.path.join(d, "ca-cert.pem"), "rb").read()
    mark = len(s.log_text())
    with PodLoop(ctx, "rmdir") as loop:
        wait_for(lambda: len(loop.pods) >= 20, 60, "Pods before the deletion")
        # Gone at once, as `rm -rf` ends (rmtree itself races the server writing it back).
        os.rename(d, d + ".deleted")
        t0 = time.time()
        shutil.rmtree(d + ".deleted")
        wait_for(lambda: os.path.exists(os.path.join(d, "tls.crt")), 30, "the cert dir back",
                 step=0.005)
        back = time.time() - t0
        wait_for(lambda: len(loop.pods) >= 200, 120, "200 Pods")
    failed = [e for _, _, _, e in loop.pods if e]
    check(not failed, "%d of %d Pod creates failed: %s" % (len(failed), len(loop.pods),
                                                          failed[:3]))
    check(back <= RESTORE_BOUND, "the cert dir came back %.2fs after its deletion (bound %.1fs)"
          % (back, RESTORE_BOUND))
    check(open(os.path.join(d, "ca-cert.pem"), "rb").read() == ca, "the same CA written back")
    check(all(b == ca for b in bundles(ctx).values()), "the caBundles unchanged")
    log = s.log_text()[mark:]
    check("was changed or deleted by someone else" in log and "generated a new" not in log,
          "noticed, and nothing generated:\n" + log[-2000:])
    check(s.metric("kruise_webhook_certs_ca_bundle_certificates") == 1, "one CA published")
    return "%d Pods, none failed; the cert dir was back %.2fs after its deletion" % (
        len(loop.pods), back)


@scenario
def url_mode_port_change_moves_the_crd_conversions(ctx):
    """Issue 22: the URL-mode server restarted on another port: the webhook entries and every
    CRD's conversion call the new port, the change is logged as a repair, and v1alpha1 reads
    (converted through the new port) work. Before, the CRDs kept the old port: every v1alpha1
    read failed with "connection refused", /readyz stayed 200 and nothing was logged. Then back
    to the suite's port."""
    if ctx.server is None or ctx.kube.get(SS_PATH % "v1alpha1" + "/e2e-conv") is None:
        return "skipped: needs the earlier scenarios (run the whole suite)"
    keep = {k: v for k, v in ctx.server.env.items()
            if k in ("WEBHOOK_CERT_DIR", "WEBHOOK_CERT_WRITER", "SECRET_NAME")}
    ctx.server.stop()
    other = free_port()
    args = ["--cert-key-type", "ecdsa"]  # as feature_gates_off_... started it
    s = ctx.server = Server(ctx, "port", dict(keep, WEBHOOK_PORT=str(other)), args).start()
    try:
        s.wait_ready()

        def conversions_on(port):
            return all(ctx.kube.get(CRD_PATH + n)["spec"]["conversion"]["webhook"]["clientConfig"]
                       .get("url") == "https://127.0.0.1:%d/convert" % port for n in CRDS)
        wait_for(lambda: conversions_on(other), 10, "every CRD converted through port %d" % other)
        check(all(e["clientConfig"]["url"].startswith("https://127.0.0.1:%d/" % other)
                  for m in (True, False) for e in config(ctx, m)["webhooks"]), "entries moved")
        alpha = ctx.kube.get(SS_PATH % "v1alpha1" + "/e2e-conv")
        check(alpha["apiVersion"] == "apps.kruise.io/v1alpha1", "v1alpha1 read: %s" % alpha)
        log = s.log_text()
        check("repaired the conversion of CRD" in log, "the repair logged:\n" + log[-2000:])
        check(s.metric("kruise_webhook_certs_drift", kind="customresourcedefinition") == 0,
              "no drift left")
    finally:
        s.stop()
        ctx.server = Server(ctx, "c", keep, args).start()
    ctx.server.wait_ready()
    wait_for(lambda: conversions_on(ctx.port), 10, "the CRDs back on the suite's port")
    return "%d CRDs moved to port %d and back" % (len(CRDS), other)


class PodLoop:
    """Pods created one after another through the API server in a namespace where the
    SidecarSet e2e-log injects log-agent: for each, whether kruise-manager's stand-in mutated
    it, how many log-agent containers it got, or the error the API server answered."""

    def __init__(self, ctx, prefix):
        self.ctx, self.prefix = ctx, prefix
        self.stop = threading.Event()
        self.pods = []  # (time, kruise-manager mutated, log-agent containers, error)
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        n = 0
        while not self.stop.is_set():
            n += 1
            t = time.time()
            try:
                pod = create_pod(self.ctx, "e2e-inject", "%s-%d" % (self.prefix, n))
                marked = km_mod.MARK in (pod["metadata"].get("annotations") or {})
                self.pods.append((t, marked, container_names(pod).count("log-agent"), None))
            except (ApiError, OSError, http.client.HTTPException) as e:
                self.pods.append((t, False, 0, str(e)[:300]))
            time.sleep(0.01)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(30)


def ca_der(pem):
    return ssl.PEM_cert_to_DER_cert(pem.decode() if isinstance(pem, bytes) else pem)


def sans(cert_pem):
    r = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName"], input=cert_pem,
                       capture_output=True, timeout=30)
    return r.stdout.decode()


def migration_script(ctx):
    """What both migration scenarios need (kubectl, and the SidecarSet e2e-log that
    pod_gets_its_sidecars_only_where_the_sidecarset_matches leaves): (None, the command line of
    scripts/migrate-webhooks.py), or (the reason to skip, None)."""
    if not ctx.kubectl:
        return "skipped: " + kubectl_mod.reason, None
    if ctx.kube.get(SS_PATH % "v1beta1" + "/e2e-log") is None:
        return ("skipped: needs the SidecarSet of "
                "pod_gets_its_sidecars_only_where_the_sidecarset_matches (run the whole suite)",
                None)
    return None, [sys.executable, os.path.join(ROOT, "scripts", "migrate-webhooks.py"),
                  "--kubectl", ctx.kubectl, "--kubeconfig", ctx.kubeconfig]


@scenario
def migration_from_kruise_manager_path_by_path(ctx):
    """docs/migrating.md against an upstream-shaped OpenKruise webhook: kruise-manager's Secret
    (its keys), its two configurations with the template annotation its first sync writes,
    entries in URL form calling a stand-in that allows everything and marks the Pods it
    mutates. While Pods are created in a loop:
    - `kubectl apply -k manifests/migration/` (empty configurations, SECRET_NAME =
      kruise-webhook-certs) and the server started with it: it keeps the CA; its certificate
      also names kruise-manager's host, so kruise-manager would keep it; no caBundle changes;
    - scripts/migrate-webhooks.py moves every path, one at a time: after each move every path
      has entries in exactly one configuration, those of kruise-manager are what its own
      next sync would rebuild from its template (it puts nothing back), every caBundle is
      still the CA, and the moved path is answered by this server (a protected Namespace's
      dry-run deletion, an invalid SidecarSet: allowed by the stand-in, refused here);
    - `back` returns a path and `move` takes it again.
    No Pod is refused, none misses both servers' mutation, none gets a sidecar twice; Pods
    created around the instant /mutate-pod moved may carry both marks (the two writes of a
    move are milliseconds apart; both answers are the same): counted, not failed.
    Where upstream's own kruise-manager can be built (make kruise-manager), the next scenario
    runs the migration against it instead, and checks this stand-in's model of it."""
    if ctx.kruise_manager:
        return ("skipped: upstream's own kruise-manager runs the migration "
                "(migration_from_the_real_kruise_manager)")
    skip, script = migration_script(ctx)
    if skip:
        return skip
    if ctx.server:
        ctx.server.stop()
    for kind, name in (("mutating", MUTATING), ("validating", VALIDATING)):
        ctx.kube.delete(CFG_PATH % (kind, name))
    # Our entries, and OpenKruise's as its chart has them (service form, upstream's timeout).
    ours = os.path.join(ctx.dir, "our-entries.yaml")
    entries = url_form(ctx, ["manifests/base/webhookconfigurations.yaml"])
    with open(ours, "w") as f:
        yaml.safe_dump_all(entries, f)
    chart = {}
    for d in yaml.safe_load_all(open(os.path.join(ROOT, "manifests", "base",
                                                  "webhookconfigurations.yaml"))):
        chart[d["kind"]] = []
        for e in d["webhooks"]:
            e.pop("timeoutSeconds", None)
            e["clientConfig"]["service"]["name"] = km_mod.SERVICE
            sel = [x for x in e["namespaceSelector"]["matchExpressions"]
                   if x["key"] != "kubernetes.io/metadata.name"]
            e.pop("namespaceSelector")
            if sel:
                e["namespaceSelector"] = {"matchExpressions": sel}
            chart[d["kind"]].append(e)
    chart["ValidatingWebhookConfiguration"].append(km_mod.ONLY_UPSTREAM)
    km = km_mod.KruiseManager(ctx.dir, ctx.bin, free_port()).start()
    ca = km.files["ca-cert.pem"]
    try:
        ctx.kube.create("/api/v1/namespaces/%s/secrets" % NS, km.secret())
        for obj in km.configurations(chart):
            k = km_mod.CONFIGS[obj["kind"]][0]
            live = ctx.kube.create((CFG_PATH % (k, "")).rstrip("/"), obj)
            ctx.kube.put(CFG_PATH % (k, obj["metadata"]["name"]), km.first_sync(live))
        namespace(ctx, "e2e-mig-protected", {"policy.kruise.io/delete-protection": "Always"})
        # The protected Namespace's deletion and an invalid SidecarSet, both as dry runs:
        # allowed by the stand-in, refused by this server.
        bad_ss = sidecarset("e2e-mig-invalid", "bad")
        del bad_ss["spec"]["selector"]
        probes = {
            "/validate-namespace": lambda: ctx.kube.call(
                "DELETE", "/api/v1/namespaces/e2e-mig-protected?dryRun=All")[0],
            "/validate-apps-kruise-io-sidecarset": lambda: ctx.kube.call(
                "POST", SS_PATH % "v1beta1" + "?dryRun=All", bad_ss)[0]}

        def kruise_manager_keeps_its_objects():
            for kind, (k, name) in km_mod.CONFIGS.items():
                live = ctx.kube.get(CFG_PATH % (k, name))
                check((live.get("webhooks") or []) == km.ensured(live),
                      "%s: kruise-manager's next sync would rewrite it" % name)

        def every_path_once():
            r = subprocess.run(script + ["status", "--entries", ours], capture_output=True,
                               text=True, timeout=120)
            check(r.returncode == 0, "status: %s%s" % (r.stdout, r.stderr))
            return r.stdout

        def bundles_are_the_ca():
            for kind, (k, name) in list(km_mod.CONFIGS.items()) + [
                    ("", ("mutating", MUTATING)), ("", ("validating", VALIDATING))]:
                for e in ctx.kube.get(CFG_PATH % (k, name)).get("webhooks") or []:
                    check(base64.b64decode(e["clientConfig"]["caBundle"]) == ca,
                          "%s of %s: caBundle is not kruise-manager's CA" % (e["name"], name))
        for p, probe in probes.items():
            check(probe() in (200, 201), "%s: the stand-in allows it before the move" % p)

        with PodLoop(ctx, "mig") as loop:
            time.sleep(0.5)
            kubectl_apply(ctx, rendered(ctx, "migration"))
            ctx.server = Server(ctx, "m", {"WEBHOOK_CERT_WRITER": "secret",
                                           "WEBHOOK_CERT_DIR": os.path.join(ctx.dir, "certs-m"),
                                           "SECRET_NAME": km_mod.SECRET},
                                ["--feature-gates", "ResourcesDeletionProtection=true"]).start()
            ctx.server.wait_ready()
            _, items = secret_items_of(ctx, km_mod.SECRET)
            check(items["ca-cert.pem"] == ca, "the CA of kruise-manager's Secret is kept")
            names = sans(items["cert.pem"])
            check("IP Address:127.0.0.1" in names and "DNS:localhost" in names and
                  "DNS:kruise-webhook-service.kruise-system.svc" in names,
                  "the Secret's certificate names both servers: %s" % names)
            kruise_manager_keeps_its_objects()
            bundles_are_the_ca()
            paths = sorted({p for d in entries for p in
                            (e["clientConfig"]["url"].split(str(ctx.port), 1)[1]
                             for e in d["webhooks"])})
            moved_pod_at = None
            for p in paths:
                r = subprocess.run(script + ["move", p, "--entries", ours], capture_output=True,
                                   text=True, timeout=120)
                check(r.returncode == 0, "move %s: %s%s" % (p, r.stdout, r.stderr))
                if p == "/mutate-pod":
                    moved_pod_at = time.time()
                every_path_once()
                kruise_manager_keeps_its_objects()
                bundles_are_the_ca()
                if p in probes:
                    check(probes[p]() in (403, 500), "%s: refused by this server once moved" % p)
            status = every_path_once()
            check(all(line.endswith("kruise-webhook") for line in status.splitlines()),
                  "every path moved:\n" + status)
            live = ctx.kube.get(CFG_PATH % ("validating", km_mod.CONFIGS[
                "ValidatingWebhookConfiguration"][1]))
            check([e["name"] for e in live["webhooks"]] == [km_mod.ONLY_UPSTREAM["name"]],
                  "kruise-manager keeps the paths only it serves: %s" % live["webhooks"])
            # The way back, and forward again.
            for cmd, want in (("back", 200), ("move", 403)):
                r = subprocess.run(script + [cmd, "/validate-namespace", "--entries", ours],
                                   capture_output=True, text=True, timeout=120)
                check(r.returncode == 0, "%s: %s%s" % (cmd, r.stdout, r.stderr))
                every_path_once()
                kruise_manager_keeps_its_objects()
                bundles_are_the_ca()
                check(probes["/validate-namespace"]() == want, "after %s" % cmd)
            asked = km.asked("/mutate-pod")
            time.sleep(1)
        check(km.asked("/mutate-pod") == asked, "kruise-manager is no longer asked for Pods")
        pods = loop.pods
        failed = [e for _, _, _, e in pods if e]
        check(not failed, "%d of %d Pods refused: %s" % (len(failed), len(pods), failed[:3]))
        unserved = [t for t, marked, agents, _ in pods if not marked and agents == 0]
        check(not unserved, "%d Pods mutated by neither server (%s s from the move of "
              "/mutate-pod)" % (len(unserved), sorted(set(round(t - (moved_pod_at or 0), 1)
                                                           for t in unserved))[:20]))
        check(all(agents <= 1 for _, _, agents, _ in pods), "a sidecar injected twice")
        both = [t for t, marked, agents, _ in pods if marked and agents]
        check(moved_pod_at and all(abs(t - moved_pod_at) < 5 for t in both),
              "Pods mutated by both servers away from the move of /mutate-pod")
        before = sum(1 for _, marked, agents, _ in pods if marked and not agents)
        return ("%d Pods: %d by kruise-manager, %d by this server, %d by both around the move "
                "of /mutate-pod; %d paths moved; no caBundle changed" %
                (len(pods), before, len(pods) - before - len(both), len(both), len(paths)))
    finally:
        km.stop()


@scenario
def migration_from_the_real_kruise_manager(ctx):
    """docs/migrating.md against upstream's own kruise-manager (make kruise-manager builds it
    from upstream's main.go), installed from upstream's own manifests (config/default: its
    empty Secret, its Service, its two configurations in service form) and run out of cluster
    in URL mode, writing its certificates to its Secret. Then, while Pods are created in a
    loop (each must get the SidecarSet e2e-log's sidecar exactly once, from whichever server
    answers):
    - kruise-manager's first sync: its Secret has the keys the stand-in writes, its
      configurations the template annotation and the URL-form entries the stand-in's model
      (kruise_manager.ensured) predicts; it listens on loopback only;
    - `kubectl apply -k manifests/migration/` and this server started with it: the CA is
      kept, the new certificate names kruise-manager's host too, and kruise-manager, at the
      sync the changed Secret triggers, keeps it and serves it;
    - every path moved with scripts/migrate-webhooks.py (the probed paths and /mutate-pod one
      at a time, then the rest with move --all): after kruise-manager's own sync that each run
      of the script triggers, every path has entries in exactly one configuration (it put
      nothing back), its entries are still what the stand-in's model predicts, every caBundle
      is the CA, and a probe of a moved path (a protected Namespace's dry-run deletion, an
      invalid SidecarSet) is answered by this server, not by kruise-manager (their request
      counters);
    - `back` and `move` of /validate-namespace, answered by kruise-manager, then here.
    No Pod is refused or misses its sidecar; kruise-manager is no longer asked for Pods; the
    CRDs' conversion settles (kruise-manager keeps it, as docs/migrating.md says)."""
    if not ctx.kruise_manager:
        return "skipped: " + ctx.kruise_manager_reason
    skip, script = migration_script(ctx)
    if skip:
        return skip
    if ctx.server:
        ctx.server.stop()
        ctx.server = None
    # A cluster without this server's configurations, and without what an earlier scenario
    # left of an OpenKruise: upstream's install creates them afresh.
    for k, name in [("mutating", MUTATING), ("validating", VALIDATING)] + \
            list(km_mod.CONFIGS.values()):
        ctx.kube.delete(CFG_PATH % (k, name))
    ctx.kube.delete("/api/v1/namespaces/%s/secrets/%s" % (NS, km_mod.SECRET))
    ours = os.path.join(ctx.dir, "our-entries-real.yaml")
    entries = url_form(ctx, ["manifests/base/webhookconfigurations.yaml"])
    with open(ours, "w") as f:
        yaml.safe_dump_all(entries, f)
    paths = sorted({e["clientConfig"]["url"].split(str(ctx.port), 1)[1]
                    for d in entries for e in d["webhooks"]})
    km = km_mod.RealKruiseManager(ctx.kruise_manager, ctx.dir, ctx.kubeconfig, free_port(),
                                  free_port(), free_port())

    def km_ready():
        check(km.alive(), "kruise-manager exited:\n" + km.log_text()[-3000:])
        return km.ready()

    def our_count(path):
        return (ctx.server.metric("controller_runtime_webhook_requests_total", webhook=path)
                or 0) if ctx.server else 0

    def answered_by(path, probe):
        before = (km.asked(path), our_count(path))
        code = probe()
        after = (km.asked(path), our_count(path))
        who = [n for n, b, a in zip(("kruise-manager", "kruise-webhook"), before, after) if a > b]
        return code, "+".join(who) or "nobody"

    def after_its_sync(action, what):
        """action(), then kruise-manager's next finished sync (its watch of its Secret and
        configurations starts one on every change)."""
        n = km.syncs()
        action()
        wait_for(lambda: km_ready() and km.syncs() > n, 60, "kruise-manager's sync after " + what)

    def run_script(*args):
        r = subprocess.run(script + list(args) + ["--entries", ours], capture_output=True,
                           text=True, timeout=120)
        check(r.returncode == 0, "%s: %s%s" % (" ".join(args), r.stdout, r.stderr))
        return r.stdout

    served = set()

    def its_objects_as_the_model_says():
        for kind, (k, name) in km_mod.CONFIGS.items():
            live = ctx.kube.get(CFG_PATH % (k, name))
            check((live.get("webhooks") or []) ==
                  km_mod.ensured(live, ca, km.host, km.port, served),
                  "%s: not what the stand-in's model of kruise-manager's sync predicts" % name)

    def bundles_are_the_ca():
        for k, name in list(km_mod.CONFIGS.values()) + [("mutating", MUTATING),
                                                         ("validating", VALIDATING)]:
            for e in ctx.kube.get(CFG_PATH % (k, name)).get("webhooks") or []:
                check(base64.b64decode(e["clientConfig"]["caBundle"]) == ca,
                      "%s of %s: caBundle is not kruise-manager's CA" % (e["name"], name))

    try:
        docs = km.manifests(lambda d: kubectl_mod.kustomize(ctx.kubectl, d))
        kubectl_apply(ctx, docs)
        km.start()
        wait_for(km_ready, 120, "kruise-manager ready", step=0.5)
        check(not km.listening_beyond_loopback(),
              "kruise-manager listens beyond loopback: %s" % km.listening_beyond_loopback())
        # Its first sync, against the stand-in's model of it.
        _, items = secret_items_of(ctx, km_mod.SECRET)
        stand_in_keys = set(km_mod.KruiseManager.secret_keys())
        check(set(items) == stand_in_keys, "kruise-manager's Secret has %s, the stand-in's %s"
              % (sorted(items), sorted(stand_in_keys)))
        ca = items["ca-cert.pem"]
        served |= km.served()
        applied = {d["kind"]: d for d in docs}
        for kind, (k, name) in km_mod.CONFIGS.items():
            live = ctx.kube.get(CFG_PATH % (k, name))
            template = json.loads(live["metadata"]["annotations"]["template"])
            check([e["name"] for e in template] == [e["name"] for e in applied[kind]["webhooks"]]
                  and all("service" in e["clientConfig"] for e in template),
                  "%s: the template is the installed entries in service form" % name)
        its_objects_as_the_model_says()
        namespace(ctx, "e2e-realkm-protected", {"policy.kruise.io/delete-protection": "Always"})
        bad_ss = sidecarset("e2e-realkm-invalid", "bad")
        del bad_ss["spec"]["selector"]
        probes = {
            "/validate-namespace": lambda: ctx.kube.call(
                "DELETE", "/api/v1/namespaces/e2e-realkm-protected?dryRun=All")[0],
            "/validate-apps-kruise-io-sidecarset": lambda: ctx.kube.call(
                "POST", SS_PATH % "v1beta1" + "?dryRun=All", bad_ss)[0]}
        for p, probe in probes.items():
            code, who = answered_by(p, probe)
            check(code in (403, 500) and who == "kruise-manager",
                  "%s before the move: %s by %s" % (p, code, who))

        with PodLoop(ctx, "realkm") as loop:
            time.sleep(0.5)
            kubectl_apply(ctx, rendered(ctx, "migration"))

            def start_ours():
                ctx.server = Server(ctx, "mr", {"WEBHOOK_CERT_WRITER": "secret",
                                                "WEBHOOK_CERT_DIR": os.path.join(ctx.dir,
                                                                                 "certs-mr"),
                                                "SECRET_NAME": km_mod.SECRET},
                                    ["--feature-gates", "ResourcesDeletionProtection=true"])
                ctx.server.start().wait_ready()
            after_its_sync(start_ours, "this server rewrote the Secret")
            _, items = secret_items_of(ctx, km_mod.SECRET)
            check(items["ca-cert.pem"] == ca, "the CA of kruise-manager's Secret is kept")
            names = sans(items["cert.pem"])
            check("DNS:%s" % km.host in names and "IP Address:127.0.0.1" in names,
                  "the Secret's certificate names both servers: %s" % names)
            after_its_sync(lambda: None, "the Secret was read")  # a second look: no rewrite
            _, again = secret_items_of(ctx, km_mod.SECRET)
            check(again == items, "kruise-manager kept this server's certificate")
            wait_for(lambda: open(os.path.join(km.dir, "certs", "cert.pem"), "rb").read() ==
                     items["cert.pem"], 30, "kruise-manager serving the new certificate")
            its_objects_as_the_model_says()
            bundles_are_the_ca()
            # The probed paths and /mutate-pod one at a time, then every other path in one run
            # of the script (it moves them one by one; the stand-in scenario checks after each).
            moved_pod_at = None
            for step in [[p] for p in sorted(probes)] + [["/mutate-pod"]] + [["--all"]]:
                after_its_sync(lambda: run_script("move", *step), "the move of %s" % step)
                if step == ["/mutate-pod"]:
                    moved_pod_at = time.time()
                run_script("status")
                its_objects_as_the_model_says()
                bundles_are_the_ca()
                for p in probes:
                    if p in step or step == ["--all"]:
                        code, who = answered_by(p, probes[p])
                        check(code in (403, 500) and who == "kruise-webhook",
                              "%s once moved: %s by %s" % (p, code, who))
            status = run_script("status")
            check(all(line.endswith("kruise-webhook") for line in status.splitlines()),
                  "every path moved:\n" + status)
            left = [e["clientConfig"]["url"] for k, name in km_mod.CONFIGS.values()
                    for e in ctx.kube.get(CFG_PATH % (k, name)).get("webhooks") or []]
            # this server serves every path of upstream's (test/manifests/check.py's NOT_YET
            # is empty), so kruise-manager keeps none
            check(not left, "every path moved, yet kruise-manager keeps: %s" % left)
            for cmd, want in (("back", "kruise-manager"), ("move", "kruise-webhook")):
                after_its_sync(lambda: run_script(cmd, "/validate-namespace"), cmd)
                run_script("status")
                its_objects_as_the_model_says()
                bundles_are_the_ca()
                code, who = answered_by("/validate-namespace", probes["/validate-namespace"])
                check(code == 403 and who == want, "after %s: %s by %s" % (cmd, code, who))
            asked = km.asked("/mutate-pod")
            time.sleep(1)
        check(km.asked("/mutate-pod") == asked, "kruise-manager is no longer asked for Pods")
        pods = loop.pods
        failed = [e for _, _, _, e in pods if e]
        check(not failed, "%d of %d Pods refused: %s" % (len(failed), len(pods), failed[:3]))
        wrong = [(round(t - (moved_pod_at or 0), 1), agents) for t, _, agents, _ in pods
                 if agents != 1]
        check(not wrong, "Pods without exactly one sidecar (s from the move of /mutate-pod, "
              "sidecars): %s" % wrong[:20])
        # The CRDs' conversion: kruise-manager points every Kruise CRD at itself at each sync;
        # nobody rewrites it back and forth (before the fix the two servers did, each rewrite
        # answered within a second).
        versions = {n: ctx.kube.get(CRD_PATH + n)["metadata"]["resourceVersion"] for n in CRDS}
        time.sleep(5)
        moved = [n for n in CRDS
                 if ctx.kube.get(CRD_PATH + n)["metadata"]["resourceVersion"] != versions[n]]
        check(not moved, "CRDs rewritten after the migration settled: %s" % moved)
        urls = {ctx.kube.get(CRD_PATH + n)["spec"]["conversion"]["webhook"]["clientConfig"]
                .get("url") for n in CRDS}
        return ("%d Pods, %d asked of kruise-manager; %d paths moved; kruise-manager serves %d "
                "paths of its own; CRD conversion at %s" %
                (len(pods), asked, len(paths), len(left), sorted(urls)))
    finally:
        km.stop()
        # OpenKruise gone: its configurations' entries would call nobody (failurePolicy Fail)
        # and the CRDs' conversion would point at it; the suite's CRDs go back to this server.
        for k, name in km_mod.CONFIGS.values():
            ctx.kube.delete(CFG_PATH % (k, name))
        kubectl_apply(ctx, [d for d in rendered(ctx, "with-crds")
                            if d["kind"] == "CustomResourceDefinition"])


@scenario
def sigterm_fails_no_admission_during_the_shutdown_delay(ctx):
    """A server told to stop keeps its listener for --shutdown-delay with /readyz at 503 (the
    endpoints drop it meanwhile): Pods created through the API server and reviews sent straight
    to it over kept-alive connections all succeed after SIGTERM, none refused, until a second
    SIGTERM ends the delay; then it exits 0. (Before --shutdown-delay the listener closed at
    once and every request after the signal was refused.)"""
    env = dict(ctx.server.env) if ctx.server else {}
    if ctx.server:
        ctx.server.stop()
    keep = {k: env[k] for k in ("WEBHOOK_CERT_WRITER", "WEBHOOK_CERT_DIR", "SECRET_NAME")
            if k in env}
    s = ctx.server = Server(ctx, "sigterm", keep, ["--feature-gates",
                                                   "ResourcesDeletionProtection=true",
                                                   "--shutdown-delay", "1h"]).start()
    s.wait_ready()
    certs = keep.get("WEBHOOK_CERT_DIR")
    if certs:  # the reviews sent straight to it trust its CA
        ctx.ca = open(os.path.join(certs, "ca-cert.pem"), "rb").read()
    try:
        with PodLoop(ctx, "term") as loop, Load(ctx) as load:
            wait_for(lambda: len(loop.pods) >= 5 and load.ok >= 20, 30,
                     "admissions before SIGTERM (%d Pods, %d reviews, %s)" %
                     (len(loop.pods), load.ok, load.errors[:1]))
            s.proc.send_signal(signal.SIGTERM)
            wait_for(lambda: s.readyz()[0] == 503, 10, "/readyz 503 after SIGTERM")
            pods_at, reviews_at = len(loop.pods), load.ok
            wait_for(lambda: len(loop.pods) >= pods_at + 40 and load.ok >= reviews_at + 200, 60,
                     "admissions during the delay")
            check(s.proc.poll() is None and s.readyz()[0] == 503, "still serving, not ready")
    finally:
        # The second SIGTERM ends the delay (after a failed check too: then the runner's stop,
        # if this was the first, sends the second).
        if s.proc.poll() is None:
            s.proc.send_signal(signal.SIGTERM)
    after = loop.pods[pods_at:]
    failed = [e for _, _, _, e in loop.pods if e]
    check(not failed, "%d of %d Pods refused: %s" % (len(failed), len(loop.pods), failed[:3]))
    check(all(agents == 1 for _, _, agents, _ in after), "Pods injected during the delay")
    check(load.bad == 0, "%d of %d reviews failed: %s" % (load.bad, load.ok + load.bad,
                                                          load.errors[:3]))
    s.proc.wait(30)
    s.log.close()
    text = s.log_text()
    check(s.proc.returncode == 0 and "Sanitizer" not in text and "runtime error" not in text,
          "exit %s:\n%s" % (s.proc.returncode, text[-3000:]))
    ctx.server = None
    return ("after SIGTERM, with /readyz at 503: %d Pods created and %d reviews answered, "
            "none refused" % (len(after), load.ok - reviews_at))


@scenario
def readme_uninstall_removes_the_configurations_first(ctx):
    """The README's uninstall (section "Uninstall"), run as written, last: with no server
    running (the previous scenario stopped it) every Pod creation is refused through
    failurePolicy Fail; the README's first two commands remove both webhook configurations,
    which admits Pods again before anything else goes; then the tree goes, and no webhook
    configuration of the server is left."""
    if not ctx.kubectl:
        return "skipped: no kubectl to run it with (%s)" % kubectl_mod.reason
    namespace(ctx, "e2e-uninstall")
    st, out = ctx.kube.call("POST", "/api/v1/namespaces/e2e-uninstall/pods?dryRun=All",
                            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                             "spec": {"containers": [{"name": "app", "image": "nginx"}]}})
    check(st >= 400 and "failed calling webhook" in (out or {}).get("message", ""),
          "with no server, a Pod is refused: %s %s" % (st, out))
    cmds = readme_commands("Uninstall")
    check(len(cmds) == 3 and all(c.startswith("kubectl delete ") for c in cmds) and
          "webhookconfiguration" in cmds[0] + cmds[1], "the README's uninstall: %s" % cmds)
    env = dict(os.environ, KUBECONFIG=ctx.kubeconfig)
    for i, cmd in enumerate(cmds):
        # --wait=false: kubectl would wait for the namespace, which only a controller manager
        # finishes deleting (none runs here).
        r = subprocess.run([ctx.kubectl] + cmd.split()[1:] + ["--wait=false"], cwd=ROOT,
                           capture_output=True, text=True, timeout=300, env=env)
        check(r.returncode == 0, "%s: %s%s" % (cmd, r.stdout[-2000:], r.stderr[-2000:]))
        if i == 1:
            check(config(ctx, True) is None and config(ctx, False) is None,
                  "both configurations gone after the first two commands")
            pod = create_pod(ctx, "e2e-uninstall", "admitted")
            check(pod["metadata"]["name"] == "admitted", "a Pod is admitted: %s" % pod)
    left = [i["metadata"]["name"] for kind in ("mutating", "validating")
            for i in ctx.kube.get("/apis/admissionregistration.k8s.io/v1/%swebhookconfigurations"
                                  % kind)["items"] if i["metadata"]["name"] in (MUTATING,
                                                                                VALIDATING)]
    check(not left, "webhook configurations left: %s" % left)
    check(ctx.kube.get("/apis/apps/v1/namespaces/%s/deployments/kruise-webhook-server" % NS)
          is None, "the Deployment is gone")


# --- the runner ------------------------------------------------------------------------------


class Ctx:
    pass


def install_base(ctx):
    """What the suite needs before any server: the kruise namespace and the CRDs of
    manifests/with-crds/ as `kubectl apply -k` renders them, in URL form (so that whichever
    server listens on the suite's port converts), applied with kubectl."""
    docs = [d for d in rendered(ctx, "with-crds")
            if d["kind"] in ("Namespace", "CustomResourceDefinition")]
    kubectl_apply(ctx, docs)
    crds = [d for d in docs if d["kind"] == "CustomResourceDefinition"]
    CRDS[:] = [d["metadata"]["name"] for d in crds if d["spec"].get("conversion")]
    check(len(CRDS) == 15, "the CRDs of every converted kind: %s" % CRDS)
    check(sorted(d["metadata"]["name"] for d in crds if not d["spec"].get("conversion")) ==
          ["ephemeraljobs.apps.kruise.io", "podprobemarkers.apps.kruise.io"],
          "the CRDs of one version: EphemeralJob's and PodProbeMarker's")
    for name in [d["metadata"]["name"] for d in crds]:
        wait_for(lambda: any(c["type"] == "Established" and c["status"] == "True" for c in
                             ctx.kube.get(CRD_PATH + name).get("status", {}).get("conditions",
                                                                                   [])),
                 30, name + " established")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--harness")
    ap.add_argument("--k8s", default=os.environ.get("K8S_DIR") or
                    os.path.join(ROOT, "..", "shared", "k8s"))
    ap.add_argument("--kruise-manager", help="upstream's kruise-manager (make kruise-manager)")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()

    ctx = Ctx()
    ctx.bin = os.path.abspath(args.bin)
    ctx.harness = os.path.abspath(args.harness) if args.harness else None
    ctx.kruise_manager = None
    if not args.kruise_manager:
        ctx.kruise_manager_reason = "no --kruise-manager (make e2e passes make kruise-manager's)"
    elif not os.access(args.kruise_manager, os.X_OK):
        ctx.kruise_manager_reason = ("no upstream kruise-manager at %s (make kruise-manager says "
                                     "why)" % args.kruise_manager)
    else:
        ctx.kruise_manager = os.path.abspath(args.kruise_manager)
    ctx.dir = tempfile.mkdtemp(prefix="wh-e2e-")
    ctx.port = free_port()
    ctx.server = None
    ctx.cluster = Cluster(args.k8s, ctx.dir)
    ctx.kubectl = kubectl_mod.find()
    # SIGTERM (make interrupted) unwinds like ^C, so the API server is always stopped.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    t_start = time.time()
    passed = failed = 0
    try:
        try:
            ctx.kubeconfig = ctx.cluster.start()
        except Skip as e:
            print("e2e: skipped: %s" % e)
            shutil.rmtree(ctx.dir, ignore_errors=True)
            return 0
        ctx.kube = Kube(ctx.kubeconfig, ctx.dir)
        if ctx.kubectl:
            print("e2e: manifests/ rendered and applied with %s (%s)" %
                  (ctx.kubectl, kubectl_mod.version(ctx.kubectl)))
        else:
            print("e2e: skipped rendering with kubectl and kubectl apply: %s (the tree is read "
                  "from its kustomization files and applied server-side)" % kubectl_mod.reason)
        install_base(ctx)
        for fn in SCENARIOS:
            if args.names and fn.__name__ not in args.names:
                continue
            t0 = time.time()
            try:
                note = fn(ctx)
                passed += 1
                print("ok   %s (%.1fs)%s" % (fn.__name__, time.time() - t0,
                                            ": " + note if note else ""))
            except Exception as e:  # noqa: BLE001 - every failure is reported the same way
                failed += 1
                print("FAIL %s: %s" % (fn.__name__, e if isinstance(e, (Failure, ApiError,
                                                                       TimeoutError))
                                       else traceback.format_exc()))
            sys.stdout.flush()
        if ctx.server:
            try:
                ctx.server.stop()
            except Failure as e:
                failed += 1
                print("FAIL the server did not stop cleanly: %s" % e)
    finally:
        ctx.cluster.stop()
        if ctx.server and ctx.server.proc and ctx.server.proc.poll() is None:
            ctx.server.proc.kill()
    print("e2e wall time %.1fs" % (time.time() - t_start))
    if failed:
        print("(logs kept in %s)" % ctx.dir)
    else:
        shutil.rmtree(ctx.dir, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
