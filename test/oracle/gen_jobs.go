package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"

	"github.com/openkruise/kruise/apis/apps/defaults"
	appsv1beta1 "github.com/openkruise/kruise/apis/apps/v1beta1"
)

// The job kinds: BroadcastJob defaulting and validation, AdvancedCronJob defaulting and
// validation (the cron schedule in robfig's dialect, time zones, the three template kinds, the
// update rules), EphemeralJob validation (its own copy of the container rules). Objects are
// drawn as users write them (nothing defaulted) with hostile values now and then; Pod templates
// come from the Pod template generator (gen_podtemplate.go), at its own hostility.

func init() {
	register(generator{name: "broadcastjob-mutate", area: "broadcastjob", path: "/mutate-apps-kruise-io-broadcastjob", gen: genBroadcastJobMutate})
	register(generator{name: "broadcastjob-validate", area: "broadcastjob", path: "/validate-apps-kruise-io-broadcastjob", gen: genBroadcastJobValidate})
	register(generator{name: "advancedcronjob-mutate", area: "advancedcronjob", path: "/mutate-apps-kruise-io-advancedcronjob", gen: genAdvancedCronJobMutate})
	register(generator{name: "advancedcronjob-validate", area: "advancedcronjob", path: "/validate-apps-kruise-io-advancedcronjob", gen: genAdvancedCronJobValidate})
	register(generator{name: "ephemeraljob-validate", area: "ephemeraljob", path: "/validate-apps-kruise-io-v1alpha1-ephemeraljob", gen: genEphemeralJobValidate})
}

// --- shared pieces ---------------------------------------------------------------------------

func jobGates(r *rand.Rand) map[string]bool {
	g := map[string]bool{}
	if chance(r, 0.15) {
		g["TemplateNoDefaults"] = true
	}
	if chance(r, 0.1) {
		g["DefaultHostNetworkHostPortsInPodTemplates"] = true
	}
	if len(g) == 0 {
		return nil
	}
	return g
}

func jobVersion(r *rand.Rand) string {
	switch x := r.Float64(); {
	case x < 0.02:
		return "v2"
	case x < 0.4:
		return "v1alpha1"
	}
	return "v1beta1"
}

func jobMeta(r *rand.Rand, kind string) obj {
	name := pick(r, []string{"job-1", "nightly", "a", "pull-images", "x-2-y"})
	if chance(r, 0.12) {
		name = pick(r, []string{"Bad_Name", "a.b", "", strings.Repeat("n", 63), strings.Repeat("n", 64), "UPPER-ok", "-lead", "ünï"})
	}
	m := obj{}
	if name != "" || chance(r, 0.5) {
		m["name"] = name
	}
	if name == "" && chance(r, 0.5) {
		m["generateName"] = pick(r, []string{"gen-", "Gen_", "g"})
	}
	ns := pick(r, []string{"default", "shop", "team-a"})
	if chance(r, 0.06) {
		ns = pick(r, []string{"", "Bad_NS", "a.b"})
	}
	if ns != "" {
		m["namespace"] = ns
	}
	if chance(r, 0.2) {
		m["labels"] = labels(r, 2)
	}
	if chance(r, 0.05) {
		m["labels"] = obj{"bad key!": "x"}
	}
	if chance(r, 0.1) {
		m["annotations"] = obj{"note": "x"}
	}
	if chance(r, 0.5) {
		m["resourceVersion"] = fmt.Sprint(1000 + r.Intn(50))
		m["uid"] = uid(r)
		m["creationTimestamp"] = "2025-03-01T08:30:00Z"
		m["generation"] = float64(1 + r.Intn(3))
	}
	if chance(r, 0.05) {
		m["finalizers"] = list{pick(r, []string{"kruise.io/x", "bad", "a/b/c"})}
	}
	return m
}

