#!/usr/bin/env python3
"""Prints manifests for URL mode: every webhook entry and CRD conversion that names a Service
gets `url: https://HOST:PORT<path>` instead, the URL the server writes itself in URL mode
(WEBHOOK_HOST). Install these, not the Service form: in URL mode the server replaces a Service
with its URL, and the API server then refuses a re-apply of the Service form ("exactly one of
url or service is required"). Re-applying this output changes nothing the server keeps.

    scripts/url-mode-manifests.py --host 10.0.0.5 manifests/base/webhookconfigurations.yaml \\
        manifests/crds/*.yaml | kubectl apply -f -

    kubectl kustomize manifests/with-crds | scripts/url-mode-manifests.py --host 10.0.0.5 - \\
        | kubectl apply -f -

--host and --port default to $WEBHOOK_HOST and $WEBHOOK_PORT (9876), as for the server.
A file named - is standard input. Documents of other kinds are printed unchanged.
"""

import argparse
import os
import sys

import yaml


def url_for(host, port, path):
    # An IPv6 literal is bracketed in a URL, as the server writes it.
    if ":" in host and not host.startswith("["):
        host = "[%s]" % host
    return "https://%s:%d%s" % (host, port, path)


def to_url(client_config, host, port, default_path):
    svc = client_config.get("service")
    if not svc:
        return
    path = svc.get("path") or default_path
    del client_config["service"]
    client_config["url"] = url_for(host, port, path)


def convert(doc, host, port):
    kind = (doc or {}).get("kind")
    if kind in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
        for entry in doc.get("webhooks") or []:
            to_url(entry.setdefault("clientConfig", {}), host, port, "/")
    elif kind == "CustomResourceDefinition":
        webhook = ((doc.get("spec") or {}).get("conversion") or {}).get("webhook") or {}
        if webhook.get("clientConfig"):
            to_url(webhook["clientConfig"], host, port, "/convert")
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default=os.environ.get("WEBHOOK_HOST"))
    ap.add_argument("--port", type=int, default=int(os.environ.get("WEBHOOK_PORT") or 9876))
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    if not args.host:
        ap.error("--host (or WEBHOOK_HOST) is required")
    docs = []
    for name in args.files:
        with (sys.stdin if name == "-" else open(name)) as f:
            docs += [convert(d, args.host, args.port) for d in yaml.safe_load_all(f) if d]
    yaml.safe_dump_all(docs, sys.stdout, sort_keys=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
