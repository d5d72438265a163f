package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"
)

// A case is one world and the requests sent against it, in order: each is compared, and a later
// one sees what the earlier ones wrote (a PUB's budget, a WorkloadSpread's bookkeeping).
type testCase struct {
	Gen      string                   `json:"generator"`
	Area     string                   `json:"area"`
	Path     string                   `json:"endpoint"`
	Gates    map[string]bool          `json:"featureGates,omitempty"`
	World    []map[string]interface{} `json:"cluster"`
	Requests []map[string]interface{} `json:"requests"`
	Seed     int64                    `json:"seed"`
	Index    int                      `json:"index"`
}

func (c *testCase) conversion() bool { return c.Path == "/convert" }

// A generator makes the i-th case of its path from r. Cases of one seed are the same on every
// run. writes: the path's requests may write to the world (a later case needs a fresh one).
type generator struct {
	name, area, path string
	writes           bool
	gen              func(r *rand.Rand, i int) testCase
	limit            func() int // at most this many cases (nil: as many as asked)
}

var generators []generator

func register(g generator) { generators = append(generators, g) }

type diffFlags struct {
	bin, oracleBin, out, departures, work string
	seed                                  int64
	cases                                 int
	only                                  string
	keep, verbose, noShrink, answers      bool
	maxShrink                             int
}

func diffMain(args []string) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	var f diffFlags
	self, _ := os.Executable()
	fs.StringVar(&f.bin, "bin", "build/kruise-webhook", "the kruise-webhook binary")
	fs.StringVar(&f.oracleBin, "oracle", self, "the kwh-oracle binary serving upstream's handlers")
	fs.Int64Var(&f.seed, "seed", 1, "seed of the generators: the same seed gives the same cases")
	fs.IntVar(&f.cases, "cases", 200, "cases per generator")
	fs.StringVar(&f.only, "only", "", "comma-separated generator names or paths to run (default: all)")
	fs.StringVar(&f.out, "out", "build/diff", "where shrunk differences are written as vectors (OUT/vectors/<area>/)")
	fs.StringVar(&f.departures, "departures", "test/oracle/departures.json", "the known, deliberate departures")
	fs.StringVar(&f.work, "work", "", "scratch directory (default: a new one under OUT)")
	fs.BoolVar(&f.keep, "keep", false, "keep the scratch directory (server logs)")
	fs.BoolVar(&f.verbose, "v", false, "print every difference, explained or not")
	fs.BoolVar(&f.noShrink, "no-shrink", false, "write differences as found, without shrinking")
	fs.IntVar(&f.maxShrink, "max-shrink", 300, "re-runs allowed to shrink one difference")
	fs.BoolVar(&f.answers, "answers", false, "print upstream's most frequent messages per generator (to tune generators)")
	list := fs.Bool("list", false, "list the generators and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *list {
		for _, g := range generators {
			fmt.Printf("%-28s %-12s %s\n", g.name, g.area, g.path)
		}
		return 0
	}
	deps, err := loadDepartures(f.departures)
	if err != nil {
		fmt.Fprintf(os.Stderr, "diff: %v\n", err)
		return 2
	}
	gens := selectGenerators(f.only)
	if len(gens) == 0 {
		fmt.Fprintf(os.Stderr, "diff: no generator matches %q (see -list)\n", f.only)
		return 2
	}
	if f.work == "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "diff: %v\n", err)
			return 2
		}
		f.work, err = os.MkdirTemp(f.out, "run-")
		if err != nil {
			fmt.Fprintf(os.Stderr, "diff: %v\n", err)
			return 2
		}
	}
	r := &runner{f: &f, deps: deps, stats: map[string]*genStats{}, seen: map[string]bool{}}
	ok := r.run(gens)
	if !f.keep && ok {
		os.RemoveAll(f.work)
	}
	if !ok {
		return 1
	}
	return 0
}

