#!/usr/bin/env python3
"""A small fake kube-apiserver for kruise-webhook's tests (standard library only).

Run `apiserver.py --help`; behaviour, control endpoint and known differences from the
real API server are in README.md next to this file.
"""

import argparse
import hmac
import json
import os
import select
import signal
import socket
import ssl
import sys
import threading
import time
import traceback
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

# Taken first thing, to narrow the window in which a parent that dies at once goes unnoticed.
START_PPID = os.getppid()

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fakekube import errors as E  # noqa: E402
from fakekube import resources as R  # noqa: E402
from fakekube.selectors import SelectorError, parse_field_selector, parse_label_selector  # noqa: E402
from fakekube.store import INITIAL_EVENTS_END, Query, Store, list_item, typed  # noqa: E402

KUBE_VERSION = {"major": "1", "minor": "32", "gitVersion": "v1.32.10", "gitCommit": "fake",
                "gitTreeState": "clean", "buildDate": "2025-01-01T00:00:00Z", "goVersion": "go1.23.0",
                "compiler": "gc", "platform": "linux/amd64"}
MAX_REQUESTS_LOGGED = 10000
# A watch client that stops reading for this long is disconnected.
WATCH_WRITE_TIMEOUT = 60.0
CLIENT_GONE_ERRORS = (ConnectionError, ssl.SSLError, socket.timeout, BrokenPipeError, OSError)


class ClientGone(Exception):
    pass


def parse_bool(v, name):
    """strconv.ParseBool, which the real server uses for boolean query parameters."""
    if v is None or v == "":
        return False
    if v in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if v in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise E.bad_request('strconv.ParseBool: parsing "%s": invalid syntax (query parameter %s)' % (v, name))


def parse_int(v, name, default=None):
    if v is None or v == "":
        return default
    try:
        return int(v)
    except ValueError:
        raise E.bad_request('strconv.ParseInt: parsing "%s": invalid syntax (query parameter %s)' % (v, name))


class Control(object):
    """State of the /_control/ endpoint: injected failures and delays, the request log."""

    def __init__(self):
        self.lock = threading.Lock()
        self.fail_rules = []
        self.delay_rules = []
        self.requests = []

    @staticmethod
    def _rule(q, value_key):
        rule = {value_key: parse_int(q.get(value_key), value_key),
                "count": parse_int(q.get("count"), "count", 1),
                "pathPrefix": q.get("path_prefix", ""),
                "methods": sorted(m.strip().upper() for m in q.get("methods", "").split(",") if m.strip())}
        if rule[value_key] is None:
            raise E.bad_request("%s is required" % value_key)
        if rule["count"] == 0 or rule["count"] < -1:
            raise E.bad_request("count must be positive, or -1 for no limit")
        return rule

    @staticmethod
    def _take(rules, method, path, value_key):
        for r in rules:
            if path.startswith(r["pathPrefix"]) and (not r["methods"] or method in r["methods"]):
                if r["count"] > 0:
                    r["count"] -= 1
                    if r["count"] == 0:
                        rules.remove(r)
                return r[value_key]
        return None

    def add_fail(self, q):
        rule = self._rule(q, "code")
        if not 100 <= rule["code"] <= 599:
            raise E.bad_request("code must be an HTTP status code")
        with self.lock:
            self.fail_rules.append(rule)

    def add_delay(self, q):
        rule = self._rule(q, "ms")
        with self.lock:
            self.delay_rules.append(rule)

    def failure_for(self, method, path):
        with self.lock:
            return self._take(self.fail_rules, method, path, "code")

    def delay_for(self, method, path):
        with self.lock:
            return self._take(self.delay_rules, method, path, "ms")

    def record(self, entry):
        with self.lock:
            self.requests.append(entry)
            if len(self.requests) > MAX_REQUESTS_LOGGED:
                del self.requests[:len(self.requests) - MAX_REQUESTS_LOGGED]

    def clear_rules(self):
        with self.lock:
            self.fail_rules = []
            self.delay_rules = []


class Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, addr, cfg, store, control, ssl_ctx, log):
        self.cfg = cfg
        self.store = store
        self.control = control
        self.ssl_ctx = ssl_ctx
        self.log = log
        self.stopping = threading.Event()
        super().__init__(addr, Handler)

    def get_request(self):
        sock, addr = super().get_request()
        if self.ssl_ctx is not None:
            # Wrapped here so that shutdown_request() closes the TLS socket; the handshake
            # itself runs later, in the connection's own thread (Handler.setup).
            sock = self.ssl_ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, addr

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, CLIENT_GONE_ERRORS):
            self.log("connection from %s ended: %r" % (client_address[0], exc))
            return
        self.log("error serving %s:\n%s" % (client_address[0], traceback.format_exc()), always=True)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-kube-apiserver"
    sys_version = ""

    def setup(self):
        # Headers and body leave in separate writes; without TCP_NODELAY the second waits for
        # the client's delayed ACK, adding 40 ms to every answer on a kept-alive connection.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if isinstance(self.request, ssl.SSLSocket):
            self.request.settimeout(10)
            self.request.do_handshake()
            self.request.settimeout(None)
        super().setup()

    def version_string(self):
        return self.server_version

    def log_message(self, fmt, *args):
        self.server.log("%s %s" % (self.client_address[0], fmt % args))

    def log_request(self, code="-", size="-"):
        pass

    # ----- plumbing ----------------------------------------------------------------------

    def do_GET(self):
        self._dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def _dispatch(self):
        t0 = time.monotonic()
        self._code = None
        self._entry = None
        self._audit_id = str(uuid.uuid4())
        url = urlsplit(self.path)
        path = url.path
        entry = None
        try:
            self._query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
            body = self._read_body()
            if path == "/_control" or path.startswith("/_control/"):
                self._control(path[len("/_control/"):], body)
                return
            entry = {"method": self.command, "path": path, "query": url.query,
                     "contentType": self.headers.get("Content-Type", ""),
                     "userAgent": self.headers.get("User-Agent", ""),
                     "accept": self.headers.get("Accept", ""),
                     "authorization": "Authorization" in self.headers,
                     "time": time.time(), "code": None}
            self.server.control.record(entry)
            self._entry = entry
            if path in ("/healthz", "/livez", "/readyz"):
                self._send_bytes(200, b"ok", "text/plain; charset=utf-8")
                return
            if not self._authenticated():
                raise E.unauthorized()
            ms = self.server.control.delay_for(self.command, path)
            if ms:
                time.sleep(ms / 1000.0)
            code = self.server.control.failure_for(self.command, path)
            if code is not None:
                raise E.injected(code)
            self._route(path, body)
        except E.ApiError as e:
            if self._code is None:
                self._send_json(e.code, e.status(), e.headers())
        except ClientGone:
            self.close_connection = True
        except CLIENT_GONE_ERRORS as e:
            self.close_connection = True
            self.server.log("client %s went away: %r" % (self.client_address[0], e))
        except Exception:
            self.server.log("internal error on %s %s:\n%s" % (self.command, self.path, traceback.format_exc()),
                            always=True)
            if self._code is None:
                err = E.internal("fake apiserver bug, see its log")
                self._send_json(500, err.status())
            else:
                self.close_connection = True
        finally:
            if entry is not None:
                entry["code"] = self._code
            self.server.log("%s %s %s -> %s (%.1f ms)" % (self.client_address[0], self.command, self.path,
                                                         self._code, (time.monotonic() - t0) * 1000))

    def _read_exactly(self, n, keep):
        """Read n body bytes; keep them only if keep (an oversized body is drained, not stored)."""
        parts = []
        while n > 0:
            data = self.rfile.read(min(n, 1 << 16))
            if not data:
                raise ClientGone()
            n -= len(data)
            if keep:
                parts.append(data)
        return b"".join(parts)

    def _read_body(self):
        limit = self.server.cfg.max_body
        # Past the limit the body is still read (up to a point) so that the client, which is
        # probably still sending, gets to read the 413 answer on a usable connection.
        drain_limit = max(limit * 8, 32 << 20)
        te = self.headers.get("Transfer-Encoding", "").lower()
        if "chunked" in te:
            chunks, total = [], 0
            while True:
                line = self.rfile.readline(1024)
                if not line:
                    raise ClientGone()
                try:
                    size = int(line.split(b";")[0].strip() or b"0", 16)
                except ValueError:
                    self.close_connection = True
                    raise E.bad_request("malformed chunked request body")
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                total += size
                if total > drain_limit:
                    self.close_connection = True
                    raise E.too_large("limit is %d" % limit)
                chunks.append(self._read_exactly(size, total <= limit))
                self.rfile.readline(1024)
            if total > limit:
                raise E.too_large("limit is %d" % limit)
            return b"".join(chunks)
        length = self.headers.get("Content-Length")
        if not length:
            return b""
        try:
            n = int(length)
        except ValueError:
            self.close_connection = True
            raise E.bad_request("invalid Content-Length")
        if n > limit:
            if n > drain_limit:
                self.close_connection = True
            else:
                self._read_exactly(n, False)
            raise E.too_large("limit is %d" % limit)
        return self._read_exactly(n, True)

    def _authenticated(self):
        cfg = self.server.cfg
        if not cfg.token and not cfg.client_ca:
            return True
        if cfg.token:
            parts = self.headers.get("Authorization", "").split(None, 1)
            if len(parts) == 2 and parts[0].lower() == "bearer" and \
                    hmac.compare_digest(parts[1].strip().encode(), cfg.token.encode()):
                return True
        if cfg.client_ca and isinstance(self.connection, ssl.SSLSocket):
            try:
                return bool(self.connection.getpeercert())
            except ValueError:
                return False
        return False

    def _headers_common(self, code, ctype):
        self._code = code
        if self._entry is not None:
            # recorded before the answer leaves: a client may ask for the log right after it
            self._entry["code"] = code
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Audit-Id", self._audit_id)

    def _send_bytes(self, code, data, ctype, headers=None):
        self._headers_common(code, ctype)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _send_json(self, code, obj, headers=None):
        data = (json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")
        self._send_bytes(code, data, "application/json", headers)

    def _json_body(self, body, kind="object"):
        try:
            return json.loads(body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise E.bad_request("the object provided is unrecognized (must be of type %s): couldn't get "
                                "version/kind; json parse error: %s" % (kind, e))

    # ----- routing --------------------------------------------------------------------------

    def _route(self, path, body):
        parts = [p for p in path.split("/") if p]
        m = self.command
        store = self.server.store
        if not parts:
            if m != "GET":
                raise E.method_not_allowed()
            paths = ["/api", "/api/v1", "/apis", "/healthz", "/livez", "/readyz", "/version"]
            paths += ["/apis/" + g for g, _ in store.discovery_groups()]
            paths += ["/apis/%s/%s" % (g, v) for g, vs in store.discovery_groups() for v in vs]
            self._send_json(200, {"paths": sorted(paths)})
            return
        if parts == ["version"]:
            self._send_json(200, KUBE_VERSION)
            return
        if parts[0] == "api":
            if len(parts) == 1:
                self._get_only()
                host = "%s:%d" % (self.server.cfg.bind, self.server.server_address[1])
                self._send_json(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
                    {"clientCIDR": "0.0.0.0/0", "serverAddress": host}]})
                return
            if parts[1] != "v1":
                raise E.no_route()
            group, version, rest = "", "v1", parts[2:]
        elif parts[0] == "apis":
            groups = store.discovery_groups()
            if len(parts) == 1:
                self._get_only()
                self._send_json(200, {"kind": "APIGroupList", "apiVersion": "v1",
                                      "groups": [self._api_group(g, vs) for g, vs in groups]})
                return
            vs = dict(groups).get(parts[1])
            if vs is None:
                raise E.no_route()
            if len(parts) == 2:
                self._get_only()
                doc = self._api_group(parts[1], vs)
                doc["kind"], doc["apiVersion"] = "APIGroup", "v1"
                self._send_json(200, doc)
                return
            if parts[2] not in vs:
                raise E.no_route()
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            raise E.no_route()
        if not rest:
            self._get_only()
            types = store.discovery_resources(group, version)
            self._send_json(200, R.api_resource_list(group + "/" + version if group else version, types))
            return
        self._resource_request(group, version, rest, body)

    def _get_only(self):
        if self.command != "GET":
            raise E.method_not_allowed()

    @staticmethod
    def _api_group(g, versions):
        vs = [{"groupVersion": g + "/" + v, "version": v} for v in versions]
        return {"name": g, "versions": vs, "preferredVersion": vs[0]}

    def _resource_request(self, group, version, rest, body):
        store = self.server.store
        watch_prefix = False
        if rest[0] == "watch":
            watch_prefix, rest = True, rest[1:]
            if not rest:
                raise E.no_route()
        ns = None
        if rest[0] == "namespaces" and len(rest) > 2 and rest[2] not in ("status", "finalize"):
            ns, rest = rest[1], rest[2:]
        if len(rest) > 3:
            raise E.no_route()
        resource = rest[0]
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        rt = store.resolve(group, version, resource)
        if rt is None:
            raise E.no_route()
        if ns is not None and not rt.namespaced:
            raise E.no_route()
        if rt.namespaced and ns is None and name is not None:
            raise E.no_route()
        if sub is not None and (sub != "status" or not rt.status or watch_prefix):
            raise E.no_route()
        q = self._query
        dry_run = self._dry_run()
        m = self.command
        if m in ("POST", "PUT"):
            ctype = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if ctype and ctype != "application/json":
                # The real server also takes YAML and protobuf; this one only JSON.
                raise E.unsupported_media_type(["application/json"])
        if name is None:
            if m == "GET":
                self._list_or_watch(rt, ns, None, watch_prefix)
            elif m == "POST" and not watch_prefix:
                if rt.namespaced and ns is None:
                    raise E.method_not_allowed()
                obj = store.create(rt, ns, self._json_body(body, rt.kind), dry_run)
                self._send_json(201, typed(rt, obj))
            elif m == "DELETE" and not watch_prefix:
                self._delete_collection(rt, ns, body, dry_run)
            else:
                raise E.method_not_allowed()
            return
        if m == "GET":
            if watch_prefix or parse_bool(q.get("watch"), "watch"):
                self._list_or_watch(rt, ns, name, True)
            else:
                self._send_json(200, typed(rt, store.get(rt, ns, name)))
        elif watch_prefix:
            raise E.method_not_allowed()
        elif m == "PUT":
            obj = store.update(rt, ns, name, self._json_body(body, rt.kind), sub, dry_run)
            self._send_json(200, typed(rt, obj))
        elif m == "PATCH":
            ctype = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
            obj = store.patch(rt, ns, name, ctype, body, sub, dry_run)
            self._send_json(200, typed(rt, obj))
        elif m == "DELETE" and sub is None:
            opts = self._delete_options(body)
            obj, gone = store.delete(rt, ns, name, opts, dry_run)
            if gone and not rt.return_deleted:
                details = {"name": name}
                if rt.group:
                    details["group"] = rt.group
                details["kind"] = rt.plural
                details["uid"] = obj["metadata"].get("uid", "")
                self._send_json(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                      "details": details})
            else:
                self._send_json(200, typed(rt, obj))
        else:
            raise E.method_not_allowed()

    def _dry_run(self):
        vals = parse_qs(urlsplit(self.path).query).get("dryRun", [])
        for v in vals:
            if v != "All":
                raise E.bad_request('Invalid dryRun value: "%s" (only "All" is supported)' % v)
        return bool(vals)

    def _delete_options(self, body):
        opts = {}
        if body.strip():
            opts = self._json_body(body, "DeleteOptions")
            if not isinstance(opts, dict):
                raise E.bad_request("the body of a DELETE must be a DeleteOptions object")
        return opts

    def _delete_collection(self, rt, ns, body, dry_run):
        store = self.server.store
        query = self._query_for(rt, ns, None)
        opts = self._delete_options(body)
        items, _, _, _ = store.list(rt, query)
        deleted = []
        for obj in items:
            md = obj["metadata"]
            try:
                out, _ = store.delete(rt, md.get("namespace", ""), md["name"], opts, dry_run)
            except E.ApiError as e:
                if e.code == 404:
                    continue
                raise
            deleted.append(list_item(rt, out))
        self._send_json(200, {"kind": rt.list_kind, "apiVersion": rt.gv,
                              "metadata": {"resourceVersion": str(store.rv)}, "items": deleted})

    def _query_for(self, rt, ns, name):
        q = self._query
        try:
            labels = parse_label_selector(q.get("labelSelector", ""))
            fields = parse_field_selector(q.get("fieldSelector", ""))
        except SelectorError as e:
            raise E.bad_request(str(e))
        for f, _, _ in fields:
            if not rt.supports_field(f):
                raise E.bad_request("field label not supported: %s" % f)
        if name is not None:
            if fields and not (len(fields) == 1 and fields[0] == ("metadata.name", False, name)):
                raise E.bad_request("fieldSelector metadata.name doesn't match requested name")
            fields = [("metadata.name", False, name)]
        return Query(ns, labels, fields)

    def _list_or_watch(self, rt, ns, name, force_watch):
        q = self._query
        store = self.server.store
        query = self._query_for(rt, ns, name)
        watch = force_watch or parse_bool(q.get("watch"), "watch")
        rv = q.get("resourceVersion")
        if rv not in (None, "") and not rv.isdigit():
            raise E.bad_request('invalid resource version "%s"' % rv)
        rv_match = q.get("resourceVersionMatch") or None
        send_initial = q.get("sendInitialEvents")
        send_initial = None if send_initial in (None, "") else parse_bool(send_initial, "sendInitialEvents")
        bookmarks = parse_bool(q.get("allowWatchBookmarks"), "allowWatchBookmarks")
        limit = parse_int(q.get("limit"), "limit", 0)
        cont = q.get("continue") or None
        timeout = parse_int(q.get("timeoutSeconds"), "timeoutSeconds", 0)
        causes = []
        if rv_match is not None:
            if rv_match not in ("NotOlderThan", "Exact"):
                causes.append(("resourceVersionMatch", "Unsupported",
                               E.invalid_value(rv_match, 'supported values: "Exact", "NotOlderThan", ""')))
            elif watch and not send_initial:
                causes.append(("resourceVersionMatch", "Forbidden",
                               "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
            elif rv in (None, "") and not watch:
                causes.append(("resourceVersionMatch", "Forbidden",
                               "resourceVersionMatch is forbidden unless resourceVersion is provided"))
            elif cont:
                causes.append(("resourceVersionMatch", "Forbidden",
                               "resourceVersionMatch is forbidden when continue is provided"))
            elif rv_match == "Exact" and rv == "0":
                causes.append(("resourceVersionMatch", "Forbidden",
                               'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
        if send_initial is not None:
            if not watch:
                causes.append(("sendInitialEvents", "Forbidden", "sendInitialEvents is forbidden for list"))
            elif send_initial:
                if rv_match != "NotOlderThan":
                    causes.append(("resourceVersionMatch", "Forbidden",
                                   "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
                if not bookmarks:
                    causes.append(("allowWatchBookmarks", "Forbidden",
                                   "sendInitialEvents requires setting allowWatchBookmarks to true"))
        if causes:
            raise E.list_options_invalid(causes)
        if watch:
            self._serve_watch(rt, query, rv, bookmarks, bool(send_initial), timeout)
            return
        if cont and rv not in (None, "", "0"):
            raise E.bad_request("specifying resource version is not allowed when using continue")
        items, snap, token, remaining = store.list(rt, query, limit, cont, rv, rv_match)
        meta = {"resourceVersion": str(snap)}
        if token:
            meta["continue"] = token
        if remaining is not None:
            meta["remainingItemCount"] = remaining
        self._send_json(200, {"kind": rt.list_kind, "apiVersion": rt.gv, "metadata": meta,
                              "items": [list_item(rt, o) for o in items]})

    # ----- watch ---------------------------------------------------------------------------

    def _event_bytes(self, rt, item):
        t = item[0]
        if t == "BOOKMARK":
            meta = {"resourceVersion": str(item[1])}
            if item[2]:
                meta["annotations"] = {INITIAL_EVENTS_END: "true"}
            obj = {"kind": rt.kind, "apiVersion": rt.gv, "metadata": meta}
        elif t == "ERROR":
            obj = item[1]
        else:
            obj = typed(rt, item[1])
        data = (json.dumps({"type": t, "object": obj}, separators=(",", ":"), ensure_ascii=False) + "\n")
        data = data.encode("utf-8")
        return b"%x\r\n%s\r\n" % (len(data), data)

    def _serve_watch(self, rt, query, rv, bookmarks, send_initial, timeout):
        store = self.server.store
        w = store.watch(rt, query, rv, bookmarks, send_initial)
        try:
            self._headers_common(200, "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            self.connection.settimeout(WATCH_WRITE_TIMEOUT)
            now = time.monotonic()
            deadline = now + timeout if timeout > 0 else None
            interval = self.server.cfg.bookmark_interval
            next_bm = now + interval if bookmarks and interval > 0 else None
            next_probe = now + 1.0
            while True:
                now = time.monotonic()
                wake = min(t for t in (deadline, next_bm, next_probe) if t is not None)
                items, state = w.take(max(0.0, min(wake - now, 1.0)))
                if state == "drop":
                    self._abort()
                    return
                if items:
                    self.wfile.write(b"".join(self._event_bytes(rt, it) for it in items))
                now = time.monotonic()
                if state == "end" or self.server.stopping.is_set() or (deadline is not None and now >= deadline):
                    self.wfile.write(b"0\r\n\r\n")
                    self.connection.settimeout(None)
                    return
                if next_bm is not None and now >= next_bm:
                    store.bookmark(w)
                    next_bm = now + interval
                if now >= next_probe:
                    if self._client_gone():
                        raise ClientGone()
                    next_probe = now + 1.0
        finally:
            store.unwatch(w)

    def _client_gone(self):
        sock = self.connection
        try:
            readable, _, _ = select.select([sock], [], [], 0)
        except (OSError, ValueError):
            return True
        if not readable:
            return False
        previous = sock.gettimeout()
        sock.settimeout(0.0)
        try:
            data = sock.recv(1)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
            return False
        except (OSError, ssl.SSLError):
            return True
        finally:
            try:
                sock.settimeout(previous)
            except OSError:
                pass
        if data:
            # A client that talks during a watch is not following HTTP/1.1; do not reuse it.
            self.close_connection = True
            return False
        return True

    def _abort(self):
        """Cut the connection without ending the chunked stream (or TLS) properly."""
        self.close_connection = True
        try:
            socket.socket.shutdown(self.connection, socket.SHUT_RDWR)
        except OSError:
            pass

    # ----- control endpoint ----------------------------------------------------------------

    def _control(self, what, body):
        store = self.server.store
        control = self.server.control
        q = self._query
        m = self.command
        if what == "reset" and m == "POST":
            store.reset()
            control.clear_rules()
            self._send_json(200, {"resourceVersion": str(store.rv)})
        elif what == "drop-watches" and m == "POST":
            ws = store.all_watchers()
            for w in ws:
                w.end("drop")
            self._send_json(200, {"dropped": len(ws)})
        elif what in ("fail", "delay"):
            rules_attr = "fail_rules" if what == "fail" else "delay_rules"
            if m == "DELETE" or (m == "POST" and parse_bool(q.get("clear"), "clear")):
                with control.lock:
                    setattr(control, rules_attr, [])
            elif m == "POST":
                (control.add_fail if what == "fail" else control.add_delay)(q)
            elif m != "GET":
                raise E.method_not_allowed()
            with control.lock:
                self._send_json(200, {"rules": [dict(r) for r in getattr(control, rules_attr)]})
        elif what == "compact" and m == "POST":
            self._send_json(200, {"resourceVersion": str(store.compact())})
        elif what == "requests" and m in ("GET", "DELETE"):
            with control.lock:
                out = list(control.requests)
                if m == "DELETE" or parse_bool(q.get("clear"), "clear"):
                    control.requests = []
            self._send_json(200, out)
        elif what == "objects" and m == "GET":
            self._send_json(200, store.dump())
        elif what == "objects" and m == "POST":
            doc = self._json_body(body, "List")
            if isinstance(doc, dict) and isinstance(doc.get("items"), list):
                doc = doc["items"]
            if not isinstance(doc, list):
                raise E.bad_request("expected a JSON list of objects (or an object with \"items\")")
            stored = store.load(doc)
            self._send_json(200, {"count": len(stored), "resourceVersion": str(store.rv), "items": stored})
        elif what == "watches" and m == "GET":
            counts = {}
            for w in store.all_watchers():
                k = E.gr_string(w.rt.gr)
                counts[k] = counts.get(k, 0) + 1
            self._send_json(200, counts)
        elif what == "rv" and m == "GET":
            self._send_json(200, {"resourceVersion": str(store.rv), "compacted": str(store.compacted)})
        elif what == "bookmark" and m == "POST":
            # A BOOKMARK with the current resourceVersion on every watch that allows them, now:
            # lets a test know when a client's caches have seen everything written so far.
            ws = [w for w in store.all_watchers() if w.allow_bookmarks]
            for w in ws:
                store.bookmark(w)
            self._send_json(200, {"resourceVersion": str(store.rv), "watches": len(ws)})
        elif what in ("reset", "drop-watches", "compact", "requests", "objects", "watches", "rv",
                      "bookmark"):
            raise E.method_not_allowed()
        else:
            raise E.no_route()


def make_logger(path):
    lock = threading.Lock()
    f = open(path, "a", buffering=1) if path else None

    def log(msg, always=False):
        if f is None and not always:
            return
        line = "%s %s\n" % (time.strftime("%H:%M:%S"), msg)
        with lock:
            (f or sys.stderr).write(line)
    return log


def main(argv=None):
    ap = argparse.ArgumentParser(description="Fake kube-apiserver for kruise-webhook tests.")
    ap.add_argument("--port", type=int, default=0, help="port to listen on; 0 picks a free one (default)")
    ap.add_argument("--bind", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    ap.add_argument("--cert", help="server certificate (PEM)")
    ap.add_argument("--key", help="server private key (PEM)")
    ap.add_argument("--plain-http", action="store_true", help="serve plain HTTP (debugging only)")
    ap.add_argument("--token", help="require 'Authorization: Bearer TOKEN' on every API request")
    ap.add_argument("--client-ca", help="accept client certificates signed by this CA as authentication")
    ap.add_argument("--state", help="JSON list of objects to load at start")
    ap.add_argument("--log", help="append a request/error log to this file")
    ap.add_argument("--kruise-crds", action="store_true", help="preload the OpenKruise CRDs")
    ap.add_argument("--kruise-crds-alpha-only", action="store_true",
                    help="preload the OpenKruise CRDs serving v1alpha1 only (an older OpenKruise)")
    ap.add_argument("--no-namespace-check", action="store_true",
                    help="allow creating namespaced objects in namespaces that do not exist")
    ap.add_argument("--bookmark-interval", type=float, default=1.0,
                    help="seconds between BOOKMARK events on watches that allow them (default 1)")
    ap.add_argument("--history-limit", type=int, default=100000,
                    help="watch events kept before the oldest are compacted away (default 100000)")
    ap.add_argument("--max-body", type=int, default=3 * 1024 * 1024,
                    help="largest request body accepted, in bytes (default 3 MiB, like the real server)")
    ap.add_argument("--no-parent-watch", action="store_true",
                    help="keep running when the parent process exits (by default the server stops then, "
                         "so that a test runner that dies, or a wrapper such as a pyenv shim that gets the "
                         "SIGTERM, does not leave it behind)")
    cfg = ap.parse_args(argv)
    if not cfg.plain_http and not (cfg.cert and cfg.key):
        ap.error("--cert and --key are required (or --plain-http)")
    if cfg.kruise_crds and cfg.kruise_crds_alpha_only:
        ap.error("--kruise-crds and --kruise-crds-alpha-only exclude each other")

    log = make_logger(cfg.log)
    store = Store(namespace_check=not cfg.no_namespace_check, history_limit=cfg.history_limit)
    store.add_system_namespaces()
    if cfg.kruise_crds or cfg.kruise_crds_alpha_only:
        store.load(R.kruise_crds(alpha_only=cfg.kruise_crds_alpha_only), baseline=True)
    if cfg.state:
        with open(cfg.state) as f:
            items = json.load(f)
        if isinstance(items, dict):
            items = items.get("items") or []
        for it in items:
            # Everything given at start is part of the start state: reset restores it.
            store.load([it], baseline=True)

    ssl_ctx = None
    if not cfg.plain_http:
        ssl_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ssl_ctx.load_cert_chain(cfg.cert, cfg.key)
        ssl_ctx.set_alpn_protocols(["http/1.1"])
        if cfg.client_ca:
            ssl_ctx.load_verify_locations(cfg.client_ca)
            ssl_ctx.verify_mode = ssl.CERT_OPTIONAL

    server = Server((cfg.bind, cfg.port), cfg, store, Control(), ssl_ctx, log)
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    t = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    t.start()
    scheme = "http" if cfg.plain_http else "https"
    sys.stdout.write("listening on %s://%s:%d\n" % (scheme, cfg.bind, server.server_address[1]))
    sys.stdout.flush()
    log("listening on %s://%s:%d" % (scheme, cfg.bind, server.server_address[1]))
    parent = START_PPID
    while not stop.wait(1.0):
        if not cfg.no_parent_watch and os.getppid() != parent:
            log("parent process %d exited; stopping" % parent, always=False)
            break
    server.stopping.set()
    for w in store.all_watchers():
        w.end("end")
    server.shutdown()
    server.server_close()
    log("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
