package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	"github.com/openkruise/kruise/pkg/util/fieldindex"
)

// A world is the cluster state one case runs against. It stands where kruise-manager has its
// informer cache: every handler reads and writes it through one client.Client.

// rawObjects reads state files as kruise-webhook's --state does: a file, or every .yaml, .yml and
// .json file of a directory (sorted, not recursive, dot files skipped), several documents per
// file, List kinds unwrapped.
func rawObjects(path string) ([]map[string]interface{}, error) {
	if path == "" {
		return nil, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if st.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		files = files[:0]
		for _, e := range entries {
			n := e.Name()
			if strings.HasPrefix(n, ".") || !(strings.HasSuffix(n, ".yaml") ||
				strings.HasSuffix(n, ".yml") || strings.HasSuffix(n, ".json")) {
				continue
			}
			files = append(files, filepath.Join(path, n))
		}
		sort.Strings(files)
	}
	var out []map[string]interface{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var doc map[string]interface{}
			if err := dec.Decode(&doc); err != nil {
				if err.Error() == "EOF" {
					break
				}
				return nil, fmt.Errorf("%s: %v", f, err)
			}
			out = appendDoc(out, doc)
		}
	}
	return out, nil
}

func appendDoc(out []map[string]interface{}, doc map[string]interface{}) []map[string]interface{} {
	if doc == nil {
		return out
	}
	kind, _ := doc["kind"].(string)
	if items, ok := doc["items"].([]interface{}); ok && strings.HasSuffix(kind, "List") {
		for _, it := range items {
			if m, ok := it.(map[string]interface{}); ok {
				out = appendDoc(out, m)
			}
		}
		return out
	}
	return append(out, doc)
}

var worldCodecs = serializer.NewCodecFactory(scheme)

// typedObjects turns state documents into the typed objects kruise-manager's cache would hold;
// kinds the scheme does not know stay unstructured, as controller-runtime reads them.
func typedObjects(docs []map[string]interface{}) ([]client.Object, error) {
	var objs []client.Object
	for i, doc := range docs {
		data, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("object %d: %v", i+1, err)
		}
		gvk := u.GroupVersionKind()
		if !scheme.Recognizes(gvk) {
			objs = append(objs, u)
			continue
		}
		obj, _, err := worldCodecs.UniversalDeserializer().Decode(data, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("object %d (%s %s): %v", i+1, gvk.Kind, u.GetName(), err)
		}
		co, ok := obj.(client.Object)
		if !ok {
			return nil, fmt.Errorf("object %d: %T is not an object", i+1, obj)
		}
		objs = append(objs, co)
		others, err := otherVersions(co)
		if err != nil {
			return nil, fmt.Errorf("object %d (%s %s): %v", i+1, gvk.Kind, u.GetName(), err)
		}
		objs = append(objs, others...)
	}
	return objs, nil
}

// --- one object, every version ---------------------------------------------------------------
// The API server serves a kruise object in each of its versions, converting on the way, and
// upstream reads some kinds in one version and writes them in another. The fake client keeps
// each version apart, so the world holds every version of each such object, and a write in one
// is copied into the others (convertedClient below).

// versionsOf lists the group-version-kinds of kinds registered in more than one version with a
// conversion between them (kruise's v1alpha1 and v1beta1). Made on first use: the scheme is
// filled by init functions, which run after package variables are initialised.
var (
	versionsOnce sync.Once
	versionsMap  map[schema.GroupKind][]schema.GroupVersionKind
)

func versionsOf(gk schema.GroupKind) []schema.GroupVersionKind {
	versionsOnce.Do(func() { versionsMap = multiVersionKinds() })
	return versionsMap[gk]
}

func multiVersionKinds() map[schema.GroupKind][]schema.GroupVersionKind {
	m := map[schema.GroupKind][]schema.GroupVersionKind{}
	for gvk := range scheme.AllKnownTypes() {
		if !strings.HasSuffix(gvk.Group, "kruise.io") || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		o, err := scheme.New(gvk)
		if err != nil {
			continue
		}
		if _, hub := o.(conversion.Hub); !hub {
			if _, conv := o.(conversion.Convertible); !conv {
				continue
			}
		}
		m[gvk.GroupKind()] = append(m[gvk.GroupKind()], gvk)
	}
	for gk, l := range m {
		if len(l) < 2 {
			delete(m, gk)
		}
	}
	return m
}