// jobPodTemplate: a Pod template from the template generator, its restartPolicy one a job takes
// most of the time.
func jobPodTemplate(r *rand.Rand) obj {
	t := ptTemplate(r)
	spec := asMap(t["spec"])
	switch x := r.Float64(); {
	case x < 0.45:
		spec["restartPolicy"] = "OnFailure"
	case x < 0.75:
		spec["restartPolicy"] = "Never"
	case x < 0.8:
		spec["restartPolicy"] = "Always"
	case x < 0.85:
		delete(spec, "restartPolicy")
	}
	if chance(r, 0.06) {
		meta := asMap(t["metadata"])
		if meta == nil {
			meta = obj{}
			t["metadata"] = meta
		}
		l := asMap(meta["labels"])
		if l == nil {
			l = obj{}
			meta["labels"] = l
		}
		l[pick(r, []string{"broadcastjob-name", "broadcastjob-controller-uid"})] = pick(r, []string{"x", ""})
	}
	return t
}

// preDefaulted: o (a v1beta1 object of kind) with upstream's own defaults applied, as the
// mutating webhook left it, so that defaulting again may change nothing; o when it does not
// decode.
func preDefaulted(o obj, kind string) obj {
	data, _ := json.Marshal(o)
	var out []byte
	switch kind {
	case "BroadcastJob":
		var t appsv1beta1.BroadcastJob
		if json.Unmarshal(data, &t) != nil {
			return o
		}
		defaults.SetDefaultsBroadcastJob(&t, true)
		out, _ = json.Marshal(&t)
	case "AdvancedCronJob":
		var t appsv1beta1.AdvancedCronJob
		if json.Unmarshal(data, &t) != nil {
			return o
		}
		defaults.SetDefaultsAdvancedCronJob(&t, true)
		out, _ = json.Marshal(&t)
	default:
		return o
	}
	var m obj
	_ = json.Unmarshal(out, &m)
	return m
}

func jobRequest(r *rand.Rand, kind, resource, version, op string, o, old obj) map[string]interface{} {
	name, _ := get(o, "metadata", "name").(string)
	ns, _ := get(o, "metadata", "namespace").(string)
	var object, oldObject interface{} = o, nil
	if old != nil {
		oldObject = old
	}
	if op == "DELETE" {
		object, oldObject = nil, o
	}
	return admissionRequest(r, "apps.kruise.io", version, kind, resource, "", op, ns, name, object, oldObject)
}

func jobOp(r *rand.Rand) string {
	switch x := r.Float64(); {
	case x < 0.62:
		return "CREATE"
	case x < 0.97:
		return "UPDATE"
	}
	return "DELETE"
}

func copyObj(o obj) obj {
	data, _ := json.Marshal(o)
	var out obj
	_ = json.Unmarshal(data, &out)
	return out
}

// aged: the old object of an update, from the new one (a change in the template now and then).
func aged(r *rand.Rand, o obj, templatePath ...string) obj {
	old := copyObj(o)
	if chance(r, 0.5) {
		t := get(old, templatePath...)
		if m := asMap(t); m != nil {
			if spec := asMap(m["spec"]); spec != nil && chance(r, 0.7) {
				if cs := asList(spec["containers"]); len(cs) > 0 {
					put(cs[0], "image", "busybox:old") // it may be a hostile null
				} else {
					spec["hostname"] = "h"
				}
			} else {
				m["metadata"] = obj{"labels": obj{"old": "yes"}}
			}
		}
	}
	if chance(r, 0.2) {
		if md := asMap(old["metadata"]); md != nil {
			md["resourceVersion"] = "999"
		}
	}
	return old
}

