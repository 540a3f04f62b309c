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

package v1alpha1_test

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/api/v1beta1"
)

// codecOf encodes and decodes at gv, through a scheme that add fills.
func codecOf(t *testing.T, add func(*runtime.Scheme) error, gv schema.GroupVersion) (runtime.Codec, serializer.CodecFactory) {
	t.Helper()
	s := runtime.NewScheme()
	if err := add(s); err != nil {
		t.Fatal(err)
	}
	f := serializer.NewCodecFactory(s)
	// Decoded as the version it says, with no conversion: there is none to make.
	return runtime.NewCodec(f.LegacyCodec(gv), f.UniversalDeserializer()), f
}

// served is what the API server does to an object between two versions
// under `conversion: None`: it changes apiVersion, nothing else.
func served(t *testing.T, data []byte, from, to schema.GroupVersion) []byte {
	t.Helper()
	old := []byte(`"apiVersion":"` + from.String() + `"`)
	if bytes.Count(data, old) != 1 {
		t.Fatalf("encoded object does not carry apiVersion %s once: %s", from, data)
	}
	return bytes.Replace(data, old, []byte(`"apiVersion":"`+to.String()+`"`), 1)
}

// Every kind, fuzzed (metadata, spec and status), encoded at one version,
// served at the other and decoded, then back: the object read is the one
// written, both ways. The schemas being the same is what lets the CRDs
// convert with `conversion: None`; a field of one version the other lacks,
// or spells differently, fails here.
func TestEveryKindRoundTripsBetweenV1alpha1AndV1beta1(t *testing.T) {
	alpha, alphaCodecs := codecOf(t, v1alpha1.AddToScheme, v1alpha1.GroupVersion)
	beta, _ := codecOf(t, v1beta1.AddToScheme, v1beta1.GroupVersion)
	seed := rand.Int63()
	t.Logf("fuzzed with seed %d", seed) // printed with a failure, to reproduce it
	fill := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), alphaCodecs)
	objects := v1beta1.SchemeBuilder.Objects()
	if len(objects) != 50 {
		t.Fatalf("%d objects registered, want 25 kinds and their lists", len(objects))
	}
	for _, proto := range objects {
		kind := reflect.TypeOf(proto).Elem().Name()
		for i := range 40 {
			for _, way := range []struct {
				name     string
				from, to runtime.Codec
				fromGV   schema.GroupVersion
				toGV     schema.GroupVersion
			}{
				{"v1alpha1 → v1beta1 → v1alpha1", alpha, beta, v1alpha1.GroupVersion, v1beta1.GroupVersion},
				{"v1beta1 → v1alpha1 → v1beta1", beta, alpha, v1beta1.GroupVersion, v1alpha1.GroupVersion},
			} {
				want := proto.DeepCopyObject()
				fill.Fill(want)
				data, err := runtime.Encode(way.from, want)
				if err != nil {
					t.Fatalf("%s %d: encode at %s: %v", kind, i, way.fromGV, err)
				}
				there, err := runtime.Decode(way.to, served(t, data, way.fromGV, way.toGV))
				if err != nil {
					t.Fatalf("%s %d: decode at %s: %v", kind, i, way.toGV, err)
				}
				data, err = runtime.Encode(way.to, there)
				if err != nil {
					t.Fatalf("%s %d: encode at %s: %v", kind, i, way.toGV, err)
				}
				back, err := runtime.Decode(way.from, served(t, data, way.toGV, way.fromGV))
				if err != nil {
					t.Fatalf("%s %d: decode at %s: %v", kind, i, way.fromGV, err)
				}
				// TypeMeta is what the codecs set; the rest must be the same.
				for _, o := range []runtime.Object{want, there, back} {
					o.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
				}
				if !apiequality.Semantic.DeepEqual(want, there) || !apiequality.Semantic.DeepEqual(want, back) {
					t.Fatalf("%s %d, %s: the object read differs from the one written:\nwrote %#v\nthere %#v\nback  %#v", kind, i, way.name, want, there, back)
				}
			}
		}
	}
}
