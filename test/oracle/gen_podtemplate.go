package main

// Random but plausible v1 PodTemplateSpecs for kwh-oracle podtemplate. A template is drawn with a
// hostility (the chance that a field takes a hostile value): a third of them none, so that
// valid templates are common and each hostile value shows its own rule, the rest up to 0.3, so
// that rules meet. Without hostility every choice is valid and coherent with the others (unique
// names, mounts naming volumes, requests within limits, probes of the kind they are); hostile
// values are the valid ones' near misses (names one character off, enumerations with a typo,
// numbers at and past their bounds, paths with "..", Unicode spaces, conflicting combinations).
// Every template decodes as a v1.PodTemplateSpec: the checks under test come after decoding.

import (
	"fmt"
	"math/rand"
	"strings"
)

type ptObj = map[string]interface{}
type ptList = []interface{}

type ptg struct {
	r     *rand.Rand
	bad   float64
	focus string // an area whose rare fields are drawn four times as often

	volumes    []string // the volumes' names
	pvcVolumes []string // those a device may name
	names      map[string]bool
	containers []string // every container's name so far
	claims     []string // the Pod's resource claims
	restart    string   // the Pod's restartPolicy
	grace      int64    // the Pod's terminationGracePeriodSeconds (defaulted: 30)
	windows    bool     // os.name is windows
	hostNet    bool
	hostPorts  map[int64]bool
}

func (g *ptg) p(x float64) bool { return g.r.Float64() < x }

// pa: p, boosted when the template's focus is area.
func (g *ptg) pa(area string, x float64) bool {
	if g.focus == area {
		x *= 4
	}
	return g.r.Float64() < x
}
func (g *ptg) hostile() bool { return g.r.Float64() < g.bad }
func (g *ptg) n(k int) int   { return g.r.Intn(k) }

func (g *ptg) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g *ptg) either(valid []string, hostile []string) string {
	if g.hostile() {
		return hostile[g.r.Intn(len(hostile))]
	}
	return valid[g.r.Intn(len(valid))]
}

func (g *ptg) intEither(valid []int64, hostile []int64) int64 {
	if g.hostile() {
		return hostile[g.r.Intn(len(hostile))]
	}
	return valid[g.r.Intn(len(valid))]
}

func (g *ptg) pickInt(xs ...int) int { return xs[g.n(len(xs))] }

var (
	ptLong63  = strings.Repeat("a", 63)
	ptLong64  = strings.Repeat("b", 64)
	ptLong254 = strings.Repeat("c", 254)

	ptBadNames = []string{"", "A", "a_b", "a.b", "-a", "a-", ptLong64, "a b", " a", "\u00fc", "a/b", "..", "1-", "x*"}
	ptBadDNS   = []string{"", "A.b", "a_b", "-a.b", "a..b", ptLong254, "a b", "a.", ".a", "\u00fcber", "a/b"}
	ptBadKeys  = []string{"", "a b", "-a", "a/", "/a", "a/b/c", "A.B/c", "example.com/" + ptLong64, ptLong254 + "/a", "a@b", "kubernetes.io/\u00e9"}
	ptBadVals  = []string{"a b", "-a", "a-", ptLong64, "\u00e9", "a/b", "a:b"}
	ptRelPaths = []string{"a", "a/b", "sub/dir", "x.txt", "..a"}
	ptBadRel   = []string{"/abs", "..", "../x", "a/../b", "a/..", "a/b/../../..", "../../"}
	ptImages   = []string{"nginx:1.25", "busybox", "nginx:latest", "registry.example.com:5000/team/app:v2", "envoyproxy/envoy@sha256:" + strings.Repeat("ab", 32)}
	ptBadImage = []string{"", " nginx", "nginx ", "\tnginx", "nginx\u00a0", "\u2003nginx", "nginx\u3000"}
	ptBadQuant = []string{"-1", "-100m", "0.0001", "1e3", "1.5", "-0.5Gi", "123456789012345678901", "1.0001", "0.5Ki", "3k", "-0.0001", "0.00011"}
)

// ptTemplate draws one template.
func ptTemplate(r *rand.Rand) ptObj {
	g := &ptg{r: r, bad: []float64{0, 0, 0.02, 0.05, 0.12, 0.3}[r.Intn(6)], names: map[string]bool{}, grace: 30, hostPorts: map[int64]bool{}}
	g.focus = []string{"", "", "volumes", "security", "windows", "scheduling", "dns", "annotations", "resources", "projected"}[r.Intn(10)]
	spec := g.podSpec()
	t := ptObj{"spec": spec}
	if meta := g.templateMeta(); len(meta) > 0 {
		t["metadata"] = meta
	}
	return t
}

// unique: a name from pool not used yet (or, hostile, a used one).
func (g *ptg) unique(pool []string, bad []string) string {
	if g.hostile() {
		if len(g.names) > 0 && g.p(0.3) {
			for k := range g.names {
				return k
			}
		}
		return bad[g.n(len(bad))]
	}
	for try := 0; try < 8; try++ {
		n := pool[g.n(len(pool))]
		if !g.names[n] {
			g.names[n] = true
			return n
		}
	}
	n := fmt.Sprintf("n%d", len(g.names))
	g.names[n] = true
	return n
}

// --- metadata and annotations ------------------------------------------------------------------

func (g *ptg) labels(max int) ptObj {
	m := ptObj{}
	for i := g.n(max + 1); i > 0; i-- {
		k := g.either([]string{"app", "tier", "version", "apps.kruise.io/owner", "example.com/team", "a.b-c_d"}, ptBadKeys)
		m[k] = g.either([]string{"web", "db", "v1", "", "a-b.c", ptLong63}, ptBadVals)
	}
	return m
}

func (g *ptg) templateMeta() ptObj {
	meta := ptObj{}
	if g.p(0.7) {
		meta["labels"] = g.labels(3)
	}
	if g.pa("annotations", 0.5) {
		a := ptObj{}
		for i := g.n(3); i > 0; i-- {
			a[g.either([]string{"note", "example.com/owner", "Kubernetes.io/x"}, ptBadKeys)] = g.pick("x", "", "{}")
		}
		if g.p(0.1) {
			a[g.pick("pod.beta.kubernetes.io/init-containers", "pod.alpha.kubernetes.io/init-container-statuses", "pod.beta.kubernetes.io/init-container-statuses")] = g.pick("[]", "x")
		}
		if g.hostile() && g.p(0.3) {
			a["kubernetes.io/config.mirror"] = "mirror"
		}
		if g.pa("annotations", 0.12) {
			a["scheduler.alpha.kubernetes.io/tolerations"] = g.either([]string{`[{"key":"a","operator":"Exists"}]`, `[]`, `null`, `[{"Key":"k","OPERATOR":"Exists","effect":"NoExecute","tolerationSeconds":5}]`},
				[]string{`[{"key":"a b","operator":"Equal","value":"x"}]`, `[{"key":"k","tolerationSeconds":1.5}]`, `[{"key":"k","tolerationSeconds":"5"}]`,
					`{"key":"a"}`, `[1]`, `[null,{"key":"x","effect":"Bogus"}]`, `[{"key":5}]`, `[{"operator":true}]`, `"x"`,
					`not json`, `[{"key":"a"`, `[{"key":"","operator":"Equal"}]`, `[{"key":"k","value":"\ud800x"}]`,
					`[{"effect":"NoSchedule","tolerationSeconds":99999999999999999999}]`, `[{"key":"k","unknown":{"a":[1,2]}},{"key":"k2","effect":[]}]`,
					`[{"key":"a"}] x`, `[{"key":"a","tolerationSeconds":1e3}]`, `[{"key":"a","value":{}}]`})
		}
		if g.pa("annotations", 0.1) {
			a["seccomp.security.alpha.kubernetes.io/pod"] = g.either([]string{"runtime/default", "docker/default", "unconfined", "localhost/profile.json"}, []string{"localhost/../x", "localhost//abs", "bogus", ""})
		}
		if g.pa("annotations", 0.1) {
			a["container.seccomp.security.alpha.kubernetes.io/"+g.someContainer()] = g.either([]string{"runtime/default", "unconfined", "localhost/p"}, []string{"localhost/../p", "x"})
		}
		if g.pa("annotations", 0.1) {
			a["container.apparmor.security.beta.kubernetes.io/"+g.someContainer()] = g.either([]string{"runtime/default", "unconfined", "localhost/prof", ""}, []string{"bogus", "localhost/other"})
		}
		if g.p(0.002) {
			a["big"] = strings.Repeat("x", 256*1024)
		}
		meta["annotations"] = a
	}
	if g.p(0.05) {
		meta["name"] = "ignored"
	}
	return meta
}

func (g *ptg) someContainer() string {
	if len(g.containers) > 0 && !g.hostile() {
		return g.containers[g.n(len(g.containers))]
	}
	return g.pick("missing", "Main", "")
}