// corruptJob replaces one member somewhere by a value of another JSON type (the decoder's
// messages), now and then.
func corruptJob(r *rand.Rand, o obj) {
	if !chance(r, 0.04) {
		return
	}
	var paths [][]string
	var walk func(v interface{}, p []string)
	walk = func(v interface{}, p []string) {
		if m, ok := v.(map[string]interface{}); ok {
			for k, c := range m {
				q := append(append([]string{}, p...), k)
				paths = append(paths, q)
				walk(c, q)
			}
		}
	}
	walk(o, nil)
	if len(paths) == 0 {
		return
	}
	sortPaths(paths)
	p := paths[r.Intn(len(paths))]
	parent := o
	for _, k := range p[:len(p)-1] {
		parent = asMap(parent[k])
	}
	parent[p[len(p)-1]] = []interface{}{"x", float64(1.5), true, obj{"a": "b"}, list{1}}[r.Intn(5)]
}

func sortPaths(p [][]string) {
	keys := make([]string, len(p))
	for i := range p {
		keys[i] = strings.Join(p[i], "\x00")
	}
	idx := make(map[string][]string, len(p))
	for i, k := range keys {
		idx[k] = p[i]
	}
	sortStrings(keys)
	for i, k := range keys {
		p[i] = idx[k]
	}
}

// --- BroadcastJob ---------------------------------------------------------------------------

func broadcastJobSpec(r *rand.Rand) obj {
	spec := obj{}
	if chance(r, 0.92) {
		spec["template"] = jobPodTemplate(r)
	}
	switch x := r.Float64(); {
	case x < 0.3:
		spec["parallelism"] = float64(r.Intn(20))
	case x < 0.45:
		spec["parallelism"] = pick(r, []string{"50%", "100%", "3"})
	case x < 0.5:
		spec["parallelism"] = nil
	}
	if chance(r, 0.6) {
		cp := obj{}
		if chance(r, 0.8) {
			cp["type"] = pick(r, []string{"Always", "Never", "Never", "", "Sometimes"})
		}
		if chance(r, 0.35) {
			cp["ttlSecondsAfterFinished"] = float64(r.Intn(600) - 10)
		}
		if chance(r, 0.35) {
			cp["activeDeadlineSeconds"] = float64(r.Intn(600) - 10)
		}
		spec["completionPolicy"] = cp
	}
	if chance(r, 0.4) {
		fp := obj{}
		if chance(r, 0.8) {
			fp["type"] = pick(r, []string{"FailFast", "Continue", "Pause", "", "Bogus"})
		}
		if chance(r, 0.3) {
			fp["restartLimit"] = float64(r.Intn(5))
		}
		spec["failurePolicy"] = fp
	}
	if chance(r, 0.2) {
		spec["paused"] = chance(r, 0.5)
	}
	return spec
}

func broadcastJob(r *rand.Rand, version string) obj {
	av := "apps.kruise.io/" + version
	if version == "v2" {
		av = "apps.kruise.io/v1beta1"
	}
	o := obj{"metadata": jobMeta(r, "BroadcastJob"), "spec": broadcastJobSpec(r)}
	if chance(r, 0.9) {
		o["apiVersion"], o["kind"] = av, "BroadcastJob"
	}
	if chance(r, 0.02) {
		o["kind"] = "AdvancedCronJob"
	}
	if chance(r, 0.15) {
		o["status"] = obj{"active": float64(1), "phase": "running", "desired": float64(3)}
	}
	corruptJob(r, o)
	return o
}

func genBroadcastJob(r *rand.Rand) testCase {
	version := jobVersion(r)
	o := broadcastJob(r, version)
	if version == "v1beta1" && chance(r, 0.15) {
		o = preDefaulted(o, "BroadcastJob")
	}
	op := jobOp(r)
	var old obj
	if op == "UPDATE" {
		old = aged(r, o, "spec", "template")
	}
	return testCase{Gates: jobGates(r), Requests: []map[string]interface{}{
		jobRequest(r, "BroadcastJob", "broadcastjobs", version, op, o, old)}}
}

func genBroadcastJobMutate(r *rand.Rand, i int) testCase   { return genBroadcastJob(r) }
func genBroadcastJobValidate(r *rand.Rand, i int) testCase { return genBroadcastJob(r) }

