"""A small Kubernetes API client for the end-to-end suite: HTTPS with the admin client
certificate of a kubeconfig (as start.sh writes it), JSON in and out. No kubectl."""

import base64
import http.client
import json
import os
import ssl
import tempfile
import time
import urllib.parse

import yaml


class ApiError(Exception):
    def __init__(self, status, body):
        self.status = status
        self.body = body if isinstance(body, dict) else {"message": str(body)}
        super().__init__("HTTP %s: %s" % (status, self.body.get("message", body)))

    @property
    def message(self):
        return self.body.get("message", "")


class Kube:
    def __init__(self, kubeconfig, workdir):
        cfg = yaml.safe_load(open(kubeconfig))
        cluster = cfg["clusters"][0]["cluster"]
        user = cfg["users"][0]["user"]
        url = urllib.parse.urlparse(cluster["server"])
        self.host, self.port = url.hostname, url.port
        self.files = {}
        for key in ("certificate-authority-data", "client-certificate-data", "client-key-data"):
            data = cluster.get(key) or user.get(key)
            fd, path = tempfile.mkstemp(prefix="kube-", suffix=".pem", dir=workdir)
            os.write(fd, base64.b64decode(data))
            os.close(fd)
            self.files[key] = path
        self.ctx = ssl.create_default_context(cafile=self.files["certificate-authority-data"])
        self.ctx.load_cert_chain(self.files["client-certificate-data"],
                                 self.files["client-key-data"])

    def call(self, method, path, body=None, content_type="application/json", timeout=30):
        """Returns (status, decoded body); never raises for an HTTP status."""
        c = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)
        try:
            data = None
            if body is not None:
                data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            c.request(method, path, body=data,
                      headers={"Content-Type": content_type, "Accept": "application/json"})
            r = c.getresponse()
            raw = r.read()
            # the admission warnings the API server passed on ("299 - \"text\""), of this call
            self.warnings = r.msg.get_all("Warning") or []
        finally:
            c.close()
        try:
            out = json.loads(raw) if raw else None
        except ValueError:
            out = {"message": raw.decode(errors="replace")}
        return r.status, out

    def must(self, method, path, body=None, ok=(200, 201), **kw):
        st, out = self.call(method, path, body, **kw)
        if st not in ok:
            raise ApiError(st, out)
        return out

    def get(self, path):
        st, out = self.call("GET", path)
        if st == 404:
            return None
        if st != 200:
            raise ApiError(st, out)
        return out

    def create(self, path, obj):
        return self.must("POST", path, obj)

    def put(self, path, obj):
        return self.must("PUT", path, obj)

    def delete(self, path, ok=(200, 202, 404)):
        return self.must("DELETE", path, ok=ok)

    def apply(self, path, obj, manager="e2e-apply", force=False):
        """Server-side apply (what `kubectl apply --server-side` sends)."""
        q = "?fieldManager=%s%s" % (manager, "&force=true" if force else "")
        return self.call("PATCH", path + q, json.dumps(obj),
                         content_type="application/apply-patch+yaml")

    def ready(self):
        try:
            st, out = self.call("GET", "/readyz", timeout=3)
        except OSError:
            return False
        return st == 200


def object_path(obj, with_name=True):
    """The REST path of a built-in or Kruise object (the kinds this suite uses)."""
    api = obj["apiVersion"]
    kind = obj["kind"]
    plural = PLURALS[kind]
    base = "/api/" + api if "/" not in api else "/apis/" + api
    ns = obj["metadata"].get("namespace")
    if ns and kind not in CLUSTER_SCOPED:
        base += "/namespaces/" + ns
    base += "/" + plural
    return base + ("/" + obj["metadata"]["name"] if with_name else "")


PLURALS = {
    "Namespace": "namespaces", "Pod": "pods", "Service": "services", "ConfigMap": "configmaps",
    "Secret": "secrets", "SidecarSet": "sidecarsets", "CloneSet": "clonesets",
    "CustomResourceDefinition": "customresourcedefinitions",
    "MutatingWebhookConfiguration": "mutatingwebhookconfigurations",
    "ValidatingWebhookConfiguration": "validatingwebhookconfigurations",
    "ServiceAccount": "serviceaccounts", "ClusterRole": "clusterroles", "Role": "roles",
    "ClusterRoleBinding": "clusterrolebindings", "RoleBinding": "rolebindings",
    "Deployment": "deployments", "PodDisruptionBudget": "poddisruptionbudgets",
}
CLUSTER_SCOPED = {"Namespace", "SidecarSet", "CustomResourceDefinition",
                  "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
                  "ClusterRole", "ClusterRoleBinding"}


def wait_for(cond, timeout, what, step=0.05):
    deadline = time.time() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.time() >= deadline:
            raise TimeoutError("timed out after %ss waiting for %s" % (timeout, what))
        time.sleep(step)
