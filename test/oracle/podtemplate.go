package main

// kwh-oracle podtemplate: Pod template validation at the function level, the way upstream's
// workload webhooks run it (CloneSet, Advanced StatefulSet and DaemonSet, BroadcastJob,
// AdvancedCronJob, ...): convertor.ConvertPodTemplateSpec (kruise's SetDefaultPodSpec, then
// v1 -> core) and corevalidation.ValidatePodTemplateSpec at spec.template with
// webhookutil.DefaultPodValidationOptions.
//
//	kwh-oracle podtemplate [-gates G] [-pods]     templates on stdin, one JSON object a line;
//	                                              one answer a line: the aggregated error as a
//	                                              JSON string, null, or {"decodeError": "..."};
//	                                              -pods: v1 Pods instead, validated as
//	                                              WorkloadSpread does (ConvertPod, then
//	                                              ValidatePodSpec with the Pod's metadata at spec)
//	kwh-oracle podtemplate gen -seed N -cases N   generated templates, one a line
//	kwh-oracle podtemplate diff -bin C ...        both, compared with the C side (C reads the
//	                                              same lines and answers the same way)

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	sigsjson "sigs.k8s.io/json"

	webhookutil "github.com/openkruise/kruise/pkg/webhook/util"
	"github.com/openkruise/kruise/pkg/webhook/util/convertor"
)

func podtemplateMain(args []string) int {
	if len(args) > 0 && args[0] == "gen" {
		return podtemplateGen(args[1:])
	}
	if len(args) > 0 && args[0] == "diff" {
		return podtemplateDiff(args[1:])
	}
	fs := flag.NewFlagSet("podtemplate", flag.ContinueOnError)
	gates := fs.String("gates", "", "feature gates, as kruise-manager's --feature-gates")
	pods := fs.Bool("pods", false, "Pods (validated with their metadata) instead of templates")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := setupProcess(*gates, true); err != nil {
		fmt.Fprintf(os.Stderr, "podtemplate: %v\n", err)
		return 2
	}
	answer := podtemplateAnswer
	if *pods {
		answer = podAnswer
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for {
		line, err := in.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line != "" {
			fmt.Fprintln(out, answer([]byte(line)))
		}
		if err == io.EOF {
			return 0
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "podtemplate: %v\n", err)
			return 1
		}
	}
}

// podtemplateAnswer validates one template as upstream does, as one JSON line.
func podtemplateAnswer(line []byte) string {
	tmpl := &corev1.PodTemplateSpec{}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(line, tmpl); err != nil {
		b, _ := json.Marshal(map[string]string{"decodeError": err.Error()})
		return string(b)
	}
	core, err := convertor.ConvertPodTemplateSpec(tmpl)
	if err != nil {
		b, _ := json.Marshal(map[string]string{"decodeError": "convert: " + err.Error()})
		return string(b)
	}
	errs := corevalidation.ValidatePodTemplateSpec(core, field.NewPath("spec", "template"), webhookutil.DefaultPodValidationOptions)
	if agg := errs.ToAggregate(); agg != nil {
		b, _ := json.Marshal(agg.Error())
		return string(b)
	}
	return "null"
}

// podAnswer validates one Pod's spec with its metadata, as WorkloadSpread validation does.
func podAnswer(line []byte) string {
	pod := &corev1.Pod{}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(line, pod); err != nil {
		b, _ := json.Marshal(map[string]string{"decodeError": err.Error()})
		return string(b)
	}
	core, err := convertor.ConvertPod(pod)
	if err != nil {
		b, _ := json.Marshal(map[string]string{"decodeError": "convert: " + err.Error()})
		return string(b)
	}
	errs := corevalidation.ValidatePodSpec(&core.Spec, &core.ObjectMeta, field.NewPath("spec"), webhookutil.DefaultPodValidationOptions)
	if agg := errs.ToAggregate(); agg != nil {
		b, _ := json.Marshal(agg.Error())
		return string(b)
	}
	return "null"
}