// --- AdvancedCronJob ------------------------------------------------------------------------

var (
	cronAtoms = []string{"*", "*", "?", "0", "1", "5", "7", "12", "15", "23", "24", "30", "31", "32", "59", "60",
		"jan", "JAN", "Feb", "dec", "sun", "SAT", "mon", "x", "", "-1", "+3", "007", "99999999999999999999", "\u212a"}
	cronSeps  = []string{" ", " ", " ", "  ", "\t", "\u00a0", "\u3000", "\n"}
	cronZones = []string{"UTC", "", "Asia/Shanghai", "America/New_York", "Local", "local", "America", "Nowhere/Land",
		"../etc", "/abs", "Europe/Paris/", "zone.tab", "Etc/GMT+5", "US/Eastern", "utc", "Asia/Tokyo"}
)

func cronRange(r *rand.Rand) string {
	a := pick(r, cronAtoms)
	switch x := r.Float64(); {
	case x < 0.4:
		return a
	case x < 0.6:
		return a + "-" + pick(r, cronAtoms)
	case x < 0.8:
		return a + "/" + pick(r, []string{"1", "2", "5", "15", "0", "-2", "x"})
	case x < 0.93:
		return a + "-" + pick(r, cronAtoms) + "/" + pick(r, []string{"2", "3", "0"})
	}
	return a + pick(r, []string{"--", "//", "-/-"}) + pick(r, cronAtoms)
}

func cronSchedule(r *rand.Rand) string {
	if chance(r, 0.45) {
		return pick(r, []string{"*/5 * * * *", "0 0 * * *", "30 2 * * 1-5", "0 */2 * * *", "15 10 1 * *",
			"@hourly", "@daily", "@every 1h30m", "0 9 * * MON-FRI", "0 0 1 jan *"})
	}
	pre := ""
	if chance(r, 0.15) {
		pre = pick(r, []string{"TZ=", "CRON_TZ="}) + pick(r, cronZones) + pick(r, []string{" ", " ", "", "  "})
	}
	if chance(r, 0.15) {
		return pre + pick(r, []string{"@yearly", "@annually", "@monthly", "@weekly", "@midnight", "@every 5m",
			"@every 0.5s", "@every -1s", "@every", "@every 1d", "@every x", "@daily ", "@unknown", "@every 1µs"})
	}
	n := 5
	if chance(r, 0.15) {
		n = []int{0, 1, 4, 6, 7}[r.Intn(5)]
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(pick(r, cronSeps))
		}
		for k := 1 + r.Intn(2); k > 0; k-- {
			if k == 1 || chance(r, 0.5) {
				b.WriteString(cronRange(r))
			}
			if k > 1 {
				b.WriteString(",")
			}
		}
	}
	return pre + b.String()
}

var pullImages = []string{"nginx", "nginx:1.25", "busybox:latest", "registry.example.com:5000/team/app:v2",
	"docker.io/library/nginx", "index.docker.io/nginx", "localhost:5000/x", "quay.io/a/b/c@sha256:" + strings.Repeat("ab", 32),
	"Nginx", "nginx:", "a/B", "UPPER/x", "Example.com/x", "x:\u212a", "\u212a.io/x", strings.Repeat("a", 64),
	"repo@sha256:" + strings.Repeat("a", 32), "repo@md5:" + strings.Repeat("a", 32), "repo@sha256:" + strings.Repeat("A", 64),
	"repo@sha512:" + strings.Repeat("f", 128), strings.Repeat("n", 250), "", " nginx", "nginx:1.0@sha256:" + strings.Repeat("cd", 32),
	"\u00c9cole/x", "caf\u00e9", "a..b", "a__b", "a___b", "a--b"}

