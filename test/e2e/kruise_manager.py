"""OpenKruise's kruise-manager for the migration scenarios of run.py.

RealKruiseManager runs upstream's own (make kruise-manager builds it from upstream's main.go)
out of cluster in URL mode, its certificates in its Secret, and reads what it does: its
request metrics, its webhook controller's syncs, its listening sockets.

KruiseManager is an upstream-shaped stand-in for machines without Go: the Secret
kruise-manager writes (its six data keys), its two configurations as its first sync leaves them
in URL mode (the `template` annotation holding the chart's service-form entries, `.webhooks`
pointing at its URL with the CA), and a server that allows everything, marks the Pods it
mutates, and counts what it is asked.

What kruise-manager's own controller does to its configurations at a sync (spec certs.md
CERT-52, rebuilt from the template) is `ensured()`: the stand-in scenario compares it with the
live objects after every step, to show that kruise-manager would put nothing back; the real
scenario checks that model against what the real one writes."""

import base64
import copy
import http.client
import http.server
import json
import os
import re
import signal
import socketserver
import ssl
import subprocess
import threading
from urllib.parse import urlparse

import yaml

NS = "kruise-system"
SECRET = "kruise-webhook-certs"
SERVICE = "kruise-webhook-service"
CONFIGS = {"MutatingWebhookConfiguration": ("mutating", "kruise-mutating-webhook-configuration"),
           "ValidatingWebhookConfiguration": ("validating",
                                              "kruise-validating-webhook-configuration")}
MARK = "e2e.kruise-manager/mutated"
# An entry only kruise-manager serves (a path that is not this server's, nor one of upstream's
# at the pinned commit, so that it stays one whatever kinds this server serves): it stays there.
ONLY_UPSTREAM = {"name": "vlegacywidget.kb.io", "admissionReviewVersions": ["v1", "v1beta1"],
                 "sideEffects": "None", "failurePolicy": "Fail",
                 "clientConfig": {"service": {"name": SERVICE, "namespace": NS,
                                              "path": "/validate-apps-kruise-io-v1alpha1-legacywidget"}},
                 "rules": [{"apiGroups": ["apps.kruise.io"], "apiVersions": ["v1alpha1"],
                            "operations": ["CREATE", "UPDATE"], "resources": ["legacywidgets"]}]}


def first_sync(live, ca_pem, host, port, served=None):
    """What kruise-manager's first sync makes of live (as the API server stored it, with its
    defaults): the template captured from the entries, the entries ensured."""
    obj = copy.deepcopy(live)
    obj["metadata"].setdefault("annotations", {})["template"] = json.dumps(obj["webhooks"])
    obj["webhooks"] = ensured(obj, ca_pem, host, port, served)
    return obj


