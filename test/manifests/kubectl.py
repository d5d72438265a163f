"""The kubectl the suites render manifests/ with (its built-in kustomize, as `kubectl apply -k`
does), shared by test/manifests/check.py and test/e2e/run.py.

$KUBECTL names one; otherwise the one on PATH. A fresh Debian 12 has none: as root with
apt-get, Debian's kubernetes-client (kubectl 1.20, kustomize v2.0.3) is installed, after an
`apt-get update` when the package is unknown. When none can be had, find() returns None and
says why in `reason`."""

import os
import shutil
import subprocess

reason = ""


def _apt_install():
    global reason
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        reason = "no kubectl (install Debian's kubernetes-client, or set KUBECTL)"
        return None
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "kubernetes-client"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, env=env, timeout=600)
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        reason = "no kubectl, and apt-get install kubernetes-client failed: %s" % (
            r.stderr.strip().splitlines() or ["?"])[-1]
        return None
    return shutil.which("kubectl")


def find():
    """The kubectl to use (a path), or None with `reason` set."""
    global reason
    named = os.environ.get("KUBECTL")
    if named:
        if os.access(named, os.X_OK):
            return named
        reason = "KUBECTL=%s is not an executable" % named
        return None
    return shutil.which("kubectl") or _apt_install()


def version(kubectl):
    """`kubectl version --client` in one line, for the suites' notes."""
    r = subprocess.run([kubectl, "version", "--client"], capture_output=True, text=True,
                       timeout=60)
    lines = [line.strip() for line in r.stdout.splitlines() if line.strip()]
    return "; ".join(lines)[:200]


def kustomize(kubectl, directory):
    """The objects `kubectl apply -k directory` would apply, as YAML text. Raises RuntimeError
    with kubectl's message when it refuses the tree (warnings on stderr are not failures)."""
    r = subprocess.run([kubectl, "kustomize", directory], capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        raise RuntimeError("kubectl kustomize %s: %s" % (directory, r.stderr.strip()[-2000:]))
    return r.stdout
