#!/usr/bin/env python3
"""Integration tests: the real kruise-webhook binary over HTTPS, driven like the API server
drives it. Each test starts its own server (port 0, ports read from the log) in a scratch
directory. Prints one line per failure and ends with "N passed, N failed".

Usage: run.py --bin build/kruise-webhook [--harness build/test/vector-harness]
              [--unit build/test/unit-tests] [test-name ...]
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
import threading
import time
import warnings


from testlib import Failure, Suite, check, http_get, track  # the suites' shared runner, next to this file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = None
HARNESS = None
UNIT = None


SUITE = Suite("wh-it-")
test = SUITE.test


def gen_certs(directory, host="127.0.0.1"):
    """A throwaway CA and serving certificate, made by the project's own certs/ code."""
    subprocess.run([BIN, "certs", "generate", "--out", directory, "--host", host, "--ecdsa"],
                   check=True, stdout=subprocess.DEVNULL)


def serial_of(cert_pem_path):
    out = subprocess.run([BIN, "certs", "inspect", os.path.dirname(cert_pem_path), "--json"],
                         capture_output=True, text=True)
    return json.loads(out.stdout)


class Server:
    """A running kruise-webhook with its log captured."""

    def __init__(self, workdir, args=(), env=None, cert_dir=None, certs=True):
        self.workdir = workdir
        self.cert_dir = cert_dir or os.path.join(workdir, "certs")
        if certs and not os.path.exists(os.path.join(self.cert_dir, "tls.crt")):
            gen_certs(self.cert_dir)
        self.log_path = os.path.join(workdir, "server.log")
        self.log = open(self.log_path, "wb")
        full_env = dict(os.environ)
        full_env.update(env or {})
        # Loopback only, every listener (the loopback guard refuses anything else).
        cmd = [BIN, "--port", "0", "--bind-address", "127.0.0.1", "--cert-dir", self.cert_dir,
               "--health-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
               "--cert-reload-interval", "200ms", "--shutdown-delay", "0"] + list(args)
        self.proc = track(subprocess.Popen(cmd, stdout=self.log, stderr=self.log, env=full_env))
        self.port = self.health_port = self.metrics_port = None
        deadline = time.time() + 20
        while time.time() < deadline:
            m = re.search(rb"listening https=(\d+) health=(\d+) metrics=(\d+)", self.read_log())
            if m:
                self.port, self.health_port, self.metrics_port = map(int, m.groups())
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise Failure("server did not start:\n" + self.read_log().decode(errors="replace"))

    def read_log(self):
        with open(self.log_path, "rb") as f:
            return f.read()

    def ssl_context(self, ca=None):
        ctx = ssl.create_default_context(cafile=ca or os.path.join(self.cert_dir, "ca-cert.pem"))
        return ctx

    def conn(self, ctx=None):
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=ctx or self.ssl_context(),
                                           timeout=10)

    def request(self, method, path, body=None, headers=None, conn=None):
        own = conn is None
        c = conn or self.conn()
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        if own:
            c.close()
        return r.status, dict(r.getheaders()), data

    def plain(self, port, path):
        return http_get(port, path)

    def stop(self, sig=signal.SIGTERM, timeout=15):
        """Stops the server; a non-zero exit (a crash, or a sanitizer report) fails the test."""
        stop_process(self.proc, sig, timeout)
        self.log.close()
        log = self.read_log()
        if self.proc.returncode != 0 or b"Sanitizer" in log or b"runtime error" in log:
            raise Failure("server exited with %s:\n%s" % (self.proc.returncode,
                                                        log[-3000:].decode(errors="replace")))
        return self.proc.returncode