def ensured(obj, ca_pem, host, port, served=None):
    """CERT-52 in URL mode: each template entry whose path kruise-manager has a handler for
    (served: the set of them; None: every path), with the CA and kruise-manager's URL. The
    others stay in the template and are left out of the entries."""
    out = []
    for e in json.loads(obj["metadata"]["annotations"]["template"]):
        e = copy.deepcopy(e)
        cc = e["clientConfig"]
        path = (cc["service"].get("path") or "/") if cc.get("service") else \
            urlparse(cc.get("url", "")).path
        if served is not None and path not in served:
            continue
        cc["caBundle"] = base64.b64encode(ca_pem).decode()
        if cc.get("service"):
            del cc["service"]
            cc["url"] = "https://%s:%d%s" % (host, port, path)
        out.append(e)
    return out


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        review = json.loads(body)
        req = review["request"]
        path = self.path.split("?", 1)[0]  # the API server adds ?timeout=...
        self.server.owner.count(path)
        resp = {"uid": req["uid"], "allowed": True}
        if path == "/mutate-pod":
            has = (req["object"].get("metadata") or {}).get("annotations") is not None
            key = MARK.replace("~", "~0").replace("/", "~1")
            patch = ([{"op": "add", "path": "/metadata/annotations/" + key, "value": "true"}]
                     if has else
                     [{"op": "add", "path": "/metadata/annotations", "value": {MARK: "true"}}])
            resp["patchType"] = "JSONPatch"
            resp["patch"] = base64.b64encode(json.dumps(patch).encode()).decode()
        out = json.dumps({"apiVersion": review.get("apiVersion", "admission.k8s.io/v1"),
                          "kind": "AdmissionReview", "response": resp}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


class KruiseManager:
    """host: the name kruise-manager's entries call (URL mode); entries: the service-form
    entries of the chart (its template), in configuration kind order."""

    def __init__(self, workdir, bin_path, port, host="localhost"):
        self.host, self.port = host, port
        self.dir = os.path.join(workdir, "kruise-manager")
        subprocess.run([bin_path, "certs", "generate", "--out", self.dir, "--service", SERVICE,
                        "--namespace", NS], check=True, stdout=subprocess.DEVNULL)
        self.files = {n: open(os.path.join(self.dir, n), "rb").read()
                      for n in ("ca-cert.pem", "ca-key.pem", "cert.pem", "key.pem")}
        self.counts = {}
        self.lock = threading.Lock()
        self.httpd = None

    def count(self, path):
        with self.lock:
            self.counts[path] = self.counts.get(path, 0) + 1

    def asked(self, path):
        with self.lock:
            return self.counts.get(path, 0)

    # The Secret's keys and the file each holds (upstream's writer: a second name for the
    # serving pair).
    SECRET_FILES = {"ca-key.pem": "ca-key.pem", "ca-cert.pem": "ca-cert.pem",
                    "cert.pem": "cert.pem", "key.pem": "key.pem", "tls.crt": "cert.pem",
                    "tls.key": "key.pem"}

    @classmethod
    def secret_keys(cls):
        return sorted(cls.SECRET_FILES)

    def secret(self):
        data = {k: self.files[f] for k, f in self.SECRET_FILES.items()}
        return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": SECRET, "namespace": NS},
                "data": {k: base64.b64encode(v).decode() for k, v in data.items()}}

    def configurations(self, chart):
        """kruise-manager's two objects as its chart creates them: chart is {kind: [service-
        form entries]}, with an empty template annotation."""
        return [{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                 "metadata": {"name": CONFIGS[kind][1], "annotations": {"template": ""}},
                 "webhooks": entries} for kind, entries in chart.items()]

    def first_sync(self, live):
        return first_sync(live, self.files["ca-cert.pem"], self.host, self.port)

    def ensured(self, obj):
        return ensured(obj, self.files["ca-cert.pem"], self.host, self.port)

    def start(self):
        """Serves the Secret's certificate on 127.0.0.1."""
        self.httpd = _Server(("127.0.0.1", self.port), _Handler)
        self.httpd.owner = self
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(os.path.join(self.dir, "cert.pem"), os.path.join(self.dir, "key.pem"))
        self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self):
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()


# --- the real one -------------------------------------------------------------------------------

