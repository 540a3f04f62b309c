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

package secretdigest_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/forgeops/forge-operator/internal/secretdigest"
)

var ref = types.NamespacedName{Namespace: "forge-operator-system", Name: secretdigest.DefaultName}

func TestDigestKeyIsCreatedOnceAndSurvivesANewDigester(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().Build()
	first, err := secretdigest.New(c, c, ref).Digest(ctx, "uid/secretRef", "hunter2")
	if err != nil {
		t.Fatal(err)
	}
	var s corev1.Secret
	if err := c.Get(ctx, ref, &s); err != nil {
		t.Fatalf("the key Secret was not created: %v", err)
	}
	if n := len(s.Data[secretdigest.DataKey]); n != 32 {
		t.Errorf("key of %d bytes, want 32", n)
	}
	// A new process (restart, new leader) reads the same key: same digest.
	again, err := secretdigest.New(c, c, ref).Digest(ctx, "uid/secretRef", "hunter2")
	if err != nil || again != first {
		t.Errorf("digest after a restart %q (%v), want %q", again, err, first)
	}
	plain := sha256.Sum256([]byte("hunter2"))
	if !strings.HasPrefix(first, "hmac-sha256:") || strings.Contains(first, "hunter2") ||
		strings.Contains(first, base64.RawStdEncoding.EncodeToString(plain[:])) {
		t.Errorf("digest %q: want a keyed hmac-sha256, never the value or its plain hash", first)
	}
	other, _ := secretdigest.New(c, c, ref).Digest(ctx, "uid/authorizationHeaderSecretRef", "hunter2")
	if other == first {
		t.Error("one value under two scopes gives one digest: status would show which hooks share a secret")
	}
	changed, _ := secretdigest.New(c, c, ref).Digest(ctx, "uid/secretRef", "hunter3")
	if changed == first {
		t.Error("two values give one digest")
	}
}

func TestDigestKeyCreatedByAnotherReplicaWins(t *testing.T) {
	ctx := context.Background()
	theirs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name},
		Data: map[string][]byte{secretdigest.DataKey: []byte(strings.Repeat("k", 32))}}
	backing := fake.NewClientBuilder().Build()
	// The Get misses, then the other replica creates the Secret before ours.
	c := interceptor.NewClient(backing, interceptor.Funcs{
		Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if err := cl.Create(ctx, theirs.DeepCopy()); err != nil {
				return err
			}
			return apierrors.NewAlreadyExists(corev1.Resource("secrets"), obj.GetName())
		},
	})
	got, err := secretdigest.New(c, c, ref).Digest(ctx, "s", "v")
	if err != nil {
		t.Fatal(err)
	}
	want, err := secretdigest.New(backing, backing, ref).Digest(ctx, "s", "v")
	if err != nil || got != want {
		t.Errorf("digest %q, want %q with the other replica's key (%v)", got, want, err)
	}
}

func TestDigestRefusesAShortKey(t *testing.T) {
	c := fake.NewClientBuilder().WithObjects(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name},
		Data: map[string][]byte{secretdigest.DataKey: []byte("short")}}).Build()
	_, err := secretdigest.New(c, c, ref).Digest(context.Background(), "s", "v")
	// It says how to mend the key, and never advises deleting it.
	if err == nil || !strings.Contains(err.Error(), "restore it from a backup, or put 32 random bytes there") || strings.Contains(err.Error(), "delete") {
		t.Errorf("err %v, want a refusal that says how to mend the key", err)
	}
}

func TestParseRef(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "ops")
	for _, tc := range []struct {
		in, want, err string
	}{
		{"", "ops/" + secretdigest.DefaultName, ""},
		{"digest-key", "ops/digest-key", ""},
		{"other/digest-key", "other/digest-key", ""},
		{"/digest-key", "", "want namespace/name"},
		{"a/b/c", "", "want namespace/name"},
	} {
		got, err := secretdigest.ParseRef(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRef(%q) err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("ParseRef(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	t.Setenv("POD_NAMESPACE", "")
	if _, err := secretdigest.ParseRef("digest-key"); err == nil && !fileExists(secretdigest.ServiceAccountNamespaceFile) {
		t.Error("a bare name outside a cluster: want an error asking for namespace/name")
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestCompareTellsAnotherKey: digests name their key, so a digest recorded
// under a lost key is told from a changed value; one recorded before key
// ids counts as the current key's.
func TestCompareTellsAnotherKey(t *testing.T) {
	ctx := context.Background()
	digest := func(key, value string) string {
		t.Helper()
		c := fake.NewClientBuilder().WithObjects(&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "op", Name: "k"},
			Data:       map[string][]byte{secretdigest.DataKey: []byte(strings.Repeat(key, 32))},
		}).Build()
		d, err := secretdigest.New(c, c, types.NamespacedName{Namespace: "op", Name: "k"}).Digest(ctx, "uid/secret", value)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	now := digest("a", "v")
	legacy := "hmac-sha256:" + now[strings.LastIndex(now, ":")+1:]
	for _, c := range []struct {
		name, recorded string
		equal, known   bool
	}{
		{"same key, same value", digest("a", "v"), true, true},
		{"same key, another value", digest("a", "w"), false, true},
		{"another key", digest("b", "v"), false, false},
		{"recorded before key ids, same value", legacy, true, true},
		{"recorded before key ids, another value", "hmac-sha256:AAAA", false, true},
	} {
		equal, known := secretdigest.Compare(c.recorded, now)
		if equal != c.equal || known != c.known {
			t.Errorf("%s: equal %v known %v, want %v %v", c.name, equal, known, c.equal, c.known)
		}
	}
}

// TestCurrent: only a digest that names the key in use lets a caller skip
// reading the value; one of another key, one made before digests named
// their key, and any when the key cannot be had, do not.
func TestCurrent(t *testing.T) {
	ctx := context.Background()
	digester := func(key string) *secretdigest.Digester {
		c := fake.NewClientBuilder().WithObjects(&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "op", Name: "k"},
			Data:       map[string][]byte{secretdigest.DataKey: []byte(key)},
		}).Build()
		return secretdigest.New(c, c, types.NamespacedName{Namespace: "op", Name: "k"})
	}
	a := digester(strings.Repeat("a", 32))
	now, err := a.Digest(ctx, "uid/valueFrom", "v")
	if err != nil {
		t.Fatal(err)
	}
	other, err := digester(strings.Repeat("b", 32)).Digest(ctx, "uid/valueFrom", "v")
	if err != nil {
		t.Fatal(err)
	}
	legacy := "hmac-sha256:" + now[strings.LastIndex(now, ":")+1:]
	for _, c := range []struct {
		name   string
		d      *secretdigest.Digester
		digest string
		want   bool
	}{
		{"the key in use", a, now, true},
		{"another key", a, other, false},
		{"made before digests named their key", a, legacy, false},
		{"no digest", a, "", false},
		{"a key that cannot be had", digester("short"), now, false},
		{"no digester", nil, now, false},
	} {
		if got := c.d.Current(ctx, c.digest); got != c.want {
			t.Errorf("%s: Current %v, want %v", c.name, got, c.want)
		}
	}
}
