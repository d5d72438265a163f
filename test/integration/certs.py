#!/usr/bin/env python3
"""End-to-end tests of the certificate controller (docs/certificates.md, spec certs.md): the
real kruise-webhook binary in API mode against the fake API server (test/apiserver). Each
test starts its own API server and servers in a scratch directory. Prints one line per
failure and ends with "N passed, N failed".

Usage: certs.py --bin build/kruise-webhook [test-name ...]
"""

import argparse
import base64
import http.client
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time


from testlib import FakeApiServer, Failure, Suite, check, http_get, stop_all, track  # the suites' shared runner, next to this file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TLS = os.path.join(ROOT, "test", "data", "tls")
BIN = None

NS = "kruise-system"
SECRET = "kruise-webhook-server-certs"  # the default, as manifests/ creates it
# The fake cluster's CRDs are OpenKruise's and name upstream's Service: servers here take it
# over through SERVICE_NAME (unless a test sets its own), so that they convert those CRDs.
SERVICE = "kruise-webhook-service"
DNS = SERVICE + "." + NS + ".svc"
MUTATING = "kruise-webhook-server-mutating"
VALIDATING = "kruise-webhook-server-validating"
PEM_RE = re.compile(rb"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----\n?", re.S)


SUITE = Suite("wh-certs-")
test = SUITE.test


def wait_for(cond, timeout, what, step=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(step)
    raise Failure("timed out after %ss waiting for %s" % (timeout, what))


# --- the fake API server -------------------------------------------------------------------


class ApiServer(FakeApiServer):
    """The fake API server with OpenKruise's CRDs, and what these tests read from it."""

    def __init__(self, workdir):
        super().__init__(workdir, ["--kruise-crds"])
        self.lock = threading.Lock()

    def secret(self):
        return self.get("/api/v1/namespaces/%s/secrets/%s" % (NS, SECRET))

    def config(self, mutating=True):
        kind = "mutating" if mutating else "validating"
        return self.get("/apis/admissionregistration.k8s.io/v1/%swebhookconfigurations/%s" %
                        (kind, MUTATING if mutating else VALIDATING))

    def crd(self, name):
        return self.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name)

    def writes(self, what=None, clear=True):
        return [r for r in self.requests(clear) if r["method"] != "GET"
                and (what is None or what in r["path"])]


def webhook_entry(name, path):
    return {"name": name, "admissionReviewVersions": ["v1"], "sideEffects": "None",
            "failurePolicy": "Fail",
            "clientConfig": {"service": {"namespace": NS, "name": SERVICE, "path": path}}}


def cluster_setup(api):
    """The namespace and the two configurations as manifests/ ships them (shortened), plus an
    entry for a path we do not serve, which must stay untouched."""
    api.objects([
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}},
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
         "metadata": {"name": MUTATING},
         "webhooks": [webhook_entry("msidecarset.kb.io", "/mutate-apps-kruise-io-sidecarset"),
                      webhook_entry("mfoo.example.io", "/mutate-foo")]},
        {"apiVersion": "admissionregistration.k8s.io/v1",
         "kind": "ValidatingWebhookConfiguration", "metadata": {"name": VALIDATING},
         "webhooks": [webhook_entry("vnamespace.kb.io", "/validate-namespace")]},
    ])


def bundle_of(cfg, i=0):
    b64 = cfg["webhooks"][i]["clientConfig"].get("caBundle")
    return base64.b64decode(b64) if b64 else b""


def secret_item(secret, key):
    return base64.b64decode(secret["data"][key])


def cas(pem):
    return PEM_RE.findall(pem)


# --- the server under test -----------------------------------------------------------------


