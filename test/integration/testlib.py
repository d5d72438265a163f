"""What the integration suites share: the test registry, checks, process bookkeeping, and the
run loop that ends with "N passed, N failed". Each test gets a scratch directory, kept when it
fails."""

import os
import shutil
import tempfile
import time
import traceback


class Failure(Exception):
    pass


def http_get(port, path):
    """GET http://127.0.0.1:port/path (the plain health and metrics listeners): (status, body
    bytes)."""
    import http.client
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def check(cond, what):
    if not cond:
        raise Failure(what)


# Every child process a test starts (servers, fake API servers). Whatever still runs when its
# test ends is killed, and the test fails: a failed test must not leave servers behind.
_live = []


def track(proc):
    """Registers a subprocess.Popen for the end-of-test check; returns it."""
    _live.append(proc)
    return proc


def stop_all(*things):
    """Calls stop() on each thing (None is skipped), every one of them even when an earlier stop
    fails, then raises the first failure."""
    first = None
    for t in things:
        if t is None:
            continue
        try:
            t.stop()
        except Exception as e:  # noqa: BLE001 - stop the rest first, then report
            if first is None:
                first = e
    if first is not None:
        raise first


def _reap():
    """Kills what the test left running; returns their command lines."""
    left = []
    for p in _live:
        if p.poll() is None:
            left.append(" ".join(str(a) for a in p.args[:2]) + " (pid %d)" % p.pid)
            p.kill()
            p.wait()
    del _live[:]
    return left


def _describe(e):
    text = str(e) if isinstance(e, Failure) else traceback.format_exc()
    ctx = e.__context__
    if ctx is not None and not e.__suppress_context__:
        # A cleanup that failed in a finally: block hides the test's own failure: show both.
        text += "\n  (raised while handling: %s)" % (ctx if isinstance(ctx, Failure) else repr(ctx))
    return text


class Suite:
    def __init__(self, prefix):
        self.prefix = prefix
        self.tests = []

    def test(self, fn):
        self.tests.append(fn)
        return fn

    def run(self, names):
        """Runs the tests (those named, when names is not empty); returns the exit status."""
        passed = failed = 0
        for fn in self.tests:
            if names and fn.__name__ not in names:
                continue
            tmp = tempfile.mkdtemp(prefix=self.prefix)
            t0 = time.time()
            error = None
            try:
                fn(tmp)
            except Exception as e:  # noqa: BLE001 - report every kind of failure
                error = _describe(e)
            left = _reap()
            if left and error is None:
                error = "left running at the end of the test: %s" % ", ".join(left)
            if error is None:
                passed += 1
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                failed += 1
                print("FAIL %s: %s" % (fn.__name__, error))
                print("  (logs kept in %s)" % tmp)
            if os.environ.get("WH_TEST_VERBOSE"):
                print("  %s %.2fs" % (fn.__name__, time.time() - t0))
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0


# --- the fake API server (test/apiserver) ---------------------------------------------------

class FakeApiServer:
    """test/apiserver/apiserver.py on 127.0.0.1 over HTTPS with the test CA (args: more of its
    options), a kubeconfig for it in workdir, and its control endpoint."""

    def __init__(self, workdir, args=()):
        import base64
        import json
        import re
        import ssl
        import subprocess
        import sys
        tls = os.path.join(ROOT, "test", "data", "tls")
        self.log = open(os.path.join(workdir, "apiserver.log"), "wb")
        self.proc = track(subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "test", "apiserver", "apiserver.py"),
             "--cert", os.path.join(tls, "server.pem"), "--key",
             os.path.join(tls, "server-key.pem")] + list(args),
            stdout=subprocess.PIPE, stderr=self.log))
        line = self.proc.stdout.readline().decode()
        m = re.search(r"https://127\.0\.0\.1:(\d+)", line)
        if not m:
            raise Failure("fake API server did not start: %r" % line)
        self.port = int(m.group(1))
        self.url = "https://127.0.0.1:%d" % self.port
        self.ctx = ssl.create_default_context(cafile=os.path.join(tls, "ca.pem"))
        self.kubeconfig = os.path.join(workdir, "kubeconfig")
        ca = base64.b64encode(open(os.path.join(tls, "ca.pem"), "rb").read()).decode()
        with open(self.kubeconfig, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "Config", "current-context": "t",
                       "clusters": [{"name": "t", "cluster": {
                           "server": self.url, "certificate-authority-data": ca}}],
                       "users": [{"name": "t", "user": {}}],
                       "contexts": [{"name": "t", "context": {"cluster": "t", "user": "t"}}]}, f)
        self._json = json

    def call(self, method, path, body=None):
        """Returns (status, decoded body)."""
        import http.client
        c = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=10)
        c.request(method, path, body=self._json.dumps(body) if body is not None else None,
                  headers={"Content-Type": "application/json"})
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, (self._json.loads(data) if data else None)

    def objects(self, objs):
        """Creates or replaces objs as given (POST /_control/objects)."""
        st, out = self.call("POST", "/_control/objects", objs)
        check(st == 200, "control objects: %s %s" % (st, out))

    def get(self, path):
        st, obj = self.call("GET", path)
        return obj if st == 200 else None

    def requests(self, clear=True):
        """The API requests received so far (GET /_control/requests), oldest first."""
        st, reqs = self.call("GET", "/_control/requests" + ("?clear=1" if clear else ""))
        return reqs or []

    def stop(self):
        import signal
        import subprocess
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


