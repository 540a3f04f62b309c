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

package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Sample is one object of config/samples and the file it is in.
type Sample struct {
	File   string
	Object *unstructured.Unstructured
}

// SamplesDir is config/samples of this checkout.
func SamplesDir() string { return filepath.Join(RepoRoot(), "config", "samples") }

// Samples decodes every object of the files config/samples/kustomization.yaml
// lists, in its order: what the demo applies and the tests count.
func Samples() ([]Sample, error) { return SamplesIn(SamplesDir()) }

// SamplesIn is Samples of another checkout's samples directory dir (the
// upgrade test's older commit).
func SamplesIn(dir string) ([]Sample, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	var kust struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &kust); err != nil {
		return nil, fmt.Errorf("read config/samples/kustomization.yaml: %w", err)
	}
	var out []Sample
	for _, file := range kust.Resources {
		raw, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return nil, err
		}
		objs, err := decodeObjects(file, raw)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if o.Object == nil {
				return nil, fmt.Errorf("decode %s: a document that is not an object", file)
			}
		}
		out = append(out, objs...)
	}
	return out, nil
}

// decodeObjects decodes every document of a YAML (or JSON) stream, each
// with the name given for where it was read; a document that is not a
// mapping (a list, a scalar) has no Object.
func decodeObjects(name string, raw []byte) ([]Sample, error) {
	var out []Sample
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		var doc any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("decode %s: %w", name, err)
		}
		switch m := doc.(type) {
		case nil:
			// an empty document, e.g. after a trailing ---
		case map[string]any:
			if len(m) > 0 {
				out = append(out, Sample{File: name, Object: &unstructured.Unstructured{Object: m}})
			}
		default:
			out = append(out, Sample{File: name})
		}
	}
}