def stop_process(proc, sig=signal.SIGTERM, timeout=15):
    """Sends sig and waits for the exit; one that takes longer than timeout is killed and
    fails the test."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise Failure("server did not exit within %ss of the signal" % timeout)


def partial_request(s, path, body, sent):
    """A POST whose first `sent` bytes of body are on the wire; the caller sends the rest."""
    c = s.conn()
    c.putrequest("POST", path)
    c.putheader("Content-Type", "application/json")
    c.putheader("Content-Length", str(len(body)))
    c.endheaders()
    c.send(body[:sent])
    return c


def admission_review(obj=None, old=None, operation="CREATE", kind="Pod", resource="pods",
                     group="", version="v1", namespace="default", name="p", api="v1",
                     uid="11111111-2222-3333-4444-555555555555", options_kind="CreateOptions"):
    return {
        "apiVersion": "admission.k8s.io/" + api,
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": group, "version": version, "kind": kind},
            "resource": {"group": group, "version": version, "resource": resource},
            "operation": operation,
            "namespace": namespace,
            "name": name,
            "object": obj,
            "oldObject": old,
            "dryRun": False,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": options_kind},
            "userInfo": {"username": "tester"},
        },
    }


def conversion_review(objects, desired="apps.kruise.io/v1beta1", uid="c-1"):
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "request": {"uid": uid, "desiredAPIVersion": desired, "objects": objects}}


def apply_patch(doc, patch):
    """RFC 6902 add/remove/replace, enough for the patches the server sends."""
    import copy
    doc = copy.deepcopy(doc)

    def walk(ptr):
        toks = [t.replace("~1", "/").replace("~0", "~") for t in ptr.split("/")[1:]]
        return toks[:-1], toks[-1]

    for op in patch:
        parents, last = walk(op["path"])
        cur = doc
        for t in parents:
            cur = cur[int(t)] if isinstance(cur, list) else cur[t]
        if op["op"] == "add":
            if isinstance(cur, list):
                cur.insert(len(cur) if last == "-" else int(last), op["value"])
            else:
                cur[last] = op["value"]
        elif op["op"] == "replace":
            cur[int(last) if isinstance(cur, list) else last] = op["value"]
        elif op["op"] == "remove":
            del cur[int(last) if isinstance(cur, list) else last]
        else:
            raise Failure("unexpected op %s" % op["op"])
    return doc


def metric(text, name, **labels):
    for line in text.splitlines():
        if not line.startswith(name):
            continue
        m = re.match(r"([a-z_]+)(\{(.*)\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        got = dict(re.findall(r'(\w+)="([^"]*)"', m.group(3) or ""))
        if all(got.get(k) == v for k, v in labels.items()):
            return float(m.group(4))
    return None


# --- the tests ----------------------------------------------------------------------------


@test
def standalone_generates_missing_certificates(tmp):
    certs = os.path.join(tmp, "empty")
    s = Server(tmp, cert_dir=certs, certs=False)
    try:
        check(os.path.exists(os.path.join(certs, "ca-cert.pem")), "a CA was written")
        check(s.request("GET", "/readyz")[0] == 200, "ready with the generated certificate")
        ctx = s.ssl_context()
        c = http.client.HTTPSConnection("localhost", s.port, context=ctx, timeout=10)
        check(s.request("GET", "/healthz", conn=c)[0] == 200, "valid for the name localhost")
    finally:
        s.stop()


@test
def health_and_readiness(tmp):
    s = Server(tmp)
    try:
        check(s.request("GET", "/healthz")[2] == b"ok", "/healthz on HTTPS")
        st, _, body = s.request("GET", "/readyz")
        check(st == 200, "/readyz on HTTPS is %d %s" % (st, body))
        # Probes keep the connection open (each new one would cost a TLS handshake).
        c = s.conn()
        for _ in range(3):
            st, hdrs, body = s.request("GET", "/readyz", conn=c)
            check(st == 200 and hdrs.get("Connection", "").lower() != "close",
                  "probe answered on a kept-alive connection: %s" % hdrs)
        c.close()
        check(s.plain(s.health_port, "/healthz") == (200, b"ok"), "/healthz on the health port")
        check(s.plain(s.health_port, "/readyz")[0] == 200, "/readyz on the health port")
        check(s.plain(s.health_port, "/metrics")[0] == 404, "no /metrics on the health port")
        st, text = s.plain(s.metrics_port, "/metrics")
        check(st == 200 and b"# TYPE" in text, "/metrics on the metrics port")
    finally:
        check(s.stop() == 0, "exit status 0")


@test
def not_ready_until_a_certificate_appears(tmp):
    certs = os.path.join(tmp, "later")
    os.makedirs(certs)
    # External certificates: the server only reads the cert dir, so it waits for them.
    s = Server(tmp, cert_dir=certs, certs=False, args=["--feature-gates", "EnableExternalCerts=true"])
    try:
        st, body = s.plain(s.health_port, "/readyz")
        check(st == 503 and b"certificates" in body, "readyz before certs: %d %s" % (st, body))
        gen_certs(certs)
        deadline = time.time() + 5
        while time.time() < deadline and s.plain(s.health_port, "/readyz")[0] != 200:
            time.sleep(0.05)
        check(s.plain(s.health_port, "/readyz")[0] == 200, "ready once the certificate appears")
        check(s.request("GET", "/healthz")[0] == 200, "HTTPS works with the new certificate")
    finally:
        s.stop()


@test
def bad_requests_get_clear_http_errors(tmp):
    s = Server(tmp)
    try:
        st, _, body = s.request("POST", "/no-such-webhook", body="{}")
        check(st == 404, "unknown path: %d" % st)
        check(json.loads(body)["kind"] == "Status", "404 body is a Status")
        st, hdrs, _ = s.request("GET", "/convert")
        check(st == 405 and hdrs.get("Allow") == "POST", "GET on a webhook: %d %s" % (st, hdrs))
        st, _, body = s.request("POST", "/convert", body="{}", headers={"Content-Type": "text/plain"})
        check(st == 415, "text/plain: %d" % st)
        st, _, _ = s.request("POST", "/convert", body="{}",
                             headers={"Content-Type": "application/json; charset=utf-8"})
        check(st == 400, "json with charset is accepted (then 400 for the empty review): %d" % st)
        st, _, body = s.request("POST", "/convert", body='{"apiVersion": ')
        msg = json.loads(body)["message"]
        check(st == 400 and "line 1, column" in msg, "malformed JSON: %d %s" % (st, msg))
        st, _, body = s.request("POST", "/convert", body=json.dumps(
            {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"}))
        check(st == 400 and "request: required" in json.loads(body)["message"], "missing request")
        review = conversion_review([])
        del review["request"]["uid"]
        st, _, body = s.request("POST", "/convert", body=json.dumps(review))
        check(st == 400 and "request.uid: required" in json.loads(body)["message"], "missing uid")
    finally:
        s.stop()


@test
def body_over_the_cap_is_413(tmp):
    s = Server(tmp, args=["--max-body-bytes", "4096"])
    try:
        big = json.dumps(conversion_review([{"pad": "x" * 8000}]))
        st, _, _ = s.request("POST", "/convert", body=big)
        check(st == 413, "Content-Length over the cap: %d" % st)
        # Chunked bodies over the cap: hostile.py (reading stops at the cap, the connection
        # is closed).
        small = json.dumps(conversion_review([]))
        check(s.request("POST", "/convert", body=small)[0] == 200, "server still answers")
    finally:
        s.stop()


@test
def tls_versions(tmp):
    s = Server(tmp)
    try:
        for version in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
            ctx = s.ssl_context()
            ctx.minimum_version = ctx.maximum_version = version
            check(s.request("GET", "/healthz", conn=s.conn(ctx))[0] == 200, "%s works" % version)
        ctx = s.ssl_context()
        ctx.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            ctx.maximum_version = ssl.TLSVersion.TLSv1_1
        try:
            s.request("GET", "/healthz", conn=s.conn(ctx))
            raise Failure("TLS 1.1 was accepted")
        except (ssl.SSLError, ConnectionError, OSError):
            pass
    finally:
        s.stop()


@test
def metrics_count_requests(tmp):
    s = Server(tmp)
    try:
        review = json.dumps(conversion_review([]))
        for _ in range(3):
            check(s.request("POST", "/convert", body=review)[0] == 200, "review answered")
        s.request("POST", "/convert", body="nope")
        text = s.plain(s.metrics_port, "/metrics")[1].decode()
        ok = metric(text, "controller_runtime_webhook_requests_total", webhook="/convert", code="200")
        bad = metric(text, "controller_runtime_webhook_requests_total", webhook="/convert", code="400")
        check(ok == 3 and bad == 1, "requests_total 200=%s 400=%s" % (ok, bad))
        count = metric(text, "controller_runtime_webhook_latency_seconds_count", webhook="/convert")
        check(count == 4, "latency histogram count %s" % count)
        # MHD reports a request completed just after the client has its answer: allow a moment.
        deadline = time.time() + 2
        while True:
            text = s.plain(s.metrics_port, "/metrics")[1].decode()
            flight = metric(text, "controller_runtime_webhook_requests_in_flight", webhook="/convert")
            if flight == 0 or time.time() > deadline:
                break
            time.sleep(0.02)
        check(flight == 0, "in flight %s" % flight)
    finally:
        s.stop()


def swap_cert_dir(cert_dir, new_dir):
    """Replaces the files as the kubelet does: a new directory, then an atomic symlink swap."""
    stamp = "..%d" % time.time_ns()
    os.rename(new_dir, os.path.join(cert_dir, stamp))
    tmp_link = os.path.join(cert_dir, "..data_tmp")
    os.symlink(stamp, tmp_link)
    os.rename(tmp_link, os.path.join(cert_dir, "..data"))


def peer_serial(s, ctx):
    c = s.conn(ctx)
    c.connect()
    der = c.sock.getpeercert(binary_form=True)
    c.close()
    return der


@test
def certificate_hot_reload_under_load(tmp):
    # The cert dir in the kubelet layout: files are symlinks into ..data.
    cert_dir = os.path.join(tmp, "mounted")
    os.makedirs(cert_dir)
    first = os.path.join(tmp, "gen1")
    gen_certs(first)
    names = [n for n in os.listdir(first) if not n.startswith("..")]
    plain1 = os.path.join(tmp, "plain1")
    os.makedirs(plain1)
    for n in names:
        shutil.copy(os.path.join(first, n), os.path.join(plain1, n))
    swap_cert_dir(cert_dir, plain1)
    for n in names:
        os.symlink(os.path.join("..data", n), os.path.join(cert_dir, n))
    second = os.path.join(tmp, "gen2")
    gen_certs(second)
    # Clients trust both CAs, as they do while a caBundle carries old and new.
    bundle = os.path.join(tmp, "bundle.pem")
    with open(bundle, "w") as out:
        for d in (first, second):
            out.write(open(os.path.join(d, "ca-cert.pem")).read())
    s = Server(tmp, cert_dir=cert_dir, certs=False)
    errors, done = [], threading.Event()
    count = [0]

    def loop():
        review = json.dumps(conversion_review([]))
        while not done.is_set():
            try:
                c = s.conn(s.ssl_context(bundle))  # a new handshake each time
                st = s.request("POST", "/convert", body=review, conn=c)[0]
                c.close()
                if st != 200:
                    errors.append(st)
                count[0] += 1
            except Exception as e:  # noqa: BLE001 - any failure counts
                errors.append(repr(e))

    try:
        ctx = s.ssl_context(bundle)
        before = peer_serial(s, ctx)
        threads = [threading.Thread(target=loop) for _ in range(3)]
        for t in threads:
            t.start()

        def requests_reach(n):
            """Waits (30 s at most: a hang, not a rate) until n requests have been answered."""
            limit = time.time() + 30
            while count[0] < n and time.time() < limit and not errors:
                time.sleep(0.02)
            return count[0]
        requests_reach(10)
        plain2 = os.path.join(tmp, "plain2")
        os.makedirs(plain2)
        for n in names:
            shutil.copy(os.path.join(second, n), os.path.join(plain2, n))
        swap_cert_dir(cert_dir, plain2)
        deadline = time.time() + 5
        after = before
        while time.time() < deadline and after == before:
            time.sleep(0.05)
            after = peer_serial(s, ctx)
        seen = count[0]
        requests_reach(seen + 10)
        done.set()
        for t in threads:
            t.join()
        check(after != before, "a new handshake sees the new certificate")
        check(not errors, "no failed request during the swap: %s" % errors[:5])
        check(seen >= 10 and count[0] >= seen + 10, "the request loop kept running across the "
              "swap (%d requests when it was seen, %d in all)" % (seen, count[0]))
        check(s.proc.poll() is None, "no restart")
    finally:
        done.set()
        s.stop()


@test
def sigterm_drains_in_flight_requests(tmp):
    s = Server(tmp, args=["--shutdown-grace", "5s"])
    try:
        review = json.dumps(conversion_review([])).encode()
        # An idle keep-alive connection and a request whose body is still arriving.
        idle = s.conn()
        st, _, _ = s.request("GET", "/healthz", conn=idle)
        check(st == 200, "keep-alive connection works")
        busy = partial_request(s, "/convert", review, 10)
        time.sleep(0.2)
        s.proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        check(s.proc.poll() is None, "still running while a request is in flight")
        try:
            idle.request("GET", "/healthz")
            idle.getresponse()
            raise Failure("the idle keep-alive connection was served after SIGTERM")
        except (ConnectionError, http.client.HTTPException, OSError):
            pass
        st, body = s.plain(s.health_port, "/readyz")
        check(st == 503, "not ready while draining: %d %s" % (st, body))
        try:
            socket.create_connection(("127.0.0.1", s.port), timeout=1).close()
            refused = False
        except OSError:
            refused = True
        check(refused, "new connections are refused while draining")
        busy.send(review[10:])
        r = busy.getresponse()
        r.read()
        check(r.status == 200, "the in-flight request was answered: %d" % r.status)
        check((r.getheader("Connection") or "").lower() == "close", "with Connection: close")
        s.proc.wait(5)
        check(s.proc.returncode == 0, "exit 0 (got %s)" % s.proc.returncode)
    finally:
        s.stop()


@test
def shutdown_delay_keeps_answering_with_readyz_503(tmp):
    """--shutdown-delay: after SIGTERM /readyz turns 503 while the listener still accepts new
    connections and answers on old and new ones, each answer with Connection: close (the API
    server's pool then opens new connections, to the replicas that stay); a second SIGTERM ends
    the delay; a short delay ends by itself, and the drain follows."""
    s = Server(tmp, args=["--shutdown-delay", "1h"])
    try:
        review = conversion_review([])
        old = s.conn()
        st, _, _ = s.request("POST", "/convert", review, conn=old)
        check(st == 200, "answered before the signal")
        s.proc.send_signal(signal.SIGTERM)
        deadline = time.time() + 10
        while s.plain(s.health_port, "/readyz")[0] != 503:
            check(time.time() < deadline, "/readyz did not turn 503 after SIGTERM")
            time.sleep(0.02)
        for what, conn in (("a keep-alive connection opened before", old),
                           ("a new connection", s.conn())):
            st, headers, _ = s.request("POST", "/convert", review, conn=conn)
            check(st == 200, "%s: answered during the delay (%d)" % (what, st))
            check(headers.get("Connection", "").lower() == "close",
                  "%s: Connection: close (%s)" % (what, headers))
        check(s.proc.poll() is None, "still running during the delay")
        s.proc.send_signal(signal.SIGTERM)
        s.proc.wait(15)
        check(s.proc.returncode == 0, "a second SIGTERM ends the delay: exit %s" %
              s.proc.returncode)
        check(b"received SIGTERM again: draining now" in s.read_log(), "logged")
    finally:
        s.stop()
    short = os.path.join(tmp, "short")
    os.makedirs(short)
    s = Server(short, args=["--shutdown-delay", "300ms"])
    try:
        s.proc.send_signal(signal.SIGTERM)
        s.proc.wait(15)
        check(s.proc.returncode == 0, "a short delay ends by itself: exit %s" % s.proc.returncode)
    finally:
        s.stop()


@test
def grace_period_bounds_the_drain(tmp):
    s = Server(tmp, args=["--shutdown-grace", "1s"])
    try:
        stuck = s.conn()
        stuck.putrequest("POST", "/convert")
        stuck.putheader("Content-Type", "application/json")
        stuck.putheader("Content-Length", "1000")
        stuck.endheaders()
        stuck.send(b"{")
        time.sleep(0.1)
        t0 = time.time()
        s.proc.send_signal(signal.SIGINT)
        s.proc.wait(5)
        took = time.time() - t0
        check(s.proc.returncode == 0, "exit 0 after SIGINT")
        check(0.8 < took < 4, "exited after the grace period (%.2fs)" % took)
    finally:
        s.stop()


def write_state(tmp, objects):
    d = os.path.join(tmp, "state")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "objects.json"), "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": objects}, f)
    return d


@test
def real_handlers_allow_deny_and_patch(tmp):
    state = write_state(tmp, [
        {"apiVersion": "apps.kruise.io/v1beta1", "kind": "SidecarSet",
         "metadata": {"name": "log-agent"},
         "spec": {"selector": {"matchLabels": {"app": "web"}},
                  "containers": [{"name": "log-agent", "image": "busybox:1.36",
                                  "podInjectPolicy": "BeforeAppContainer"}]}},
    ])
    s = Server(tmp, args=["--state", state, "--feature-gates", "ResourcesDeletionProtection=true"])
    try:
        ns = {"apiVersion": "v1", "kind": "Namespace",
              "metadata": {"name": "prod", "labels": {"policy.kruise.io/delete-protection": "Always"}}}
        for api in ("v1", "v1beta1"):
            review = admission_review(old=ns, operation="DELETE", kind="Namespace",
                                      resource="namespaces", namespace="", name="prod", api=api,
                                      options_kind="DeleteOptions")
            st, _, body = s.request("POST", "/validate-namespace", body=review)
            ans = json.loads(body)
            check(st == 200 and ans["apiVersion"] == "admission.k8s.io/" + api,
                  "answered in %s: %s" % (api, body))
            r = ans["response"]
            check(r["uid"] == review["request"]["uid"], "uid echoed")
            check(r["allowed"] is False and r["status"]["code"] == 403
                  and "delete-protection" in r["status"]["message"], "denied: %s" % r)
        ns["metadata"]["labels"] = {}
        review = admission_review(old=ns, operation="DELETE", kind="Namespace", resource="namespaces",
                                  namespace="", name="prod", options_kind="DeleteOptions")
        r = json.loads(s.request("POST", "/validate-namespace", body=review)[2])["response"]
        check(r["allowed"] is True and "patch" not in r, "unprotected namespace allowed: %s" % r)

        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "web-0", "namespace": "default", "labels": {"app": "web"}},
               "spec": {"containers": [{"name": "app", "image": "nginx"}]}}
        r = json.loads(s.request("POST", "/mutate-pod", body=admission_review(obj=pod))[2])["response"]
        check(r["allowed"] is True and r.get("patchType") == "JSONPatch", "patched: %s" % r)
        patched = apply_patch(pod, json.loads(base64.b64decode(r["patch"])))
        names = [c["name"] for c in patched["spec"]["containers"]]
        check(names == ["log-agent", "app"], "sidecar injected before the app: %s" % names)
        check(patched["metadata"]["annotations"].get("kruise.io/sidecarset-injected-list") == "log-agent",
              "injected list annotation: %s" % patched["metadata"].get("annotations"))
        pod["metadata"]["labels"]["app"] = "db"
        r = json.loads(s.request("POST", "/mutate-pod", body=admission_review(obj=pod))[2])["response"]
        check(r["allowed"] is True and "patch" not in r, "no match, no patch: %s" % r)
    finally:
        s.stop()


@test
def harness_reports_a_wrong_expectation(tmp):
    if not HARNESS:
        raise Failure("run with --harness")
    vectors = os.path.join(tmp, "vectors")
    area = os.path.join(vectors, "deletion-protection")
    os.makedirs(area)
    src = os.path.join(ROOT, "test", "vectors", "deletion-protection")
    name = sorted(n for n in os.listdir(src) if n.endswith(".json"))[0]
    vec = json.load(open(os.path.join(src, name)))
    with open(os.path.join(area, "good.json"), "w") as f:
        json.dump(vec, f)
    r = subprocess.run([HARNESS, "--bin", BIN, "--vectors", vectors], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    check(r.returncode == 0 and "1 passed, 0 failed, 0 skipped" in r.stdout,
          "the untouched vector passes: %s %s" % (r.stdout, r.stderr[-2000:]))
    vec["expect"]["allowed"] = not vec["expect"].get("allowed", True)
    vec["name"] = "deliberately-wrong"
    with open(os.path.join(area, "wrong.json"), "w") as f:
        json.dump(vec, f)
    r = subprocess.run([HARNESS, "--bin", BIN, "--vectors", vectors], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    check(r.returncode != 0, "the harness fails")
    check("FAIL deletion-protection/deliberately-wrong" in r.stdout and "allowed: want" in r.stdout,
          "and says which vector and why: %s" % r.stdout)
    check("1 passed, 1 failed, 0 skipped" in r.stdout, "closing line: %s" % r.stdout)


@test
def bad_flags_fail_before_starting(tmp):
    for args, want in ((["--port", "x"], "--port"), (["--feature-gates", "Nope=true"], "Nope"),
                       (["--log-format", "xml"], "--log-format")):
        r = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=10)
        check(r.returncode == 2 and want in r.stderr, "%s: %d %s" % (args, r.returncode, r.stderr))
    r = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=10)
    check(r.returncode == 0 and "--max-body-bytes" in r.stdout and "WEBHOOK_PORT" in r.stdout,
          "--help lists flags and variables")


@test
def check_config_loads_the_state(tmp):
    """--check-config fails, with the message the server gives at start (file:line:col for
    YAML), for a --state that is missing or malformed; a good one passes."""
    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write("apiVersion: v1\nkind: Namespace\nmetadata: {name: x\n")
    cases = ((os.path.join(tmp, "nonexistent"),
              "--state %s: No such file or directory" % os.path.join(tmp, "nonexistent")),
             (bad, "%s:4:1: did not find expected ',' or '}' (while parsing a flow mapping at "
                   "3:11)" % bad))
    for state, want in cases:
        r = subprocess.run([BIN, "--state", state, "--check-config"], capture_output=True,
                           text=True, timeout=10)
        check(r.returncode == 2 and r.stdout == "" and r.stderr == "kruise-webhook: %s\n" % want,
              "--check-config --state %s: %d %r %r" % (state, r.returncode, r.stdout, r.stderr))
        r = subprocess.run([BIN, "--state", state, "--port", "0", "--bind-address", "127.0.0.1",
                            "--health-addr", "0", "--metrics-addr", "0", "--log-format", "text"],
                           capture_output=True, text=True, timeout=10)
        check(r.returncode == 1 and r.stderr.rstrip("\n").endswith(" error " + want),
              "the server at start: %d %r" % (r.returncode, r.stderr))
    env = dict(os.environ, WEBHOOK_STATE=os.path.join(tmp, "nonexistent"))
    r = subprocess.run([BIN, "--check-config"], capture_output=True, text=True, timeout=10, env=env)
    check(r.returncode == 2 and "No such file or directory" in r.stderr, "from WEBHOOK_STATE: %r"
          % r.stderr)
    r = subprocess.run([BIN, "--state", os.path.join(ROOT, "examples"), "--check-config"],
                       capture_output=True, text=True, timeout=10)
    check(r.returncode == 0 and r.stdout == "configuration ok\n" and r.stderr == "",
          "examples/: %d %r %r" % (r.returncode, r.stdout, r.stderr))


def fake_apt(tmp, root=True):
    """A PATH with fake id, apt-get and apt-cache: apt-get update fills the lists directory,
    apt-cache show and apt-get install fail (apt's own message) while it is empty. Every call
    is logged."""
    bindir = os.path.join(tmp, "bin")
    lists = os.path.join(tmp, "lists")
    log = os.path.join(tmp, "apt.log")
    os.makedirs(bindir)
    os.makedirs(lists)
    scripts = {
        "id": "echo %d" % (0 if root else 1000),
        "apt-cache": 'echo "apt-cache $*" >> %s\n'
                     'ls %s/*_Packages >/dev/null 2>&1 || { echo "E: No packages found" >&2; exit 100; }'
                     % (log, lists),
        "apt-get": 'echo "apt-get $*" >> %s\n'
                   'if [ "$1" = update ]; then touch %s/deb_dists_bookworm_main_binary-amd64_Packages; exit 0; fi\n'
                   'ls %s/*_Packages >/dev/null 2>&1 || { echo "E: Unable to locate package pkg-config" >&2; exit 100; }'
                   % (log, lists, lists),
    }
    for name, body in scripts.items():
        path = os.path.join(bindir, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, 0o755)
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"], WH_APT_LISTS=lists)
    return env, log


def install_deps_packages():
    text = open(os.path.join(ROOT, "scripts", "install-deps.sh")).read()
    return re.search(r'PACKAGES="([^"]*)"', text).group(1).split()


@test
def install_deps_updates_first_on_a_fresh_machine(tmp):
    """Empty package lists (a fresh Debian): apt-get update runs before the install, so no
    "Unable to locate package" is printed; lists that know every package: no update. Not root:
    the exact command to run. The README names the same packages."""
    script = os.path.join(ROOT, "scripts", "install-deps.sh")
    packages = install_deps_packages()
    install = "apt-get install -y --no-install-recommends " + " ".join(packages)
    env, log = fake_apt(os.path.join(tmp, "fresh"))
    r = subprocess.run(["sh", script], capture_output=True, text=True, env=env, timeout=30)
    calls = open(log).read().splitlines()
    check(r.returncode == 0 and "Unable to locate" not in r.stdout + r.stderr,
          "fresh: %d %r %r" % (r.returncode, r.stdout, r.stderr))
    check(calls == ["apt-get update", install], "fresh machine calls: %s" % calls)
    # The same machine again: its lists know everything, so it installs at once.
    os.remove(log)
    r = subprocess.run(["sh", script], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0 and open(log).read().splitlines() == [
        "apt-cache show " + " ".join(packages), install], "updated machine: %s" % open(log).read())
    env, log = fake_apt(os.path.join(tmp, "user"), root=False)
    r = subprocess.run(["sh", script], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 1 and not os.path.exists(log) and r.stderr ==
          "kruise-webhook: missing build dependencies. Install them with:\n"
          "  sudo apt-get update && sudo apt-get install -y %s\n" % " ".join(packages),
          "not root: %d %r" % (r.returncode, r.stderr))
    readme = open(os.path.join(ROOT, "README.md")).read()
    m = re.search(r"installs `([^`]*)`", readme.replace("\n", " "))
    check(m and m.group(1).split() == packages, "README lists %s, the script installs %s" % (
        m.group(1).split() if m else None, packages))


@test
def readme_lists_every_flag_and_variable(tmp):
    """The README's configuration table names every flag of --help with its variable, and
    nothing else; its offline-commands table gives inject and convert exactly the flags of
    their --help."""
    readme = open(os.path.join(ROOT, "README.md")).read()
    config = readme.split("## Configuration", 1)[1].split("\n\n`kruise-webhook --help`", 1)[0]
    rows = [l for l in config.splitlines() if l.startswith("| `--")]
    help_text = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=10).stdout
    flags = set()
    for line in help_text.splitlines():
        m = re.match(r"  --([a-z-]+)", line)
        if not m or m.group(1) in ("check-config", "help", "version"):
            continue
        flags.add(m.group(1))
        env = re.search(r" \[([A-Z_]+)\]", line)
        row = [r for r in rows if "`--%s`" % m.group(1) in r.split("|")[1]]
        check(len(row) == 1, "--%s: README rows %s" % (m.group(1), row))
        if env:
            check("`%s`" % env.group(1) in row[0].split("|")[2],
                  "--%s: README does not name %s: %s" % (m.group(1), env.group(1), row[0]))
    listed = set(re.findall(r"`--([a-z-]+)`", "\n".join(r.split("|")[1] for r in rows)))
    check(listed == flags, "README only: %s; --help only: %s" % (listed - flags, flags - listed))
    offline = readme.split("## Commands", 1)[1].split("\n\n", 2)[1]
    for cmd in ("inject", "explain", "convert"):
        row = [l for l in offline.splitlines() if l.startswith("| `kruise-webhook %s " % cmd)]
        check(len(row) == 1, "README rows for %s: %s" % (cmd, row))
        cell = re.split(r"(?<!\\)\|", row[0])[1]  # "yaml\|json" is one cell
        in_readme = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", cell))
        usage = subprocess.run([BIN, cmd, "--help"], capture_output=True, text=True,
                               timeout=10).stdout.split("\n\n", 1)[0]
        in_help = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage))
        check(in_readme == in_help, "%s: README only %s, --help only %s" % (
            cmd, in_readme - in_help, in_help - in_readme))


@test
def unit_runner_announces_each_file(tmp):
    """The unit runner prints a line as each test file starts (a slow one never looks like a
    hang), runs tests or whole files by name, and still ends with "N passed, N failed"."""
    if not UNIT:
        raise Failure("run with --unit")
    r = subprocess.run([UNIT, "config_addr_parsing", "test_convert_cli"], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    lines = [l for l in r.stdout.splitlines() if l.startswith("unit: ") or "passed" in l]
    n = len(re.findall(r"^TEST\(", open(os.path.join(ROOT, "test", "unit",
                                                     "test_convert_cli.c")).read(), re.M))
    check(r.returncode == 0 and lines == ["unit: test_config.c (1 test)",
                                          "unit: test_convert_cli.c (%d tests)" % n,
                                          "%d passed, 0 failed" % (n + 1)],
          "%d %r" % (r.returncode, r.stdout))


GUARD_SCRIPT = os.path.join(ROOT, "test", "guard", "loopback-only")


@test
def loopback_guard_refuses_listeners_beyond_loopback(tmp):
    """The guard every suite runs under (make unit/integration/vectors): a listener on anything
    but loopback is refused and fails the suite, naming the process and the address."""
    shim = os.environ.get("WH_LOOPBACK_SHIM")
    check(shim, "run this suite under test/guard/loopback-only (make integration does)")
    # The server's default, all interfaces, as before the suites passed --bind-address.
    certs = os.path.join(tmp, "certs")
    gen_certs(certs)
    r = subprocess.run([GUARD_SCRIPT, shim, BIN, "--port", "0", "--cert-dir", certs,
                        "--health-addr", "127.0.0.1:0", "--metrics-addr", "0"],
                       capture_output=True, text=True, timeout=30)
    check(r.returncode != 0, "a wildcard HTTPS listener passed the guard: %s" % r.stdout)
    check(re.search(r"refused listen on (\[::\]|0\.0\.0\.0):\d+ by pid \d+ \(kruise-webhook\)",
                    r.stdout), "the guard names the listener: %s" % r.stdout)
    check("servers started by this suite listened beyond loopback" in r.stdout, r.stdout)
    # Any process, any address that is not loopback; loopback itself passes.
    listen = ("import socket, sys\n"
              "fam = socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET\n"
              "s = socket.socket(fam)\n"
              "s.bind((sys.argv[1], 0))\n"
              "s.listen()\n")
    for addr in ("0.0.0.0", "::"):
        r = subprocess.run([GUARD_SCRIPT, shim, sys.executable, "-c", listen, addr],
                           capture_output=True, text=True, timeout=30)
        check(r.returncode != 0 and "PermissionError" in r.stderr and
              "refused listen on" in r.stdout, "%s: %d %s %s" % (addr, r.returncode, r.stdout,
                                                                r.stderr[-500:]))
    addrs = ["127.0.0.1"] + (["::1"] if socket.has_ipv6 and os.path.exists("/proc/net/tcp6") else [])
    for addr in addrs:
        r = subprocess.run([GUARD_SCRIPT, shim, sys.executable, "-c", listen, addr],
                           capture_output=True, text=True, timeout=30)
        check(r.returncode == 0 and r.stdout == "", "%s: %d %s %s" % (addr, r.returncode,
                                                                       r.stdout, r.stderr))


@test
def failed_tests_leave_no_process_behind(tmp):
    """A stop() that fails still lets every other server of the test stop, the test reports
    both its own failure and the failed stop, and a process a test forgot is killed and fails
    that test (testlib, in a suite of its own so that its bookkeeping is separate)."""
    script = os.path.join(tmp, "suite.py")
    pids = os.path.join(tmp, "pids")
    with open(script, "w") as f:
        f.write("""import subprocess, sys
sys.path.insert(0, %r)
from testlib import Failure, Suite, check, stop_all, track
SUITE = Suite("wh-self-")
pids = open(%r, "w")

class Proc:
    def __init__(self, fail_stop):
        self.proc = track(subprocess.Popen(["sleep", "60"]))
        self.fail_stop = fail_stop
        pids.write("%%d\\n" %% self.proc.pid)
        pids.flush()

    def stop(self):
        if self.fail_stop:
            raise Failure("stop failed")
        self.proc.terminate()
        self.proc.wait()

@SUITE.test
def failing(tmp):
    a, b, api = Proc(True), Proc(False), Proc(False)
    try:
        check(False, "the test failed")
    finally:
        stop_all(a, b, api)

@SUITE.test
def forgetful(tmp):
    Proc(False)

sys.exit(SUITE.run([]))
""" % (os.path.dirname(os.path.abspath(__file__)), pids))
    r = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "0 passed, 2 failed" in r.stdout, r.stdout + r.stderr)
    check("FAIL failing: stop failed" in r.stdout and
          "raised while handling: the test failed" in r.stdout, r.stdout)
    check(re.search(r"FAIL forgetful: left running at the end of the test: sleep 60 \(pid \d+\)",
                    r.stdout), r.stdout)
    alive = []
    for pid in open(pids).read().split():
        try:
            os.kill(int(pid), 0)
            alive.append(pid)
        except ProcessLookupError:
            pass
    check(len(open(pids).read().split()) == 4 and not alive, "still running: %s" % alive)
    for line in r.stdout.splitlines():  # the inner suite's scratch directories
        m = re.match(r"  \(logs kept in (.+)\)$", line)
        if m:
            shutil.rmtree(m.group(1), ignore_errors=True)


def main():
    global BIN, HARNESS, UNIT
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--harness")
    ap.add_argument("--unit")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    BIN = os.path.abspath(args.bin)
    HARNESS = os.path.abspath(args.harness) if args.harness else None
    UNIT = os.path.abspath(args.unit) if args.unit else None
    return SUITE.run(args.names)


if __name__ == "__main__":
    sys.exit(main())
