package main

import (
	"reflect"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	appsv1alpha1 "github.com/openkruise/kruise/apis/apps/v1alpha1"
	appsv1beta1 "github.com/openkruise/kruise/apis/apps/v1beta1"
	policyv1alpha1 "github.com/openkruise/kruise/apis/policy/v1alpha1"
	policyv1beta1 "github.com/openkruise/kruise/apis/policy/v1beta1"
)

// scheme is kruise-manager's: the same registrations its main package makes at start-up,
// including the kruise kinds it adds to client-go's global scheme, so that the handlers decode,
// default and convert exactly as they do there.
var scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(appsv1alpha1.AddToScheme(clientgoscheme.Scheme))
	utilruntime.Must(appsv1beta1.AddToScheme(clientgoscheme.Scheme))

	utilruntime.Must(appsv1alpha1.AddToScheme(scheme))
	utilruntime.Must(appsv1beta1.AddToScheme(scheme))
	utilruntime.Must(policyv1alpha1.AddToScheme(scheme))
	utilruntime.Must(policyv1beta1.AddToScheme(scheme))
	scheme.AddUnversionedTypes(metav1.SchemeGroupVersion, &metav1.UpdateOptions{},
		&metav1.DeleteOptions{}, &metav1.CreateOptions{})
	nameScheme(scheme, kruiseManagerSchemeName)
}

// A scheme is named after the place that made it, and the name reaches answers ("no kind
// \"CloneSet\" is registered for version ... in scheme \"main.go:75\""). kruise-manager's scheme
// is made at line 75 of its main.go; this one is made here, so it is renamed to answer the same.
const kruiseManagerSchemeName = "main.go:75"

func nameScheme(s *runtime.Scheme, name string) {
	f := reflect.ValueOf(s).Elem().FieldByName("schemeName")
	*(*string)(unsafe.Pointer(f.UnsafeAddr())) = name
}
