package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/capabilities"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/openkruise/kruise/pkg/control/pubcontrol"
	"github.com/openkruise/kruise/pkg/features"
	"github.com/openkruise/kruise/pkg/util"
	utilclient "github.com/openkruise/kruise/pkg/util/client"
	"github.com/openkruise/kruise/pkg/util/controllerfinder"
	utilfeature "github.com/openkruise/kruise/pkg/util/feature"
	"github.com/openkruise/kruise/pkg/util/fieldindex"
	"github.com/openkruise/kruise/pkg/webhook"
)

// oracleManager is the part of a controller-runtime manager upstream's handler getters use
// (the client, the scheme and the webhook server); anything else they asked for would panic on
// the nil embedded interface, which is how a new dependency would show itself.
type oracleManager struct {
	manager.Manager
	client client.Client
	server ctrlwebhook.Server
}

func (m *oracleManager) GetClient() client.Client             { return m.client }
func (m *oracleManager) GetScheme() *runtime.Scheme           { return scheme }
func (m *oracleManager) GetWebhookServer() ctrlwebhook.Server { return m.server }
func (m *oracleManager) GetEventRecorderFor(string) record.EventRecorder {
	return &record.FakeRecorder{}
}

type serveFlags struct {
	host, certDir, state, kubeconfig, gates string
	port                                    int
	portFile                                string
	quiet                                   bool
}

func serveMain(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var f serveFlags
	fs.StringVar(&f.host, "host", "127.0.0.1", "address to listen on (tests: loopback only)")
	fs.IntVar(&f.port, "port", 0, "HTTPS port (0: a free one, printed as \"listening on PORT\")")
	fs.StringVar(&f.portFile, "port-file", "", "also write the port to this file once listening")
	fs.StringVar(&f.certDir, "cert-dir", "", "directory with tls.crt and tls.key (required)")
	fs.StringVar(&f.state, "state", "", "cluster state: a YAML/JSON file or directory, as kruise-webhook's --state; POST /_oracle/world replaces it")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "read the cluster through kruise-manager's own cache instead of --state")
	fs.StringVar(&f.gates, "feature-gates", "", "feature gates, Name=true,Other=false (kruise's names and defaults)")
	fs.BoolVar(&f.quiet, "quiet", true, "keep upstream's logging to errors")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if f.certDir == "" {
		fmt.Fprintln(os.Stderr, "kwh-oracle serve: --cert-dir is required")
		return 2
	}
	o, err := startOracle(&f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kwh-oracle serve: %v\n", err)
		return 1
	}
	fmt.Printf("listening on %d\n", o.port)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	o.stop()
	return 0
}

type oracle struct {
	port   int
	swap   *swapClient
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex // serialises world swaps with the requests that read a world
	kinds []schema.GroupVersionKind
}

// setupProcess makes the process-wide settings kruise-manager's main makes before its webhook
// starts: flags of its own that change answers (feature gates, privileged containers, the
// NodeImage TTL default) and quiet logs.
func setupProcess(gates string, quiet bool) error {
	if quiet {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("v", "0")
		_ = fs.Set("stderrthreshold", "FATAL")
		_ = fs.Set("logtostderr", "false")
		klog.SetOutput(io.Discard)
		ctrl.SetLogger(klog.NewKlogr())
	}
	if gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(gates); err != nil {
			return fmt.Errorf("--feature-gates: %v", err)
		}
	}
	features.SetDefaultFeatureGates()
	capabilities.Initialize(capabilities.Capabilities{AllowPrivileged: true})
	return util.SetDefaultTtlForAlwaysNodeimage(300)
}

func startOracle(f *serveFlags) (*oracle, error) {
	if err := setupProcess(f.gates, f.quiet); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(f.host, strconv.Itoa(f.port)))
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // controller-runtime's server opens its own listener on it
	server := ctrlwebhook.NewServer(ctrlwebhook.Options{Host: f.host, Port: port, CertDir: f.certDir})
	ctx, cancel := context.WithCancel(context.Background())
	o := &oracle{port: port, cancel: cancel, done: make(chan struct{})}

	if f.kubeconfig != "" {
		if err := startWithCluster(ctx, f, server); err != nil {
			cancel()
			return nil, err
		}
	} else {
		rememberUpstreamDefaults()
		o.swap = &swapClient{}
		docs, err := rawObjects(f.state)
		if err != nil {
			cancel()
			return nil, err
		}
		if err := o.load(docs); err != nil {
			cancel()
			return nil, err
		}
		mgr := &oracleManager{client: o.swap, server: server}
		// What kruise-manager's main does before it sets the webhook up, on the world's client.
		controllerfinder.Finder = &controllerfinder.ControllerFinder{Client: o.swap}
		pubcontrol.InitPubControl(o.swap, controllerfinder.Finder, &record.FakeRecorder{})
		if err := webhook.SetupWithManager(mgr); err != nil {
			cancel()
			return nil, err
		}
		server.Register("/_oracle/world", http.HandlerFunc(o.serveWorld))
	}
	go func() {
		defer close(o.done)
		if err := server.Start(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "kwh-oracle: webhook server: %v\n", err)
		}
	}()
	if err := waitListening(f.host, port); err != nil {
		cancel()
		return nil, err
	}
	if f.portFile != "" {
		if err := os.WriteFile(f.portFile, []byte(strconv.Itoa(port)+"\n"), 0o644); err != nil {
			cancel()
			return nil, err
		}
	}
	return o, nil
}

