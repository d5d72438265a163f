#!/usr/bin/env bash
# Usage: test/bench/rss.sh BIN [SECONDS]
# Resident memory of BIN (this server, standalone with the 50 SidecarSets of test/bench/data)
# under each load of issue 28, over HTTPS on loopback: wrk -t2 -c32 POSTing the 100-StatefulSet
# ConversionReview to /convert, then the pod-create review to /mutate-pod, SECONDS (10) each.
# Prints, per load, VmRSS idle (after one request of each path, so first-use compilation is not
# counted as load), the peak sampled every 0.1 s, and 1 s and 3 s after the load stops; then where
# the memory was, idle and at the peak, from /proc/PID/smaps: file-backed (mostly shared library
# text), the main heap, and the other anonymous maps (glibc's second malloc arena, libmicrohttpd's
# 64 KiB connection pools, thread stacks, request-arena chunks of 1 MiB and more; the kernel
# merges adjacent ones, so they cannot be told apart here).
# Needs wrk, curl, openssl, python3 (make bench-rss installs wrk as make bench-http does).
set -euo pipefail

bin=$1 secs=${2:-10}
data=$(cd "$(dirname "$0")/data" && pwd)
for tool in wrk curl openssl python3; do
	command -v "$tool" >/dev/null || { echo "bench-rss: $tool is missing" >&2; exit 1; }
done
work=$(mktemp -d)
pid=
cleanup() {
	[ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; }
	rm -rf "$work"
}
trap cleanup EXIT

(
	cd "$work"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=bench-ca -keyout ca.key -out ca.crt
	openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout tls.key -out tls.csr
	printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >san.ext
	openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext \
		-out tls.crt
) >"$work/openssl.log" 2>&1
mkdir "$work/state"
python3 - "$data/sidecarsets-50.json" "$work/state/sidecarsets.json" <<'PY'
import json, sys
json.dump({"apiVersion": "v1", "kind": "List", "items": json.load(open(sys.argv[1]))}, open(sys.argv[2], "w"))
PY
printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n    kubernetes.io/metadata.name: shop\n' \
	>"$work/state/namespace.yaml"
cat >"$work/post.lua" <<'LUA'
local f = assert(io.open(os.getenv("BODY"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
wrk.headers["Content-Type"] = "application/json"
f:close()
function done(summary, latency, requests)
  io.write(string.format("requests=%d errors=%d p50=%.1fms\n", summary.requests,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.timeout, latency:percentile(50) / 1000))
end
LUA

port=19443
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
"$bin" --port "$port" --bind-address 127.0.0.1 --cert-dir "$work" --state "$work/state" \
	--health-addr 0 --metrics-addr 0 --log-level warn --certs-renew-before 1d >"$work/server.log" 2>&1 &
pid=$!
url=https://127.0.0.1:$port
for _ in $(seq 150); do
	[ "$(curl -sk --max-time 1 -o /dev/null -w '%{http_code}' "$url/healthz")" = 200 ] && break
	sleep 0.2
done
post() { curl -sk --max-time 10 -o /dev/null -H 'Content-Type: application/json' --data-binary "@$1" "$2"; }
post "$data/conversion-100.json" "$url/convert"
post "$data/pod-create.json" "$url/mutate-pod"
sleep 2

rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
where() {
	python3 - "$pid" <<'PY'
import re, sys, collections
tot = collections.Counter()
name = ""
for line in open(f"/proc/{sys.argv[1]}/smaps"):
    m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$", line)
    if m:
        name = m.group(3).strip()
    elif line.startswith("Rss:"):
        kb = int(line.split()[1])
        if name == "[heap]":
            key = "heap"
        elif name and not name.startswith("[stack"):
            key = "file-backed"
        else:
            key = "other anonymous"
        tot[key] += kb
print("  ".join(f"{k} {tot[k] / 1024:.1f}" for k in
                ("file-backed", "heap", "other anonymous")) + " MiB")
PY
}

for path in convert mutate-pod; do
	body=$data/conversion-100.json
	[ "$path" = convert ] || body=$data/pod-create.json
	idle=$(rss)
	idle_where=$(where)
	BODY=$body wrk -t2 -c32 -d"${secs}s" --timeout 10s -s "$work/post.lua" "$url/$path" >"$work/wrk.out" 2>&1 &
	w=$!
	peak=0 peak_where=
	while kill -0 "$w" 2>/dev/null; do
		r=$(rss)
		if [ "$r" -gt "$peak" ]; then
			peak=$r
			peak_where=$(where)
		fi
		sleep 0.1
	done
	wait "$w" || { cat "$work/wrk.out" >&2; exit 1; }
	sleep 1
	after1=$(rss)
	sleep 2
	after3=$(rss)
	printf '/%-10s idle %s  peak %s  after 1 s %s  after 3 s %s MiB  (%s)\n' "$path" "$(mib "$idle")" \
		"$(mib "$peak")" "$(mib "$after1")" "$(mib "$after3")" "$(grep '^requests=' "$work/wrk.out")"
	echo "  idle: $idle_where"
	echo "  peak: $peak_where"
done
