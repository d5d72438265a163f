package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The two servers a differential run compares, each started once per set of feature gates:
// kruise-webhook (standalone, its --state directory rewritten and re-read with SIGHUP per world)
// and the oracle (`kwh-oracle serve`, its world replaced through /_oracle/world).

type endpoint struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	base    string // https://127.0.0.1:PORT
	metrics string // ours: http://127.0.0.1:PORT/metrics
	client  *http.Client
	state   string // ours: the --state directory
	reloads int    // ours: successful reloads seen so far
	world   string // a digest of the world loaded last
}

type pair struct {
	ours, oracle *endpoint
	gates        string
	dir          string
}

func httpsClient(caFile string) (*http.Client, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no certificate", caFile)
	}
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"},
			MaxIdleConnsPerHost: 4,
		},
	}, nil
}

// startPair starts both servers with gates ("A=true,B=false") in dir.
func startPair(bin, oracleBin, dir, gates string) (*pair, error) {
	certs := filepath.Join(dir, "certs")
	if out, err := exec.Command(bin, "certs", "generate", "--out", certs, "--host", "127.0.0.1").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("certs generate: %v: %s", err, out)
	}
	cl, err := httpsClient(filepath.Join(certs, "ca-cert.pem"))
	if err != nil {
		return nil, err
	}
	p := &pair{gates: gates, dir: dir}
	state := filepath.Join(dir, "state")
	if err := os.MkdirAll(state, 0o755); err != nil {
		return nil, err
	}
	ours := &endpoint{name: "kruise-webhook", logPath: filepath.Join(dir, "ours.log"), client: cl, state: state}
	args := []string{"--state", state, "--cert-dir", certs, "--bind-address", "127.0.0.1", "--port", "0",
		"--health-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--log-format", "text",
		"--log-level", "info", "--shutdown-delay", "0", "--feature-gates=" + gates}
	if err := ours.start(bin, args, regexp.MustCompile(`listening https=(\d+) health=(\d+) metrics=(\d+)`)); err != nil {
		return nil, err
	}
	p.ours = ours
	oracle := &endpoint{name: "oracle", logPath: filepath.Join(dir, "oracle.log"), client: cl}
	oargs := []string{"serve", "--cert-dir", certs, "--port", "0", "--feature-gates", gates}
	if err := oracle.start(oracleBin, oargs, regexp.MustCompile(`listening on (\d+)`)); err != nil {
		p.stop()
		return nil, err
	}
	p.oracle = oracle
	return p, nil
}