class Server:
    def __init__(self, workdir, name, api, args=(), wait_ready=True):
        self.name = name
        self.cert_dir = os.path.join(workdir, "certs-" + name)
        self.log_path = os.path.join(workdir, name + ".log")
        self.log = open(self.log_path, "wb")
        # Loopback only, every listener (the loopback guard refuses anything else).
        cmd = [BIN, "--kubeconfig", api.kubeconfig, "--port", "0", "--bind-address", "127.0.0.1",
               "--cert-dir", self.cert_dir, "--health-addr", "127.0.0.1:0",
               "--metrics-addr", "127.0.0.1:0",
               "--cert-reload-interval", "200ms", "--log-format", "text", "--shutdown-delay", "0",
               "--ca-publish-delay", "1s", "--cert-key-type", "ecdsa"] + list(args)
        env = dict(os.environ)
        env.setdefault("SERVICE_NAME", SERVICE)
        self.proc = track(subprocess.Popen(cmd, stdout=self.log, stderr=self.log, env=env))
        self.port = self.health_port = self.metrics_port = None
        if wait_ready:
            self.wait_listening()

    def wait_listening(self, timeout=60):
        def listening():
            m = re.search(rb"listening https=(\d+) health=(\d+) metrics=(\d+)", self.read_log())
            if m:
                return m
            if self.proc.poll() is not None:
                raise Failure("%s exited:\n%s" % (self.name, self.read_log()[-3000:].decode()))
            return None
        m = wait_for(listening, timeout, self.name + " listening")
        self.port, self.health_port, self.metrics_port = map(int, m.groups())

    def read_log(self):
        with open(self.log_path, "rb") as f:
            return f.read()

    def plain(self, port, path):
        return http_get(port, path)

    def ready(self):
        return self.plain(self.health_port, "/readyz")[0] == 200

    def metric(self, name, **labels):
        text = self.plain(self.metrics_port, "/metrics")[1].decode()
        for line in text.splitlines():
            m = re.match(r"([a-z_]+)(\{(.*)\})? (\S+)$", line)
            if not m or m.group(1) != name:
                continue
            got = dict(re.findall(r'(\w+)="([^"]*)"', m.group(3) or ""))
            if all(got.get(k) == v for k, v in labels.items()):
                return float(m.group(4))
        return None

    def review(self, cadata, host=DNS):
        """A ConversionReview sent as the API server does: over TLS that trusts cadata only
        and checks the service's DNS name."""
        ctx = ssl.create_default_context(cadata=cadata.decode())
        raw = ctx.wrap_socket(socket.create_connection(("127.0.0.1", self.port), 10),
                              server_hostname=host)
        body = json.dumps({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                           "request": {"uid": "u", "desiredAPIVersion": "apps.kruise.io/v1beta1",
                                       "objects": []}}).encode()
        raw.sendall(b"POST /convert HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (host.encode(), len(body),
                                                                          body))
        data = b""
        while True:
            chunk = raw.recv(65536)
            if not chunk:
                break
            data += chunk
        raw.close()
        return int(data.split(b" ", 2)[1])

    def stop(self, timeout=20):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise Failure("%s did not exit within %ss of SIGTERM" % (self.name, timeout))
        self.log.close()
        log = self.read_log()
        if self.proc.returncode != 0 or b"Sanitizer" in log or b"runtime error" in log:
            raise Failure("%s exited with %s:\n%s" % (self.name, self.proc.returncode,
                                                    log[-3000:].decode(errors="replace")))


def chains_to(server, ca_pem):
    try:
        return server.review(ca_pem) == 200
    except (ssl.SSLError, OSError):
        return False


# --- the tests -----------------------------------------------------------------------------


@test
def first_start_creates_secret_files_cabundles_and_restart_reuses(tmp):
    """CERT-30/31/33/45/52/57/58/72, then CERT-80 (a restart reuses everything)."""
    api = ApiServer(tmp)
    servers = []
    try:
        cluster_setup(api)
        s = Server(tmp, "a", api)
        servers.append(s)
        # Ready once initialised and called through the configuration as the API server would.
        wait_for(s.ready, 10, "ready")
        check(b"called this server as the API server does" in s.read_log(), "the self-call")
        secret = api.secret()
        check(sorted(secret["data"]) == ["ca-cert.pem", "ca-key.pem", "cert.pem", "key.pem",
                                         "tls.crt", "tls.key"], "six keys: %s" % sorted(secret["data"]))
        ca = secret_item(secret, "ca-cert.pem")
        check(open(os.path.join(s.cert_dir, "ca-cert.pem"), "rb").read() == ca, "cert dir CA")
        check(os.stat(os.path.join(s.cert_dir, "tls.key")).st_mode & 0o777 == 0o600, "key 0600")
        m, v = api.config(True), api.config(False)
        check(bundle_of(m) == ca and bundle_of(v) == ca, "caBundles injected")
        check(m["webhooks"][0]["clientConfig"]["service"] == {"namespace": NS, "name": SERVICE,
                                                              "path": "/mutate-apps-kruise-io-sidecarset"},
              "service reference: %s" % m["webhooks"][0]["clientConfig"])
        check("caBundle" not in m["webhooks"][1]["clientConfig"], "unserved entry untouched")
        crd = api.crd("clonesets.apps.kruise.io")
        check(base64.b64decode(crd["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"]) == ca,
              "CRD conversion caBundle")
        check(chains_to(s, ca), "the served certificate chains to the caBundle for " + DNS)
        check(s.metric("kruise_webhook_certs_initialized") == 1, "initialised metric")
        check(s.metric("kruise_webhook_certs_not_after_seconds", certificate="ca") > time.time(),
              "CA notAfter metric")
        rv = secret["metadata"]["resourceVersion"]
        s.stop()
        servers.remove(s)
        api.requests()
        s2 = Server(tmp, "a2", api)
        servers.append(s2)
        check(api.secret()["metadata"]["resourceVersion"] == rv, "the Secret was kept")
        check(not api.writes("/secrets"), "no Secret writes on restart")
        check(not api.writes("webhookconfigurations", clear=False), "no configuration writes")
        check(chains_to(s2, ca), "the restarted server serves the same CA")
    finally:
        stop_all(*servers, api)