func imageListPullJobTemplate(r *rand.Rand) obj {
	spec := obj{}
	switch x := r.Float64(); {
	case x < 0.75:
		var imgs list
		for n := 1 + r.Intn(3); n > 0; n-- {
			if chance(r, 0.8) {
				imgs = append(imgs, pick(r, pullImages[:8]))
			} else {
				imgs = append(imgs, pick(r, pullImages))
			}
		}
		spec["images"] = imgs
	case x < 0.85:
		spec["images"] = list{}
	case x < 0.88:
		var imgs list
		for i := 0; i < 256; i++ {
			imgs = append(imgs, fmt.Sprintf("img-%d", i))
		}
		spec["images"] = imgs
	}
	if chance(r, 0.3) {
		sel := obj{}
		if chance(r, 0.5) {
			sel["names"] = list{pick(r, []string{"node-a", "node-b"}), pick(r, []string{"node-b", "node-c"})}
		}
		if chance(r, 0.5) {
			sel["matchLabels"] = labels(r, 2)
		}
		if chance(r, 0.3) {
			sel["matchExpressions"] = list{obj{"key": "zone", "operator": pick(r, []string{"In", "Exists", "Bogus"}), "values": list{"a"}}}
		}
		spec["selector"] = sel
	}
	if chance(r, 0.2) {
		spec["podSelector"] = obj{"matchLabels": obj{"app": pick(r, []string{"web", "bad value!"})}}
	}
	if chance(r, 0.7) {
		cp := obj{}
		if chance(r, 0.8) {
			cp["type"] = pick(r, []string{"Always", "Always", "Never", ""})
		}
		if chance(r, 0.4) {
			cp["activeDeadlineSeconds"] = float64(pick2(r, 300, 100000).(int))
		}
		if chance(r, 0.15) {
			cp["ttlSecondsAfterFinished"] = float64(60)
		}
		spec["completionPolicy"] = cp
	}
	if chance(r, 0.4) {
		pp := obj{}
		if chance(r, 0.7) {
			pp["timeoutSeconds"] = float64(pick2(r, 60, 600).(int))
		}
		if chance(r, 0.5) {
			pp["backoffLimit"] = float64(r.Intn(5))
		}
		spec["pullPolicy"] = pp
	}
	if chance(r, 0.2) {
		spec["parallelism"] = pick2(r, float64(2), "50%")
	}
	if chance(r, 0.2) {
		spec["imagePullPolicy"] = pick(r, []string{"Always", "IfNotPresent", "Sometimes"})
	}
	if chance(r, 0.1) {
		spec["pullSecrets"] = list{"sec"}
	}
	if chance(r, 0.1) {
		spec["sandboxConfig"] = obj{"labels": obj{"a": "b"}}
	}
	return obj{"spec": spec}
}

