package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// applyMain creates the objects of the given files (YAML or JSON, several documents, List
// kinds) in the cluster of a kubeconfig, CRDs first and waited for until they serve: the
// benchmark's way of giving upstream's webhook the state the other servers read from files.
func applyMain(args []string) int {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "the cluster")
	if err := fs.Parse(args); err != nil || *kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "usage: kwh-oracle apply --kubeconfig FILE FILE...")
		return 2
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kwh-oracle apply: %v\n", err)
		return 1
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "kwh-oracle apply: %v\n", err)
		return 1
	}
	var crds, rest []map[string]interface{}
	for _, f := range fs.Args() {
		docs, err := rawObjects(f)
		if err != nil {
			fmt.Fprintf(os.Stderr, "kwh-oracle apply: %v\n", err)
			return 1
		}
		for _, d := range docs {
			if d["kind"] == "CustomResourceDefinition" {
				crds = append(crds, d)
			} else {
				rest = append(rest, d)
			}
		}
	}
	ctx := context.Background()
	create := func(d map[string]interface{}) error {
		u := &unstructured.Unstructured{Object: d}
		if err := c.Create(ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("%s %s: %v", u.GetKind(), u.GetName(), err)
		}
		return nil
	}
	for _, d := range crds {
		if err := create(d); err != nil {
			fmt.Fprintf(os.Stderr, "kwh-oracle apply: %v\n", err)
			return 1
		}
	}
	for _, d := range rest {
		var err error
		for deadline := time.Now().Add(60 * time.Second); ; {
			// a kind of a CRD just created is served a moment later
			c, _ = client.New(cfg, client.Options{})
			if err = create(d); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "kwh-oracle apply: %v\n", err)
			return 1
		}
	}
	fmt.Printf("applied %d objects\n", len(crds)+len(rest))
	return 0
}
