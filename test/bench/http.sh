#!/usr/bin/env bash
# make bench-http: this server beside upstream OpenKruise's own webhook path, nginx (the ceiling)
# and the Go webhook peer, over HTTPS on loopback, in one run, on the same bodies
# (../shared/bench: pod-create.json against sidecarsets-50.json, conversion-100.json).
#
#   test/bench/http.sh BIN [ORACLE]
#
# kruise: kwh-oracle serve with a kubeconfig, i.e. controller-runtime's webhook server with
# kruise's handlers, decoders and its own informer cache (utilclient.NewCache), reading the 50
# SidecarSets from a real kube-apiserver (K8S_DIR/start.sh) as kruise-manager does. Without Go
# (no ORACLE), or without the API server, its row is skipped with a line saying why.
#
# Knobs: ROUNDS (3: the targets take turns, medians reported), CONNS (32), DURATION (10 s),
# WARMUP (2 s), BENCH_DIR (../shared/bench), K8S_DIR (../shared/k8s), BASE_PORT (19443).
set -euo pipefail

bin=$(realpath "${1:?usage: test/bench/http.sh BIN [ORACLE]}")
oracle=${2:-}
top=$(cd "$(dirname "$0")/../.." && pwd -P)
bench=$(realpath "${BENCH_DIR:-$top/../shared/bench}")
k8s=$(realpath "${K8S_DIR:-$top/../shared/k8s}" 2>/dev/null || true)
rounds=${ROUNDS:-3} conns=${CONNS:-32} duration=${DURATION:-10} warmup=${WARMUP:-2}

for tool in wrk nginx openssl curl jq; do
	command -v "$tool" >/dev/null || { echo "bench-http: $tool is missing (make bench-http installs it)" >&2; exit 2; }
done