// convertTo converts obj into version gvk through the hub.
func convertTo(obj client.Object, gvk schema.GroupVersionKind) (client.Object, error) {
	out, err := scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	var hub conversion.Hub
	switch o := obj.(type) {
	case conversion.Hub:
		hub = o
	case conversion.Convertible:
		h, ok := out.(conversion.Hub)
		if !ok {
			// neither is the hub: go through it
			return nil, fmt.Errorf("no hub between %T and %T", obj, out)
		}
		if err := o.ConvertTo(h); err != nil {
			return nil, err
		}
		h.(client.Object).GetObjectKind().SetGroupVersionKind(gvk)
		return h.(client.Object), nil
	default:
		return nil, fmt.Errorf("%T converts to nothing", obj)
	}
	conv, ok := out.(conversion.Convertible)
	if !ok {
		return nil, fmt.Errorf("%T is not convertible", out)
	}
	if err := conv.ConvertFrom(hub); err != nil {
		return nil, err
	}
	co := conv.(client.Object)
	co.GetObjectKind().SetGroupVersionKind(gvk)
	return co, nil
}

func otherVersions(obj client.Object) ([]client.Object, error) {
	gvk, err := apiutil.GVKForObject(obj, scheme)
	if err != nil {
		return nil, nil
	}
	var out []client.Object
	for _, v := range versionsOf(gvk.GroupKind()) {
		if v == gvk {
			continue
		}
		c, err := convertTo(obj, v)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// indexCollector stands for kruise-manager's cache while fieldindex.RegisterFieldIndexes runs
// (once per process), so that every world's client gets upstream's own field indexes.
type indexCollector struct {
	cache.Cache
	indexes []collectedIndex
}

type collectedIndex struct {
	obj   client.Object
	field string
	fn    client.IndexerFunc
}

func (c *indexCollector) IndexField(_ context.Context, obj client.Object, field string, fn client.IndexerFunc) error {
	c.indexes = append(c.indexes, collectedIndex{obj, field, fn})
	return nil
}

var (
	indexesOnce sync.Once
	indexes     []collectedIndex
	statusOnce  sync.Once
	statusProto []client.Object
)

func upstreamIndexes() []collectedIndex {
	indexesOnce.Do(func() {
		c := &indexCollector{}
		if err := fieldindex.RegisterFieldIndexes(c); err != nil {
			panic(err)
		}
		indexes = c.indexes
	})
	return indexes
}

// withStatus lists a prototype of every kind with a status field: on a real API server their
// status is a subresource, so an update leaves it alone and a status update touches nothing else.
func withStatus() []client.Object {
	statusOnce.Do(func() {
		gvks := make([]schema.GroupVersionKind, 0)
		for gvk, t := range scheme.AllKnownTypes() {
			if strings.HasSuffix(gvk.Kind, "List") || t.Kind() != reflect.Struct {
				continue
			}
			if _, ok := t.FieldByName("Status"); ok {
				gvks = append(gvks, gvk)
			}
		}
		sort.Slice(gvks, func(i, j int) bool { return gvks[i].String() < gvks[j].String() })
		for _, gvk := range gvks {
			o, err := scheme.New(gvk)
			if err != nil {
				continue
			}
			if co, ok := o.(client.Object); ok {
				statusProto = append(statusProto, co)
			}
		}
	})
	return statusProto
}

// clusterScoped lists the kinds the API server serves without a namespace.
var clusterScoped = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "CustomResourceDefinition": true,
	"ClusterRole": true, "ClusterRoleBinding": true, "StorageClass": true, "PriorityClass": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true,
	"SidecarSet": true, "NodeImage": true, "ResourceDistribution": true, "NodePodProbe": true,
	"IngressClass": true, "CSIDriver": true, "CSINode": true,
	"VolumeAttachment": true, "RuntimeClass": true, "APIService": true,
}

// restMapper knows every kind of the scheme and the custom resources the world's CRDs define.
func restMapper(objs []client.Object) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for gvk := range scheme.AllKnownTypes() {
		if strings.HasSuffix(gvk.Kind, "List") || gvk.Version == runtime.APIVersionInternal {
			continue
		}
		scope := meta.RESTScopeNamespace
		if clusterScoped[gvk.Kind] {
			scope = meta.RESTScopeRoot
		}
		m.Add(gvk, scope)
	}
	for _, o := range objs {
		u, ok := o.(*unstructured.Unstructured)
		if !ok || u.GetKind() != "CustomResourceDefinition" {
			continue
		}
		group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
		plural, _, _ := unstructured.NestedString(u.Object, "spec", "names", "plural")
		singular, _, _ := unstructured.NestedString(u.Object, "spec", "names", "singular")
		scopeName, _, _ := unstructured.NestedString(u.Object, "spec", "scope")
		versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
		scope := meta.RESTScopeNamespace
		if scopeName == "Cluster" {
			scope = meta.RESTScopeRoot
		}
		for _, v := range versions {
			name, _, _ := unstructured.NestedString(v.(map[string]interface{}), "name")
			gvk := schema.GroupVersionKind{Group: group, Version: name, Kind: kind}
			if plural == "" {
				m.Add(gvk, scope)
				continue
			}
			if singular == "" {
				singular = strings.ToLower(kind)
			}
			m.AddSpecific(gvk, gvk.GroupVersion().WithResource(plural),
				gvk.GroupVersion().WithResource(singular), scope)
		}
	}
	return m
}

