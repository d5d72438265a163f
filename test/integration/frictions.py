#!/usr/bin/env python3
"""What a new user meets first, through the real binary and scripts (issue 29): --check-config
refusing what the server would stop on or misread, naming the file, line and field or the
flag; a port in use naming the option that moves it; make run's listeners; the migration
script without kubectl. Ends with "N passed, N failed".

Usage: frictions.py --bin build/kruise-webhook [test-name ...]
"""

import argparse
import os
import re
import socket
import subprocess
import sys

from testlib import Suite, check  # the suites' shared runner, next to this file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = None
SUITE = Suite("wh-fr-")
test = SUITE.test


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def clean_env(**extra):
    """The environment less every variable the binary reads (a developer's KUBECONFIG, a
    WEBHOOK_STATE from make run), plus extra."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("WEBHOOK_") and k not in ("KUBECONFIG", "POD_NAMESPACE",
                                                           "CERTS_RENEW_BEFORE")}
    env.update(extra)
    return env


def check_config(args, env=None):
    r = subprocess.run([BIN, "--check-config"] + args, capture_output=True, text=True,
                       timeout=30, env=env or clean_env())
    return r.returncode, r.stdout, r.stderr


def refused(args, want, env=None):
    """--check-config exits 2, prints nothing on stdout and want (a line) on stderr."""
    rc, out, err = check_config(args, env)
    check(rc == 2 and out == "" and want in err.splitlines(),
          "--check-config %s: exit %d, stdout %r, stderr %r; want the line %r" %
          (" ".join(args), rc, out, err, want))


KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: abc}
contexts:
- name: ctx
  context: {cluster: c, user: u}
"""


@test
def check_config_reads_the_kubeconfig_without_connecting(tmp):
    """The kubeconfig the server would use: missing (named by the flag or by KUBECONFIG),
    empty, without a current context, naming a context it lacks: each exits 2 naming where
    the path came from and the file. A complete one passes without a connection (nothing
    listens at its server). With --state the server is standalone: a kubeconfig is not read,
    and a note says so."""
    missing = os.path.join(tmp, "nowhere")
    refused(["--kubeconfig", missing],
            "kruise-webhook: flag --kubeconfig: %s: cannot open: No such file or directory" %
            missing)
    empty = write(os.path.join(tmp, "empty"), "")
    refused([], "kruise-webhook: environment variable KUBECONFIG: %s: empty: no "
                "current-context, no clusters, no users" % empty,
            env=clean_env(KUBECONFIG=empty))
    no_ctx = write(os.path.join(tmp, "no-context"), KUBECONFIG)
    refused(["--kubeconfig", no_ctx],
            "kruise-webhook: flag --kubeconfig: %s: current-context is not set" % no_ctx)
    cfg = write(os.path.join(tmp, "config.yaml"), "kubeconfig: %s\n" % no_ctx)
    refused(["--config", cfg], "kruise-webhook: %s:1:1: kubeconfig: %s: current-context is not "
                               "set" % (cfg, no_ctx))
    other = write(os.path.join(tmp, "other"), KUBECONFIG + "current-context: elsewhere\n")
    rc, _, err = check_config(["--kubeconfig", other])
    check(rc == 2 and "flag --kubeconfig: %s: " % other in err and "elsewhere" in err, err)
    good = write(os.path.join(tmp, "good"), KUBECONFIG + "current-context: ctx\n")
    rc, out, err = check_config(["--kubeconfig", good])
    check(rc == 0 and out == "configuration ok\n" and err == "", "%d %r %r" % (rc, out, err))
    rc, out, err = check_config(["--state", os.path.join(ROOT, "examples")],
                                env=clean_env(KUBECONFIG=missing))
    check(rc == 0 and out == "configuration ok\n" and
          "the kubeconfig of environment variable KUBECONFIG is not read" in err,
          "--state with KUBECONFIG: %d %r %r" % (rc, out, err))