func selectGenerators(only string) []generator {
	if only == "" {
		return generators
	}
	var out []generator
	for _, g := range generators {
		for _, w := range strings.Split(only, ",") {
			if w == g.name || w == g.path || w == g.area {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

type genStats struct {
	path        string
	cases       int
	steps       int
	unexplained int
	explained   map[string]int
	vectors     []string
	outcomes    map[string]int // what upstream answered: allowed, patched, denied 403, Success...
	messages    map[string]int // upstream's messages, with -answers
	repeats     int            // unexplained differences of a kind already written
}

type runner struct {
	f      *diffFlags
	deps   []departure
	stats  map[string]*genStats
	failed bool
	seen   map[string]bool // signatures of the differences already shrunk and written
}

// run generates every case, groups them by feature gates (one pair of servers per group), runs
// them, and prints one line per generator and a closing "N passed, N failed".
func (r *runner) run(gens []generator) bool {
	groups := map[string][]testCase{}
	var order []string
	for _, g := range gens {
		st := &genStats{path: g.path, explained: map[string]int{}, outcomes: map[string]int{}, messages: map[string]int{}}
		r.stats[g.name] = st
		rng := rand.New(rand.NewSource(r.f.seed*1000003 + int64(len(g.name))*7919 + hash(g.name)))
		n := r.f.cases
		if g.limit != nil && g.limit() < n {
			n = g.limit()
		}
		for i := 0; i < n; i++ {
			c := g.gen(rng, i)
			c.Gen, c.Seed, c.Index = g.name, r.f.seed, i
			if c.Path == "" {
				c.Path = g.path
			}
			if c.Area == "" {
				c.Area = g.area
			}
			gates := sortedGates(c.Gates)
			if _, ok := groups[gates]; !ok {
				order = append(order, gates)
			}
			groups[gates] = append(groups[gates], c)
		}
	}
	writes := map[string]bool{}
	for _, g := range gens {
		writes[g.name] = g.writes
	}
	start := time.Now()
	for n, gates := range order {
		dir := filepath.Join(r.f.work, fmt.Sprintf("gates-%d", n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "diff: %v\n", err)
			return false
		}
		p, err := startPair(r.f.bin, r.f.oracleBin, dir, gates)
		if err != nil {
			fmt.Fprintf(os.Stderr, "diff: cannot start the servers (gates %q): %v\n", gates, err)
			return false
		}
		dirty := true
		for _, c := range groups[gates] {
			c := c
			if err := r.runCase(p, &c, dirty); err != nil {
				fmt.Fprintf(os.Stderr, "diff: %s case %d: %v\n", c.Gen, c.Index, err)
				p.stop()
				return false
			}
			dirty = writes[c.Gen]
		}
		if err := p.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "diff: a server did not stop cleanly: %v\n", err)
			r.failed = true
		}
	}
	passed, failed := 0, 0
	names := make([]string, 0, len(r.stats))
	for name := range r.stats {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		st := r.stats[name]
		var ex []string
		for id, n := range st.explained {
			ex = append(ex, fmt.Sprintf("%s=%d", id, n))
		}
		sort.Strings(ex)
		line := fmt.Sprintf("diff: %-26s %-48s %5d cases %5d requests: %d unexplained", name, st.path, st.cases, st.steps, st.unexplained)
		if st.repeats > 0 {
			line += fmt.Sprintf(" (%d of them repeat one already written)", st.repeats)
		}
		if len(ex) > 0 {
			line += ", departures " + strings.Join(ex, " ")
		}
		fmt.Println(line)
		var oc []string
		for k, n := range st.outcomes {
			oc = append(oc, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(oc)
		fmt.Printf("      upstream answered: %s\n", strings.Join(oc, ", "))
		for _, v := range st.vectors {
			fmt.Printf("      vector: %s\n", v)
		}
		if r.f.answers {
			type mc struct {
				m string
				n int
			}
			var ms []mc
			for m, n := range st.messages {
				ms = append(ms, mc{m, n})
			}
			sort.Slice(ms, func(i, j int) bool { return ms[i].n > ms[j].n || ms[i].n == ms[j].n && ms[i].m < ms[j].m })
			for i := 0; i < len(ms) && i < 25; i++ {
				m := ms[i].m
				if len(m) > 240 {
					m = m[:240] + "..."
				}
				fmt.Printf("      %5d  %s\n", ms[i].n, m)
			}
		}
		passed += st.cases - st.unexplained
		failed += st.unexplained
	}
	fmt.Printf("diff: seed %d, %d cases per generator, %.1f s\n", r.f.seed, r.f.cases, time.Since(start).Seconds())
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	return failed == 0 && !r.failed
}

var digits = regexp.MustCompile(`[0-9]+`)

// signature says what kind of difference res is: the generator, the aspects that differ and
// both messages with their numbers taken out.
func signature(c *testCase, res *result) string {
	var parts []string
	for _, d := range res.diffs {
		parts = append(parts, d.Aspect)
	}
	return c.Gen + "|" + strings.Join(parts, ",") + "|" +
		digits.ReplaceAllString(answerMessage(res.oracle), "N") + "|" +
		digits.ReplaceAllString(answerMessage(res.ours), "N")
}

func hash(s string) int64 {
	var h int64 = 1469598103934665603 & 0x7fffffffffffffff
	for _, c := range s {
		h = (h ^ int64(c)) * 1099511628211 & 0x7fffffffffffffff
	}
	return h
}

// runCase runs c; a difference that no departure explains is shrunk and written as a vector.
func (r *runner) runCase(p *pair, c *testCase, dirty bool) error {
	st := r.stats[c.Gen]
	st.cases++
	st.steps += len(c.Requests)
	res, err := execute(p, c, dirty)
	if err != nil {
		return err
	}
	for _, k := range res.kinds {
		st.outcomes[k]++
	}
	if r.f.answers {
		for _, m := range res.messages {
			st.messages[digits.ReplaceAllString(m, "N")]++
		}
	}
	if res.diffs == nil {
		return nil
	}
	if id := r.explain(c, res); id != "" {
		st.explained[id]++
		if r.f.verbose {
			fmt.Printf("diff: %s case %d step %d: explained by %s: %v\n", c.Gen, c.Index, res.step, id, res.diffs)
		}
		return nil
	}
	st.unexplained++
	sig := signature(c, res)
	if r.seen[sig] {
		st.repeats++
		return nil // the same difference again: counted, not written twice
	}
	r.seen[sig] = true
	fmt.Printf("diff: %s case %d step %d differs:\n", c.Gen, c.Index, res.step)
	for _, d := range res.diffs {
		fmt.Printf("    %s\n", d)
	}
	small := c
	if !r.f.noShrink {
		small, err = r.shrink(p, c, res)
		if err != nil {
			return err
		}
	}
	path, err := r.writeVector(p, small)
	if err == errNotAgain {
		fmt.Printf("    (it did not show again when the case was re-run: an answer that varies)\n")
		return nil
	}
	if err != nil {
		return err
	}
	st.vectors = append(st.vectors, path)
	return nil
}

var errNotAgain = fmt.Errorf("the difference did not show again")

// result of one case: the first step whose answers differ (and how), or no differences.
type result struct {
	step     int
	diffs    []difference
	oracle   *answer
	ours     *answer
	request  map[string]interface{}
	kinds    []string // the kind of each of upstream's answers (see answerKind)
	messages []string // upstream's messages
}

func envelope(c *testCase, req map[string]interface{}) map[string]interface{} {
	if c.conversion() {
		return map[string]interface{}{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "request": req}
	}
	return map[string]interface{}{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req}
}

func execute(p *pair, c *testCase, force bool) (*result, error) {
	if err := p.loadWorld(c.World, force); err != nil {
		return nil, err
	}
	var kinds, messages []string
	for i, req := range c.Requests {
		review := envelope(c, req)
		ao, err := p.oracle.post(c.Path, review)
		if err != nil {
			return nil, err
		}
		au, err := p.ours.post(c.Path, review)
		if err != nil {
			return nil, err
		}
		var oo, ou outcome
		if c.conversion() {
			objs, _ := req["objects"].([]interface{})
			oo, ou = conversionOutcome(ao, objs), conversionOutcome(au, objs)
		} else {
			oo, ou = admissionOutcome(ao, req["object"]), admissionOutcome(au, req["object"])
		}
		kinds = append(kinds, answerKind(oo, req))
		if m := answerMessage(ao); m != "" {
			messages = append(messages, m)
		}
		if d := compareOutcomes(oo, ou); len(d) > 0 {
			return &result{step: i, diffs: d, oracle: ao, ours: au, request: req, kinds: kinds, messages: messages}, nil
		}
	}
	return &result{kinds: kinds, messages: messages}, nil
}

// answerKind names an answer for the run's tally: "Success", "Failure", "allowed", "patched",
// "denied 403", "HTTP 400".
func answerKind(o outcome, req map[string]interface{}) string {
	switch {
	case o.HTTP != 200:
		return fmt.Sprintf("HTTP %d", o.HTTP)
	case o.Result != nil:
		return fmt.Sprint(o.Result)
	case o.Allowed == true && !reflect.DeepEqual(normalizeGenerated(asStored(req["object"]), req["object"]), o.Object):
		return "patched"
	case o.Allowed == true:
		return "allowed"
	}
	return fmt.Sprintf("denied %v", o.Code)
}

// writeVector writes the case's first differing request as a vector in the project's format,
// expecting what upstream answered. Requests before it were sent for their writes: the world the
// vector names is the oracle's after them.
func (r *runner) writeVector(p *pair, c *testCase) (string, error) {
	res, err := execute(p, c, true)
	if err != nil {
		return "", err
	}
	if res.diffs == nil {
		return "", errNotAgain
	}
	world := c.World
	if res.step > 0 {
		trimmed := *c
		trimmed.Requests = c.Requests[:res.step]
		if _, err := execute(p, &trimmed, true); err != nil {
			return "", err
		}
		if world, err = p.oracleWorld(); err != nil {
			return "", err
		}
	}
	v := map[string]interface{}{
		"name":        fmt.Sprintf("diff-%s-seed%d-case%d", c.Gen, c.Seed, c.Index),
		"description": "Found by the differential run: " + describe(res.diffs),
		"source":      fmt.Sprintf("upstream's own handlers (kwh-oracle) at 07169cfac7b9, make diff SEED=%d, generator %s, case %d, shrunk", c.Seed, c.Gen, c.Index),
		"endpoint":    c.Path,
		"cluster":     nonNil(world),
		"request":     res.request,
		"expect":      expectation(c, res),
	}
	if len(c.Gates) > 0 {
		v["featureGates"] = c.Gates
	}
	dir := filepath.Join(r.f.out, "vectors", c.Area)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(r.f.out, "cases"), 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("diff-%s-seed%d-case%d.json", c.Gen, c.Seed, c.Index))
	data, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return "", err
	}
	// The whole shrunk case beside it (not a vector: every request, the world before them), to
	// replay the difference with VECTORS-free tools.
	whole, _ := json.MarshalIndent(c, "", "  ")
	return path, os.WriteFile(filepath.Join(r.f.out, "cases", filepath.Base(path)), append(whole, '\n'), 0o644)
}

func describe(d []difference) string {
	var parts []string
	for _, x := range d {
		parts = append(parts, x.Aspect)
	}
	return "upstream and this server differed in " + strings.Join(parts, ", ") + "."
}

func expectation(c *testCase, res *result) map[string]interface{} {
	resp, _ := get(res.oracle.Body, "response").(map[string]interface{})
	exp := map[string]interface{}{}
	if c.conversion() {
		exp["result"] = get(resp, "result", "status")
		if m, _ := get(resp, "result", "message").(string); m != "" {
			exp["messageContains"] = []string{m}
		}
		if objs, ok := resp["convertedObjects"]; ok {
			exp["convertedObjects"] = objs
		}
		return exp
	}
	exp["allowed"] = resp["allowed"]
	if code := get(resp, "status", "code"); code != nil {
		exp["code"] = code
	}
	if m, _ := get(resp, "status", "message").(string); m != "" {
		if parts := splitAggregate(m); len(parts) > 1 {
			exp["messageContains"] = parts // in whatever order they come
		} else {
			exp["messageContains"] = []string{m}
		}
	}
	if strings.HasPrefix(c.Path, "/mutate") {
		if p, _ := resp["patch"].(string); p != "" {
			obj, err := applyPatch(res.request["object"], p)
			if err == nil {
				exp["object"] = obj
				if ignore := generatedPaths(obj, res.request["object"]); len(ignore) > 0 {
					exp["ignorePaths"] = ignore
				}
			}
		} else {
			exp["noPatch"] = true
		}
	}
	return exp
}

// generatedPaths lists the JSON Pointers of object whose values upstream makes up per request
// (normalizeGenerated), for a vector's ignorePaths.
func generatedPaths(object, request interface{}) []string {
	var out []string
	ann := asMap(get(asMap(object), "metadata", "annotations"))
	for _, key := range []string{"kruise.io/sidecarset-hash", "kruise.io/sidecarset-hash-without-image",
		"apps.kruise.io/matched-workloadspread"} {
		if _, ok := ann[key]; ok {
			out = append(out, "/metadata/annotations/"+strings.ReplaceAll(key, "/", "~1"))
		}
	}
	if _, named := get(asMap(request), "metadata", "name").(string); !named {
		if _, ok := get(asMap(object), "metadata", "name").(string); ok {
			out = append(out, "/metadata/name")
		}
	}
	var now []string
	for path := range nodeImageTagsNow(object) {
		now = append(now, path)
	}
	sort.Strings(now)
	out = append(out, now...)
	return out
}

// oracleWorld reads the oracle's world as it is now.
func (p *pair) oracleWorld() ([]map[string]interface{}, error) {
	resp, err := p.oracle.client.Get(p.oracle.base + "/_oracle/world")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Objects []map[string]interface{} `json:"objects"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	for _, o := range body.Objects {
		if md, ok := o["metadata"].(map[string]interface{}); ok {
			delete(md, "resourceVersion")
		}
	}
	return body.Objects, nil
}