// buildClient makes a world's client: controller-runtime's fake client with upstream's field
// indexes and status subresources, wrapped so that it answers as kruise-manager's cached client.
func buildClient(objs []client.Object) (c client.Client, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the world does not load: %v", r)
		}
	}()
	b := fake.NewClientBuilder().WithScheme(scheme).WithRESTMapper(restMapper(objs)).
		WithStatusSubresource(withStatus()...).WithObjects(objs...)
	for _, ix := range upstreamIndexes() {
		b = b.WithIndex(ix.obj, ix.field, ix.fn)
	}
	return &cachedClient{Client: b.Build()}, nil
}

// cachedClient answers reads as kruise-manager's client does: typed objects come from its
// informer cache, whose NotFound names the kind ("Pod \"x\" not found"), while unstructured
// ones are read from the API server, which names the resource.
type cachedClient struct {
	client.Client
}

func (c *cachedClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := c.Client.Get(ctx, key, obj, opts...)
	if apierrors.IsNotFound(err) {
		if _, unstr := obj.(runtime.Unstructured); !unstr {
			gvk, gerr := apiutil.GVKForObject(obj, c.Client.Scheme())
			if gerr == nil {
				return apierrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, key.Name)
			}
		}
	}
	return err
}

// List of unstructured objects goes to the API server in kruise-manager, through its REST
// mapper: a kind the cluster does not serve is an error there (the fake client would guess a
// resource instead).
func (c *cachedClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if u, ok := list.(*unstructured.UnstructuredList); ok {
		gvk := u.GroupVersionKind()
		gk := schema.GroupKind{Group: gvk.Group, Kind: strings.TrimSuffix(gvk.Kind, "List")}
		if _, err := c.Client.RESTMapper().RESTMapping(gk, gvk.Version); err != nil {
			return err
		}
	}
	if err := c.Client.List(ctx, list, opts...); err != nil {
		return err
	}
	return sortList(list)
}

// sortList orders a list by namespace and name. kruise-manager's cache lists in an order of its
// own (so do the fake client's maps); where upstream's answer depends on it (several SidecarSets
// injected into one Pod), this project's specification chose ascending names.
func sortList(list client.ObjectList) error {
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	key := func(o runtime.Object) string {
		a, err := meta.Accessor(o)
		if err != nil {
			return ""
		}
		return a.GetNamespace() + "/" + a.GetName()
	}
	sort.SliceStable(items, func(i, j int) bool { return key(items[i]) < key(items[j]) })
	return meta.SetList(list, items)
}