@test
def check_config_types_every_state_object_with_file_line_and_field(tmp):
    """Every object of --state is decoded as the Go types decode it; one the server would
    misread (a SidecarSet whose selector is kubectl's -l text, a Pod's image a number inside a
    List, a label that is a list) is named by file, line, kind, name and field with Go's
    message, each on its line, and the exit is 2; the README's examples/ pass."""
    state = os.path.join(tmp, "state")
    os.makedirs(state)
    a = write(os.path.join(state, "a.yaml"), """\
apiVersion: apps.kruise.io/v1alpha1
kind: SidecarSet
metadata:
  name: web-sidecars
spec:
  selector: "app=web"
  containers:
    - name: agent
      image: busybox:1.36
""")
    b = write(os.path.join(state, "b.yaml"), """\
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    team: [a, b]
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: p}
    spec:
      containers:
        - name: a
          image: nginx
        - name: b
          image: 5
""")
    rc, out, err = check_config(["--state", state])
    want = [
        "kruise-webhook: %s:6: SidecarSet web-sidecars: field spec.selector: json: cannot "
        "unmarshal string into Go struct field SidecarSetSpec.spec.selector of type "
        "v1.LabelSelector" % a,
        "kruise-webhook: %s:6: Namespace shop: field metadata.labels.team: json: cannot "
        "unmarshal array into Go struct field ObjectMeta.metadata.labels of type string" % b,
        "kruise-webhook: %s:19: Pod p: field spec.containers[1].image: json: cannot unmarshal "
        "number into Go struct field Container.spec.containers.image of type string" % b,
    ]
    check(rc == 2 and out == "" and err.splitlines() == want, "%d %r\n%s" % (rc, out, err))
    rc, out, err = check_config(["--state", os.path.join(ROOT, "examples")])
    check(rc == 0 and out == "configuration ok\n" and err == "", "examples/: %r" % err)


@test
def check_config_measures_the_renewal_margin(tmp):
    """--certs-renew-before: a text the server would replace by 180 days, and a margin not
    shorter than the validity of the certificate in --cert-dir (a 90-day certificate, as
    cert-manager issues, with the default 180d) each exit 2, naming the option and where its
    value came from; a shorter margin passes."""
    refused(["--certs-renew-before", "6 months"],
            'kruise-webhook: flag --certs-renew-before: "6 months" is not <n>d, <n>m or <n>y '
            'with n > 0: the server would use the default, 180d')
    certs = os.path.join(tmp, "certs")
    subprocess.run([BIN, "certs", "generate", "--out", certs, "--host", "localhost", "--days",
                    "90"], check=True, stdout=subprocess.DEVNULL, env=clean_env())
    rc, out, err = check_config(["--cert-dir", certs])
    check(rc == 2 and out == "" and err.startswith(
        "kruise-webhook: --certs-renew-before (default): 180d (180 days) is not shorter than "
        "the 90-day validity of the serving certificate in %s (" % certs), err)
    rc, _, err = check_config(["--cert-dir", certs], env=clean_env(CERTS_RENEW_BEFORE="4m"))
    check(rc == 2 and err.startswith("kruise-webhook: environment variable CERTS_RENEW_BEFORE: "
                                     "4m (120 days)"), err)
    rc, out, err = check_config(["--cert-dir", certs, "--certs-renew-before", "30d"])
    check(rc == 0 and out == "configuration ok\n", "30d: %d %r" % (rc, err))


@test
def feature_gate_typo_names_its_source(tmp):
    """A feature-gate typo is reported as coming from where it was written: the variable, the
    --config file's line, or the flag (it was always called --feature-gates)."""
    for args, env, head in (
            ([], clean_env(WEBHOOK_FEATURE_GATES="PodWebhok=false"),
             "environment variable WEBHOOK_FEATURE_GATES"),
            (["--config", write(os.path.join(tmp, "c.yaml"), "log-format: text\nfeature-gates:\n"
                                                             "  PodWebhok: false\n")],
             None, os.path.join(tmp, "c.yaml") + ":2:1: feature-gates"),
            (["--feature-gates=PodWebhok=false"], None, "flag --feature-gates")):
        refused(args, "kruise-webhook: %s: unrecognized feature gate: PodWebhok" % head, env)


def listening_socket():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    return s


