#!/usr/bin/env python3
"""make stress: the attacks of issue 17 at full size, against the release binary.

1. Slots: 2 000 idle TLS connections and 1 100 connections trickling a request one byte a
   second are held open (each reconnects a second after the server closes it) from 50 client
   addresses while ordinary requests are sent from another; then all from the ordinary
   requests' own address. Every ordinary request must be
   answered (not refused, no time-out); their latency is printed, with whether it stayed
   within 100 ms.
2. Memory: eight 3 MiB `[{},{},...]` bodies at once, three rounds. Each must be refused (413)
   or answered; the server's peak RSS must stay under 64 MiB and its RSS must come back near
   idle afterwards.
3. The request-memory pool (issue 22): 50 connections from one address and 50 from each of 14
   others declare a 2.9 MB body and send it a byte a second (reconnecting when closed); then
   100 connections from 15 addresses send all but 1000 bytes of it and stall. A /convert of
   100 CloneSets (174 KB) and a 99 KB Pod must be answered 20 times out of 20 each time.
4. Certificates: the user's own pair (no CA key) survives 5 starts byte for byte.
Exits non-zero when a check fails. Figures go to stdout.

Usage: stress.py --bin build/kruise-webhook
"""

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import queue
import re
import resource
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
import hostile  # noqa: E402 - the attacks in seconds, and their helpers
import run  # noqa: E402 - the integration suite's Server
from testlib import Failure, check  # noqa: E402

IDLE, TRICKLE = 2000, 1100
ATTACK_ADDRS = ["127.0.1.%d" % i for i in range(1, 51)]
RSS_LIMIT_MIB = 64


def rss_kib(pid, field="VmRSS"):
    with open("/proc/%d/status" % pid) as f:
        m = re.search(r"^%s:\s+(\d+) kB" % field, f.read(), re.M)
    return int(m.group(1)) if m else 0


def review_body():
    return json.dumps(run.conversion_review([]))


async def hold(port, ctx, addr, trickle, stop, stats):
    """One attacker slot: connect, then idle or trickle; reconnect a second after a close."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, ssl=ctx, local_addr=(addr, 0),
                                        server_hostname="127.0.0.1"), 10)
            stats["connects"] += 1
            if trickle:
                writer.write(b"POST /convert HTTP/1.1\r\n")
            while not stop.is_set():
                if trickle:
                    writer.write(b"X")
                    await writer.drain()
                try:
                    data = await asyncio.wait_for(reader.read(1), 1.0)
                    if not data:
                        break
                except asyncio.TimeoutError:
                    continue
            writer.close()
            stats["closed_by_server"] += 0 if stop.is_set() else 1
        except (OSError, ssl.SSLError, asyncio.TimeoutError, ConnectionError):
            stats["errors"] += 1
        await asyncio.sleep(1.0)


def attack_process(port, cafile, addrs, stop_flag, ready, out):
    """The attacker, in its own process: in the measuring process its event loop would hold
    the interpreter lock while the ordinary client waits, and the figures would be Python's."""
    ctx = ssl.create_default_context(cafile=cafile)
    stats = {"connects": 0, "closed_by_server": 0, "errors": 0}

    async def main():
        stop = asyncio.Event()
        tasks = []
        for i in range(IDLE + TRICKLE):
            tasks.append(asyncio.ensure_future(hold(port, ctx, addrs[i % len(addrs)], i >= IDLE,
                                                    stop, stats)))
            if i % 100 == 99:
                await asyncio.sleep(0.05)
        ready.set()
        while not stop_flag.is_set():
            await asyncio.sleep(0.1)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    asyncio.run(main())
    out.put(stats)


def ordinary_requests(s, n):
    """n requests, each on a new connection (a handshake included, as after an eviction)."""
    times, failures = [], []
    body = review_body()
    for _ in range(n):
        t0 = time.time()
        try:
            c = http.client.HTTPSConnection("127.0.0.1", s.port, context=s.ssl_context(),
                                            timeout=5, source_address=("127.0.0.1", 0))
            st = s.request("POST", "/convert", body=body, conn=c)[0]
            c.close()
            if st != 200:
                failures.append(st)
        except Exception as e:  # noqa: BLE001 - a refusal or time-out is the failure
            failures.append(repr(e))
        times.append((time.time() - t0) * 1000)
        time.sleep(0.1)
    return times, failures


