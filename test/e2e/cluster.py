"""A real kube-apiserver and etcd for the end-to-end suites (the way envtest gives Go webhooks a
real API server), plus the pieces the suites need around them: stopping and restarting the API
server alone (same ports, same etcd), reading etcd.

Where they come from, in order: K8S_DIR/start.sh (the development workspace's ../shared/k8s:
kube-apiserver v1.26.1 unpacked from its archive, etcd from Debian); else, when KUBE_APISERVER
and ETCD name binaries (any kube-apiserver 1.26+ and etcd 3.4+, envtest's assets for
instance), this module starts them itself, the same way: loopback ports, a test CA, an admin
client certificate, no controllers. Neither: the suite is skipped."""

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
        self.own = False  # started here from KUBE_APISERVER and ETCD, not by start.sh

    def _check_binaries(self):
        """Raises Skip when no kube-apiserver can be had (KUBE_APISERVER, or the archive next
        to start.sh)."""
        start = os.path.join(self.k8s_dir, "start.sh")
        if not os.path.exists(start):
            if os.environ.get("KUBE_APISERVER") and os.environ.get("ETCD"):
                self.own = True
            else:
                raise Skip("no %s: set KUBE_APISERVER and ETCD to a kube-apiserver and an etcd "
                           "binary (envtest's assets), or K8S_DIR to a directory with start.sh"
                           % start)
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
        if self.own:
            self.kubeconfig = self._start_own()
            return self.kubeconfig
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
        if self.own:
            for name in ("kube-apiserver", "etcd"):
                self._kill(name)
            return
        subprocess.run([os.path.join(self.k8s_dir, "stop.sh"), self.dir],
                       capture_output=True, timeout=120)

    # --- KUBE_APISERVER and ETCD without start.sh ------------------------------------------

    def _kill(self, name):
        """TERM, then KILL after 10 s, of the process recorded in name.pid."""
        path = os.path.join(self.dir, name + ".pid")
        if not os.path.exists(path):
            return
        pid = self._pid(name)
        try:
            os.kill(pid, signal.SIGTERM)
            deadline = time.time() + 10
            while time.time() < deadline:
                os.kill(pid, 0)
                time.sleep(0.1)
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.remove(path)

    def _openssl(self, *args):
        subprocess.run(["openssl"] + list(args), check=True, capture_output=True, timeout=120)

    def _pki(self, pki):
        """A test CA, the API server's serving certificate, an admin client certificate
        (system:masters) and the service-account key pair."""
        ca, ca_key = os.path.join(pki, "ca.crt"), os.path.join(pki, "ca.key")
        self._openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650", "-subj",
                      "/CN=test-k8s-ca", "-keyout", ca_key, "-out", ca, "-addext",
                      "basicConstraints=critical,CA:TRUE", "-addext",
                      "keyUsage=critical,keyCertSign,cRLSign,digitalSignature")
        for name, subject, eku, san in (
                ("apiserver", "/CN=kube-apiserver", "serverAuth",
                 "IP:127.0.0.1,IP:127.100.0.1,DNS:localhost,DNS:kubernetes.default.svc"),
                ("admin", "/O=system:masters/CN=test-admin", "clientAuth", None)):
            ext = os.path.join(pki, name + ".ext")
            with open(ext, "w") as f:
                f.write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,"
                        "keyEncipherment\nextendedKeyUsage=%s\n%s" %
                        (eku, "subjectAltName=%s\n" % san if san else ""))
            csr = os.path.join(pki, name + ".csr")
            self._openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout",
                          os.path.join(pki, name + ".key"), "-out", csr)
            self._openssl("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key,
                          "-CAcreateserial", "-days", "3650", "-extfile", ext, "-out",
                          os.path.join(pki, name + ".crt"))
            os.remove(csr)
            os.remove(ext)
        self._openssl("genrsa", "-out", os.path.join(pki, "sa.key"), "2048")
        self._openssl("rsa", "-in", os.path.join(pki, "sa.key"), "-pubout", "-out",
                      os.path.join(pki, "sa.pub"))

    def _launch(self, name, argv):
        log = open(os.path.join(self.dir, name + ".log"), "ab")
        p = subprocess.Popen(argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        log.close()
        with open(os.path.join(self.dir, name + ".pid"), "w") as f:
            f.write("%d\n" % p.pid)
        return p

    def _start_own(self):
        """etcd and kube-apiserver from $ETCD and $KUBE_APISERVER, configured as start.sh
        configures them; returns the admin kubeconfig once /readyz answers ok."""
        import socket
        import ssl

        def free_port():
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                return s.getsockname()[1]
        pki = os.path.join(self.dir, "pki")
        os.makedirs(pki, mode=0o700, exist_ok=True)
        self._pki(pki)
        etcd_port, peer_port, api_port = free_port(), free_port(), free_port()
        self._launch("etcd", [
            os.environ["ETCD"], "--name=test", "--data-dir=" + os.path.join(self.dir, "etcd-data"),
            "--listen-client-urls=http://127.0.0.1:%d" % etcd_port,
            "--advertise-client-urls=http://127.0.0.1:%d" % etcd_port,
            "--listen-peer-urls=http://127.0.0.1:%d" % peer_port,
            "--initial-advertise-peer-urls=http://127.0.0.1:%d" % peer_port,
            "--initial-cluster=test=http://127.0.0.1:%d" % peer_port,
            "--initial-cluster-state=new"])
        f = lambda n: os.path.join(pki, n)  # noqa: E731
        self.proc = self._launch("kube-apiserver", [
            os.environ["KUBE_APISERVER"], "--etcd-servers=http://127.0.0.1:%d" % etcd_port,
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
            "--secure-port=%d" % api_port, "--cert-dir=" + os.path.join(self.dir, "apiserver-certs"),
            "--tls-cert-file=" + f("apiserver.crt"), "--tls-private-key-file=" + f("apiserver.key"),
            "--client-ca-file=" + f("ca.crt"),
            "--service-account-issuer=https://kubernetes.default.svc",
            "--service-account-key-file=" + f("sa.pub"),
            "--service-account-signing-key-file=" + f("sa.key"), "--authorization-mode=RBAC",
            "--disable-admission-plugins=ServiceAccount",
            "--enable-admission-plugins=NamespaceLifecycle,MutatingAdmissionWebhook,"
            "ValidatingAdmissionWebhook",
            "--service-cluster-ip-range=127.100.0.0/16", "--endpoint-reconciler-type=none",
            "--allow-privileged=true", "--profiling=false", "--v=1"])

        def b64(name):
            with open(f(name), "rb") as fh:
                return base64.b64encode(fh.read()).decode()
        kubeconfig = os.path.join(self.dir, "kubeconfig")
        with open(kubeconfig, "w") as fh:
            fh.write("apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n"
                     "    server: https://127.0.0.1:%d\n    certificate-authority-data: %s\n"
                     "users:\n- name: test-admin\n  user:\n    client-certificate-data: %s\n"
                     "    client-key-data: %s\ncontexts:\n- name: test\n  context: {cluster: "
                     "test, user: test-admin}\ncurrent-context: test\n" %
                     (api_port, b64("ca.crt"), b64("admin.crt"), b64("admin.key")))
        os.chmod(kubeconfig, 0o600)
        tls = ssl.create_default_context(cafile=f("ca.crt"))
        tls.load_cert_chain(f("admin.crt"), f("admin.key"))
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                with urllib.request.urlopen("https://127.0.0.1:%d/readyz" % api_port,
                                            context=tls, timeout=2) as r:
                    if r.read() == b"ok":
                        return kubeconfig
            except OSError:
                pass
            time.sleep(0.2)
        with open(os.path.join(self.dir, "kube-apiserver.log"), errors="replace") as fh:
            tail = fh.read()[-3000:]
        self.stop()
        raise RuntimeError("the API server from KUBE_APISERVER did not become ready:\n" + tail)

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
