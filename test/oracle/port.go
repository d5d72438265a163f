package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// portMain: kwh-oracle port -cases FILE -out DIR turns cases recorded from upstream's own test
// tables (one JSON object a line: the test's name, the path, and either the admission request the
// test sent or the kind, version, operation and objects of the function it called, with the
// world and gates it ran with) into vectors named upstream-<Test>-<nn>-<what>.json, expecting
// what upstream's handler answers them; each is also sent to kruise-webhook, and the ones it
// answers otherwise are listed.
func portMain(args []string) int {
	fs := flag.NewFlagSet("port", flag.ContinueOnError)
	self, _ := os.Executable()
	cases := fs.String("cases", "", "the recorded cases (JSON lines)")
	out := fs.String("out", "", "where the vectors are written")
	bin := fs.String("bin", "build/kruise-webhook", "the kruise-webhook binary")
	work := fs.String("work", "", "scratch directory (default: one under -out)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *cases == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "kwh-oracle port: -cases and -out are required")
		return 2
	}
	recs, err := readRecords(*cases)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kwh-oracle port: %v\n", err)
		return 1
	}
	if *work == "" {
		*work = filepath.Join(*out, ".port-work")
	}
	groups := map[string][]portCase{}
	var order []string
	for _, pc := range recs {
		g := sortedGates(pc.c.Gates)
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], pc)
	}
	written, differ := 0, 0
	for n, gates := range order {
		dir := filepath.Join(*work, fmt.Sprintf("gates-%d", n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		p, err := startPair(*bin, self, dir, gates)
		if err != nil {
			fmt.Fprintf(os.Stderr, "kwh-oracle port: %v\n", err)
			return 1
		}
		for _, pc := range groups[gates] {
			ok, err := portOne(p, pc, *out)
			if err != nil {
				p.stop()
				fmt.Fprintf(os.Stderr, "kwh-oracle port: %s: %v\n", pc.name, err)
				return 1
			}
			written++
			if !ok {
				differ++
			}
		}
		p.stop()
	}
	os.RemoveAll(*work)
	fmt.Printf("port: %d vectors written, %d answered otherwise by kruise-webhook\n", written, differ)
	return 0
}

type portCase struct {
	name, test, note string
	c                testCase
	// defaulted: the objects of a recorded validation call are first defaulted by upstream's
	// defaulting webhook, as the API server sends them (it runs the mutating webhooks first)
	defaulted bool
}

var notWord = regexp.MustCompile(`[^A-Za-z0-9]+`)

func readRecords(path string) ([]portCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []portCase
	count := map[string]int{}
	seen := map[string]bool{}
	for sc.Scan() {
		var rec map[string]interface{}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, err
		}
		full, _ := rec["test"].(string)
		test, sub := full, ""
		if i := strings.Index(full, "/"); i >= 0 {
			test, sub = full[:i], full[i+1:]
		}
		c := testCase{Path: rec["path"].(string), Area: "workloads"}
		if g, ok := rec["gates"].(map[string]interface{}); ok {
			c.Gates = map[string]bool{}
			for k, v := range g {
				c.Gates[k], _ = v.(bool)
			}
		}
		for _, w := range asList(rec["world"]) {
			c.World = append(c.World, w.(map[string]interface{}))
		}
		req, _ := rec["request"].(map[string]interface{})
		if req == nil {
			req = recordedRequest(rec)
		}
		if req["options"] == nil {
			req["options"] = obj{"apiVersion": "meta.k8s.io/v1", "kind": map[string]string{"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}[fmt.Sprint(req["operation"])]}
		}
		// a table that sends one case twice makes one vector
		key, _ := json.Marshal([]interface{}{c.Path, c.Gates, c.World, req})
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		c.Requests = []map[string]interface{}{req}
		count[test]++
		what := strings.Trim(strings.ToLower(notWord.ReplaceAllString(sub, "-")), "-")
		if what == "" {
			what = "case"
		}
		if len(what) > 60 {
			what = what[:60]
		}
		name := fmt.Sprintf("upstream-%s-%02d-%s", test, count[test], what)
		note, _ := rec["note"].(string)
		out = append(out, portCase{name: name, test: full, note: note, c: c})
		if rec["request"] == nil && strings.HasPrefix(c.Path, "/validate-") {
			d := c
			d.Requests = []map[string]interface{}{deepCopy(req)}
			out = append(out, portCase{name: name + "-defaulted", test: full, c: d, defaulted: true,
				note: "The objects the test hands the validation, first defaulted by upstream's defaulting webhook as a CREATE, as the API server sends them."})
		}
	}
	return out, sc.Err()
}

// recordedRequest builds the request an API server would send for a recorded call.
func recordedRequest(rec map[string]interface{}) map[string]interface{} {
	object, _ := rec["object"].(map[string]interface{})
	old, _ := rec["oldObject"].(map[string]interface{})
	ns, _ := get(object, "metadata", "namespace").(string)
	name, _ := get(object, "metadata", "name").(string)
	kind, _ := rec["kind"].(string)
	version, _ := rec["version"].(string)
	resource := strings.ToLower(kind) + "s"
	req := obj{
		"uid":       "7a4ef9b2-1c1e-4f64-9d2b-5b0f0c9e0f01",
		"kind":      obj{"group": "apps.kruise.io", "version": version, "kind": kind},
		"resource":  obj{"group": "apps.kruise.io", "version": version, "resource": resource},
		"operation": rec["op"],
		"namespace": ns,
		"name":      name,
		"object":    object,
		"oldObject": nil,
		"userInfo":  obj{"username": "kubernetes-admin"},
	}
	if old != nil {
		req["oldObject"] = old
	}
	return req
}

// The parts of a message that differ from run to run: an address Go printed, and the operation an
// InPlaceOnly check names when several are not an image's (Go's map order picks one). Each such
// part is kept as the text around it.
var anyAddress = regexp.MustCompile(`0x[0-9a-f]{6,16}|(UnitedDeployment replicas )[0-9]{9,20}|(?:add|remove|replace) /\S+`)

func portOne(p *pair, pc portCase, out string) (bool, error) {
	if err := p.loadWorld(pc.c.World, true); err != nil {
		return false, err
	}
	req := pc.c.Requests[0]
	if pc.defaulted {
		for _, member := range []string{"object", "oldObject"} {
			if req[member] == nil {
				continue
			}
			d, err := defaultedByOracle(p, strings.Replace(pc.c.Path, "/validate-", "/mutate-", 1), req, req[member])
			if err != nil {
				return false, err
			}
			req[member] = d
		}
	}
	review := envelope(&pc.c, req)
	ao, err := p.oracle.post(pc.c.Path, review)
	if err != nil {
		return false, err
	}
	au, err := p.ours.post(pc.c.Path, review)
	if err != nil {
		return false, err
	}
	exp := expectation(&pc.c, &result{oracle: ao, request: req})
	if parts, ok := exp["messageContains"].([]string); ok {
		var kept []string
		for _, part := range parts {
			for _, piece := range anyAddress.Split(part, -1) {
				if strings.TrimSpace(piece) != "" {
					kept = append(kept, piece)
				}
			}
		}
		sort.Strings(kept)
		exp["messageContains"] = kept
	}
	v := map[string]interface{}{
		"name":        pc.name,
		"description": strings.TrimSpace(fmt.Sprintf("Upstream's test %s, as a whole request to its handler; expected: what upstream's handler answers it. %s", pc.test, pc.note)),
		"source":      fmt.Sprintf("openkruise/kruise 07169cfac7b9 test %s (inputs recorded from the test run; answer from kwh-oracle)", pc.test),
		"endpoint":    pc.c.Path,
		"cluster":     nonNil(pc.c.World),
		"request":     req,
		"expect":      exp,
	}
	if len(pc.c.Gates) > 0 {
		v["featureGates"] = pc.c.Gates
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return false, err
	}
	data, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(filepath.Join(out, pc.name+".json"), append(data, '\n'), 0o644); err != nil {
		return false, err
	}
	oo, ou := admissionOutcome(ao, req["object"]), admissionOutcome(au, req["object"])
	if d := compareOutcomes(oo, ou); len(d) > 0 {
		fmt.Printf("port: %s: kruise-webhook answers otherwise: %s\n", pc.name, describe(d))
		return false, nil
	}
	return true, nil
}

// defaultedByOracle: object as upstream's defaulting webhook at path leaves a CREATE of it.
func defaultedByOracle(p *pair, path string, req map[string]interface{}, object interface{}) (interface{}, error) {
	create := deepCopy(req)
	create["operation"] = "CREATE"
	create["object"] = object
	create["oldObject"] = nil
	create["options"] = obj{"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
	a, err := p.oracle.post(path, envelope(&testCase{Path: path}, create))
	if err != nil {
		return nil, err
	}
	if patch, _ := get(a.Body, "response", "patch").(string); patch != "" {
		return applyPatch(object, patch)
	}
	return object, nil
}

func deepCopy(m map[string]interface{}) map[string]interface{} {
	b, _ := json.Marshal(m)
	var out map[string]interface{}
	_ = json.Unmarshal(b, &out)
	return out
}