@test
def cabundle_reset_is_repaired_within_a_second_without_write_storm(tmp):
    """CERT-53/59: `caBundle: Cg==` re-applied is repaired at once (watch), with one write,
    and a quiet cluster sees no writes at all (the only writes are the replica's serving
    report heartbeats, on its own Lease)."""
    api = ApiServer(tmp)
    s = None
    try:
        cluster_setup(api)
        s = Server(tmp, "a", api)
        ca = secret_item(api.secret(), "ca-cert.pem")
        time.sleep(1)
        api.requests()
        time.sleep(3)
        quiet = api.writes()
        check(not [w for w in quiet if "leases" not in w["path"]], "writes while quiet: %s" % quiet)
        for mutating in (True, False):
            cfg = api.config(mutating)
            for e in cfg["webhooks"]:
                e["clientConfig"]["caBundle"] = "Cg=="
            api.objects([cfg])
        t0 = time.time()
        wait_for(lambda: bundle_of(api.config(True)) == ca and bundle_of(api.config(False)) == ca,
                 5, "caBundles repaired")
        took = time.time() - t0
        check(took < 1.0, "repaired in %.2fs" % took)
        time.sleep(2)
        writes = [w for w in api.writes() if "webhookconfigurations" in w["path"]]
        check(len(writes) == 2, "one write per configuration: %s" % writes)
        check(bundle_of(api.config(True), 1) == b"\n", "the unserved entry keeps its Cg==")
        # A Kruise CRD reset (CRD watch, CERT-59): repaired too.
        crd = api.crd("sidecarsets.apps.kruise.io")
        crd["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"] = "Cg=="
        api.objects([crd])
        cc = lambda: api.crd("sidecarsets.apps.kruise.io")["spec"]["conversion"]["webhook"]
        wait_for(lambda: base64.b64decode(cc()["clientConfig"]["caBundle"]) == ca, 2,
                 "the CRD caBundle repaired")
        check(s.metric("kruise_webhook_certs_writes_total",
                       kind="mutatingwebhookconfiguration") == 2, "write metric")
    finally:
        stop_all(s, api)


@test
def deleted_secret_is_regenerated_and_reinjected(tmp):
    """CERT-42: a deleted Secret comes back with a new CA at once (its DELETE event); the
    caBundles carry old and new CA until the server presents the new certificate."""
    api = ApiServer(tmp)
    s = None
    try:
        cluster_setup(api)
        s = Server(tmp, "a", api)
        old = secret_item(api.secret(), "ca-cert.pem")
        st, _ = api.call("DELETE", "/api/v1/namespaces/%s/secrets/%s" % (NS, SECRET))
        check(st == 200, "delete: %s" % st)
        new = wait_for(lambda: api.secret() and secret_item(api.secret(), "ca-cert.pem"), 10,
                       "a new Secret")
        check(new != old, "a new CA")
        wait_for(lambda: bundle_of(api.config(True)) == new, 20, "caBundle = new CA only")
        check(chains_to(s, new), "serving a certificate of the new CA")
        wait_for(lambda: s.metric("kruise_webhook_certs_ca_rotations_total") == 1, 5,
                 "the rotation metric")
    finally:
        stop_all(s, api)