// mirror copies obj, as stored after a write, into its other versions (or deletes them).
func (c *cachedClient) mirror(ctx context.Context, obj client.Object, deleted bool) error {
	gvk, err := apiutil.GVKForObject(obj, c.Client.Scheme())
	if err != nil || len(versionsOf(gvk.GroupKind())) == 0 {
		return nil
	}
	stored, err := scheme.New(gvk)
	if err != nil {
		return nil
	}
	so := stored.(client.Object)
	if !deleted {
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(obj), so); err != nil {
			return err
		}
	}
	for _, v := range versionsOf(gvk.GroupKind()) {
		if v == gvk {
			continue
		}
		cur, _ := scheme.New(v)
		co := cur.(client.Object)
		err := c.Client.Get(ctx, client.ObjectKeyFromObject(obj), co)
		if deleted {
			if err == nil {
				_ = c.Client.Delete(ctx, co)
			}
			continue
		}
		next, cerr := convertTo(so, v)
		if cerr != nil {
			return cerr
		}
		if apierrors.IsNotFound(err) {
			next.SetResourceVersion("")
			if err := c.Client.Create(ctx, next); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		next.SetResourceVersion(co.GetResourceVersion())
		if err := c.Client.Update(ctx, next); err != nil {
			return err
		}
		if err := c.Client.Status().Update(ctx, next); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

func (c *cachedClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	// The fake client accepts a dry run before it looks the kind up; kruise-manager's client
	// maps the kind to its resource first, and a kind the cluster does not serve (a Secret at
	// v2 in a ResourceDistribution) is an error there. Without a version its mapper takes the
	// group's preferred one, which this fake mapper does not know: no check then.
	if u, ok := obj.(runtime.Unstructured); ok && u.GetObjectKind().GroupVersionKind().Version != "" {
		gvk := u.GetObjectKind().GroupVersionKind()
		if _, err := c.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return err
		}
	}
	if err := c.Client.Create(ctx, obj, opts...); err != nil {
		return err
	}
	return c.mirror(ctx, obj, false)
}

func (c *cachedClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if err := c.Client.Update(ctx, obj, opts...); err != nil {
		return err
	}
	return c.mirror(ctx, obj, false)
}

func (c *cachedClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if err := c.Client.Patch(ctx, obj, patch, opts...); err != nil {
		return err
	}
	return c.mirror(ctx, obj, false)
}

func (c *cachedClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if err := c.Client.Delete(ctx, obj, opts...); err != nil {
		return err
	}
	return c.mirror(ctx, obj, true)
}

func (c *cachedClient) Status() client.SubResourceWriter {
	return &mirroredStatus{SubResourceWriter: c.Client.Status(), c: c}
}

type mirroredStatus struct {
	client.SubResourceWriter
	c *cachedClient
}

func (m *mirroredStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if err := m.SubResourceWriter.Update(ctx, obj, opts...); err != nil {
		return err
	}
	return m.c.mirror(ctx, obj, false)
}

func (m *mirroredStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if err := m.SubResourceWriter.Patch(ctx, obj, patch, opts...); err != nil {
		return err
	}
	return m.c.mirror(ctx, obj, false)
}

// swapClient is the client every handler holds: the world under it changes per case.
type swapClient struct {
	cur atomic.Pointer[client.Client]
}

func (s *swapClient) set(c client.Client) { s.cur.Store(&c) }
func (s *swapClient) c() client.Client    { return *s.cur.Load() }

func (s *swapClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return s.c().Get(ctx, key, obj, opts...)
}
func (s *swapClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return s.c().List(ctx, list, opts...)
}
func (s *swapClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return s.c().Create(ctx, obj, opts...)
}
func (s *swapClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	return s.c().Delete(ctx, obj, opts...)
}
func (s *swapClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return s.c().Update(ctx, obj, opts...)
}
func (s *swapClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return s.c().Patch(ctx, obj, patch, opts...)
}
func (s *swapClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	return s.c().DeleteAllOf(ctx, obj, opts...)
}
func (s *swapClient) Status() client.SubResourceWriter { return s.c().Status() }
func (s *swapClient) SubResource(sub string) client.SubResourceClient {
	return s.c().SubResource(sub)
}
func (s *swapClient) Scheme() *runtime.Scheme     { return s.c().Scheme() }
func (s *swapClient) RESTMapper() meta.RESTMapper { return s.c().RESTMapper() }
func (s *swapClient) GroupVersionKindFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	return s.c().GroupVersionKindFor(obj)
}
func (s *swapClient) IsObjectNamespaced(obj runtime.Object) (bool, error) {
	return s.c().IsObjectNamespaced(obj)
}

// dumpWorld lists every object of the world as JSON, for the runner's after-state checks.
func dumpWorld(c client.Client, kinds []schema.GroupVersionKind) ([]map[string]interface{}, error) {
	var out []map[string]interface{}
	for _, gvk := range kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.List(context.TODO(), list); err != nil {
			return nil, err
		}
		for _, it := range list.Items {
			out = append(out, it.Object)
		}
	}
	return out, nil
}
