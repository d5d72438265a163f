// Command kwh-oracle is test tooling for kruise-webhook:
//
//	kwh-oracle serve ...   upstream OpenKruise's webhook handlers over HTTPS (the oracle)
//	kwh-oracle diff ...    the differential runner: generated cases to the oracle and to
//	                       kruise-webhook, answers compared, differences shrunk into vectors
//	kwh-oracle paths       the webhook paths upstream registers, one per line
//	kwh-oracle scheme      kruise-manager's scheme: each group version and its kinds
//	kwh-oracle apply       create objects from files in a cluster (benchmark set-up)
//	kwh-oracle port        vectors from cases recorded from upstream's test tables
//
// Each subcommand's -h lists its flags.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "serve":
		os.Exit(serveMain(args))
	case "diff":
		os.Exit(diffMain(args))
	case "paths":
		os.Exit(pathsMain(args))
	case "scheme":
		os.Exit(schemeMain(args))
	case "apply":
		os.Exit(applyMain(args))
	case "port":
		os.Exit(portMain(args))
	case "podtemplate":
		os.Exit(podtemplateMain(args))
	case "-h", "--help", "help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "kwh-oracle: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage: kwh-oracle serve|diff|paths [flags]
  serve  upstream OpenKruise's webhook handlers over HTTPS
  diff   compare kruise-webhook with them on generated cases
  paths  print the webhook paths upstream registers
`)
}
