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

// Package cmd holds the manager binary's subcommands, which work from
// outside the cluster: `forge-operator export` writes resources for what a
// forge holds, `forge-operator plan` tells what the operator would change,
// `forge-operator migrate` stores every object at the storage version, and
// `forge-operator report` prints the sets' compliance from their status.
// Without a subcommand the binary is the manager, so the image does not
// change. It sits beside main.go, above package controllers, whose
// registry it reads (the export writers, the planners, the set kinds):
// no package under internal/ imports controllers (test/layering).
package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Subcommands names the subcommands Run knows.
var Subcommands = []string{"export", "plan", "migrate", "report"}

// Run runs subcommand name with args and returns the exit code; plan
// reads `-f -` from standard input.
func Run(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	return RunWithInput(ctx, name, args, os.Stdin, stdout, stderr)
}

// RunWithInput is Run with standard input given.
func RunWithInput(ctx context.Context, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch name {
	case "export":
		return runExport(ctx, args, stdout, stderr)
	case "plan":
		return runPlan(ctx, args, stdin, stdout, stderr)
	case "migrate":
		return runMigrate(ctx, args, stdout, stderr)
	case "report":
		return runReport(ctx, args, stdout, stderr)
	}
	_, _ = fmt.Fprintf(stderr, "unknown subcommand %q (known: %s)\n", name, strings.Join(Subcommands, ", "))
	return 1
}

// connection flags shared by the subcommands: the forge's URL and where its
// token comes from. The token is never a flag value (it would show in the
// process list and shell history).
type connection struct {
	url, tokenFile string
	timeout        time.Duration
}

func (c *connection) bind(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "url", "", "the forge's URL (required), e.g. https://git.example.com")
	fs.StringVar(&c.tokenFile, "token-file", "", "a file holding the access token (default: the FORGE_TOKEN environment variable)")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "timeout of each forge request")
}

func (c *connection) client() (*forge.Client, error) {
	if c.url == "" {
		return nil, errors.New("--url is required")
	}
	token := os.Getenv("FORGE_TOKEN")
	if c.tokenFile != "" {
		data, err := os.ReadFile(c.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("read --token-file: %w", err)
		}
		token = strings.TrimSpace(string(data))
	}
	if token == "" {
		return nil, errors.New("no token: set FORGE_TOKEN or --token-file")
	}
	return forge.New(forge.Config{URL: c.url, Token: token, Timeout: c.timeout, QPS: 20, Burst: 20})
}

// kubeConfig is the kubeconfig at path, or kubectl's ($KUBECONFIG, else
// ~/.kube/config) when path is empty: its context gives the cluster and,
// as for kubectl, the default namespace.
func kubeConfig(path string) clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil)
}

// clusterReader is a client of the cluster kc names that plan and report
// only ever read with: Secrets and the operator's kinds.
func clusterReader(kc clientcmd.ClientConfig) (client.Reader, error) {
	cfg, err := kc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("read the kubeconfig: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := forgev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("connect to the cluster: %w", err)
	}
	return c, nil
}

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn connection
	conn.bind(fs)
	opts := export.Options{}
	fs.StringVar(&opts.Org, "org", "", "the organization to export (required)")
	forgeRef := fs.String("forge-ref", export.DefaultForgeRef, "the connection the resources refer to: NAME (a Forge in their namespace) or ClusterForge/NAME")
	fs.StringVar(&opts.Namespace, "namespace", "", "namespace of the resources (default: none, kubectl's)")
	fs.StringVar(&opts.Namespace, "n", "", "shorthand for --namespace")
	sets := fs.Bool("sets", false, "also propose a RepositorySet holding the settings every repository of ORG shares (applied, it writes nothing)")
	files := fs.String("files", "", "also propose a FileSet holding those of these files (comma-separated paths) that are the same in every repository of ORG (applied, it writes nothing)")
	fs.Usage = func() {
		_, _ = fmt.Fprintln(stderr, "usage: forge-operator export --url URL --org ORG [--forge-ref NAME|ClusterForge/NAME] [-n NAMESPACE] [--sets] [--files PATH,...] [--token-file FILE] > org.yaml")
		_, _ = fmt.Fprintln(stderr, "Writes the resources that describe what the forge holds for ORG, to adopt it without a change. The token comes from FORGE_TOKEN or --token-file.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	if opts.Org == "" {
		_, _ = fmt.Fprintln(stderr, "export: --org is required")
		return 1
	}
	ref, err := export.ParseForgeRef(*forgeRef)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "export: --forge-ref: %v\n", err)
		return 1
	}
	opts.ForgeRef = ref
	ask := controllers.ExportAsk{Sets: *sets}
	if *files != "" {
		ask.Files = []string{} // asked, if for no path (an error)
		for _, p := range strings.Split(*files, ",") {
			if p = strings.TrimSpace(p); p != "" {
				ask.Files = append(ask.Files, p)
			}
		}
	}
	writers, err := controllers.Exporters(ask)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "export: %v\n", err)
		return 1
	}
	fc, err := conn.client()
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "export: %v\n", err)
		return 1
	}
	opts.Server, opts.Now, opts.Writers = conn.url, time.Now(), writers
	if err := export.Export(ctx, fc, opts, stdout); err != nil {
		_, _ = fmt.Fprintf(stderr, "export: %v\n", err)
		return 1
	}
	return 0
}