@test
def port_in_use_names_the_option_that_moves_it(tmp):
    """A listener that cannot bind says which flag or variable sets it and where this value
    came from, for the HTTPS port and both plain addresses."""
    taken = listening_socket()
    port = taken.getsockname()[1]
    certs = os.path.join(tmp, "certs")
    subprocess.run([BIN, "certs", "generate", "--out", certs, "--host", "127.0.0.1"], check=True,
                   stdout=subprocess.DEVNULL, env=clean_env())
    base = [BIN, "--cert-dir", certs, "--bind-address", "127.0.0.1", "--log-format", "text",
            "--shutdown-delay", "0"]
    try:
        cases = (
            (["--health-addr", "0", "--metrics-addr", "0"], {"WEBHOOK_PORT": str(port)},
             "cannot listen for HTTPS on 127.0.0.1:%d (the line above says why); it is set by "
             "--port or WEBHOOK_PORT, here by environment variable WEBHOOK_PORT: choose another "
             "address or port there" % port),
            (["--port", "0", "--health-addr", "127.0.0.1:%d" % port, "--metrics-addr", "0"], {},
             "cannot listen for /healthz and /readyz on 127.0.0.1:%d (the line above says why); "
             "it is set by --health-addr or WEBHOOK_HEALTH_ADDR, here by flag --health-addr: "
             "choose another address or port there" % port),
            (["--port", "0", "--health-addr", "0"], {"WEBHOOK_METRICS_ADDR": "127.0.0.1:%d" % port},
             "cannot listen for /metrics on 127.0.0.1:%d (the line above says why); it is set by "
             "--metrics-addr or WEBHOOK_METRICS_ADDR, here by environment variable "
             "WEBHOOK_METRICS_ADDR: choose another address or port there" % port),
        )
        for args, env, want in cases:
            r = subprocess.run(base + args, capture_output=True, text=True, timeout=60,
                               env=clean_env(**env))
            last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
            check(r.returncode == 1 and last.endswith(" error " + want) and
                  "Address already in use" in r.stderr,
                  "%s %s: %d\n%s" % (args, env, r.returncode, r.stderr[-1500:]))
    finally:
        taken.close()


@test
def make_run_listens_where_no_tool_falls_back(tmp):
    """make run's listeners, as its first line names them (the binary run with --version, so
    nothing listens; -o keeps make from building anything): all on loopback, /metrics on the
    health port and nowhere near localhost:8080, where kubectl sends requests when it has no
    kubeconfig; a variable set by the user still wins."""
    def run_env(**extra):
        r = subprocess.run(["make", "-s", "--no-print-directory", "-o", BIN, "run", "BIN=" + BIN,
                            "ARGS=--version"], capture_output=True, text=True, timeout=120,
                           cwd=ROOT, env=clean_env(**extra))
        check(r.returncode == 0 and "kruise-webhook " in r.stdout,
              "make run ARGS=--version: %d %s%s" % (r.returncode, r.stdout, r.stderr[-1000:]))
        first = r.stdout.splitlines()[0].split(" (its ", 1)[0]  # the hint after it names more
        return dict(re.findall(r"\b(WEBHOOK_[A-Z_]+)=(\S+)", first))
    env = run_env()
    check(env.get("WEBHOOK_BIND_ADDRESS") == "127.0.0.1" and
          env.get("WEBHOOK_HEALTH_ADDR") == "127.0.0.1:8000" and
          env.get("WEBHOOK_METRICS_ADDR") == "127.0.0.1:8000", "make run's listeners: %s" % env)
    env = run_env(WEBHOOK_HEALTH_ADDR="127.0.0.1:8100")
    check(env.get("WEBHOOK_METRICS_ADDR") == "127.0.0.1:8100", "follows the health address: %s"
          % env)
    env = run_env(WEBHOOK_METRICS_ADDR="127.0.0.1:9100")
    check(env.get("WEBHOOK_METRICS_ADDR") == "127.0.0.1:9100", "the user's wins: %s" % env)


@test
def migration_script_says_it_needs_kubectl(tmp):
    """scripts/migrate-webhooks.py without kubectl (none on PATH, or --kubectl naming nothing)
    says what it needs and exits 1, with no traceback and nothing sent anywhere."""
    script = os.path.join(ROOT, "scripts", "migrate-webhooks.py")
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    os.symlink(sys.executable, os.path.join(bindir, "python3"))
    for args, env, why in (
            (["status"], clean_env(PATH=bindir), "there is no kubectl on PATH"),
            (["status", "--kubectl", os.path.join(tmp, "kubectl")], None,
             "%s is not an executable" % os.path.join(tmp, "kubectl"))):
        r = subprocess.run([sys.executable, script] + args, capture_output=True, text=True,
                           timeout=60, env=env or clean_env())
        check(r.returncode == 1 and r.stdout == "" and "Traceback" not in r.stderr and
              r.stderr.startswith("migrate-webhooks: needs kubectl to reach the cluster") and
              why in r.stderr and "--kubectl PATH or $KUBECTL" in r.stderr,
              "%s: %d %r" % (args, r.returncode, r.stderr))


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