func advancedCronJob(r *rand.Rand, version string) obj {
	spec := obj{}
	if chance(r, 0.97) {
		spec["schedule"] = cronSchedule(r)
	}
	if chance(r, 0.15) {
		spec["timeZone"] = pick(r, cronZones)
	}
	if chance(r, 0.2) {
		spec["startingDeadlineSeconds"] = float64(r.Intn(200) - 20)
	}
	if chance(r, 0.3) {
		spec["concurrencyPolicy"] = pick(r, []string{"Allow", "Forbid", "Replace", "", "Bogus"})
	}
	if chance(r, 0.2) {
		spec["paused"] = chance(r, 0.5)
	}
	if chance(r, 0.25) {
		spec["successfulJobsHistoryLimit"] = float64(r.Intn(8) - 2)
	}
	if chance(r, 0.25) {
		spec["failedJobsHistoryLimit"] = float64(r.Intn(8) - 2)
	}
	tmpl := obj{}
	kinds := []string{"jobTemplate", "broadcastJobTemplate", "imageListPullJobTemplate"}
	if version == "v1alpha1" && chance(r, 0.9) {
		kinds = kinds[:2]
	}
	n := 1
	switch x := r.Float64(); {
	case x < 0.05:
		n = 0
	case x < 0.1:
		n = 2
	}
	for _, k := range r.Perm(len(kinds))[:n] {
		switch kinds[k] {
		case "jobTemplate":
			js := obj{"template": jobPodTemplate(r)}
			if chance(r, 0.3) {
				js["parallelism"] = float64(r.Intn(3))
				js["completions"] = float64(r.Intn(3))
			}
			if chance(r, 0.1) {
				js["backoffLimit"] = float64(-1)
			}
			jt := obj{"spec": js}
			if chance(r, 0.2) {
				jt["metadata"] = obj{"labels": obj{"team": "a"}}
			}
			tmpl["jobTemplate"] = jt
		case "broadcastJobTemplate":
			tmpl["broadcastJobTemplate"] = obj{"spec": broadcastJobSpec(r)}
		default:
			tmpl["imageListPullJobTemplate"] = imageListPullJobTemplate(r)
		}
	}
	if chance(r, 0.03) {
		tmpl["jobTemplate"] = nil
	}
	spec["template"] = tmpl
	av := "apps.kruise.io/" + version
	if version == "v2" {
		av = "apps.kruise.io/v1beta1"
	}
	o := obj{"metadata": jobMeta(r, "AdvancedCronJob"), "spec": spec}
	if chance(r, 0.9) {
		o["apiVersion"], o["kind"] = av, "AdvancedCronJob"
	}
	if chance(r, 0.1) {
		o["status"] = obj{"type": "Job", "lastScheduleTime": "2025-03-01T08:30:00Z"}
	}
	corruptJob(r, o)
	return o
}

// agedCronJob: the old object of an update, differing in what the update rules let change
// and, now and then, in what they do not.
func agedCronJob(r *rand.Rand, o obj) obj {
	old := copyObj(o)
	spec := asMap(old["spec"])
	if spec == nil {
		return old
	}
	for _, f := range []string{"schedule", "concurrencyPolicy", "successfulJobsHistoryLimit", "failedJobsHistoryLimit",
		"startingDeadlineSeconds", "paused", "timeZone"} {
		if chance(r, 0.15) {
			switch f {
			case "schedule":
				spec[f] = "0 1 * * *"
			case "concurrencyPolicy":
				spec[f] = "Forbid"
			case "paused":
				spec[f] = true
			case "timeZone":
				delete(spec, f)
			default:
				spec[f] = float64(5)
			}
		}
	}
	tmpl := asMap(spec["template"])
	switch x := r.Float64(); {
	case x < 0.15 && tmpl != nil:
		for _, k := range []string{"jobTemplate", "broadcastJobTemplate"} {
			if t := asMap(tmpl[k]); t != nil {
				t["metadata"] = obj{"labels": obj{"changed": "yes"}}
			}
		}
	case x < 0.25 && tmpl != nil:
		if t := asMap(tmpl["imageListPullJobTemplate"]); t != nil {
			// the template may have no spec, or a hostile one that is not an object
			if spec := asMap(t["spec"]); spec != nil {
				spec["images"] = list{"old-image"}
			} else {
				t["spec"] = obj{"images": list{"old-image"}}
			}
		} else if chance(r, 0.5) {
			tmpl["imageListPullJobTemplate"] = imageListPullJobTemplate(r)
		}
	case x < 0.3:
		delete(spec, "template")
	}
	if md := asMap(old["metadata"]); md != nil && chance(r, 0.2) {
		md["resourceVersion"] = "999"
		if chance(r, 0.3) {
			md["name"] = "renamed"
		}
	}
	return old
}

func genAdvancedCronJob(r *rand.Rand) testCase {
	version := jobVersion(r)
	o := advancedCronJob(r, version)
	if version == "v1beta1" && chance(r, 0.15) {
		o = preDefaulted(o, "AdvancedCronJob")
	}
	op := jobOp(r)
	var old obj
	if op == "UPDATE" {
		old = agedCronJob(r, o)
	}
	return testCase{Gates: jobGates(r), Requests: []map[string]interface{}{
		jobRequest(r, "AdvancedCronJob", "advancedcronjobs", version, op, o, old)}}
}