func podtemplateGen(args []string) int {
	fs := flag.NewFlagSet("podtemplate gen", flag.ContinueOnError)
	seed := fs.Int64("seed", 1, "seed: the same seed gives the same templates")
	cases := fs.Int("cases", 100, "templates to write")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	r := rand.New(rand.NewSource(*seed))
	for i := 0; i < *cases; i++ {
		b, _ := json.Marshal(ptTemplate(r))
		fmt.Fprintln(out, string(b))
	}
	return 0
}

// --- diff -------------------------------------------------------------------------------------

func podtemplateDiff(args []string) int {
	fs := flag.NewFlagSet("podtemplate diff", flag.ContinueOnError)
	bin := fs.String("bin", "build/test/podtemplate-check", "the C side")
	seed := fs.Int64("seed", 1, "seed of the generator")
	cases := fs.Int("cases", 2000, "templates")
	outDir := fs.String("out", "build/diff/podtemplate", "where differences and the rule tally go")
	gates := fs.String("gates", "", "feature gates (DefaultHostNetworkHostPortsInPodTemplates=true is passed on to the C side)")
	top := fs.Int("top", 25, "rules of the tally printed")
	pods := fs.Bool("pods", false, "Pods with metadata (WorkloadSpread's ValidatePodSpec) instead of templates")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := setupProcess(*gates, true); err != nil {
		fmt.Fprintf(os.Stderr, "podtemplate diff: %v\n", err)
		return 2
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "podtemplate diff: %v\n", err)
		return 2
	}
	r := rand.New(rand.NewSource(*seed))
	lines := make([]string, *cases)
	answer := podtemplateAnswer
	for i := range lines {
		t := ptTemplate(r)
		if *pods {
			t = ptPod(r, t)
		}
		b, _ := json.Marshal(t)
		lines[i] = string(b)
	}
	cargs := []string{}
	if *pods {
		cargs = append(cargs, "--pods")
		answer = podAnswer
	}
	if strings.Contains(*gates, "DefaultHostNetworkHostPortsInPodTemplates=true") {
		cargs = append(cargs, "--host-network-ports")
	}
	ours, err := runPodtemplateCheck(*bin, cargs, lines)
	if err != nil {
		fmt.Fprintf(os.Stderr, "podtemplate diff: %s: %v\n", *bin, err)
		return 1
	}
	tally := map[string]int{}
	valid, diffs := 0, 0
	var report strings.Builder
	for i, line := range lines {
		want := answer([]byte(line))
		got := ours[i]
		for _, rule := range ptRules(want) {
			tally[rule]++
		}
		if want == "null" {
			valid++
		}
		if ptNormalize(want) == ptNormalize(got) {
			continue
		}
		diffs++
		fmt.Fprintf(&report, "case %d\n  template: %s\n  upstream: %s\n  ours:     %s\n", i, line, want, got)
		if only := ptOnlyIn(want, got); only != "" {
			fmt.Fprintf(&report, "%s", only)
		}
	}
	_ = os.WriteFile(filepath.Join(*outDir, "differences.txt"), []byte(report.String()), 0o644)
	writeTally(filepath.Join(*outDir, "rules.txt"), tally)
	fmt.Printf("podtemplate: %d templates (seed %d): %d valid, %d rejected, %d distinct rules hit, %d differences\n",
		len(lines), *seed, valid, len(lines)-valid, len(tally), diffs)
	printTally(tally, *top)
	if diffs > 0 {
		fmt.Printf("podtemplate: differences in %s\n", filepath.Join(*outDir, "differences.txt"))
		return 1
	}
	return 0
}

func runPodtemplateCheck(bin string, args []string, lines []string) ([]string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	got := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(got) != len(lines) {
		return nil, fmt.Errorf("%d answers for %d templates", len(got), len(lines))
	}
	return got, nil
}

// Every error starts with its path: spec.template... (spec... for a Pod), or "[]" (the path a
// static Pod's resource claims are refused at).
var ptErrorStart = regexp.MustCompile(`, (spec[.\[]|\[\]: )`)

