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
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/forgeops/forge-operator/api/v1alpha1"
	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// DefaultDigestKey is where the operator's secret digest key Secret lives
// in the default install (config/default).
const DefaultDigestKey = "forge-operator-system/" + secretdigest.DefaultName

// files collects repeated -f values.
type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

func runPlan(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn connection
	conn.bind(fs)
	var inputs files
	var output, kubeconfig, namespace, digestKey string
	fs.Var(&inputs, "f", "a manifest file, a directory (read recursively) or - for standard input; repeatable (required)")
	fs.StringVar(&output, "o", "text", "output format: text or json")
	fs.StringVar(&kubeconfig, "kubeconfig", "", "a kubeconfig to read the referenced Secrets and the resources' status from, in the namespace -n (read only)")
	fs.StringVar(&namespace, "namespace", "", "namespace of objects that name none; with --kubeconfig, the namespace whose Secrets and resources are read")
	fs.StringVar(&namespace, "n", "", "shorthand for --namespace")
	fs.StringVar(&digestKey, "secret-digest-key", DefaultDigestKey, "with --kubeconfig, the operator's secret digest key Secret (namespace/name), to compare hook secrets with those last sent")
	fs.Usage = func() {
		_, _ = fmt.Fprintln(stderr, "usage: forge-operator plan --url URL -f DIR_OR_FILE [-f ...] [-o text|json] [--kubeconfig KC -n NAMESPACE] [--token-file FILE]")
		_, _ = fmt.Fprintln(stderr, "Prints what the operator would do with each object, without changing anything. The token comes from FORGE_TOKEN or --token-file.")
		_, _ = fmt.Fprintln(stderr, "Exit code: 0 nothing would change, 2 changes are pending, 1 an error or a conflict.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	fail := func(err error) int {
		_, _ = fmt.Fprintf(stderr, "plan: %v\n", err)
		return 1
	}
	if len(inputs) == 0 {
		return fail(errors.New("-f is required (a file, a directory, or - for standard input)"))
	}
	if output != "text" && output != "json" {
		return fail(fmt.Errorf("-o %q: want text or json", output))
	}
	if kubeconfig != "" && namespace == "" {
		return fail(errors.New("--kubeconfig needs -n: plan reads Secrets and resources of one namespace only"))
	}
	objs, err := readManifests(inputs, stdin)
	if err != nil {
		return fail(err)
	}
	for _, o := range objs {
		if o.GetNamespace() == "" {
			o.SetNamespace(namespace)
		}
	}
	if err := versions(objs, stderr); err != nil {
		return fail(err)
	}
	fc, err := conn.client()
	if err != nil {
		return fail(err)
	}
	version, err := fc.Version(ctx)
	if err != nil {
		return fail(fmt.Errorf("read the forge's version: %w", err))
	}
	env := controllers.PlanEnv{
		Forge:     fc,
		Server:    forge.NewServer(version),
		WebURL:    strings.TrimSuffix(strings.TrimRight(conn.url, "/"), "/api/v1"),
		Namespace: namespace,
	}
	if kubeconfig != "" {
		if env.Reader, err = clusterReader(kubeConfig(kubeconfig)); err != nil {
			return fail(err)
		}
		if env.DigestKey, err = parseDigestKey(digestKey); err != nil {
			return fail(err)
		}
	}
	p := plan.New(controllers.Plan(ctx, env, objs))
	if output == "json" {
		err = p.WriteJSON(stdout)
	} else {
		err = p.WriteText(stdout)
	}
	if err != nil {
		return fail(err)
	}
	return p.ExitCode()
}

func parseDigestKey(v string) (types.NamespacedName, error) {
	ns, name, ok := strings.Cut(v, "/")
	if !ok || ns == "" || name == "" {
		return types.NamespacedName{}, fmt.Errorf("--secret-digest-key %q: want namespace/name", v)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}

// versions says, for every manifest at the deprecated v1alpha1, what the
// API server would warn on applying it (it is planned as at v1beta1: the
// schemas are the same), and refuses a version of the group that no
// release serves, before a forge call.
func versions(objs []*unstructured.Unstructured, stderr io.Writer) error {
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if gvk.Group != forgev1.GroupVersion.Group {
			continue
		}
		switch gvk.Version {
		case forgev1.GroupVersion.Version:
		case v1alpha1.GroupVersion.Version:
			_, _ = fmt.Fprintf(stderr, "plan: %s: %s\n", objectName(o), v1alpha1.DeprecationWarning(gvk.Kind))
			// Planned, and read from the cluster with --kubeconfig, at
			// v1beta1: the same object, without a warning per read.
			o.SetAPIVersion(forgev1.GroupVersion.String())
		default:
			return fmt.Errorf("%s: apiVersion %s is not served (%s, or the deprecated %s)", objectName(o), o.GetAPIVersion(), forgev1.GroupVersion, v1alpha1.GroupVersion)
		}
	}
	return nil
}

// objectName is kind namespace/name, or kind name without a namespace.
func objectName(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetKind() + " " + o.GetName()
	}
	return o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
}

// readManifests reads every object of the inputs: files, directories
// (recursively, their .yaml, .yml and .json files) and - (standard input),
// as YAML streams or JSON, with kubectl's List unpacked.
func readManifests(inputs []string, stdin io.Reader) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	read := func(name string, r io.Reader) error {
		got, err := decodeManifests(r)
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		objs = append(objs, got...)
		return nil
	}
	for _, in := range inputs {
		if in == "-" {
			if err := read("standard input", stdin); err != nil {
				return nil, err
			}
			continue
		}
		err := filepath.WalkDir(in, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if path != in {
				switch strings.ToLower(filepath.Ext(path)) {
				case ".yaml", ".yml", ".json":
				default:
					return nil
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return read(path, bytes.NewReader(data))
		})
		if err != nil {
			return nil, err
		}
	}
	return objs, nil
}

func decodeManifests(r io.Reader) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(r, 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.IsList() {
			list, err := u.ToList()
			if err != nil {
				return nil, err
			}
			for i := range list.Items {
				objs = append(objs, &list.Items[i])
			}
			continue
		}
		objs = append(objs, u)
	}
}