// startWithCluster wires upstream's handlers as kruise-manager does against a real API server:
// its manager, cache, controller finder, PUB control and field indexes (the controllers and the
// certificate controller aside). The manager runs until ctx ends.
func startWithCluster(ctx context.Context, f *serveFlags, server ctrlwebhook.Server) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
	if err != nil {
		return err
	}
	// kruise-manager's defaults for its flags --rest-config-qps and --rest-config-burst
	cfg.QPS, cfg.Burst = 30, 50
	cfg.UserAgent = "kruise-manager"
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          server,
		NewCache:               utilclient.NewCache,
		Cache:                  cache.Options{},
	})
	if err != nil {
		return err
	}
	if err := controllerfinder.InitControllerFinder(mgr); err != nil {
		return err
	}
	pubcontrol.InitPubControl(mgr.GetClient(), controllerfinder.Finder, mgr.GetEventRecorderFor("pub-controller"))
	if err := fieldindex.RegisterFieldIndexes(mgr.GetCache()); err != nil {
		return err
	}
	if err := webhook.SetupWithManager(mgr); err != nil {
		return err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "kwh-oracle: manager: %v\n", err)
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("caches did not sync")
	}
	return nil
}

func waitListening(host string, port int) error {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	for i := 0; i < 200; i++ {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	return fmt.Errorf("the webhook server did not listen on %s", addr)
}

func (o *oracle) stop() {
	o.cancel()
	select {
	case <-o.done:
	case <-time.After(5 * time.Second):
	}
}

// load makes docs the whole world.
func (o *oracle) load(docs []map[string]interface{}) error {
	objs, err := typedObjects(docs)
	if err != nil {
		return err
	}
	c, err := buildClient(objs)
	if err != nil {
		return err
	}
	seen := map[schema.GroupVersionKind]bool{}
	var kinds []schema.GroupVersionKind
	for _, d := range docs {
		u := unstructured.Unstructured{Object: d}
		gvk := u.GroupVersionKind()
		if !seen[gvk] {
			seen[gvk] = true
			kinds = append(kinds, gvk)
		}
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	o.mu.Lock()
	o.swap.set(c)
	o.kinds = kinds
	// Upstream keeps the PUBs and WorkloadSpreads it last wrote in a process-wide store and
	// prefers them to what the cache reads when their resourceVersion is larger: a new world
	// must not meet the last one's.
	if err := util.GlobalCache.Replace(nil, ""); err != nil {
		o.mu.Unlock()
		return err
	}
	resetUpstreamMemory()
	o.mu.Unlock()
	return nil
}

// serveWorld: POST replaces the world with {"objects": [...]}; GET lists every object of the
// kinds the world was loaded with, as they are now (after the writes requests made).
func (o *oracle) serveWorld(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch r.Method {
	case http.MethodPost:
		var body struct {
			Objects []map[string]interface{} `json:"objects"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var docs []map[string]interface{}
		for _, d := range body.Objects {
			docs = appendDoc(docs, d)
		}
		if err := o.load(docs); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "{\"loaded\":%d}\n", len(docs))
	case http.MethodGet:
		o.mu.Lock()
		c, kinds := o.swap.c(), o.kinds
		o.mu.Unlock()
		objs, err := dumpWorld(c, kinds)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]interface{}{"objects": objs})
	default:
		http.Error(w, "GET or POST", http.StatusMethodNotAllowed)
	}
}

// pathsMain prints the admission paths kruise-manager registers with the given gates (all
// gates' defaults when none), plus /convert, sorted.
func pathsMain(args []string) int {
	fs := flag.NewFlagSet("paths", flag.ContinueOnError)
	gates := fs.String("feature-gates", "", "feature gates, Name=true,Other=false")
	all := fs.Bool("all", false, "every path upstream knows, whatever the gates")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := setupProcess(*gates, true); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var paths []string
	if *all {
		for p := range webhook.HandlerMap {
			paths = append(paths, p)
		}
	} else {
		rec := &recordingServer{}
		mgr := &oracleManager{client: &swapClient{}, server: rec}
		if err := webhook.SetupWithManager(mgr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		paths = rec.paths
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Println(p)
	}
	return 0
}

// schemeMain prints kruise-manager's scheme: one line per group version, "<gv> <kind> <kind>...",
// sorted; the test of webhook/k8s/scheme.c compares its table with it.
func schemeMain(args []string) int {
	m := map[string][]string{}
	for gvk := range scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		gv := gvk.GroupVersion().String()
		m[gv] = append(m[gv], gvk.Kind)
	}
	var gvs []string
	for gv := range m {
		gvs = append(gvs, gv)
	}
	sort.Strings(gvs)
	for _, gv := range gvs {
		sort.Strings(m[gv])
		fmt.Printf("%s %s\n", gv, strings.Join(m[gv], " "))
	}
	return 0
}

// recordingServer records what SetupWithManager registers, without serving.
type recordingServer struct {
	ctrlwebhook.Server
	paths []string
}

func (r *recordingServer) Register(path string, _ http.Handler) {
	if path != "/healthz" {
		r.paths = append(r.paths, path)
	}
}