SYNCED = "Finished to sync webhook certs and configurations"  # its webhook controller's log line
KEPT = ("Secret", "Service", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")


class RealKruiseManager:
    """Upstream's own kruise-manager (scripts/kruise-manager.sh builds it from upstream's
    main.go) as the cluster's OpenKruise, out of cluster: its webhook server in URL mode on
    127.0.0.1:port with WEBHOOK_HOST=host (the name its certificate carries), its certificates
    in its Secret (WEBHOOK_CERT_WRITER=secret, as in cluster), its metrics and health probes on
    loopback ports, leader election as upstream deploys it."""

    def __init__(self, binary, workdir, kubeconfig, port, metrics_port, health_port,
                 host="localhost", gates="ResourcesDeletionProtection=true"):
        self.binary, self.host, self.port = binary, host, port
        self.metrics_port, self.health_port = metrics_port, health_port
        self.dir = os.path.join(workdir, "kruise-manager-real")
        os.makedirs(self.dir, exist_ok=True)
        self.log_path = os.path.join(self.dir, "kruise-manager.log")
        self.env = dict(os.environ, KUBECONFIG=kubeconfig, POD_NAMESPACE=NS, WEBHOOK_HOST=host,
                        WEBHOOK_PORT=str(port), WEBHOOK_CERT_WRITER="secret",
                        WEBHOOK_CERT_DIR=os.path.join(self.dir, "certs"))
        self.args = [binary, "--kubeconfig", kubeconfig,
                     "--metrics-addr", "127.0.0.1:%d" % metrics_port,
                     "--health-probe-addr", "127.0.0.1:%d" % health_port,
                     "--enable-pprof=false", "--feature-gates=" + gates]
        self.proc = None
        self._seen, self._synced = 0, 0  # bytes of the log read, syncs counted in them
        source = os.path.join(os.path.dirname(binary), "source")
        self.source = open(source).read().strip() if os.path.exists(source) else None

    def manifests(self, kustomize):
        """Upstream's own install (config/default as kustomize(directory) renders it): the
        Secret (empty), the Service and the two webhook configurations in service form, as its
        chart installs them; not its CRDs (the suite's are installed), Deployment or RBAC."""
        text = kustomize(os.path.join(self.source, "config", "default"))
        return [d for d in yaml.safe_load_all(text) if d and d["kind"] in KEPT]

    def start(self):
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.args, stdout=self.log, stderr=self.log, env=self.env)
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def _get(self, port, path):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            c.request("GET", path)
            r = c.getresponse()
            return r.status, r.read().decode(errors="replace")
        except OSError:
            return None, ""
        finally:
            c.close()

    def ready(self):
        return self._get(self.health_port, "/readyz")[0] == 200

    def requests(self):
        """{path: admission requests answered} from its controller-runtime metrics; every path
        it registered a handler for is there (at 0 until asked)."""
        out = {}
        for line in self._get(self.metrics_port, "/metrics")[1].splitlines():
            m = re.match(r'controller_runtime_webhook_requests_total\{(.*)\} (\S+)$', line)
            if m:
                path = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1))).get("webhook")
                out[path] = out.get(path, 0) + float(m.group(2))
        return out

    def asked(self, path):
        return self.requests().get(path, 0)

    def served(self):
        """The admission paths it has a handler for (its feature gates decide)."""
        return {p for p in self.requests() if p not in ("/convert", "/healthz")}

    def syncs(self):
        """How many syncs its webhook controller has finished (it syncs at every change of its
        Secret, configurations or Kruise CRDs, and each minute). Reads only what the log
        gained since the last call (its controllers log a lot)."""
        with open(self.log_path, "rb") as f:
            f.seek(self._seen)
            new = f.read()
        cut = new.rfind(b"\n") + 1  # whole lines only
        self._seen += cut
        self._synced += new[:cut].count(SYNCED.encode())
        return self._synced

    def listening_beyond_loopback(self):
        """Its listening TCP sockets not on loopback (a Go binary is out of the loopback
        guard's reach: LD_PRELOAD does not see its listen())."""
        inodes = set()
        fd_dir = "/proc/%d/fd" % self.proc.pid
        for fd in os.listdir(fd_dir):
            try:
                link = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
        out = []
        loopback6 = ("00000000000000000000000001000000", "0000000000000000FFFF00000100007F")
        for table, loopback in (("tcp", ("0100007F",)), ("tcp6", loopback6)):
            with open("/proc/%d/net/%s" % (self.proc.pid, table)) as f:
                for line in f.readlines()[1:]:
                    cols = line.split()
                    addr, state, inode = cols[1], cols[3], cols[9]
                    host = addr.split(":")[0]
                    if state == "0A" and inode in inodes and host not in loopback and \
                            not (table == "tcp" and host.endswith("7F")):
                        out.append("%s %s" % (table, addr))
        return out

    def stop(self):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None:
            self.log.close()