@test
def two_processes_at_once_end_with_one_secret(tmp):
    """CERT-33/80: no leader election, both create at once: one Secret, both serve it."""
    api = ApiServer(tmp)
    servers = []
    try:
        cluster_setup(api)
        servers = [Server(tmp, n, api, wait_ready=False) for n in ("a", "b")]
        for s in servers:
            s.wait_listening()
        ca = secret_item(api.secret(), "ca-cert.pem")
        posts = [w for w in api.writes("/secrets", clear=False) if w["method"] == "POST"]
        check(1 <= len(posts) <= 2, "creates: %s" % posts)
        for s in servers:
            check(chains_to(s, ca), "%s serves a certificate of the Secret's CA" % s.name)
        check(bundle_of(api.config(True)) == ca, "caBundle is the Secret's CA")
    finally:
        stop_all(*servers, api)


LE = ["--leader-elect", "--leader-election-lease-duration", "3s",
      "--leader-election-renew-deadline", "2s", "--leader-election-retry-period", "500ms"]


@test
def leader_elect_two_processes_one_writer(tmp):
    """--leader-elect: exactly one writer; the other serves the same certificates; when the
    writer leaves, the other takes over and repairs."""
    api = ApiServer(tmp)
    servers = []
    try:
        cluster_setup(api)
        servers = [Server(tmp, n, api, LE, wait_ready=False) for n in ("a", "b")]
        for s in servers:
            s.wait_listening()
        ca = secret_item(api.secret(), "ca-cert.pem")
        writers = [s for s in servers if s.metric("kruise_webhook_certs_writer") == 1]
        check(len(writers) == 1, "one writer: %s" % [s.name for s in writers])
        writer = writers[0]
        other = [s for s in servers if s is not writer][0]
        wrote = lambda s: sum(s.metric("kruise_webhook_certs_writes_total", kind=k) or 0
                              for k in ("secret", "mutatingwebhookconfiguration",
                                        "validatingwebhookconfiguration",
                                        "customresourcedefinition"))
        check(wrote(writer) > 0 and wrote(other) == 0, "writes: %s / %s" % (wrote(writer),
                                                                           wrote(other)))
        for s in servers:
            check(chains_to(s, ca), "%s serves the Secret's certificate" % s.name)
        lease = api.get("/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s-writer" % (NS, SECRET))
        check(lease["spec"]["holderIdentity"].startswith(os.uname().nodename), "holder %s" % lease)
        writer.stop()
        servers.remove(writer)
        wait_for(lambda: other.metric("kruise_webhook_certs_writer") == 1, 10, "takeover")
        cfg = api.config(True)
        cfg["webhooks"][0]["clientConfig"]["caBundle"] = "Cg=="
        api.objects([cfg])
        wait_for(lambda: bundle_of(api.config(True)) == ca, 5, "the new writer repairs")
    finally:
        stop_all(*servers, api)


def sign_short_cert(tmp, ca_dir, days):
    """A serving certificate for DNS signed by the CA of ca_dir, valid `days` days (openssl)."""
    key, csr, crt = (os.path.join(tmp, n) for n in ("short.key", "short.csr", "short.crt"))
    ext = os.path.join(tmp, "ext.cnf")
    with open(ext, "w") as f:
        f.write("subjectAltName=DNS:localhost,DNS:%s\nextendedKeyUsage=serverAuth\n"
                "keyUsage=critical,digitalSignature,keyEncipherment\n" % DNS)
    subprocess.run(["openssl", "genrsa", "-traditional", "-out", key, "2048"], check=True,
                   capture_output=True)
    subprocess.run(["openssl", "req", "-new", "-key", key, "-subj", "/CN=" + DNS, "-out", csr],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", os.path.join(ca_dir, "ca-cert.pem"),
                    "-CAkey", os.path.join(ca_dir, "ca-key.pem"), "-set_serial", "4242",
                    "-days", str(days), "-extfile", ext, "-out", crt], check=True, capture_output=True)
    return open(crt, "rb").read(), open(key, "rb").read()


def secret_object(files):
    data = {k: base64.b64encode(v).decode() for k, v in files.items()}
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"namespace": NS, "name": SECRET},
            "data": data}