work=$(mktemp -d)
certs=$work/certs
groups=()
cleanup() {
	for g in "${groups[@]}"; do kill -TERM -- "-$g" 2>/dev/null || true; done
	for g in "${groups[@]}"; do
		for _ in $(seq 50); do kill -0 -- "-$g" 2>/dev/null || break; sleep 0.1; done
		kill -KILL -- "-$g" 2>/dev/null || true
	done
	[ -n "${k8s_up:-}" ] && "$k8s/stop.sh" "$work/k8s" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start() { # NAME CMD...: a process group of its own, logging to $work/NAME.log
	local name=$1
	shift
	setsid "$@" >"$work/$name.log" 2>&1 &
	groups+=("$!")
}

next_port=${BASE_PORT:-19443}
free_port() {
	while (exec 3<>"/dev/tcp/127.0.0.1/$next_port") 2>/dev/null; do next_port=$((next_port + 1)); done
	port=$next_port
	next_port=$((next_port + 1))
}

wait_ready() { # NAME PORT
	local deadline=$((SECONDS + 60))
	while [ "$SECONDS" -lt "$deadline" ]; do
		[ "$(curl -sk --max-time 1 -o /dev/null -w '%{http_code}' "https://127.0.0.1:$2/healthz")" = 200 ] && return 0
		sleep 0.2
	done
	echo "bench-http: $1 is not answering on $2; its log:" >&2
	tail -30 "$work/$1.log" >&2
	return 1
}

mkdir -p "$certs"
(
	cd "$certs"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=bench-ca -keyout ca.key -out ca.crt
	openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout tls.key -out tls.csr
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >san.ext
	openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out tls.crt
	ln -s ca.crt ca-cert.pem && ln -s ca.key ca-key.pem && ln -s tls.crt cert.pem && ln -s tls.key key.pem
) >"$work/openssl.log" 2>&1

targets=() ports=()
free_port
mkdir -p "$work/ceiling/run"
sed -e "s|@PORT@|$port|g" -e "s|@CERT_DIR@|$certs|g" "$bench/ceiling/nginx.conf" >"$work/ceiling/run/nginx.conf"
start nginx nginx -p "$work/ceiling/" -c run/nginx.conf -e run/error.log -g 'daemon off;'
wait_ready nginx "$port" && { targets+=(nginx); ports+=("$port"); }

free_port
start project env CERT_DIR="$certs" PORT="$port" SIDECARSETS="$bench/sidecarsets-50.json" \
	bash "$bench/project-cmd.sh" "$bin"
wait_ready project "$port" && { targets+=(project); ports+=("$port"); }

# kruise: the SidecarSets (as v1beta1, the storage version) and their namespace in a real API
# server with kruise's own CRDs; the oracle reads them through kruise's cache.
kruise_why=
if [ -z "$oracle" ] || [ ! -x "$oracle" ]; then
	kruise_why="no oracle (make oracle says why)"
elif [ ! -x "$k8s/start.sh" ]; then
	kruise_why="no kube-apiserver (K8S_DIR=$k8s)"
else
	# upstream's CRDs, all of them: kruise-manager's cache watches every kind its handlers read
	crd=$(find "$(dirname "$oracle")" -path '*config/crd/bases/apps.kruise.io_sidecarsets.yaml' | head -1)
	if [ -z "$crd" ]; then
		kruise_why="no copy of upstream's CRDs beside the oracle (config/crd/bases)"
	elif ! kubeconfig=$("$k8s/start.sh" "$work/k8s" 2>"$work/k8s.log"); then
		kruise_why="the kube-apiserver did not start ($(tail -1 "$work/k8s.log"))"
	else
		k8s_up=1
		jq '{apiVersion:"v1",kind:"List",items:[.[] | del(.metadata.resourceVersion, .metadata.uid, .metadata.creationTimestamp)]}' \
			"$bench/sidecarsets-50.json" >"$work/sidecarsets.json"
		"$bin" convert -f "$work/sidecarsets.json" --to apps.kruise.io/v1beta1 -o json >"$work/sidecarsets-beta.json"
		printf '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","labels":{"kubernetes.io/metadata.name":"shop"}}}' \
			>"$work/namespace.json"
		# The Pod's owner ReplicaSet, as a Pod created by it finds it: when it is missing,
		# upstream reads it from the API server on every request (30 per second at most).
		jq '.request.object as $p | {apiVersion:"apps/v1",kind:"ReplicaSet",
			metadata:{name:$p.metadata.ownerReferences[0].name,namespace:$p.metadata.namespace,labels:$p.metadata.labels},
			spec:{replicas:3,selector:{matchLabels:$p.metadata.labels},
			      template:{metadata:{labels:$p.metadata.labels},spec:{containers:[{name:"app",image:"nginx"}]}}}}' \
			"$bench/pod-create.json" >"$work/replicaset.json"
		"$oracle" apply --kubeconfig "$kubeconfig" "$(dirname "$crd")" "$work/namespace.json" "$work/replicaset.json" \
			"$work/sidecarsets-beta.json" \
			>"$work/apply.log" 2>&1 || kruise_why="the state was not created: $(tail -1 "$work/apply.log")"
	fi
	if [ -z "$kruise_why" ]; then
		free_port
		start kruise "$oracle" serve --kubeconfig "$kubeconfig" --cert-dir "$certs" --port "$port"
		if wait_ready kruise "$port"; then
			targets+=(kruise) ports+=("$port")
		else
			kruise_why="the oracle did not start"
		fi
	fi
fi
[ -z "$kruise_why" ] || echo "bench-http: kruise: skipped: $kruise_why"

# go-peer, as ../shared/bench/compare.sh builds it
go=$(command -v go || true)
if [ -n "$go" ]; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/kruise-webhook-bench
	if (cd "$bench/go-peer" && GOFLAGS=-mod=mod GOPROXY=off GOCACHE="$cache/build" GOPATH="$cache/gopath" \
		"$go" build -o "$work/go-peer" .) 2>"$work/go-peer-build.log"; then
		free_port
		start go-peer "$work/go-peer" -addr "127.0.0.1:$port" -cert "$certs/tls.crt" -key "$certs/tls.key" \
			-sidecarsets "$bench/sidecarsets-50.json"
		wait_ready go-peer "$port" && { targets+=(go-peer); ports+=("$port"); }
	fi
fi

# every target must inject the same two SidecarSets before it is measured
check() { # NAME PORT
	curl -sS --max-time 10 --cacert "$certs/ca.crt" -H 'Content-Type: application/json' \
		--data-binary "@$bench/pod-create.json" -o "$work/$1.answer.json" "https://127.0.0.1:$2/mutate-pod"
	[ "$1" = nginx ] && return 0
	jq -r '.response.patch // empty' "$work/$1.answer.json" | base64 -d >"$work/$1.patch.json" 2>/dev/null || true
	jq .request.object "$bench/pod-create.json" >"$work/pod.json"
	local sets
	sets=$(jq --slurpfile patch "$work/$1.patch.json" -f "$bench/apply-patch.jq" "$work/pod.json" 2>/dev/null |
		jq -r '.metadata.annotations["kruise.io/sidecarset-hash"] // "{}" | fromjson | keys | join(",")' 2>/dev/null) || sets=
	echo "bench-http: $1 injects: ${sets:-nothing}"
}
for i in "${!targets[@]}"; do check "${targets[$i]}" "${ports[$i]}"; done

read -r load1 load5 _ </proc/loadavg
echo "bench-http: $(nproc) cores, load $load1 $load5; wrk -t2 -c$conns, ${duration}s per run after ${warmup}s warm-up, $rounds round(s)"
results=$work/results
for _ in $(seq "$rounds"); do
	for endpoint in mutate-pod:pod-create.json convert:conversion-100.json; do
		path=${endpoint%%:*} body=$bench/${endpoint#*:}
		for i in "${!targets[@]}"; do
			url=https://127.0.0.1:${ports[$i]}/$path
			[ "$warmup" = 0 ] || "$bench/run.sh" warmup "$url" "$body" "$conns" "$warmup" >/dev/null 2>&1 || true
			"$bench/run.sh" "$path:${targets[$i]}" "$url" "$body" "$conns" "$duration" >>"$results" 2>>"$work/wrk.err" ||
				echo "$path:${targets[$i]} failed" >>"$results"
		done
	done
done

echo
awk '
function median(key, column,   n, i, j, t, a) {
	n = count[key]
	for (i = 1; i <= n; i++) a[i] = value[key, column, i] + 0
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	if (!($1 in seen)) { seen[$1] = 1; order[++keys] = $1 }
	if ($2 == "failed") { failed[$1] = 1; next }
	n = ++count[$1]
	for (i = 2; i <= NF; i++) { split($i, kv, "="); value[$1, kv[1], n] = kv[2] }
	errors[$1] += value[$1, "errors", n]
}
END {
	for (k = 1; k <= keys; k++) {
		split(order[k], id, ":")
		if (!failed[order[k]]) rps[id[1], id[2]] = median(order[k], "rps")
	}
	printf "%-11s %-8s %9s %9s %9s %7s %9s %9s\n", "endpoint", "target", "req/s", "p50 ms", "p99 ms", "errors", "vs nginx", "vs kruise"
	for (k = 1; k <= keys; k++) {
		key = order[k]
		split(key, id, ":")
		if (failed[key]) { printf "%-11s %-8s %9s\n", id[1], id[2], "failed"; continue }
		r = rps[id[1], id[2]]
		vn = rps[id[1], "nginx"] > 0 ? sprintf("%.2fx", r / rps[id[1], "nginx"]) : "-"
		vk = rps[id[1], "kruise"] > 0 ? sprintf("%.2fx", r / rps[id[1], "kruise"]) : "-"
		printf "%-11s %-8s %9d %9.3f %9.3f %7d %9s %9s\n", id[1], id[2], r, median(key, "p50"), median(key, "p99"),
			errors[key], vn, vk
	}
}' "$results"