# --- a real kube-apiserver (../shared/k8s, envtest's role) -------------------------------------

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
K8S_DIR = os.environ.get("WH_K8S_DIR", os.path.join(ROOT, "..", "shared", "k8s"))


def real_apiserver_missing():
    """Why no real API server can be started here (None when one can)."""
    start = os.path.join(K8S_DIR, "start.sh")
    if not os.path.exists(start):
        return "no %s (set WH_K8S_DIR, or KUBE_APISERVER and ETCD for start.sh)" % start
    return None


def real_apiserver_or_skip(workdir):
    """A RealApiServer, or None after printing why none can be started here (the test is then
    skipped)."""
    missing = real_apiserver_missing()
    if missing:
        print("  skipped: no real API server: %s" % missing)
        return None
    return RealApiServer(workdir)


def _unpacked_apiserver():
    """The kube-apiserver binary unpacked once into build/k8s (start.sh would unpack the .xz
    again for every start, which takes longer than the start itself)."""
    import lzma
    import shutil
    dest = os.path.join(ROOT, "build", "k8s", "kube-apiserver")
    src = os.path.join(K8S_DIR, "kube-apiserver-v1.26.1-linux-amd64.xz")
    if not os.path.exists(dest) or os.path.getmtime(dest) < os.path.getmtime(src):
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        tmp = dest + ".%d.tmp" % os.getpid()
        with lzma.open(src) as fin, open(tmp, "wb") as fout:
            shutil.copyfileobj(fin, fout)
        os.chmod(tmp, 0o755)
        os.replace(tmp, dest)
    return dest


class RealApiServer:
    """A kube-apiserver v1.26 with etcd on loopback, started with ../shared/k8s/start.sh in a
    private directory and stopped with stop.sh. call() speaks HTTPS with the admin client
    certificate of its kubeconfig."""

    def __init__(self, workdir):
        import base64
        import json
        import ssl
        import subprocess
        env = dict(os.environ)
        env.setdefault("KUBE_APISERVER", _unpacked_apiserver())
        # start.sh picks free ports and binds them a moment later; on a busy machine another
        # process can take one in between (etcd: "address already in use"): start over.
        for attempt in range(3):
            self.dir = os.path.join(workdir, "k8s" if attempt == 0 else "k8s-%d" % attempt)
            os.makedirs(self.dir, exist_ok=True)
            out = subprocess.run([os.path.join(K8S_DIR, "start.sh"), self.dir],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180,
                                 env=env)
            if out.returncode == 0:
                break
            self.stop()
        else:
            raise Failure("start.sh failed: %s" % out.stderr.decode()[-2000:])
        self.kubeconfig = out.stdout.decode().strip().splitlines()[-1]
        text = open(self.kubeconfig).read()

        def field(name):
            for line in text.splitlines():
                line = line.strip()
                if line.startswith(name + ":"):
                    return line.split(":", 1)[1].strip()
            raise Failure("kubeconfig has no %s" % name)
        self.url = field("server")
        self.port = int(self.url.rsplit(":", 1)[1])
        for key, fname in (("certificate-authority-data", "ca.crt"),
                           ("client-certificate-data", "admin.crt"),
                           ("client-key-data", "admin.key")):
            with open(os.path.join(self.dir, "t-" + fname), "wb") as f:
                f.write(base64.b64decode(field(key)))
        self.ctx = ssl.create_default_context(cafile=os.path.join(self.dir, "t-ca.crt"))
        self.ctx.load_cert_chain(os.path.join(self.dir, "t-admin.crt"),
                                 os.path.join(self.dir, "t-admin.key"))
        self._json = json

    def call(self, method, path, body=None, content_type="application/json"):
        import http.client
        c = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=30)
        c.request(method, path, body=self._json.dumps(body) if body is not None else None,
                  headers={"Content-Type": content_type})
        r = c.getresponse()
        data = r.read()
        c.close()
        try:
            return r.status, (self._json.loads(data) if data else None)
        except ValueError:
            # not JSON: a path the server does not serve yet ("404 page not found" while a CRD
            # is being established)
            return r.status, data.decode(errors="replace")

    def stop(self):
        import subprocess
        subprocess.run([os.path.join(K8S_DIR, "stop.sh"), self.dir], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)
