"""An upstream-shaped OpenKruise webhook setup for the migration scenario of run.py: the
Secret kruise-manager writes (its six data keys), its two configurations as its first sync
leaves them in URL mode (the `template` annotation holding the chart's service-form entries,
`.webhooks` pointing at its URL with the CA), and a stand-in for its webhook server that
allows everything, marks the Pods it mutates, and counts what it is asked.

What kruise-manager's own controller would do to its configurations at its next sync
(spec certs.md CERT-52, rebuilt from the template) is `ensured()`: the scenario compares it with
the live objects after every step, to show that kruise-manager would put nothing back."""

import base64
import copy
import http.server
import json
import os
import socketserver
import ssl
import subprocess
import threading

NS = "kruise-system"
SECRET = "kruise-webhook-certs"
SERVICE = "kruise-webhook-service"
CONFIGS = {"MutatingWebhookConfiguration": ("mutating", "kruise-mutating-webhook-configuration"),
           "ValidatingWebhookConfiguration": ("validating",
                                              "kruise-validating-webhook-configuration")}
MARK = "e2e.kruise-manager/mutated"
# An entry only kruise-manager serves (a path that is not this server's, nor one of upstream's
# at the pinned commit, so that it stays one whatever kinds this server serves): it stays there.
ONLY_UPSTREAM = {"name": "vlegacybroadcastjob.kb.io", "admissionReviewVersions": ["v1", "v1beta1"],
                 "sideEffects": "None", "failurePolicy": "Fail",
                 "clientConfig": {"service": {"name": SERVICE, "namespace": NS,
                                              "path": "/validate-apps-kruise-io-v1alpha1-"
                                                      "broadcastjob"}},
                 "rules": [{"apiGroups": ["apps.kruise.io"], "apiVersions": ["v1alpha1"],
                            "operations": ["CREATE", "UPDATE"], "resources": ["broadcastjobs"]}]}


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

    def secret(self):
        f = self.files
        data = {"ca-key.pem": f["ca-key.pem"], "ca-cert.pem": f["ca-cert.pem"],
                "cert.pem": f["cert.pem"], "key.pem": f["key.pem"], "tls.crt": f["cert.pem"],
                "tls.key": f["key.pem"]}
        return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": SECRET, "namespace": NS},
                "data": {k: base64.b64encode(v).decode() for k, v in data.items()}}

    def configurations(self, chart):
        """kruise-manager's two objects as its chart creates them: chart is {kind: [service-
        form entries]}, with an empty template annotation."""
        return [{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                 "metadata": {"name": CONFIGS[kind][1], "annotations": {"template": ""}},
                 "webhooks": entries} for kind, entries in chart.items()]

    def first_sync(self, live):
        """What kruise-manager's first sync makes of live (as the API server stored it, with
        its defaults): the template captured from the entries, the entries ensured."""
        obj = copy.deepcopy(live)
        obj["metadata"]["annotations"]["template"] = json.dumps(obj["webhooks"])
        obj["webhooks"] = self.ensured(obj)
        return obj

    def ensured(self, obj):
        """CERT-52 in URL mode: each template entry with the CA and kruise-manager's URL."""
        out = []
        for e in json.loads(obj["metadata"]["annotations"]["template"]):
            e = copy.deepcopy(e)
            cc = e["clientConfig"]
            cc["caBundle"] = base64.b64encode(self.files["ca-cert.pem"]).decode()
            if cc.get("service"):
                path = cc["service"].get("path") or "/"
                del cc["service"]
                cc["url"] = "https://%s:%d%s" % (self.host, self.port, path)
            out.append(e)
        return out

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