def slots(tmp, addrs=ATTACK_ADDRS):
    s = run.Server(tmp)
    try:
        quiet, _ = ordinary_requests(s, 10)
        quiet.sort()
        stop, ready, out = multiprocessing.Event(), multiprocessing.Event(), multiprocessing.Queue()
        t = multiprocessing.Process(target=attack_process,
                                    args=(s.port, os.path.join(s.cert_dir, "ca-cert.pem"), addrs,
                                          stop, ready, out))
        t.start()
        try:
            ready.wait(120)
            time.sleep(5)  # let the slots fill and the trickles start
            text = s.plain(s.metrics_port, "/metrics")[1].decode()
            held = run.metric(text, "kruise_webhook_connections", listener="https")
            times, failures = ordinary_requests(s, 30)
            probe_t0 = time.time()
            probe = s.plain(s.health_port, "/healthz")
            probe_ms = (time.time() - probe_t0) * 1000
        finally:
            stop.set()
            try:
                stats = out.get(timeout=60)
            except queue.Empty:
                stats = {"connects": -1, "closed_by_server": -1, "errors": -1}
            t.join(10)
        text = s.plain(s.metrics_port, "/metrics")[1].decode()
        closed = {r: run.metric(text, "kruise_webhook_connections_closed_total", listener="https",
                                reason=r) for r in ("evicted", "refused", "read-deadline",
                                                    "idle-deadline")}
        times.sort()
        p50, worst = times[len(times) // 2], times[-1]
        print("slots: %d idle + %d trickling held from %d addresses (%d connects, %d closed by "
              "the server, %d errors); server holds %s" % (IDLE, TRICKLE, len(addrs),
                                                           stats["connects"],
                                                           stats["closed_by_server"],
                                                           stats["errors"], held))
        print("slots: server closes %s" % closed)
        print("slots: ordinary request (new TLS connection each) p50 %.1f ms, max %.1f ms, "
              "%d/%d within 100 ms; liveness probe %.1f ms" %
              (p50, worst, sum(1 for x in times if x <= 100), len(times), probe_ms))
        print("slots: the same without the attack: p50 %.1f ms, max %.1f ms" %
              (quiet[len(quiet) // 2], quiet[-1]))
        check(not failures, "ordinary requests failed under the attack: %s" % failures[:5])
        check(probe == (200, b"ok"), "liveness probe answered: %s" % (probe,))
    finally:
        s.stop()


def memory(tmp):
    s = run.Server(tmp)
    try:
        pid = s.proc.pid
        for _ in range(3):
            run_ok = run.conversion_review([])  # warm up the ordinary path
            s.request("POST", "/convert", body=json.dumps(run_ok))
        time.sleep(0.5)
        idle = rss_kib(pid)
        body = ("[" + ",".join(["{}"] * (3 * 1024 * 1024 // 3 - 1)) + "]").encode()
        peak, statuses = idle, []
        sampling = threading.Event()

        def sample():
            nonlocal peak
            while not sampling.is_set():
                peak = max(peak, rss_kib(pid))
                time.sleep(0.005)

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            for _ in range(3):
                threads = []
                for _ in range(8):
                    def one():
                        try:
                            statuses.append(s.request("POST", "/mutate-pod", body=body)[0])
                        except Exception as e:  # noqa: BLE001
                            statuses.append(repr(e))
                    th = threading.Thread(target=one)
                    th.start()
                    threads.append(th)
                for th in threads:
                    th.join(60)
        finally:
            sampling.set()
            sampler.join()
        time.sleep(2)
        after = rss_kib(pid)
        hwm = rss_kib(pid, "VmHWM")
        print("memory: idle %.1f MiB, peak %.1f MiB (VmHWM %.1f MiB) with 8 x 3 MiB [{},...] "
              "bodies at once, %.1f MiB 2 s later; answers %s" %
              (idle / 1024, peak / 1024, hwm / 1024, after / 1024, sorted(set(map(str, statuses)))))
        check(all(st in (200, 413, 503) for st in statuses), "every body refused or answered: %s"
              % statuses)
        check(hwm < RSS_LIMIT_MIB * 1024, "peak RSS %.1f MiB under %d MiB" % (hwm / 1024,
                                                                             RSS_LIMIT_MIB))
        check(after < idle + 8 * 1024, "RSS back near idle (%.1f MiB, idle %.1f MiB)" %
              (after / 1024, idle / 1024))
    finally:
        s.stop()


def pool(tmp):
    s = run.Server(tmp)
    try:
        for stall, slots in ((False, hostile.pool_attack_slots(50, 50 * 14)),
                             (True, hostile.pool_attack_slots(30, 70))):
            t0 = time.time()
            conv, pod, failures, stats = hostile.big_requests_under_pool_attack(s, slots, stall)
            text = s.plain(s.metrics_port, "/metrics")[1].decode()
            print("pool: %d connections %s from 15 addresses (%s): /convert of 100 CloneSets "
                  "%d/20, 99 KB Pod %d/20 (%.0f s); closed for memory so far: %s" %
                  (len(slots), "stalling after all but 1000 bytes" if stall else
                   "trickling a byte a second", stats, conv, pod, time.time() - t0,
                   run.metric(text, "kruise_webhook_connections_closed_total", listener="https",
                              reason="memory")))
            check(conv == 20 and pod == 20, "big requests answered under the attack: %s"
                  % failures[:3])
    finally:
        s.stop()


def certificates(tmp):
    own = hostile.user_pair_dir(tmp)
    before = {n: open(os.path.join(own, n), "rb").read() for n in os.listdir(own)}
    for _ in range(5):
        s = run.Server(tmp, cert_dir=own, certs=False)
        s.stop()
    after = {n: open(os.path.join(own, n), "rb").read() for n in os.listdir(own)}
    check(after == before, "the user's pair survived 5 starts: %s" % sorted(after))
    print("certificates: the user's own pair survived 5 starts unchanged")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("parts", nargs="*",
                    default=["slots", "slots-same-address", "memory", "pool", "certificates"])
    args = ap.parse_args()
    run.BIN = os.path.abspath(args.bin)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 65536)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    check(want > IDLE + TRICKLE + 200, "need %d open files, the hard limit is %d" %
          (IDLE + TRICKLE + 200, hard))
    failed = 0
    for part in args.parts:
        tmp = tempfile.mkdtemp(prefix="wh-stress-")
        try:
            {"slots": slots, "slots-same-address": lambda t: slots(t, ["127.0.0.1"]),
             "memory": memory, "pool": pool, "certificates": certificates}[part](tmp)
            print("PASS %s" % part)
            shutil.rmtree(tmp, ignore_errors=True)
        except Failure as e:
            failed += 1
            print("FAIL %s: %s (logs in %s)" % (part, e, tmp))
    print("%d passed, %d failed" % (len(args.parts) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