@test
def rotation_inside_renewal_window_under_load_zero_failures(tmp):
    """The serving certificate enters the renewal window (CERT-40) while two replicas with
    --leader-elect serve a request loop whose clients trust the caBundle as it is at each
    request: the CA is replaced (CERT-41), old and new CA are published together until both
    replicas serve the new certificate, and no request fails; the servers hot-reload
    (CERT-71), nobody restarts."""
    api = ApiServer(tmp)
    servers = []
    done = threading.Event()
    errors, counts, max_cas = [], [0], [0]
    try:
        cluster_setup(api)
        gen = os.path.join(tmp, "gen")
        subprocess.run([BIN, "certs", "generate", "--out", gen, "--service", SERVICE,
                        "--namespace", NS, "--days", "30"], check=True, capture_output=True)
        files = {n: open(os.path.join(gen, n), "rb").read()
                 for n in ("ca-key.pem", "ca-cert.pem", "cert.pem", "key.pem")}
        files["tls.crt"], files["tls.key"] = files["cert.pem"], files["key.pem"]
        api.objects([secret_object(files)])
        old_ca = files["ca-cert.pem"]
        args = LE + ["--certs-renew-before", "20d", "--certs-resync-period", "2s"]
        servers = [Server(tmp, n, api, args, wait_ready=False) for n in ("a", "b")]
        for s in servers:
            s.wait_listening()
        check(bundle_of(api.config(False)) == old_ca, "the 30-day CA is in use")

        def loop(i):
            while not done.is_set():
                bundle = bundle_of(api.config(False))  # what the API server trusts now
                max_cas[0] = max(max_cas[0], len(cas(bundle)))
                s = servers[i % len(servers)]
                try:
                    st = s.review(bundle)
                    if st != 200:
                        errors.append("%s: HTTP %d" % (s.name, st))
                except Exception as e:  # noqa: BLE001 - any failure counts
                    errors.append("%s: %r" % (s.name, e))
                counts[0] += 1
                i += 1

        threads = [threading.Thread(target=loop, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        time.sleep(1)
        # A serving certificate of the same CA that expires within the 20-day margin: every
        # replica may load it (valid now, same CA), the writer must renew it.
        crt, key = sign_short_cert(tmp, gen, 10)
        files.update({"cert.pem": crt, "tls.crt": crt, "key.pem": key, "tls.key": key})
        api.objects([secret_object(files)])

        def rotated():
            b = bundle_of(api.config(False))
            return len(cas(b)) == 1 and b != old_ca and b
        new_ca = wait_for(rotated, 60, "the rotation to finish")
        time.sleep(1)
        done.set()
        for t in threads:
            t.join()
        check(not errors, "%d failed requests of %d: %s" % (len(errors), counts[0], errors[:5]))
        check(counts[0] > 20, "the loop kept running (%d requests)" % counts[0])
        check(max_cas[0] == 2, "old and new CA were published together (max %d)" % max_cas[0])
        for s in servers:
            check(chains_to(s, new_ca), "%s serves the new certificate" % s.name)
            check(s.proc.poll() is None, "%s was not restarted" % s.name)
        secret = api.secret()
        check(secret_item(secret, "ca-cert.pem") == new_ca, "the Secret holds the new CA")
        check(not secret["metadata"].get("annotations"), "rotation state cleared")
        crd = api.crd("clonesets.apps.kruise.io")
        check(base64.b64decode(crd["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"]) ==
              new_ca, "CRD caBundle follows")
    finally:
        done.set()
        stop_all(*servers, api)


@test
def renew_before_longer_than_the_validity_is_refused(tmp):
    """Issue 22: --certs-renew-before 11y with 10-year certificates renewed every certificate
    as soon as it was made (a CA rotation every 5.6 s, never listening, an exit after 60 s that
    named nothing) while --check-config said "configuration ok". Both refuse it now, naming the
    option and both durations, exit 2; so does the variable."""
    api = ApiServer(tmp)
    try:
        cluster_setup(api)
        base = [BIN, "--kubeconfig", api.kubeconfig, "--port", "0", "--bind-address", "127.0.0.1",
                "--cert-dir", os.path.join(tmp, "c"), "--metrics-addr", "0", "--health-addr", "0"]
        runs = [(base + ["--check-config", "--certs-renew-before", "11y"], None),
                (base + ["--certs-renew-before", "11y"], None),
                (base + ["--check-config"], {"CERTS_RENEW_BEFORE": "10y"})]
        for argv, env in runs:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=30,
                               env=dict(os.environ, **(env or {})))
            check(r.returncode == 2, "%s: exit %s\n%s%s" % (argv[-2:], r.returncode, r.stdout,
                                                           r.stderr[-1500:]))
            check("--certs-renew-before" in r.stderr and "days is not shorter than the 3650-day "
                  "validity" in r.stderr and "configuration ok" not in r.stdout, r.stderr[-800:])
        check("11y = 4015 days" in subprocess.run(runs[0][0], capture_output=True, text=True,
                                                  timeout=30).stderr, "both durations named")
        check(api.secret() is None, "nothing written")
        r = subprocess.run(base + ["--check-config", "--certs-renew-before", "3649d"],
                           capture_output=True, text=True, timeout=30)
        check(r.returncode == 0 and "configuration ok" in r.stdout, "3649d: %s" % r.stderr)
    finally:
        api.stop()


@test
def readiness_waits_and_initialize_timeout_exits(tmp):
    """CERT-02/58/60/72/73: a replica that cannot get certificates (here: --leader-elect while
    someone else holds the writer Lease and no Secret exists) never initialises: /readyz on
    the probe port stays 503 naming the reason (no crash on missing files), the process exits
    1 with upstream's message after --webhook-initialize-timeout, SIGTERM while waiting stops
    it cleanly, and it becomes ready as soon as it can write."""
    api = ApiServer(tmp)
    try:
        cluster_setup(api)
        lease_path = "/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s-writer" % (NS, SECRET)
        now = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
        api.objects([{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                      "metadata": {"namespace": NS, "name": SECRET + "-writer"},
                      "spec": {"holderIdentity": "someone-else", "leaseDurationSeconds": 3600,
                               "acquireTime": now, "renewTime": now, "leaseTransitions": 0}}])
        log = os.path.join(tmp, "w.log")
        base = [BIN, "--kubeconfig", api.kubeconfig, "--port", "0", "--bind-address", "127.0.0.1",
                "--cert-dir", os.path.join(tmp, "c"), "--metrics-addr", "0",
                "--log-format", "text", "--shutdown-delay", "0"] + LE
        with open(log, "wb") as f:
            r = subprocess.run(base + ["--health-addr", "0", "--webhook-initialize-timeout", "2s"],
                               stdout=f, stderr=f, timeout=30)
        text = open(log, "rb").read().decode()
        check(r.returncode == 1, "exit status %s" % r.returncode)
        check("failed to start webhook controller for waiting more than 2.000000s" in text, text[-800:])
        check("waiting for the writer" in text, text[-800:])
        check(api.secret() is None, "a replica that does not hold the Lease wrote nothing")
        # SIGTERM while waiting: a clean, prompt exit.
        with open(log, "ab") as f:
            p = track(subprocess.Popen(base + ["--health-addr", "0"], stdout=f, stderr=f))
        time.sleep(1.5)
        t0 = time.time()
        p.send_signal(signal.SIGTERM)
        check(p.wait(15) == 0, "exit status after SIGTERM: %s" % p.returncode)
        check(time.time() - t0 < 8, "stopped in %.1fs" % (time.time() - t0))
        # With no wait the server starts, is not ready, and gets ready once it may write.
        s = Server(tmp, "b", api, LE + ["--webhook-initialize-timeout", "0"])
        try:
            time.sleep(0.5)
            st, body = s.plain(s.health_port, "/readyz")
            # No certificate yet: the first check to fail is the TLS one; the controller's
            # reason is in the log.
            check(st == 503 and b"no serving certificate" in body, "readyz %s %s" % (st, body))
            wait_for(lambda: b"waiting for the writer" in s.read_log(), 10, "the reason logged")
            check(not s.ready(), "still not ready")
            lease = api.get(lease_path)
            lease["spec"]["holderIdentity"] = ""
            api.objects([lease])
            wait_for(s.ready, 15, "ready once the Lease is free")
            check(api.secret() is not None, "the new writer created the Secret")
        finally:
            s.stop()
    finally:
        api.stop()


@test
def inspect_secret_reports_cluster_cabundles(tmp):
    api = ApiServer(tmp)
    s = None
    try:
        cluster_setup(api)
        s = Server(tmp, "a", api)
        env = dict(os.environ, KUBECONFIG=api.kubeconfig, SERVICE_NAME=SERVICE)  # the server's
        r = subprocess.run([BIN, "certs", "inspect", "--secret", "--json"], capture_output=True,
                           text=True, env=env, timeout=30)
        check(r.returncode == 0, "inspect: %s %s" % (r.returncode, r.stderr))
        rep = json.loads(r.stdout)
        check(rep["cluster"]["match"] is True and rep["verdict"] == "valid", r.stdout[-500:])
        cfg = api.config(False)
        s.stop()
        s = None
        cfg["webhooks"][0]["clientConfig"]["caBundle"] = "Cg=="
        api.objects([cfg])
        r = subprocess.run([BIN, "certs", "inspect", "--secret"], capture_output=True, text=True,
                           env=env, timeout=30)
        check(r.returncode == 1 and "match: NO" in r.stdout, r.stdout[-500:])
    finally:
        stop_all(s, api)


@test
def url_mode_uses_files_and_urls(tmp):
    """CERT-11/12/39: WEBHOOK_HOST set: the cert dir is the store, configurations get URLs."""
    api = ApiServer(tmp)
    s = None
    try:
        cluster_setup(api)
        s = Server(tmp, "a", api, ["--webhook-host", "127.0.0.1", "--port", "0"])
        check(api.secret() is None, "no Secret in URL mode")
        cc = api.config(True)["webhooks"][0]["clientConfig"]
        check("service" not in cc and cc["url"].startswith("https://127.0.0.1:"), "url: %s" % cc)
        ca = open(os.path.join(s.cert_dir, "ca-cert.pem"), "rb").read()
        check(s.review(ca, host="127.0.0.1") == 200, "the certificate names the IP")
    finally:
        stop_all(s, api)


@test
def manifests_deploy_and_get_cabundles(tmp):
    """CERT-90/91 for this project's manifests/: applied to the fake cluster, the binary run
    with the Deployment's arguments and environment, every entry gets the caBundle of the
    Secret the server creates under its own name, and OpenKruise's CRDs (which name
    OpenKruise's Service) are left alone."""
    import yaml
    api = ApiServer(tmp)
    s = None
    try:
        docs = []
        for name in ("namespace", "service", "webhookconfigurations", "deployment"):
            docs += list(yaml.safe_load_all(open(os.path.join(ROOT, "manifests", "base", name + ".yaml"))))
        deploy = [d for d in docs if d["kind"] == "Deployment"][0]
        api.objects([d for d in docs if d["kind"] != "Deployment"])
        ctr = deploy["spec"]["template"]["spec"]["containers"][0]
        env = {e["name"]: e["value"] for e in ctr["env"] if "value" in e}
        env["POD_NAMESPACE"] = deploy["metadata"]["namespace"]
        check(deploy["spec"]["replicas"] == 2 and "--leader-elect" in ctr["args"], "2 replicas, elected")
        args = [a for a in ctr["args"] if not a.startswith(("--health-addr", "--metrics-addr"))]
        for k in ("WEBHOOK_PORT", "WEBHOOK_CERT_DIR"):
            env.pop(k)
        old = dict(os.environ)
        os.environ.update(env)
        try:
            s = Server(tmp, "a", api, args)
        finally:
            os.environ.clear()
            os.environ.update(old)
        secret = api.get("/api/v1/namespaces/%s/secrets/%s" % (NS, env["SECRET_NAME"]))
        check(secret is not None, "Secret %s created" % env["SECRET_NAME"])
        ca = secret_item(secret, "ca-cert.pem")
        for d in docs:
            if d["kind"] not in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
                continue
            kind = "mutating" if d["kind"].startswith("Mutating") else "validating"
            live = api.get("/apis/admissionregistration.k8s.io/v1/%swebhookconfigurations/%s" %
                           (kind, d["metadata"]["name"]))
            for i, e in enumerate(live["webhooks"]):
                check(bundle_of(live, i) == ca, "%s has the caBundle" % e["name"])
                check(e["clientConfig"]["service"]["name"] == env["SERVICE_NAME"], e["name"])
        crd = api.crd("clonesets.apps.kruise.io")
        check("caBundle" not in crd["spec"]["conversion"]["webhook"]["clientConfig"],
              "OpenKruise's CRDs are not ours")
        check(chains_to_host(s, ca, "%s.%s.svc" % (env["SERVICE_NAME"], NS)), "serves its Service name")
    finally:
        stop_all(s, api)


def chains_to_host(server, ca_pem, host):
    try:
        return server.review(ca_pem, host=host) == 200
    except (ssl.SSLError, OSError):
        return False


def main():
    global BIN
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    BIN = os.path.abspath(args.bin)
    return SUITE.run(args.names)


if __name__ == "__main__":
    sys.exit(main())