func (e *endpoint) start(bin string, args []string, ready *regexp.Regexp) error {
	logf, err := os.Create(e.logPath)
	if err != nil {
		return err
	}
	e.cmd = exec.Command(bin, args...)
	e.cmd.Stdout = logf
	e.cmd.Stderr = logf
	if err := e.cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	logf.Close()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(e.logPath)
		if m := ready.FindSubmatch(data); m != nil {
			e.base = "https://127.0.0.1:" + string(m[1])
			if len(m) > 3 {
				e.metrics = "http://127.0.0.1:" + string(m[3]) + "/metrics"
			}
			return nil
		}
		if e.cmd.ProcessState != nil || processGone(e.cmd) {
			return fmt.Errorf("%s exited before listening:\n%s", e.name, tail(e.logPath))
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s did not listen within 60 s:\n%s", e.name, tail(e.logPath))
}

func processGone(c *exec.Cmd) bool {
	return c.Process.Signal(syscall.Signal(0)) != nil
}

func tail(path string) string {
	data, _ := os.ReadFile(path)
	if len(data) > 3000 {
		data = data[len(data)-3000:]
	}
	return string(data)
}

// stop ends both; a server that does not exit 0 (a crash, a sanitizer report) is an error.
func (p *pair) stop() error {
	var errs []string
	for _, e := range []*endpoint{p.ours, p.oracle} {
		if e == nil || e.cmd == nil {
			continue
		}
		_ = e.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- e.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v\n%s", e.name, err, tail(e.logPath)))
			}
		case <-time.After(20 * time.Second):
			_ = e.cmd.Process.Kill()
			errs = append(errs, e.name+": did not stop within 20 s")
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

func worldDigest(world []map[string]interface{}) string {
	data, _ := json.Marshal(world)
	return string(data)
}

// loadWorld makes world the state of both servers (nothing is done when it is the world each
// already has and force is false).
func (p *pair) loadWorld(world []map[string]interface{}, force bool) error {
	world = asCreated(world)
	digest := worldDigest(world)
	if force || p.ours.world != digest {
		if err := p.ours.loadState(world); err != nil {
			return err
		}
		p.ours.world = digest
	}
	if force || p.oracle.world != digest {
		body, _ := json.Marshal(map[string]interface{}{"objects": nonNil(world)})
		resp, err := p.oracle.client.Post(p.oracle.base+"/_oracle/world", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("the oracle refused the world: %s", msg)
		}
		p.oracle.world = digest
	}
	return nil
}

// asCreated gives every object what the API server gives an object it creates and a
// generator may leave out: a uid (derived from the object's identity, so that both servers get
// the same) and a creation time.
func asCreated(world []map[string]interface{}) []map[string]interface{} {
	var out []map[string]interface{}
	for _, o := range world {
		data, _ := json.Marshal(o)
		var c map[string]interface{}
		_ = json.Unmarshal(data, &c)
		md, ok := c["metadata"].(map[string]interface{})
		if !ok {
			md = map[string]interface{}{}
			c["metadata"] = md
		}
		if _, ok := md["uid"]; !ok {
			h := fnv.New128a()
			fmt.Fprintf(h, "%v/%v/%v/%v", c["apiVersion"], c["kind"], md["namespace"], md["name"])
			b := h.Sum(nil)
			md["uid"] = fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
		}
		if _, ok := md["creationTimestamp"]; !ok {
			md["creationTimestamp"] = "2026-01-01T00:00:00Z"
		}
		out = append(out, c)
	}
	return out
}

func nonNil(w []map[string]interface{}) []map[string]interface{} {
	if w == nil {
		return []map[string]interface{}{}
	}
	return w
}

var reloadsOK = regexp.MustCompile(`(?m)^kruise_webhook_state_reloads_total\{result="ok"\} (\d+)`)
var reloadsErr = regexp.MustCompile(`(?m)^kruise_webhook_state_reloads_total\{result="error"\} (\d+)`)

// loadState writes the world as the --state directory's one file, sends SIGHUP and waits for
// the server's count of successful re-reads to move.
func (e *endpoint) loadState(world []map[string]interface{}) error {
	data, err := json.Marshal(map[string]interface{}{"apiVersion": "v1", "kind": "List", "items": nonNil(world)})
	if err != nil {
		return err
	}
	tmp := filepath.Join(e.state, ".world.json.tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(e.state, "world.json")); err != nil {
		return err
	}
	errsBefore := e.metric(reloadsErr)
	if err := e.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		return err
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if n := e.metric(reloadsOK); n > e.reloads {
			e.reloads = n
			return nil
		}
		if e.metric(reloadsErr) > errsBefore {
			return fmt.Errorf("kruise-webhook refused the world:\n%s", tail(e.logPath))
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("kruise-webhook did not re-read its state within 20 s:\n%s", tail(e.logPath))
}

func (e *endpoint) metric(re *regexp.Regexp) int {
	resp, err := http.Get(e.metrics)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	m := re.FindSubmatch(data)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// answer is what one server said to one review.
type answer struct {
	HTTPStatus int
	Body       map[string]interface{} // the decoded review (or Status) that came back
	Raw        []byte
}

func (e *endpoint) post(path string, review interface{}) (*answer, error) {
	body, err := json.Marshal(review)
	if err != nil {
		return nil, err
	}
	var resp *http.Response
	for attempt := 0; ; attempt++ {
		resp, err = e.client.Post(e.base+path, "application/json", bytes.NewReader(body))
		if err == nil || attempt == 2 {
			break
		}
		time.Sleep(50 * time.Millisecond) // a keep-alive connection the server had just closed
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", e.name, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	a := &answer{HTTPStatus: resp.StatusCode, Raw: raw}
	_ = json.Unmarshal(raw, &a.Body)
	return a, nil
}

// sortedGates renders gates as the servers take them, in a stable order.
func sortedGates(g map[string]bool) string {
	var parts []string
	for k, v := range g {
		parts = append(parts, k+"="+strconv.FormatBool(v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