func genAdvancedCronJobMutate(r *rand.Rand, i int) testCase   { return genAdvancedCronJob(r) }
func genAdvancedCronJobValidate(r *rand.Rand, i int) testCase { return genAdvancedCronJob(r) }

// --- EphemeralJob ---------------------------------------------------------------------------

func ephemeralContainers(r *rand.Rand) list {
	g := &ptg{r: r, bad: []float64{0, 0.02, 0.08, 0.25}[r.Intn(4)], names: map[string]bool{}, grace: 30, hostPorts: map[int64]bool{}}
	g.volumes = []string{"data", "config"}
	var cs list
	for n := r.Intn(4); n > 0; n-- {
		c := g.container("ephemeral")
		if chance(r, 0.75) {
			c["terminationMessagePolicy"] = pick(r, []string{"File", "FallbackToLogsOnError"})
		}
		if chance(r, 0.75) {
			c["imagePullPolicy"] = pick(r, []string{"Always", "IfNotPresent", "Never"})
		}
		switch x := r.Float64(); {
		case x < 0.05:
			c["ports"] = list{}
		case x < 0.1:
			c["resources"] = obj{"limits": obj{}}
		case x < 0.14:
			c["restartPolicy"] = "Always"
		case x < 0.18:
			c["resizePolicy"] = list{obj{"resourceName": "cpu", "restartPolicy": "NotRequired"}}
		case x < 0.22:
			c["startupProbe"] = obj{}
		case x < 0.26:
			c["lifecycle"] = obj{"preStop": obj{"exec": obj{"command": list{"sh"}}}}
		case x < 0.3:
			c["ports"] = list{obj{"containerPort": float64(pick2(r, 80, 0).(int)), "protocol": pick(r, []string{"TCP", "", "HTTP"}), "name": pick(r, []string{"http", "Bad_Port", "http"})}}
		}
		if ms := asList(c["volumeMounts"]); len(ms) > 0 && chance(r, 0.2) {
			asMap(ms[0])[pick(r, []string{"subPath", "subPathExpr"})] = "sub"
		}
		if chance(r, 0.08) && len(cs) > 0 {
			c["name"] = asMap(cs[0])["name"]
		}
		cs = append(cs, c)
	}
	return cs
}

func genEphemeralJobValidate(r *rand.Rand, i int) testCase {
	version := "v1alpha1"
	if chance(r, 0.03) {
		version = "v1beta1"
	}
	spec := obj{"template": obj{"ephemeralContainers": ephemeralContainers(r)}}
	if chance(r, 0.7) {
		spec["selector"] = obj{"matchLabels": obj{"app": "web"}}
	}
	if chance(r, 0.4) {
		spec["replicas"] = float64(r.Intn(5))
	}
	if chance(r, 0.2) {
		spec["parallelism"] = float64(r.Intn(3))
	}
	if chance(r, 0.2) {
		spec["activeDeadlineSeconds"] = float64(300)
	}
	if chance(r, 0.2) {
		spec["ttlSecondsAfterFinished"] = float64(60)
	}
	if chance(r, 0.05) {
		spec["template"] = obj{}
	}
	o := obj{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "EphemeralJob", "metadata": jobMeta(r, "EphemeralJob"), "spec": spec}
	corruptJob(r, o)
	op := "CREATE"
	var old obj
	if chance(r, 0.25) {
		op = "UPDATE"
		old = copyObj(o)
	} else if chance(r, 0.03) {
		op = "DELETE"
	}
	return testCase{Requests: []map[string]interface{}{
		jobRequest(r, "EphemeralJob", "ephemeraljobs", version, op, o, old)}}
}
