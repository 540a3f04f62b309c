/*
Copyright 2026 The forge-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/forgeops/forge-operator/internal/storageversion"
)

// runMigrate is `forge-operator migrate`: what the cluster-wide manager
// does by itself after an upgrade (internal/storageversion), for a
// namespaced install, whose manager may neither list every namespace nor
// touch a CRD. It needs a kubeconfig that may list and update every
// forge.forgeops.dev resource in every namespace and update the CRDs'
// status (cluster-admin).
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", "", "the kubeconfig to use (default: $KUBECONFIG, else ~/.kube/config)")
	fs.Usage = func() {
		_, _ = fmt.Fprintln(stderr, "usage: forge-operator migrate [--kubeconfig KC]")
		_, _ = fmt.Fprintln(stderr, "Writes back every forge.forgeops.dev object stored at a deprecated version, unchanged, so that the API server stores it at "+
			storageversion.Stored+", then sets each CRD's status.storedVersions to ["+storageversion.Stored+"] (docs/api.md). Safe to run again.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	if fs.NArg() > 0 {
		_, _ = fmt.Fprintf(stderr, "migrate: unexpected arguments %q\n", fs.Args())
		return 1
	}
	cfg, err := kubeConfig(*kubeconfig).ClientConfig()
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "migrate: read the kubeconfig: %v\n", err)
		return 1
	}
	scheme, err := storageversion.Scheme()
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "migrate: %v\n", err)
		return 1
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "migrate: connect to the cluster: %v\n", err)
		return 1
	}
	crds, err := storageversion.Migrate(ctx, c)
	for _, crd := range crds {
		switch {
		case !crd.Migrated():
			_, _ = fmt.Fprintf(stdout, "%s: stored at %s already\n", crd.Name, storageversion.Stored)
		case crd.Done:
			_, _ = fmt.Fprintf(stdout, "%s: %d objects written back; stored versions [%s], were [%s]\n",
				crd.Name, crd.Rewritten, storageversion.Stored, strings.Join(crd.Before, ", "))
		}
	}
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "migrate: %v\n", err)
		return 1
	}
	if len(crds) == 0 {
		_, _ = fmt.Fprintln(stderr, "migrate: no forge.forgeops.dev CRDs in this cluster")
		return 1
	}
	return 0
}
