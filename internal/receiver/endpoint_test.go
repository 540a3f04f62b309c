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
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
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

const pushed = `{"ref":"refs/heads/main","repository":{"name":"web","full_name":"acme/web","default_branch":"main"}}`

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
	if code := deliver(e, testPath, "push", "d3", []byte(pushed), "s3cret"); code != http.StatusOK {
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
	if !s.first(now, "a") || s.first(now.Add(time.Minute), "a") {
		t.Fatalf("a delivery id repeated within the window was not refused")
	}
	if !s.first(now.Add(ReplayWindow+time.Second), "a") {
		t.Errorf("a delivery id was still refused after the window")
	}
	if s.first(now.Add(ReplayWindow+time.Minute), "a") {
		t.Errorf("a delivery id seen again after the window was forgotten with its first sighting")
	}
	for i := range MaxRemembered + 10 {
		s.first(now, string(rune(i)))
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

// countingBody is a request body that counts what the endpoint read of it.
type countingBody struct {
	r    *bytes.Reader
	read int
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

// A delivery without a signature of HMAC-SHA256's form, or to a path no
// Receiver is served at, is refused before a byte of its body is read; so
// is one whose declared length is too large. A well-formed signature has
// the body read, to be checked.
func TestNothingIsReadBeforeTheSignatureCanBeChecked(t *testing.T) {
	e, _ := testEndpoint(t)
	body := []byte(repoCreated)
	good := Signature([]byte("s3cret"), body)
	for _, c := range []struct {
		name     string
		path     string
		headers  map[string]string
		length   int64
		want     int
		wantRead bool
	}{
		{name: "unknown path", path: "/hook/nothing-here", headers: map[string]string{"X-Gitea-Signature": good}, want: http.StatusNotFound},
		{name: "no signature", want: http.StatusUnauthorized},
		{name: "not hex", headers: map[string]string{"X-Gitea-Signature": strings.Repeat("z", 64)}, want: http.StatusUnauthorized},
		{name: "too short", headers: map[string]string{"X-Gitea-Signature": good[:40]}, want: http.StatusUnauthorized},
		{name: "hub without its prefix", headers: map[string]string{"X-Hub-Signature-256": good}, want: http.StatusUnauthorized},
		{name: "declared too large", headers: map[string]string{"X-Gitea-Signature": good}, length: MaxBody + 1, want: http.StatusRequestEntityTooLarge},
		// Controls: a signature of the right form has the body read.
		{name: "well-formed, another secret", headers: map[string]string{"X-Gitea-Signature": Signature([]byte("other"), body)},
			want: http.StatusUnauthorized, wantRead: true},
		{name: "signed", headers: map[string]string{"X-Hub-Signature-256": "sha256=" + good}, want: http.StatusOK, wantRead: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := &countingBody{r: bytes.NewReader(body)}
			path := testPath
			if c.path != "" {
				path = c.path
			}
			req := httptest.NewRequest(http.MethodPost, path, b)
			if c.length != 0 {
				req.ContentLength = c.length
			}
			req.Header.Set("X-Gitea-Event", "repository")
			req.Header.Set("X-Gitea-Delivery", "d-"+strings.ReplaceAll(c.name, " ", "-"))
			for k, v := range c.headers {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != c.want {
				t.Errorf("%d, want %d", rec.Code, c.want)
			}
			if read := b.read > 0; read != c.wantRead {
				t.Errorf("read %d bytes of the body, want read %v", b.read, c.wantRead)
			}
		})
	}
}

// The delivery id is not signed: the same signed body sent again under
// another id (or none) within the window is a replay, and wakes nothing.
func TestReplayUnderAnotherDeliveryID(t *testing.T) {
	e, key := testEndpoint(t)
	body := []byte(repoCreated)
	if code := deliver(e, testPath, "repository", "first", body, "s3cret"); code != http.StatusOK {
		t.Fatalf("signed: %d, want 200", code)
	}
	for _, id := range []string{"second", ""} {
		if code := deliver(e, testPath, "repository", id, body, "s3cret"); code != http.StatusOK {
			t.Errorf("replayed under id %q: %d, want 200", id, code)
		}
	}
	if got := counted(key, "repository", ResultReplayed); got != 2 {
		t.Errorf("deliveries{result=replayed} = %v, want 2: the same signed body under new ids", got)
	}
	if last, _ := e.LastEvent(key); last.Delivery != "first" {
		t.Errorf("last event = %+v, want the first delivery: a replay was accepted", last)
	}
	// Control: another body under a new id is a delivery of its own.
	other := []byte(strings.ReplaceAll(repoCreated, `"web"`, `"api"`))
	if code := deliver(e, testPath, "repository", "third", other, "s3cret"); code != http.StatusOK {
		t.Fatalf("another body: %d, want 200", code)
	}
	if got := counted(key, "repository", ResultAccepted); got != 2 {
		t.Errorf("deliveries{result=accepted} = %v, want 2 (the first and the other body)", got)
	}
	if last, _ := e.LastEvent(key); last.Delivery != "third" {
		t.Errorf("last event = %+v, want the delivery of another body", last)
	}
}

// The endpoint serves at most maxConns connections at once: one more
// waits, however long the others take, and is served once one of them
// goes.
func TestEndpointLimitsConnections(t *testing.T) {
	e, _ := testEndpoint(t)
	e.maxConns = 2
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the endpoint stopped with %v", err)
		}
	}()
	addr, err := e.BoundAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Two connections that send half a request and wait.
	var idle []net.Conn
	for range e.maxConns {
		c, err := net.Dial("tcp", addr.String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte("POST " + testPath + " HTTP/1.1\r\nHost: x\r\n")); err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	body := []byte(repoCreated)
	post := func(timeout time.Duration) (int, error) {
		req, err := http.NewRequest(http.MethodPost, "http://"+addr.String()+testPath, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Gitea-Event", "repository")
		req.Header.Set("X-Gitea-Signature", Signature([]byte("s3cret"), body))
		cl := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := cl.Do(req)
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, err := post(500 * time.Millisecond); err == nil {
		t.Fatalf("a third connection was served (%d) while two were held", code)
	}
	// Control: one held connection gone, a delivery is served.
	_ = idle[0].Close()
	defer func() { _ = idle[1].Close() }()
	if code, err := post(5 * time.Second); err != nil || code != http.StatusOK {
		t.Fatalf("with a connection free: %d, %v; want 200", code, err)
	}
}