// --- the Pod spec --------------------------------------------------------------------------------

func (g *ptg) podSpec() ptObj {
	s := ptObj{}
	// fields the containers depend on first
	if g.p(0.25) {
		g.restart = g.either([]string{"Always", "OnFailure", "Never"}, []string{"Sometimes", "always"})
		s["restartPolicy"] = g.restart
	}
	if g.p(0.2) {
		if g.hostile() && g.p(0.3) {
			s["terminationGracePeriodSeconds"] = nil
			g.grace = -1
		} else {
			g.grace = g.intEither([]int64{10, 30, 60}, []int64{0, -1, 1})
			s["terminationGracePeriodSeconds"] = g.grace
		}
	}
	if g.pa("windows", 0.12) {
		s["os"] = ptObj{"name": g.either([]string{"linux", "windows"}, []string{"", "darwin", "Linux"})}
		g.windows = s["os"].(ptObj)["name"] == "windows"
	}
	if g.p(0.1) {
		g.hostNet = true
		s["hostNetwork"] = true
	}
	if g.pa("volumes", 0.6) || g.focus == "projected" {
		s["volumes"] = g.volumeList()
	}
	if g.pa("resources", 0.12) {
		s["resourceClaims"] = g.resourceClaims()
	}
	var cs ptList
	nc := 1 + g.n(3)
	if g.hostile() && g.p(0.3) {
		nc = 0
	}
	for i := 0; i < nc; i++ {
		cs = append(cs, g.container("regular"))
	}
	if cs != nil || g.p(0.5) {
		s["containers"] = cs
	}
	if g.p(0.3) {
		var ics ptList
		for i := 1 + g.n(2); i > 0; i-- {
			ics = append(ics, g.container("init"))
		}
		s["initContainers"] = ics
	}
	if g.p(0.04) {
		s["ephemeralContainers"] = ptList{g.container("ephemeral")}
	}
	g.podFields(s)
	return s
}

func (g *ptg) podFields(s ptObj) {
	if g.p(0.3) {
		dp := g.either([]string{"ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"}, []string{"Bogus", "clusterfirst"})
		s["dnsPolicy"] = dp
		if dp == "None" && !g.hostile() {
			s["dnsConfig"] = ptObj{"nameservers": ptList{"10.0.0.10"}}
		}
	}
	if g.pa("dns", 0.2) && s["dnsConfig"] == nil {
		s["dnsConfig"] = g.dnsConfig()
	}
	if g.p(0.25) {
		s["nodeSelector"] = g.labels(2)
	}
	if g.p(0.1) {
		s["nodeName"] = g.either([]string{"node-1", "n.example.com"}, ptBadDNS)
	}
	if g.p(0.2) {
		k := "serviceAccountName"
		if g.p(0.3) {
			k = "serviceAccount"
		}
		s[k] = g.either([]string{"default", "builder", "sa.x"}, ptBadDNS)
	}
	hostPID, hostIPC := false, false
	linuxOnly := !g.windows || g.hostile()
	if g.p(0.08) && linuxOnly {
		hostPID = true
		s["hostPID"] = true
	}
	if g.p(0.08) && linuxOnly {
		hostIPC = true
		s["hostIPC"] = true
	}
	if g.p(0.08) && linuxOnly {
		s["shareProcessNamespace"] = !hostPID || g.hostile()
	}
	if g.p(0.08) && !g.windows {
		hu := g.p(0.5)
		if !hu && (g.hostNet || hostPID || hostIPC) && !g.hostile() {
			hu = true
		}
		s["hostUsers"] = hu
	}
	if g.p(0.1) {
		s["hostname"] = g.either([]string{"web-0", "h"}, ptBadNames)
	}
	if g.p(0.1) {
		s["subdomain"] = g.either([]string{"svc", "s-1"}, ptBadNames)
	}
	if g.p(0.1) {
		s["activeDeadlineSeconds"] = g.intEither([]int64{1, 30, 2147483647}, []int64{0, -1, 2147483648})
	}
	if g.p(0.1) {
		s["priorityClassName"] = g.either([]string{"high", "system-node-critical"}, ptBadDNS)
	}
	if g.p(0.05) {
		s["priority"] = g.n(1000)
	}
	if g.p(0.1) {
		s["preemptionPolicy"] = g.either([]string{"PreemptLowerPriority", "Never"}, []string{"", "Always"})
	}
	if g.p(0.1) {
		s["runtimeClassName"] = g.either([]string{"kata", "gvisor.v1"}, ptBadDNS)
	}
	if g.p(0.1) {
		s["schedulerName"] = g.pick("default-scheduler", "custom", "")
	}
	if g.p(0.1) {
		var gates ptList
		used := map[string]bool{}
		for i := 1 + g.n(3); i > 0; i-- {
			n := g.either([]string{"example.com/gate", "wait", "a.b/c"}, append([]string{"wait"}, ptBadKeys...))
			if used[n] && !g.hostile() {
				continue
			}
			used[n] = true
			gates = append(gates, ptObj{"name": n})
		}
		s["schedulingGates"] = gates
	}
	if g.p(0.1) {
		var gates ptList
		for i := 1 + g.n(2); i > 0; i-- {
			gates = append(gates, ptObj{"conditionType": g.either([]string{"example.com/ready", "Ready"}, ptBadKeys)})
		}
		s["readinessGates"] = gates
	}
	if g.pa("scheduling", 0.25) {
		s["tolerations"] = g.tolerations()
	}
	if g.pa("dns", 0.1) {
		var ha ptList
		for i := 1 + g.n(2); i > 0; i-- {
			ha = append(ha, ptObj{"ip": g.ip(), "hostnames": ptList{g.either([]string{"foo.local", "bar"}, ptBadDNS)}})
		}
		s["hostAliases"] = ha
	}
	if g.p(0.1) {
		s["overhead"] = g.resourceList(false)
	}
	if g.pa("security", 0.45) || g.focus == "windows" {
		s["securityContext"] = g.podSecurityContext(hostIPC)
	}
	if g.pa("scheduling", 0.3) {
		s["affinity"] = g.affinity()
	}
	if g.pa("scheduling", 0.2) {
		s["topologySpreadConstraints"] = g.topologySpread()
	}
	if g.p(0.1) {
		s["imagePullSecrets"] = ptList{ptObj{"name": g.pick("regcred", "")}}
	}
}