// ptErrors splits an answer (a JSON string holding an aggregate) into its errors.
func ptErrors(answer string) []string {
	if answer == "null" {
		return nil
	}
	var s string
	if json.Unmarshal([]byte(answer), &s) != nil {
		return nil
	}
	s = goPointer.ReplaceAllString(s, "0xPOINTER")
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' || !strings.HasPrefix(s, "[spec") && !strings.HasPrefix(s, "[[]") {
		return []string{s}
	}
	inner := s[1 : len(s)-1]
	var parts []string
	start := 0
	for _, loc := range ptErrorStart.FindAllStringIndex(inner, -1) {
		parts = append(parts, inner[start:loc[0]])
		start = loc[0] + 2
	}
	return append(parts, inner[start:])
}

// ptNormalize: errors compared as a set (Go ranges over maps), addresses ignored.
func ptNormalize(answer string) string {
	errs := ptErrors(answer)
	if errs == nil {
		return answer
	}
	sort.Strings(errs)
	return strings.Join(errs, "\n")
}

func ptOnlyIn(want, got string) string {
	a, b := map[string]bool{}, map[string]bool{}
	for _, e := range ptErrors(want) {
		a[e] = true
	}
	for _, e := range ptErrors(got) {
		b[e] = true
	}
	var out strings.Builder
	for _, e := range ptErrors(want) {
		if !b[e] {
			fmt.Fprintf(&out, "  only upstream: %s\n", e)
		}
	}
	for _, e := range ptErrors(got) {
		if !a[e] {
			fmt.Fprintf(&out, "  only ours:     %s\n", e)
		}
	}
	return out.String()
}

var (
	ptIndex  = regexp.MustCompile(`\[[^\]]*\]`)
	ptQuoted = regexp.MustCompile(`"(\\.|[^"\\])*"`)
	ptNumber = regexp.MustCompile(`\b-?[0-9]+\b`)
	ptTypes  = []string{"Required value", "Forbidden", "Invalid value", "Unsupported value", "Duplicate value", "Not found", "Too long", "Internal error"}
)

// ptRules names the rules an answer hit: each error's path without indexes and keys, its type
// and its detail without the values in it.
func ptRules(answer string) []string {
	var rules []string
	for _, e := range ptErrors(answer) {
		path, rest := e, ""
		for _, t := range ptTypes {
			if i := strings.Index(e, ": "+t); i >= 0 {
				path, rest = e[:i], e[i+2:]
				break
			}
		}
		path = strings.TrimPrefix(ptIndex.ReplaceAllString(path, "[*]"), "spec.template.")
		// a value printed with %#v (a struct, a slice) stands for its type
		if v := strings.TrimPrefix(rest, "Invalid value: "); v != rest && v != "" && strings.ContainsAny(v[:1], "abcdefghijklmnopqrstuvwxyz[") {
			if i := strings.LastIndex(v, "}: "); i >= 0 {
				typ := v
				if j := strings.IndexAny(v, "{("); j >= 0 {
					typ = v[:j]
				}
				rest = "Invalid value: " + typ + "{…}" + v[i+1:]
			}
		}
		rest = ptNumber.ReplaceAllString(ptQuoted.ReplaceAllString(rest, `"…"`), "N")
		if len(rest) > 110 {
			rest = rest[:110] + "…"
		}
		rules = append(rules, path+": "+rest)
	}
	return rules
}

func sortedTally(tally map[string]int) []string {
	keys := make([]string, 0, len(tally))
	for k := range tally {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if tally[keys[i]] != tally[keys[j]] {
			return tally[keys[i]] > tally[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

func writeTally(path string, tally map[string]int) {
	var b strings.Builder
	for _, k := range sortedTally(tally) {
		fmt.Fprintf(&b, "%7d  %s\n", tally[k], k)
	}
	_ = os.WriteFile(path, []byte(b.String()), 0o644)
}

func printTally(tally map[string]int, top int) {
	keys := sortedTally(tally)
	for i, k := range keys {
		if i == top {
			fmt.Printf("  ... %d more rules (the whole tally is rules.txt)\n", len(keys)-top)
			break
		}
		fmt.Printf("  %6d  %s\n", tally[k], k)
	}
}
