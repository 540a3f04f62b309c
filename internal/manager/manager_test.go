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

package manager

import (
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

func TestParseNamespaces(t *testing.T) {
	for in, want := range map[string][]string{
		"":                             nil,
		" , ":                          nil,
		"team-a":                       {"team-a"},
		"team-a, team-b,,team-a,":      {"team-a", "team-b"},
		"kube-system,forge-demo,acme1": {"kube-system", "forge-demo", "acme1"},
	} {
		got, err := ParseNamespaces(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseNamespaces(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"Team-A", "team_a", "a/b", "team-a,-b"} {
		if _, err := ParseNamespaces(in); err == nil || !strings.Contains(err.Error(), "--watch-namespaces") {
			t.Errorf("ParseNamespaces(%q): error %v, want one naming --watch-namespaces", in, err)
		}
	}
}

func TestCacheOptions(t *testing.T) {
	if o := CacheOptions(nil, "", ""); o.DefaultNamespaces != nil {
		t.Errorf("no namespaces: %v, want the whole cluster", o.DefaultNamespaces)
	}
	o := CacheOptions([]string{"team-a", "team-b"}, "", "")
	if got := slices.Sorted(maps.Keys(o.DefaultNamespaces)); !slices.Equal(got, []string{"team-a", "team-b"}) {
		t.Errorf("cached namespaces %v, want team-a and team-b", got)
	}
}

func TestMetricsOptions(t *testing.T) {
	if o := MetricsOptions(":8080", false, "", false); o.SecureServing || o.FilterProvider != nil {
		t.Errorf("plain metrics are served with TLS or a filter: %+v", o)
	}
	o := MetricsOptions(":8443", true, "/certs", false)
	if !o.SecureServing || o.FilterProvider == nil || o.CertDir != "/certs" || len(o.TLSOpts) != 1 {
		t.Errorf("secure metrics: %+v, want HTTPS, the auth filter, the cert dir and HTTP/2 off", o)
	}
	if o := MetricsOptions(":8443", true, "", true); len(o.TLSOpts) != 0 {
		t.Errorf("--enable-http2 still restricts the protocols: %+v", o)
	}
}

func TestCacheOptionsStripManagedFields(t *testing.T) {
	for _, o := range []cache.Options{CacheOptions(nil, "", ""), CacheOptions([]string{"team-a"}, "eu-1", "ops")} {
		obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}}
		if o.DefaultTransform == nil {
			t.Fatal("no transform: cached objects keep their managedFields")
		}
		out, err := o.DefaultTransform(obj)
		if err != nil {
			t.Fatal(err)
		}
		if mf := out.(*corev1.ConfigMap).ManagedFields; len(mf) != 0 {
			t.Errorf("cached object keeps managedFields %v", mf)
		}
	}
}
