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

package receiver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
)

const testPath = "/hook/0123456789abcdef"

func testEndpoint(t *testing.T) (*Endpoint, types.NamespacedName) {
	t.Helper()
	e := New("127.0.0.1:0")
	key := types.NamespacedName{Namespace: "ns-" + strings.ReplaceAll(strings.ToLower(t.Name()), "/", "-"), Name: "events"}
	e.Register(testPath, Entry{Receiver: key, ForgeRef: forgev1.ForgeReference{Name: "gitea"}, Secret: []byte("s3cret"),
		Organizations: []forgev1.OwnerName{"Acme"}, Events: []forgev1.ReceiverEvent{"repository", "create"}})
	return e, key
}

// deliver posts body as Gitea does, signed with secret, and returns the status code.
func deliver(e *Endpoint, path, event, id string, body []byte, secret string) int {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("X-Gitea-Event", event)
	req.Header.Set("X-Gitea-Delivery", id)
	if secret != "" {
		req.Header.Set("X-Gitea-Signature", Signature([]byte(secret), body))
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec.Code
}

const repoCreated = `{"action":"created","repository":{"name":"web","full_name":"acme/web","owner":{"login":"acme","username":"acme"}},"organization":{"username":"acme"}}`

func counted(key types.NamespacedName, event, result string) float64 {
	return testutil.ToFloat64(deliveries.WithLabelValues(key.String(), event, result))
}

func TestDeliveryChecks(t *testing.T) {
	e, key := testEndpoint(t)
	body := []byte(repoCreated)
	if code := deliver(e, "/hook/nothing-here", "repository", "d0", body, "s3cret"); code != http.StatusNotFound {
		t.Errorf("unknown path: %d, want 404", code)
	}
	if code := deliver(e, testPath, "repository", "d1", body, "wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong secret: %d, want 401", code)
	}
	if code := deliver(e, testPath, "repository", "d1", body, ""); code != http.StatusUnauthorized {
		t.Errorf("unsigned: %d, want 401", code)
	}
	if _, ok := e.LastEvent(key); ok {
		t.Errorf("a delivery that failed its checks was recorded as the last event")
	}
	if code := deliver(e, testPath, "repository", "d1", body, "s3cret"); code != http.StatusOK {
		t.Errorf("signed: %d, want 200", code)
	}
	if code := deliver(e, testPath, "repository", "d1", body, "s3cret"); code != http.StatusOK {
		t.Errorf("replayed: %d, want 200", code)
	}
	foreign := []byte(strings.ReplaceAll(repoCreated, "acme", "other"))
	if code := deliver(e, testPath, "repository", "d2", foreign, "s3cret"); code != http.StatusOK {
		t.Errorf("foreign organization: %d, want 200", code)
	}
	if code := deliver(e, testPath, "push", "d3", body, "s3cret"); code != http.StatusOK {
		t.Errorf("an event not asked for: %d, want 200", code)
	}
	large := append([]byte(`{"x":"`), bytes.Repeat([]byte("a"), MaxBody)...)
	if code := deliver(e, testPath, "repository", "d4", large, "s3cret"); code != http.StatusRequestEntityTooLarge {
		t.Errorf("too large: %d, want 413", code)
	}
	for result, want := range map[string]float64{ResultBadSignature: 2, ResultAccepted: 1, ResultReplayed: 1, ResultForeign: 1, ResultTooLarge: 1} {
		if got := counted(key, "repository", result); got != want {
			t.Errorf("deliveries{result=%s} = %v, want %v", result, got, want)
		}
	}
	if got := counted(key, "push", ResultIgnored); got != 1 {
		t.Errorf("deliveries{event=push,result=ignored} = %v, want 1", got)
	}
	last, ok := e.LastEvent(key)
	if !ok || last.Event != "repository" || last.Delivery != "d1" {
		t.Errorf("last event = %+v, %v; want the accepted repository delivery d1", last, ok)
	}
}

func TestSignatureHeaders(t *testing.T) {
	body := []byte(repoCreated)
	sig := Signature([]byte("k"), body)
	for name, h := range map[string]http.Header{
		"gitea":   {"X-Gitea-Signature": {sig}},
		"forgejo": {"X-Forgejo-Signature": {sig}},
		"hub":     {"X-Hub-Signature-256": {"sha256=" + sig}},
	} {
		if !Signed(h, body, []byte("k")) {
			t.Errorf("%s: a correct signature was refused", name)
		}
		if Signed(h, body, []byte("other")) {
			t.Errorf("%s: a signature under another secret was accepted", name)
		}
	}
	if Signed(http.Header{"X-Hub-Signature-256": {sig}}, body, []byte("k")) {
		t.Errorf("X-Hub-Signature-256 without its sha256= prefix was accepted")
	}
	if Signed(http.Header{"X-Gitea-Signature": {sig}}, body, nil) {
		t.Errorf("an empty secret signed a delivery")
	}
}

func TestRepeatedDeliveryForgottenAfterTheWindow(t *testing.T) {
	var s seen
	now := time.Now()
	if !s.first("a", now) || s.first("a", now.Add(time.Minute)) {
		t.Fatalf("a delivery id repeated within the window was not refused")
	}
	if !s.first("a", now.Add(ReplayWindow+time.Second)) {
		t.Errorf("a delivery id was still refused after the window")
	}
	for i := range MaxRemembered + 10 {
		s.first(string(rune(i)), now)
	}
	if len(s.at) > MaxRemembered || len(s.order) > MaxRemembered {
		t.Errorf("remembered %d ids, more than %d", len(s.at), MaxRemembered)
	}
}

func TestBadSignaturesFloodMemory(t *testing.T) {
	e, _ := testEndpoint(t)
	body := []byte(repoCreated)
	for i := range 10000 {
		if code := deliver(e, testPath, "repository", "flood"+string(rune(i)), body, "wrong"); code != http.StatusUnauthorized {
			t.Fatalf("delivery %d: %d, want 401", i, code)
		}
	}
	if len(e.seen.at) != 0 {
		t.Errorf("deliveries with bad signatures were remembered (%d ids)", len(e.seen.at))
	}
}

// The endpoint is a server of its own, serving POSTs to the Receivers'
// paths and nothing else, until its context ends.
func TestEndpointServesOneRoute(t *testing.T) {
	e, _ := testEndpoint(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Start(ctx) }()
	addr, err := e.BoundAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr.String()
	call := func(method, path string, body []byte, sign bool) int {
		req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Gitea-Event", "repository")
		if sign {
			req.Header.Set("X-Gitea-Signature", Signature([]byte("s3cret"), body))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	body := []byte(repoCreated)
	for _, c := range []struct {
		method, path string
		sign         bool
		want         int
	}{
		{http.MethodPost, testPath, true, http.StatusOK},
		{http.MethodPost, testPath, false, http.StatusUnauthorized},
		{http.MethodGet, testPath, true, http.StatusMethodNotAllowed},
		{http.MethodPost, "/metrics", true, http.StatusNotFound},
		{http.MethodPost, "/hook/other", true, http.StatusNotFound},
	} {
		if got := call(c.method, c.path, body, c.sign); got != c.want {
			t.Errorf("%s %s (signed %v): %d, want %d", c.method, c.path, c.sign, got, c.want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("the endpoint stopped with %v", err)
	}
	if New("").Start(context.Background()) != nil {
		t.Errorf("an endpoint without an address did not return at once")
	}
}
