"""The real kube-apiserver and etcd of ../shared/k8s for the end-to-end suite (the way
envtest gives Go webhooks a real API server), plus the pieces the suite needs around them:
stopping and restarting the API server alone (same ports, same etcd), reading etcd."""

import base64
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request


class Skip(Exception):
    """The API server or etcd cannot be had here: the suite is skipped, not failed."""


class Cluster:
    def __init__(self, k8s_dir, workdir):
        self.k8s_dir = os.path.abspath(k8s_dir)
        self.dir = os.path.join(workdir, "k8s")
        self.kubeconfig = None
        self.launched = False

    def _check_binaries(self):
        """Raises Skip when no kube-apiserver can be had (KUBE_APISERVER, or the archive next
        to start.sh)."""
        start = os.path.join(self.k8s_dir, "start.sh")
        if not os.path.exists(start):
            raise Skip("no %s (set K8S_DIR to ../shared/k8s)" % start)
        api = os.environ.get("KUBE_APISERVER")
        if api and not os.access(api, os.X_OK):
            raise Skip("KUBE_APISERVER=%s is not an executable" % api)
        if not api and not os.path.exists(
                os.path.join(self.k8s_dir, "kube-apiserver-v1.26.1-linux-amd64.xz")):
            raise Skip("no kube-apiserver: set KUBE_APISERVER (and ETCD)")
        etcd = os.environ.get("ETCD")
        if etcd and not os.access(etcd, os.X_OK):
            raise Skip("ETCD=%s is not an executable" % etcd)

    def start(self):
        self._check_binaries()
        os.makedirs(self.dir, exist_ok=True)
        self.launched = True
        r = subprocess.run([os.path.join(self.k8s_dir, "start.sh"), self.dir],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            # start.sh installs etcd-server with apt-get; when that was impossible, skip.
            if not os.environ.get("ETCD") and not shutil.which("etcd"):
                raise Skip("etcd cannot be had (start.sh could not install etcd-server)")
            raise RuntimeError("start.sh failed:\n%s" % r.stderr[-3000:])
        self.kubeconfig = r.stdout.strip().splitlines()[-1]
        return self.kubeconfig

    def stop(self):
        if not self.launched:
            return
        subprocess.run([os.path.join(self.k8s_dir, "stop.sh"), self.dir],
                       capture_output=True, timeout=120)

    def _pid(self, name):
        with open(os.path.join(self.dir, name + ".pid")) as f:
            return int(f.read().strip())

    def apiserver_argv(self):
        with open("/proc/%d/cmdline" % self._pid("kube-apiserver"), "rb") as f:
            return [a.decode() for a in f.read().split(b"\0") if a]

    def stop_apiserver(self):
        """Stops the API server alone (etcd keeps running); returns its command line. SIGTERM,
        then SIGKILL after 5 s: its graceful shutdown waits for long-running requests (our
        watches) much longer, and a crash is as real a way to go away."""
        argv = self.apiserver_argv()
        pid = self._pid("kube-apiserver")
        os.kill(pid, signal.SIGTERM)
        deadline = time.time() + 5
        while time.time() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)
        return argv

    def start_apiserver(self, argv):
        """The same API server again: same ports, certificates and etcd (start.sh's way)."""
        log = open(os.path.join(self.dir, "kube-apiserver.log"), "ab")
        p = subprocess.Popen(argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        log.close()
        with open(os.path.join(self.dir, "kube-apiserver.pid"), "w") as f:
            f.write("%d\n" % p.pid)
        self.proc = p  # reaped by stop.sh's kill and our exit; kept to avoid a zombie warning

    def etcd_get(self, key):
        """The stored bytes of key, read through etcd's v3 JSON gateway (None when absent)."""
        endpoint = [a.split("=", 1)[1] for a in self.apiserver_argv()
                    if a.startswith("--etcd-servers=")][0].split(",")[0]
        body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
        req = urllib.request.Request(endpoint + "/v3/kv/range", data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            out = json.load(r)
        kvs = out.get("kvs") or []
        return base64.b64decode(kvs[0]["value"]) if kvs else None