func (g *ptg) ip() string {
	return g.either([]string{"10.0.0.1", "::1", "2001:db8::ffff", "01.02.03.04", "::ffff:1.2.3.4", "fe80::", "::", "1:2:3:4:5:6:7:8", "::1.2.3.4", "0.0.0.0"},
		[]string{"", "1.2.3", "256.1.1.1", "fe80::1%eth0", "x", "1.2.3.4.5", "::1::", "1:2:3:4:5:6:7:8:9", "1.2.3.04x", " 1.2.3.4", "[::1]", ":::", "1:2:3:4:5:6:7::8", "1::2::3", "12345::", "1.2.3.4:80", "0x1.2.3.4", "1.2.3.255 ", "::ffff:1.2.3.256", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4"})
}

func (g *ptg) dnsConfig() ptObj {
	d := ptObj{}
	if g.p(0.7) {
		var ns ptList
		k := 1 + g.n(3)
		if g.hostile() {
			k = g.pickInt(0, 4, 2)
		}
		for i := 0; i < k; i++ {
			ns = append(ns, g.ip())
		}
		d["nameservers"] = ns
	}
	if g.p(0.6) {
		var ss ptList
		k := 1 + g.n(3)
		if g.hostile() && g.p(0.3) {
			k = 33
		}
		for i := 0; i < k; i++ {
			ss = append(ss, g.either([]string{"svc.cluster.local", "example.com.", "a"}, []string{"Bad_Domain", ".", "a..b", "-a", ptLong254, strings.Repeat("abcdefghij.", 200) + "x"}))
		}
		d["searches"] = ss
	}
	if g.p(0.4) {
		d["options"] = ptList{ptObj{"name": g.either([]string{"ndots"}, []string{""}), "value": "2"}}
	}
	return d
}

func (g *ptg) tolerations() ptList {
	var out ptList
	for i := 1 + g.n(2); i > 0; i-- {
		t := ptObj{}
		key := g.either([]string{"node.kubernetes.io/not-ready", "dedicated", ""}, ptBadKeys)
		op := g.either([]string{"Exists", "Equal", ""}, []string{"In", "exists", "Equal"})
		if key == "" && !g.hostile() {
			op = "Exists"
		}
		if key != "" || g.p(0.5) {
			t["key"] = key
		}
		if op != "" {
			t["operator"] = op
		}
		if op != "Exists" && g.p(0.6) || g.hostile() {
			t["value"] = g.either([]string{"gpu", ""}, ptBadVals)
		}
		eff := g.either([]string{"NoSchedule", "PreferNoSchedule", "NoExecute", ""}, []string{"NoScheduleNoAdmit", "Never"})
		if eff != "" || g.p(0.5) {
			t["effect"] = eff
		}
		if eff == "NoExecute" && g.p(0.5) || g.hostile() {
			t["tolerationSeconds"] = g.n(600)
		}
		out = append(out, t)
	}
	return out
}

func (g *ptg) podSecurityContext(hostIPC bool) ptObj {
	sc := ptObj{}
	for _, k := range []string{"runAsUser", "runAsGroup", "fsGroup"} {
		if g.p(0.2) && (!g.windows || g.hostile()) {
			sc[k] = g.intEither([]int64{0, 1000, 2147483647}, []int64{-1, 2147483648})
		}
	}
	if g.p(0.12) && (!g.windows || g.hostile()) {
		if g.p(0.2) {
			sc["supplementalGroups"] = ptList{}
		} else {
			sc["supplementalGroups"] = ptList{g.intEither([]int64{1000}, []int64{-5}), 2000}
		}
	}
	if g.p(0.1) {
		sc["runAsNonRoot"] = g.p(0.5)
	}
	if g.p(0.15) && (!g.windows || g.hostile()) {
		var sy ptList
		used := map[string]bool{}
		for i := 1 + g.n(3); i > 0; i-- {
			valid := []string{"kernel.shm_rmid_forced", "kernel.msgmax", "fs.mqueue.msg_max", "kernel.sem", "vm.swappiness", "net.core.somaxconn", "net.ipv4.ip_forward", "net/ipv4/conf/eth0.100/rp_filter", "kernel.shmmax"}
			n := g.either(valid, []string{"", "Bad", "a..b", "a_", "net.ipv4.*", strings.Repeat("a.", 130), "kernel.sem"})
			isNet := strings.HasPrefix(n, "net")
			isIPC := strings.HasPrefix(n, "kernel.") && n != "kernel.ostype" || strings.HasPrefix(n, "fs.mqueue")
			if !g.hostile() && (used[n] || g.hostNet && isNet || hostIPC && isIPC) {
				continue
			}
			used[n] = true
			sy = append(sy, ptObj{"name": n, "value": "1"})
		}
		sc["sysctls"] = sy
	}
	if g.p(0.1) && (!g.windows || g.hostile()) {
		sc["fsGroupChangePolicy"] = g.either([]string{"Always", "OnRootMismatch"}, []string{"Sometimes", ""})
	}
	if g.p(0.1) && (!g.windows || g.hostile()) {
		sc["supplementalGroupsPolicy"] = g.either([]string{"Merge", "Strict"}, []string{"Replace", ""})
	}
	if g.p(0.1) && (!g.windows || g.hostile()) {
		sc["seLinuxChangePolicy"] = g.either([]string{"Recursive", "MountOption"}, []string{"Never", ""})
	}
	if g.p(0.1) && (!g.windows || g.hostile()) {
		sc["seLinuxOptions"] = ptObj{"level": "s0:c123,c456"}
	}
	if g.p(0.15) && (!g.windows || g.hostile()) {
		sc["seccompProfile"] = g.seccomp()
	}
	if g.p(0.15) && (!g.windows || g.hostile()) {
		sc["appArmorProfile"] = g.apparmor()
	}
	if g.pa("windows", 0.1) && (g.windows || g.hostile()) {
		sc["windowsOptions"] = g.windowsOptions()
	}
	return sc
}

func (g *ptg) seccomp() ptObj {
	t := g.either([]string{"RuntimeDefault", "Unconfined", "Localhost"}, []string{"", "Bogus", "localhost", "RuntimeDefault"})
	s := ptObj{"type": t}
	if t == "Localhost" && (!g.hostile() || g.p(0.5)) || t != "Localhost" && g.hostile() {
		s["localhostProfile"] = g.either([]string{"profiles/a.json", "a"}, append([]string{""}, ptBadRel...))
	}
	return s
}

func (g *ptg) apparmor() ptObj {
	t := g.either([]string{"RuntimeDefault", "Unconfined", "Localhost"}, []string{"", "Bogus", "Unconfined"})
	s := ptObj{"type": t}
	if t == "Localhost" && (!g.hostile() || g.p(0.6)) || t != "Localhost" && g.hostile() {
		s["localhostProfile"] = g.either([]string{"prof", "k8s-apparmor-example"}, []string{"", " prof", "prof ", "\u00a0prof", "prof\u3000", strings.Repeat("p", 4096), "p\u2028"})
	}
	return s
}

func (g *ptg) windowsOptions() ptObj {
	w := ptObj{}
	if g.p(0.3) {
		w["gmsaCredentialSpecName"] = g.either([]string{"gmsa-spec"}, ptBadDNS)
	}
	if g.p(0.2) {
		w["gmsaCredentialSpec"] = g.either([]string{`{"a":1}`}, []string{"", strings.Repeat("x", 64*1024+1)})
	}
	if g.p(0.5) {
		w["runAsUserName"] = g.either([]string{"ContainerUser", "NT AUTHORITY\\NETWORK SERVICE", "dom.example.com\\user", "DOMAIN\\u", "\u00e9t\u00e9\\u"},
			[]string{"", "a\\b\\c", "user\u0001", "...", " ", "u@x", strings.Repeat("d", 256) + "\\u", strings.Repeat("u", 105), "-bad.\\u", ".dom\\u", "dom\\", "a*b\\c", "abcdefghijklmnop\\u", "a[b]", "dom\\..", "a\u007f"})
	}
	if g.hostile() || g.focus == "windows" && g.p(0.3) {
		w["hostProcess"] = g.p(0.5)
	}
	return w
}

// --- scheduling ------------------------------------------------------------------------------

// selector: invalid label values are a hostile choice only where they are checked.
func (g *ptg) selector() ptObj {
	s := ptObj{}
	if g.p(0.7) {
		s["matchLabels"] = g.labels(2)
	}
	if g.p(0.5) {
		var exprs ptList
		for i := 1 + g.n(2); i > 0; i-- {
			op := g.either([]string{"In", "NotIn", "Exists", "DoesNotExist"}, []string{"Gt", "in", "", "In"})
			e := ptObj{"key": g.either([]string{"app", "tier", "zone"}, ptBadKeys), "operator": op}
			if op == "In" || op == "NotIn" || g.hostile() {
				var vals ptList
				for j := g.n(3); j >= 0; j-- {
					vals = append(vals, g.either([]string{"web", "a", ""}, ptBadVals))
				}
				if g.hostile() && g.p(0.3) {
					vals = ptList{}
				}
				e["values"] = vals
			}
			exprs = append(exprs, e)
		}
		s["matchExpressions"] = exprs
	}
	return s
}

func (g *ptg) nodeTerm() ptObj {
	t := ptObj{}
	if g.p(0.8) {
		var exprs ptList
		for i := 1 + g.n(2); i > 0; i-- {
			op := g.either([]string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}, []string{"Bogus", ""})
			e := ptObj{"key": g.either([]string{"kubernetes.io/hostname", "zone", "node.example.com/gpu"}, ptBadKeys), "operator": op}
			switch {
			case op == "In" || op == "NotIn":
				e["values"] = ptList{g.either([]string{"a", "b"}, ptBadVals)}
			case op == "Gt" || op == "Lt":
				e["values"] = ptList{"5"}
			}
			if g.hostile() {
				e["values"] = [][]interface{}{{}, {"1", "2"}, {"x"}}[g.n(3)]
			}
			exprs = append(exprs, e)
		}
		t["matchExpressions"] = exprs
	}
	if g.p(0.3) {
		f := ptObj{"key": g.either([]string{"metadata.name"}, []string{"metadata.namespace", "spec.nodeName", ""}),
			"operator": g.either([]string{"In", "NotIn"}, []string{"Exists", "Gt"}),
			"values":   ptList{g.either([]string{"node-1"}, ptBadDNS)}}
		if g.hostile() {
			f["values"] = ptList{"a", "b"}
		}
		t["matchFields"] = ptList{f}
	}
	return t
}

func (g *ptg) podAffinityTerm() ptObj {
	t := ptObj{"topologyKey": g.either([]string{"kubernetes.io/hostname", "topology.kubernetes.io/zone"}, ptBadKeys)}
	if g.p(0.85) {
		t["labelSelector"] = g.selector()
	}
	if g.p(0.2) {
		t["namespaceSelector"] = g.selector()
	}
	if g.p(0.2) {
		t["namespaces"] = ptList{g.either([]string{"default", "kube-system"}, ptBadNames)}
	}
	if g.p(0.2) && (t["labelSelector"] != nil || g.hostile()) {
		t["matchLabelKeys"] = ptList{g.either([]string{"pod-template-hash", "controller-revision-hash"}, append([]string{"app", "tier", "team"}, ptBadKeys...))}
	}
	if g.p(0.15) && (t["labelSelector"] != nil || g.hostile()) {
		t["mismatchLabelKeys"] = ptList{g.either([]string{"team", "app"}, []string{"pod-template-hash", ""})}
	}
	return t
}

func (g *ptg) affinity() ptObj {
	a := ptObj{}
	if g.p(0.6) {
		na := ptObj{}
		if g.p(0.7) {
			var terms ptList
			for i := 1 + g.n(2); i > 0; i-- {
				terms = append(terms, g.nodeTerm())
			}
			if g.hostile() && g.p(0.3) {
				terms = ptList{}
			}
			na["requiredDuringSchedulingIgnoredDuringExecution"] = ptObj{"nodeSelectorTerms": terms}
		}
		if g.p(0.5) {
			na["preferredDuringSchedulingIgnoredDuringExecution"] = ptList{ptObj{"weight": g.intEither([]int64{1, 50, 100}, []int64{0, 101, -1}), "preference": g.nodeTerm()}}
		}
		a["nodeAffinity"] = na
	}
	for _, k := range []string{"podAffinity", "podAntiAffinity"} {
		if !g.p(0.4) {
			continue
		}
		pa := ptObj{}
		if g.p(0.6) {
			pa["requiredDuringSchedulingIgnoredDuringExecution"] = ptList{g.podAffinityTerm()}
		}
		if g.p(0.6) {
			w := ptObj{"weight": g.intEither([]int64{1, 100}, []int64{0, 101})}
			if !g.hostile() || g.p(0.5) {
				w["podAffinityTerm"] = g.podAffinityTerm()
			}
			pa["preferredDuringSchedulingIgnoredDuringExecution"] = ptList{w}
		}
		a[k] = pa
	}
	return a
}

func (g *ptg) topologySpread() ptList {
	var out ptList
	keys := []string{"topology.kubernetes.io/zone", "kubernetes.io/hostname"}
	for i := 0; i < 1+g.n(2); i++ {
		wu := g.either([]string{"DoNotSchedule", "ScheduleAnyway"}, []string{"", "Never"})
		c := ptObj{
			"maxSkew":           g.intEither([]int64{1, 2}, []int64{0, -1}),
			"topologyKey":       g.either(keys[i:i+1], []string{""}),
			"whenUnsatisfiable": wu,
		}
		if g.p(0.8) {
			c["labelSelector"] = g.selector()
		}
		if g.p(0.2) && (wu == "DoNotSchedule" || g.hostile()) {
			c["minDomains"] = g.intEither([]int64{1, 3}, []int64{0, -2})
		}
		if g.p(0.2) {
			c["nodeAffinityPolicy"] = g.either([]string{"Honor", "Ignore"}, []string{"Always", ""})
		}
		if g.p(0.2) {
			c["nodeTaintsPolicy"] = g.either([]string{"Honor", "Ignore"}, []string{"honor"})
		}
		if g.p(0.2) && (c["labelSelector"] != nil || g.hostile()) {
			c["matchLabelKeys"] = ptList{g.either([]string{"pod-template-hash"}, append([]string{"app", "zone"}, ptBadKeys...))}
		}
		out = append(out, c)
	}
	if g.hostile() && len(out) > 0 {
		out = append(out, out[0])
	}
	return out
}

// --- resource claims -------------------------------------------------------------------------

func (g *ptg) resourceClaims() ptList {
	var out ptList
	used := map[string]bool{}
	for i := 1 + g.n(2); i > 0; i-- {
		name := g.either([]string{"gpu", "fpga", "nic"}, append([]string{"gpu"}, ptBadNames...))
		if used[name] && !g.hostile() {
			continue
		}
		used[name] = true
		c := ptObj{"name": name}
		switch g.n(3) {
		case 0:
			c["resourceClaimName"] = g.either([]string{"my-claim"}, ptBadDNS)
		case 1:
			c["resourceClaimTemplateName"] = g.either([]string{"tmpl"}, ptBadDNS)
		default:
			if g.hostile() {
				if g.p(0.5) {
					c["resourceClaimName"] = "a"
					c["resourceClaimTemplateName"] = "b"
				}
			} else {
				c["resourceClaimName"] = "claim"
			}
		}
		if name != "" {
			g.claims = append(g.claims, name)
		}
		out = append(out, c)
	}
	return out
}

// --- volumes ---------------------------------------------------------------------------------

func (g *ptg) volumeList() ptList {
	var out ptList
	used := map[string]bool{}
	for i := g.n(5); i > 0; i-- {
		name := g.either([]string{"data", "config", "logs", "cache", "certs", "scratch", "claim", "v1"}, ptBadNames)
		if used[name] {
			if !g.hostile() {
				continue
			}
		}
		used[name] = true
		v := ptObj{"name": name}
		kind := g.volumeSource(v, name)
		if g.hostile() && g.p(0.2) {
			g.volumeSource(v, name) // a second source
		}
		if kind == "persistentVolumeClaim" || kind == "ephemeral" {
			g.pvcVolumes = append(g.pvcVolumes, name)
		} else {
			g.volumes = append(g.volumes, name)
		}
		out = append(out, v)
	}
	return out
}

func (g *ptg) keyToPaths(seen map[string]bool) ptList {
	var out ptList
	for i := g.n(3); i > 0; i-- {
		path := g.either(ptRelPaths, append([]string{""}, ptBadRel...))
		if seen != nil && seen[path] && !g.hostile() {
			continue
		}
		if seen != nil {
			seen[path] = true
		}
		kp := ptObj{"key": g.either([]string{"a", "b.txt"}, []string{""}), "path": path}
		if g.p(0.3) {
			kp["mode"] = g.intEither([]int64{0644, 0400, 0}, []int64{01000, -1})
		}
		out = append(out, kp)
	}
	return out
}

func (g *ptg) mode(o ptObj, k string) {
	if g.p(0.3) {
		o[k] = g.intEither([]int64{0644, 0777, 0}, []int64{0o1000, 512, -1})
	}
}

func (g *ptg) fieldRef(volume bool) ptObj {
	valid := []string{"metadata.name", "metadata.namespace", "metadata.uid"}
	if volume {
		valid = append(valid, "metadata.labels['app']", "metadata.annotations['Example.com/A']", "metadata.labels", "metadata.annotations")
	} else {
		valid = append(valid, "spec.nodeName", "spec.serviceAccountName", "status.podIPs", "status.hostIP", "metadata.labels['app']")
	}
	f := ptObj{"fieldPath": g.either(valid,
		[]string{"", "spec.host", "status.phase", "spec.nodeName", "bogus", "metadata.labels['a b']", "spec.nodeName['x']", "metadata.labels", "metadata.annotations",
			"metadata.labels[app]", "['x']", "metadata.labels['']", "status.podIPs", "spec.schedulerName", "spec.restartPolicy", "metadata.labels['x']']", "metadata.annotations['a/b/c']"})}
	if g.p(0.2) {
		f["apiVersion"] = g.either([]string{"v1"}, []string{"v2", "apps/v1"})
	}
	return f
}

func (g *ptg) resourceFieldRef(volume bool) ptObj {
	f := ptObj{"resource": g.either([]string{"limits.cpu", "requests.memory", "limits.ephemeral-storage", "requests.cpu", "limits.hugepages-2Mi"},
		[]string{"", "requests.hugepages-1Gi", "limits.nvidia.com/gpu", "cpu", "limits.storage"})}
	if volume && (!g.hostile() || g.p(0.5)) {
		f["containerName"] = g.pick("main", "app")
	}
	if g.p(0.4) {
		f["divisor"] = g.either([]string{"1", "1m", "1Mi", "1Gi", "1k", "1000m", "0"}, []string{"2", "1Ki", "1E", "10", "1u", "0.001k", "1024", "1m"})
	}
	return f
}

func (g *ptg) downwardFile(seen map[string]bool) ptObj {
	path := g.either(ptRelPaths, append([]string{""}, ptBadRel...))
	for seen[path] && !g.hostile() {
		path = fmt.Sprintf("f%d", len(seen))
	}
	seen[path] = true
	f := ptObj{"path": path}
	switch g.n(4) {
	case 0, 1:
		f["fieldRef"] = g.fieldRef(true)
	case 2:
		f["resourceFieldRef"] = g.resourceFieldRef(true)
	default:
		if g.hostile() {
			if g.p(0.5) {
				f["fieldRef"] = g.fieldRef(true)
				f["resourceFieldRef"] = g.resourceFieldRef(true)
			}
		} else {
			f["fieldRef"] = ptObj{"fieldPath": "metadata.name"}
		}
	}
	g.mode(f, "mode")
	return f
}

func (g *ptg) claimTemplate() ptObj {
	spec := ptObj{"accessModes": ptList{g.either([]string{"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"}, []string{"ReadWriteSometimes", ""})}}
	if g.hostile() && g.p(0.3) {
		spec["accessModes"] = [][]interface{}{{}, {"ReadWriteOncePod", "ReadWriteOnce"}}[g.n(2)]
	}
	if !g.hostile() || g.p(0.5) {
		spec["resources"] = ptObj{"requests": ptObj{"storage": g.either([]string{"1Gi", "10Gi", "1.5Gi"}, []string{"0", "-1Gi"})}}
	}
	if g.p(0.2) {
		spec["storageClassName"] = g.either([]string{"fast", "standard", ""}, ptBadDNS)
	}
	if g.p(0.2) {
		spec["volumeMode"] = g.either([]string{"Block", "Filesystem"}, []string{"Raw"})
	}
	if g.p(0.15) {
		spec["selector"] = g.selector()
	}
	if g.pa("volumes", 0.15) {
		ds := ptObj{"kind": g.either([]string{"PersistentVolumeClaim", "VolumeSnapshot"}, []string{""}), "name": g.either([]string{"src"}, []string{""})}
		if ds["kind"] == "VolumeSnapshot" || g.p(0.3) {
			ds["apiGroup"] = g.either([]string{"snapshot.storage.k8s.io"}, []string{"", "Bad_Group"})
		}
		spec["dataSource"] = ds
	}
	if g.pa("volumes", 0.15) {
		dsr := ptObj{"kind": g.pick("PersistentVolumeClaim", "VolumeSnapshot"), "name": g.pick("src", "other")}
		if dsr["kind"] == "VolumeSnapshot" || g.p(0.3) {
			dsr["apiGroup"] = "snapshot.storage.k8s.io"
		}
		if g.p(0.3) {
			dsr["namespace"] = g.either([]string{"ns1"}, []string{"Bad_NS", ""})
		}
		spec["dataSourceRef"] = dsr
	}
	if ds, ok := spec["dataSource"].(ptObj); ok && !g.hostile() {
		if dsr, ok := spec["dataSourceRef"].(ptObj); ok {
			for k, v := range ds {
				dsr[k] = v
			}
			delete(dsr, "namespace")
		}
	}
	t := ptObj{"spec": spec}
	if g.p(0.3) {
		meta := ptObj{"labels": g.labels(2)}
		if g.p(0.3) {
			meta["annotations"] = ptObj{g.either([]string{"a"}, ptBadKeys): "x"}
		}
		if g.hostile() {
			// a metadata field a claim template may not set
			key := g.pick("name", "namespace", "generateName", "uid", "resourceVersion", "finalizers", "ownerReferences", "generation", "deletionGracePeriodSeconds", "creationTimestamp", "selfLink", "managedFields", "deletionTimestamp")
			meta[key] = map[string]interface{}{
				"name": "n", "namespace": "ns", "generateName": "g-", "uid": "u", "resourceVersion": "1", "finalizers": ptList{}, "ownerReferences": ptList{},
				"generation": 1, "deletionGracePeriodSeconds": 0, "creationTimestamp": "2024-01-01T00:00:00Z", "selfLink": "/x", "managedFields": ptList{},
				"deletionTimestamp": "2024-01-01T00:00:00Z"}[key]
		}
		t["metadata"] = meta
	}
	return t
}

// volumeSource sets one source on v and returns its member name.
func (g *ptg) volumeSource(v ptObj, volName string) string {
	kinds := []string{"emptyDir", "emptyDir", "hostPath", "configMap", "configMap", "secret", "secret", "persistentVolumeClaim", "persistentVolumeClaim",
		"downwardAPI", "projected", "projected", "ephemeral", "ephemeral", "csi", "nfs", "image", "gitRepo", "iscsi", "fc", "flexVolume", "azureDisk",
		"azureFile", "cephfs", "rbd", "cinder", "glusterfs", "flocker", "quobyte", "storageos", "scaleIO", "gcePersistentDisk", "awsElasticBlockStore",
		"vsphereVolume", "photonPersistentDisk", "portworxVolume", "none"}
	k := kinds[g.n(len(kinds))]
	if g.focus == "projected" && g.p(0.5) {
		k = "projected"
	}
	req := func(o ptObj, keys ...string) ptObj {
		for _, key := range keys {
			if !g.hostile() || g.p(0.5) {
				o[key] = g.pick("x", "vol-1", "a/b")
			}
		}
		return o
	}
	switch k {
	case "none":
		return "emptyDir" // defaulted
	case "emptyDir":
		e := ptObj{}
		if g.p(0.3) {
			e["sizeLimit"] = g.either([]string{"1Gi", "500Mi", "0"}, []string{"-1Gi", "-1m"})
		}
		if g.p(0.2) {
			e["medium"] = g.pick("Memory", "", "HugePages")
		}
		v[k] = e
	case "hostPath":
		h := ptObj{"path": g.either([]string{"/var/log", "/data", "rel", "/a..b"}, []string{"", "/var/../etc", "..", "rel/../x"})}
		if g.p(0.5) {
			h["type"] = g.either([]string{"", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket", "CharDevice", "BlockDevice"}, []string{"Dir", "directory"})
		}
		v[k] = h
	case "configMap", "secret":
		s := ptObj{}
		nameKey := "name"
		if k == "secret" {
			nameKey = "secretName"
		}
		if !g.hostile() || g.p(0.5) {
			s[nameKey] = g.pick("cfg", "tls")
		}
		g.mode(s, "defaultMode")
		if g.p(0.4) {
			s["items"] = g.keyToPaths(nil)
		}
		v[k] = s
	case "persistentVolumeClaim":
		p := ptObj{}
		if !g.hostile() || g.p(0.5) {
			p["claimName"] = g.pick("data-claim", "claim-claim", "x")
		}
		v[k] = p
	case "downwardAPI":
		d := ptObj{}
		g.mode(d, "defaultMode")
		var items ptList
		seen := map[string]bool{}
		for i := 1 + g.n(2); i > 0; i-- {
			items = append(items, g.downwardFile(seen))
		}
		d["items"] = items
		v[k] = d
	case "projected":
		v[k] = g.projected()
	case "ephemeral":
		e := ptObj{}
		if !g.hostile() || g.p(0.7) {
			e["volumeClaimTemplate"] = g.claimTemplate()
		}
		v[k] = e
	case "csi":
		c := ptObj{"driver": g.either([]string{"csi.example.com", "Driver.Example.COM"}, []string{"", ptLong64, "a_b", "-x"})}
		if g.p(0.3) {
			c["nodePublishSecretRef"] = ptObj{"name": g.either([]string{"sec"}, []string{"", "Bad_Name"})}
		}
		v[k] = c
	case "nfs":
		v[k] = ptObj{"server": g.either([]string{"nfs.example.com"}, []string{""}), "path": g.either([]string{"/exports"}, []string{"", "rel"})}
	case "image":
		i := ptObj{"reference": g.either(ptImages, []string{""})}
		if !g.hostile() || g.p(0.5) {
			i["pullPolicy"] = g.either([]string{"Always", "IfNotPresent", "Never"}, []string{"Sometimes"})
		}
		v[k] = i
	case "gitRepo":
		gr := ptObj{"repository": g.either([]string{"https://example.com/r.git"}, []string{""})}
		if g.p(0.5) {
			gr["directory"] = g.either([]string{".", "sub"}, ptBadRel)
		}
		v[k] = gr
	case "iscsi":
		i := ptObj{"targetPortal": g.either([]string{"10.0.0.1:3260"}, []string{"", strings.Repeat("t", 60)}),
			"iqn": g.either([]string{"iqn.2001-04.com.example:storage", "eui.02004567A425678D", "naa.60003BAFA5B1A1C0A40FCFF1A5C0E8A0", "iqnx iqn.2001-04.com.ex:a"},
				[]string{"", "iqn.20a1-04.com.example:s", "iqn.2001-04.com.example", "xyz", "eui.0200", "naa.6000", "iqn.2001-04.com.example:a b", "eui.\u00e902004567A425678D", "iqn.2001-04.com_x:a", "eui\n02004567A425678D"}),
			"lun": g.intEither([]int64{0, 255}, []int64{-1, 256})}
		if g.p(0.3) {
			i["initiatorName"] = g.either([]string{"iqn.1996-04.de.suse:01:a", "eui.02004567A425678D"}, []string{"", "bogus", "iqn.x"})
		}
		if g.p(0.3) {
			i["chapAuthSession"] = true
			if !g.hostile() {
				i["secretRef"] = ptObj{"name": "chap"}
			}
		}
		v[k] = i
	case "fc":
		f := ptObj{}
		switch g.n(4) {
		case 0:
			f["targetWWNs"] = ptList{"500a0982991b8dc5"}
			if !g.hostile() || g.p(0.5) {
				f["lun"] = g.intEither([]int64{0, 2}, []int64{-1, 256})
			}
		case 1:
			f["wwids"] = ptList{"3600508b400105e210000900000490000"}
		case 2:
			if g.hostile() {
				if g.p(0.6) {
					f["targetWWNs"] = ptList{"a", "b"}
					f["wwids"] = ptList{"c"}
					f["lun"] = 1
				}
			} else {
				f["wwids"] = ptList{"w"}
			}
		default:
			f["targetWWNs"] = ptList{"w"}
			f["lun"] = 1
		}
		v[k] = f
	case "flexVolume":
		f := req(ptObj{}, "driver")
		if g.p(0.5) {
			f["options"] = ptObj{g.either([]string{"size", "example.com/x", "k8s.iox/y"}, []string{"kubernetes.io/x", "a.k8s.io/b", "K8S.IO", "x.Kubernetes.IO/y", "k8s.io"}): "1"}
		}
		v[k] = f
	case "azureDisk":
		a := req(ptObj{}, "diskName")
		kind := g.either([]string{"Shared", "Dedicated", "Managed", ""}, []string{"Big", "Managed", "Shared"})
		uri := "https://acct.blob.core.windows.net/c/d.vhd"
		if kind == "Managed" {
			uri = "/subscriptions/s/resourcegroups/g/providers/microsoft.compute/disks/d"
		}
		if g.hostile() {
			uri = g.pick("", "http://x", uri, "/subscriptions/x")
		}
		a["diskURI"] = uri
		if kind != "" {
			a["kind"] = kind
		}
		if g.p(0.4) {
			a["cachingMode"] = g.either([]string{"None", "ReadOnly", "ReadWrite"}, []string{"WriteBack"})
		}
		v[k] = a
	case "azureFile":
		v[k] = req(ptObj{}, "secretName", "shareName")
	case "cephfs":
		c := ptObj{}
		if !g.hostile() {
			c["monitors"] = ptList{"10.0.0.1:6789"}
		}
		v[k] = c
	case "rbd":
		r := req(ptObj{}, "image")
		if !g.hostile() {
			r["monitors"] = ptList{"10.0.0.1:6789"}
		}
		v[k] = r
	case "cinder":
		c := req(ptObj{}, "volumeID")
		if g.p(0.4) {
			c["secretRef"] = ptObj{"name": g.either([]string{"s"}, []string{""})}
		}
		v[k] = c
	case "glusterfs":
		v[k] = req(ptObj{}, "endpoints", "path")
	case "flocker":
		f := ptObj{}
		switch g.n(3) {
		case 0:
			f["datasetName"] = g.either([]string{"ds"}, []string{"a/b"})
		case 1:
			f["datasetUUID"] = "uuid"
		default:
			if g.hostile() {
				if g.p(0.5) {
					f["datasetName"] = "a"
					f["datasetUUID"] = "b"
				}
			} else {
				f["datasetName"] = "d"
			}
		}
		v[k] = f
	case "quobyte":
		q := ptObj{"registry": g.either([]string{"reg:7861", "a:1,b:2", "[::1]:7861", ":1", "a:"}, []string{"", "noport", "a:1,b", "a:b:c", "[::1]", "[::1]x:1", "x]:1", "[a:1", "a:1,", "[a]:1:2"}),
			"volume": g.either([]string{"vol"}, []string{""})}
		if g.p(0.3) {
			q["tenant"] = g.either([]string{"t"}, []string{strings.Repeat("t", 65)})
		}
		v[k] = q
	case "storageos":
		s := ptObj{"volumeName": g.either([]string{"vol"}, []string{"", "Vol_1"})}
		if g.p(0.4) {
			s["volumeNamespace"] = g.either([]string{"ns"}, []string{"Bad_NS"})
		}
		if g.p(0.3) {
			s["secretRef"] = ptObj{"name": g.either([]string{"s"}, []string{""})}
		}
		v[k] = s
	case "scaleIO":
		v[k] = req(ptObj{"secretRef": ptObj{"name": "s"}}, "gateway", "system", "volumeName")
	case "gcePersistentDisk", "awsElasticBlockStore":
		key := "pdName"
		if k == "awsElasticBlockStore" {
			key = "volumeID"
		}
		d := req(ptObj{}, key)
		if g.p(0.4) {
			d["partition"] = g.intEither([]int64{0, 1, 255}, []int64{-1, 256})
		}
		v[k] = d
	case "vsphereVolume":
		v[k] = req(ptObj{}, "volumePath")
	case "photonPersistentDisk":
		v[k] = req(ptObj{}, "pdID")
	case "portworxVolume":
		v[k] = req(ptObj{}, "volumeID")
	}
	return k
}

func (g *ptg) projected() ptObj {
	p := ptObj{}
	g.mode(p, "defaultMode")
	var srcs ptList
	seen := map[string]bool{}
	for i := 1 + g.n(3); i > 0; i-- {
		src := ptObj{}
		n := 1
		if g.hostile() && g.p(0.3) {
			n = 2
		}
		for j := 0; j < n; j++ {
			switch g.n(5) {
			case 0:
				src["secret"] = ptObj{"name": g.either([]string{"s"}, []string{""}), "items": g.keyToPaths(seen)}
			case 1:
				src["configMap"] = ptObj{"name": g.either([]string{"c"}, []string{""}), "items": g.keyToPaths(seen)}
			case 2:
				var items ptList
				for m := 1 + g.n(2); m > 0; m-- {
					items = append(items, g.downwardFile(seen))
				}
				src["downwardAPI"] = ptObj{"items": items}
			case 3:
				t := ptObj{"path": g.either([]string{"token"}, append([]string{""}, ptBadRel...))}
				if g.p(0.5) {
					t["expirationSeconds"] = g.intEither([]int64{600, 3600, 1 << 32}, []int64{599, 1<<32 + 1, 0})
				}
				if g.p(0.3) {
					t["audience"] = "api"
				}
				src["serviceAccountToken"] = t
			default:
				path := g.either([]string{"ca.pem", "bundle"}, append([]string{""}, ptBadRel...))
				for seen[path] && !g.hostile() {
					path = fmt.Sprintf("ctb%d", len(seen))
				}
				seen[path] = true
				c := ptObj{"path": path}
				switch g.n(4) {
				case 0:
					c["name"] = g.either([]string{"example.com:signer:bundle", "plain"}, []string{"", ":x", "a/b:c", "Bad_Name", "x:Bad_Name", "example.com:signer:", "a:b:" + ptLong254})
				case 1:
					c["signerName"] = g.either([]string{"example.com/signer"}, []string{"", "nosl", "a/b/c", "Bad.com/x", "com/x", strings.Repeat("a", 254) + ".com/x", "example.com/Bad_Path", "example.com/" + strings.Repeat("p.", 170), "a.b/", "/x"})
				case 2:
					if g.hostile() {
						if g.p(0.5) {
							c["name"] = "n"
							c["signerName"] = "example.com/s"
						}
					} else {
						c["name"] = "n2"
					}
				default:
					c["name"] = "n"
				}
				if g.p(0.3) && (c["signerName"] != nil || g.hostile()) {
					c["labelSelector"] = g.selector()
				}
				if g.p(0.3) {
					c["optional"] = true
				}
				src["clusterTrustBundle"] = c
			}
		}
		srcs = append(srcs, src)
	}
	p["sources"] = srcs
	return p
}

// --- containers ------------------------------------------------------------------------------

// resourceList: quantities for a container's requests or limits (or the overhead).
func (g *ptg) resourceList(extended bool) ptObj {
	m := ptObj{}
	for i := 1 + g.n(3); i > 0; i-- {
		valid := []string{"cpu", "memory", "ephemeral-storage"}
		name := g.either(valid, []string{"pods", "storage", "foo", "requests.cpu", "kubernetes.io/bar", "Bad Name", "example.com/", "requests.example.com/x",
			"hugepages-1Gi", "services", "a/b/c", "requests.hugepages-2Mi", "limits.memory", "nvidia.com/gpu", "example.com/foo", "hugepages-2Mi", "example.com/" + ptLong64})
		var q interface{} = g.either([]string{"100m", "250m", "1", "2", "0.5", "1500m", "64Mi", "128Mi", "1Gi", "512M", "1G", "0"}, ptBadQuant)
		if g.p(0.04) {
			q = g.pickInt(1, 2, 0)
		}
		m[name] = q
	}
	if extended && g.p(0.15) {
		m["nvidia.com/gpu"] = g.either([]string{"1", "2"}, []string{"0.5", "1500m"})
	}
	if extended && g.p(0.1) {
		m["hugepages-2Mi"] = "4Mi"
		m["memory"] = "64Mi"
	}
	return m
}

func (g *ptg) resources() ptObj {
	res := ptObj{}
	var limits ptObj
	if g.p(0.6) {
		limits = g.resourceList(true)
		res["limits"] = limits
	}
	if g.p(0.6) {
		req := ptObj{}
		if limits != nil && !g.hostile() {
			// requests within the limits: the same values (non-overcommitable ones must be)
			for k, v := range limits {
				if g.p(0.7) || !(k == "cpu" || k == "memory" || k == "ephemeral-storage") {
					req[k] = v
				}
			}
		} else {
			req = g.resourceList(limits != nil)
			if !g.hostile() {
				for _, k := range []string{"nvidia.com/gpu", "hugepages-2Mi"} {
					delete(req, k)
				}
			}
		}
		res["requests"] = req
	}
	if g.p(0.05) || (len(g.claims) > 0 && g.p(0.4)) {
		var cl ptList
		used := map[string]bool{}
		for i := 1 + g.n(2); i > 0; i-- {
			name := g.either([]string{"x"}, []string{"gpu", "fpga", "missing", ""})
			if len(g.claims) > 0 && !g.hostile() {
				name = g.claims[g.n(len(g.claims))]
			} else if !g.hostile() {
				continue
			}
			c := ptObj{"name": name}
			if g.p(0.3) {
				c["request"] = g.either([]string{"req-1"}, []string{"Bad_Req", ""})
			}
			key := name + "/" + fmt.Sprint(c["request"])
			if (used[name] || used[key]) && !g.hostile() {
				continue
			}
			used[name], used[key] = true, true
			cl = append(cl, c)
		}
		res["claims"] = cl
	}
	return res
}

func (g *ptg) port() interface{} {
	if g.p(0.3) {
		return g.either([]string{"http", "metrics", "a-1"}, []string{"HTTP", "a--b", "-a", "toolongportname12", "123", ""})
	}
	return g.intEither([]int64{80, 8080, 65535}, []int64{0, 65536, -1})
}

func (g *ptg) handler(probe bool) ptObj {
	h := ptObj{}
	kinds := []string{"exec", "httpGet", "tcpSocket", "grpc"}
	if !probe {
		kinds = []string{"exec", "httpGet", "tcpSocket", "sleep"}
	}
	n := 1
	if g.hostile() && g.p(0.3) {
		n = g.pickInt(0, 2, 3)
	}
	for i := 0; i < n; i++ {
		switch kinds[g.n(len(kinds))] {
		case "exec":
			if g.hostile() && g.p(0.4) {
				h["exec"] = ptObj{}
			} else {
				h["exec"] = ptObj{"command": ptList{"sh", "-c", "true"}}
			}
		case "httpGet":
			hg := ptObj{"port": g.port()}
			if g.p(0.6) || !g.hostile() {
				hg["path"] = g.pick("/healthz", "/")
			}
			if g.p(0.3) {
				hg["scheme"] = g.either([]string{"HTTP", "HTTPS"}, []string{"FTP", "http"})
			}
			if g.p(0.3) {
				hg["httpHeaders"] = ptList{ptObj{"name": g.either([]string{"X-Custom", "Accept"}, []string{"bad header", "", "X_Y"}), "value": "v"}}
			}
			if g.hostile() && g.p(0.2) {
				delete(hg, "port")
			}
			h["httpGet"] = hg
		case "tcpSocket":
			h["tcpSocket"] = ptObj{"port": g.port()}
		case "grpc":
			h["grpc"] = ptObj{"port": g.intEither([]int64{9090, 1}, []int64{0, 70000})}
		case "sleep":
			max := g.grace
			if max < 1 {
				max = 1
			}
			h["sleep"] = ptObj{"seconds": g.intEither([]int64{1, max}, []int64{0, -1, max + 1, 3600})}
		}
	}
	return h
}

func (g *ptg) probe(kind string) ptObj {
	p := g.handler(true)
	for _, k := range []string{"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"} {
		if g.p(0.25) {
			valid := []int64{0, 1, 10}
			if k == "successThreshold" && kind != "readinessProbe" {
				valid = []int64{0, 1}
			}
			p[k] = g.intEither(valid, []int64{-1, 2})
		}
	}
	if g.p(0.15) && (kind != "readinessProbe" || g.hostile()) {
		p["terminationGracePeriodSeconds"] = g.intEither([]int64{10}, []int64{0, -5})
	}
	return p
}

func (g *ptg) securityContext() ptObj {
	sc := ptObj{}
	win := g.windows && !g.hostile()
	for _, k := range []string{"runAsUser", "runAsGroup"} {
		if g.p(0.2) && !win {
			sc[k] = g.intEither([]int64{0, 1000}, []int64{-1, 2147483648})
		}
	}
	ape := false
	if g.p(0.3) && !win {
		ape = g.p(0.6)
		sc["allowPrivilegeEscalation"] = ape
	}
	if g.p(0.3) && !win {
		sc["privileged"] = g.p(0.5) && (ape || !g.hostile() && sc["allowPrivilegeEscalation"] == nil || g.hostile())
	}
	if g.p(0.2) && !win {
		caps := ptList{g.pick("NET_ADMIN", "SYS_TIME")}
		if ape || sc["allowPrivilegeEscalation"] == nil || g.hostile() {
			caps = append(caps, "CAP_SYS_ADMIN")
			if g.p(0.3) {
				caps = append(caps, "CAP_SYS_ADMIN")
			}
		}
		sc["capabilities"] = ptObj{"add": caps, "drop": ptList{"ALL"}}
	}
	if g.p(0.12) && !win {
		sc["procMount"] = g.either([]string{"Default"}, []string{"Unmasked", "Masked", ""})
	}
	for _, k := range []string{"readOnlyRootFilesystem", "runAsNonRoot"} {
		if g.p(0.15) && (!win || k == "runAsNonRoot") {
			sc[k] = g.p(0.5)
		}
	}
	if g.p(0.1) && !win {
		sc["seLinuxOptions"] = ptObj{"type": "spc_t"}
	}
	if g.p(0.15) && !win {
		sc["seccompProfile"] = g.seccomp()
	}
	if g.p(0.15) && !win {
		sc["appArmorProfile"] = g.apparmor()
	}
	if g.pa("windows", 0.1) && (g.windows || g.hostile()) {
		sc["windowsOptions"] = g.windowsOptions()
	}
	return sc
}

func (g *ptg) container(kind string) ptObj {
	name := g.unique([]string{"main", "app", "sidecar", "log-agent", "init-db", "web", "x1", "proxy", "c-2"}, ptBadNames)
	g.containers = append(g.containers, name)
	c := ptObj{"name": name}
	if !g.hostile() || g.p(0.7) {
		c["image"] = g.either(ptImages, ptBadImage)
	}
	if g.p(0.2) {
		c["command"] = ptList{"/bin/app"}
	}
	if g.p(0.3) {
		c["imagePullPolicy"] = g.either([]string{"Always", "IfNotPresent", "Never"}, []string{"Sometimes"})
	}
	if g.p(0.2) {
		c["terminationMessagePolicy"] = g.either([]string{"File", "FallbackToLogsOnError"}, []string{"Bogus"})
	}
	if g.p(0.35) && (kind != "ephemeral" || g.hostile()) {
		c["ports"] = g.ports(kind)
	}
	if g.p(0.4) {
		c["env"] = g.env()
	}
	if g.p(0.15) {
		c["envFrom"] = g.envFrom()
	}
	mounted := map[string]bool{}
	if len(g.volumes)+len(g.pvcVolumes) > 0 && g.p(0.6) || g.hostile() && g.p(0.2) {
		c["volumeMounts"] = g.mounts(kind, mounted)
	}
	if len(g.pvcVolumes) > 0 && g.p(0.3) || g.hostile() && g.p(0.1) {
		c["volumeDevices"] = g.devices(mounted)
	}
	if g.p(0.5) && (kind != "ephemeral" || g.hostile()) {
		c["resources"] = g.resources()
	}
	if g.p(0.08) && (kind == "regular" || g.hostile()) {
		var rp ptList
		used := map[string]bool{}
		for i := 1 + g.n(2); i > 0; i-- {
			rn := g.either([]string{"cpu", "memory"}, []string{"", "gpu", "cpu"})
			if used[rn] && !g.hostile() {
				continue
			}
			used[rn] = true
			pol := g.either([]string{"NotRequired", "RestartContainer"}, []string{"", "Never"})
			if g.restart == "Never" && !g.hostile() {
				pol = "NotRequired"
			}
			rp = append(rp, ptObj{"resourceName": rn, "restartPolicy": pol})
		}
		c["resizePolicy"] = rp
	}
	switch kind {
	case "init":
		if g.p(0.4) {
			c["restartPolicy"] = g.either([]string{"Always"}, []string{"OnFailure", "Never", ""})
		}
	default:
		if g.hostile() && g.p(0.2) {
			c["restartPolicy"] = "Always"
		}
	}
	sidecar := c["restartPolicy"] == "Always"
	probes := kind == "regular" || sidecar || g.hostile()
	for _, k := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		if probes && g.p(0.25) {
			c[k] = g.probe(k)
		}
	}
	if probes && g.p(0.2) {
		lc := ptObj{}
		if g.p(0.6) {
			lc["postStart"] = g.handler(false)
		}
		if g.p(0.6) {
			lc["preStop"] = g.handler(false)
		}
		c["lifecycle"] = lc
	}
	if g.pa("security", 0.35) || g.focus == "windows" {
		c["securityContext"] = g.securityContext()
	}
	if kind == "ephemeral" {
		if g.p(0.5) {
			c["targetContainerName"] = g.pick("main", "app", "missing", "")
		}
		if g.p(0.3) {
			c["resources"] = ptObj{}
		}
	}
	return c
}

func (g *ptg) ports(kind string) ptList {
	var ps ptList
	names := map[string]bool{}
	for i := 1 + g.n(3); i > 0; i-- {
		cp := g.intEither([]int64{80, 8080, 9090, 65535, 1}, []int64{0, 70000, -1})
		p := ptObj{"containerPort": cp}
		if g.p(0.4) {
			n := g.either([]string{"http", "metrics", "grpc-1", "a1"}, []string{"HTTP", "a--b", "-a", "toolongportname12", "123", "http"})
			if !names[n] || g.hostile() {
				names[n] = true
				p["name"] = n
			}
		}
		if g.p(0.3) || g.hostNet && g.p(0.5) {
			hp := g.intEither([]int64{8080, 80, 9000, 30000 + int64(g.n(1000))}, []int64{70000, -5, 8080})
			if g.hostNet && !g.hostile() {
				hp = cp
			}
			// host ports must not collide among the containers (init containers one by one)
			if kind == "init" || !g.hostPorts[hp] || g.hostile() {
				if kind != "init" {
					g.hostPorts[hp] = true
				}
				p["hostPort"] = hp
			}
		}
		if g.p(0.3) {
			p["protocol"] = g.either([]string{"TCP", "UDP", "SCTP"}, []string{"HTTP", "tcp"})
		}
		if g.p(0.1) {
			p["hostIP"] = g.pick("0.0.0.0", "127.0.0.1")
		}
		ps = append(ps, p)
	}
	return ps
}

func (g *ptg) env() ptList {
	var out ptList
	for i := 1 + g.n(3); i > 0; i-- {
		e := ptObj{"name": g.either([]string{"A", "LOG_LEVEL", "my.env-name", "_x", "-x"}, []string{"", "1A", "a=b", ".", "..", "..x", "A B", "\u00e9"})}
		switch g.n(6) {
		case 0, 1:
			e["value"] = g.pick("v", "", "1")
		case 2:
			e["valueFrom"] = ptObj{"fieldRef": g.fieldRef(false)}
		case 3:
			e["valueFrom"] = ptObj{"resourceFieldRef": g.resourceFieldRef(false)}
		case 4:
			ref := ptObj{"key": g.either([]string{"k", "a.b", "K_1", "-a"}, []string{"", "a b", "..", ".", "..a", strings.Repeat("k", 254)})}
			if !g.hostile() || g.p(0.5) {
				ref["name"] = g.either([]string{"cfg", "my.cfg"}, ptBadDNS)
			}
			e["valueFrom"] = ptObj{g.pick("configMapKeyRef", "secretKeyRef"): ref}
		default:
			if g.hostile() {
				vf := ptObj{}
				if g.p(0.5) {
					vf["fieldRef"] = ptObj{"fieldPath": "metadata.name"}
					vf["secretKeyRef"] = ptObj{"name": "s", "key": "k"}
				}
				e["valueFrom"] = vf
				if g.p(0.5) {
					e["value"] = "both"
				}
			}
		}
		out = append(out, e)
	}
	return out
}

func (g *ptg) envFrom() ptList {
	var out ptList
	for i := 1 + g.n(2); i > 0; i-- {
		e := ptObj{}
		if g.p(0.3) {
			e["prefix"] = g.either([]string{"APP_", "x."}, []string{"1X", "a b", ".."})
		}
		name := g.either([]string{"cfg", "env-", "a.b", "a-"}, []string{"", "Bad_Name", "-", "a-b--", "-a-", ".a-"})
		switch g.n(3) {
		case 0:
			e["configMapRef"] = ptObj{"name": name}
		case 1:
			e["secretRef"] = ptObj{"name": name}
		default:
			if g.hostile() {
				if g.p(0.5) {
					e["configMapRef"] = ptObj{"name": name}
					e["secretRef"] = ptObj{"name": name}
				}
			} else {
				e["configMapRef"] = ptObj{"name": "c"}
			}
		}
		out = append(out, e)
	}
	return out
}

func (g *ptg) mounts(kind string, mounted map[string]bool) ptList {
	var out ptList
	paths := map[string]bool{}
	all := append(append([]string{}, g.volumes...), g.pvcVolumes...)
	for i := 1 + g.n(3); i > 0; i-- {
		name := g.pick("missing", "")
		if len(all) > 0 && !g.hostile() {
			name = all[g.n(len(all))]
		}
		path := g.either([]string{"/data", "/var/log", "/etc/config", "/cache", "/tmp/x"}, []string{"", "/data", "rel", "/dev/xvda"})
		if paths[path] && !g.hostile() {
			continue
		}
		paths[path] = true
		mounted[name] = true
		m := ptObj{"name": name, "mountPath": path}
		if g.p(0.2) {
			m["subPath"] = g.either(ptRelPaths, ptBadRel)
		}
		if g.p(0.1) && (m["subPath"] == nil || g.hostile()) {
			m["subPathExpr"] = g.either([]string{"$(POD_NAME)"}, ptBadRel)
		}
		if kind == "ephemeral" && !g.hostile() {
			delete(m, "subPath")
			delete(m, "subPathExpr")
		}
		ro := g.p(0.3)
		if ro {
			m["readOnly"] = true
		}
		prop := ""
		if g.p(0.15) {
			prop = g.either([]string{"None", "HostToContainer"}, []string{"Bogus", "", "Bidirectional"})
			m["mountPropagation"] = prop
		}
		if g.p(0.15) && (ro && (prop == "" || prop == "None") || g.hostile()) {
			m["recursiveReadOnly"] = g.either([]string{"Disabled", "Enabled", "IfPossible"}, []string{"Bogus", "", "Enabled"})
		}
		out = append(out, m)
	}
	return out
}

func (g *ptg) devices(mounted map[string]bool) ptList {
	var out ptList
	paths := map[string]bool{}
	names := map[string]bool{}
	for i := 1 + g.n(2); i > 0; i-- {
		name := g.pick("missing", "")
		if len(g.pvcVolumes) > 0 && !g.hostile() {
			name = g.pvcVolumes[g.n(len(g.pvcVolumes))]
		} else if len(g.volumes) > 0 && g.p(0.5) {
			name = g.volumes[g.n(len(g.volumes))]
		}
		path := g.either([]string{"/dev/xvda", "/dev/sdb", "/dev/sdc"}, []string{"", "/dev/../x", "..", "/data", "/dev/xvda"})
		if (mounted[name] || names[name] || paths[path]) && !g.hostile() {
			continue
		}
		names[name], paths[path] = true, true
		out = append(out, ptObj{"name": name, "devicePath": path})
	}
	if g.hostile() && len(out) > 0 {
		out = append(out, out[0])
	}
	return out
}

// ptPod wraps a template into a Pod whose metadata the validation reads: a name (the ephemeral
// volumes' claims are named after it) and, now and then, the mirror-Pod annotation.
func ptPod(r *rand.Rand, t ptObj) ptObj {
	g := &ptg{r: r, bad: 0.2}
	meta, _ := t["metadata"].(ptObj)
	if meta == nil {
		meta = ptObj{}
	}
	if g.p(0.8) {
		meta["name"] = g.either([]string{"web-0", "pod", "a.b"}, []string{"Pod", "x_y", strings.Repeat("p", 250), "-p"})
	}
	if g.p(0.1) {
		a, _ := meta["annotations"].(ptObj)
		if a == nil {
			a = ptObj{}
		}
		a["kubernetes.io/config.mirror"] = "m"
		meta["annotations"] = a
	}
	spec := t["spec"].(ptObj)
	// a claim named after an ephemeral volume's
	if vols, ok := spec["volumes"].(ptList); ok && g.p(0.3) {
		name, _ := meta["name"].(string)
		for _, v := range vols {
			if vo, ok := v.(ptObj); ok && vo["ephemeral"] != nil {
				spec["volumes"] = append(vols, ptObj{"name": "ref", "persistentVolumeClaim": ptObj{"claimName": name + "-" + vo["name"].(string)}})
				break
			}
		}
	}
	return ptObj{"metadata": meta, "spec": spec}
}
