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
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
)

// The secure metrics endpoint end to end (a real API server, RBAC, a
// ServiceAccount's token) is TestPrivilegeApply's checkSecureMetrics in
// test/deploy; these tests count the reviews it sends and what it answers
// when the API server fails.

const (
	prometheusToken = "token-of-prometheus"
	nobodyToken     = "token-of-nobody"
	failingToken    = "token-the-api-server-fails-on"
	prometheusUser  = "system:serviceaccount:monitoring:prometheus"
)

// reviewServer is an API server that knows two tokens and lets prometheus
// get /metrics; it counts the reviews it answers and keeps the last access
// review's spec.
type reviewServer struct {
	mu                   sync.Mutex
	tokenReviews, access int
	lastAccess           authorizationv1.SubjectAccessReviewSpec
}

func (s *reviewServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/apis/authentication.k8s.io/v1/tokenreviews":
		s.tokenReviews++
		var review authenticationv1.TokenReview
		_ = json.NewDecoder(r.Body).Decode(&review)
		switch review.Spec.Token {
		case failingToken:
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"ServiceUnavailable","code":503}`)
			return
		case prometheusToken:
			review.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{
				Username: prometheusUser, UID: "uid-1", Groups: []string{"system:serviceaccounts", "system:authenticated"},
				Extra: map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/pod-name": {"prometheus-0"}}}}
		case nobodyToken:
			review.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: "nobody"}}
		}
		review.Spec.Token = ""
		_ = json.NewEncoder(w).Encode(review)
	case "/apis/authorization.k8s.io/v1/subjectaccessreviews":
		s.access++
		var review authorizationv1.SubjectAccessReview
		_ = json.NewDecoder(r.Body).Decode(&review)
		s.lastAccess = review.Spec
		na := review.Spec.NonResourceAttributes
		review.Status.Allowed = review.Spec.User == prometheusUser && na != nil && na.Path == "/metrics" && na.Verb == "get"
		_ = json.NewEncoder(w).Encode(review)
	default:
		http.NotFound(w, r)
	}
}

func (s *reviewServer) counts() (tokens, access int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokenReviews, s.access
}

// metricsBehindAuth serves "metrics" behind the filter, checked with api.
func metricsBehindAuth(t *testing.T, api *reviewServer) *httptest.Server {
	t.Helper()
	apiSrv := httptest.NewServer(api)
	t.Cleanup(apiSrv.Close)
	// JSON, which this server reads (client-go would send protobuf).
	cfg := &rest.Config{Host: apiSrv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"}}
	r, err := newReviewer(cfg, apiSrv.Client(),
		wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: 3})
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.filter(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "controller_runtime_reconcile_total 1\n")
	}))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// scrape gets path with the Authorization header auth (none when empty).
func scrape(t *testing.T, srv *httptest.Server, method, path, auth string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestMetricsAuthNeedsABearerToken(t *testing.T) {
	api := &reviewServer{}
	srv := metricsBehindAuth(t, api)
	for _, auth := range []string{"", "Bearer ", "Basic " + prometheusToken, prometheusToken} {
		if code, _ := scrape(t, srv, http.MethodGet, "/metrics", auth); code != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, code)
		}
	}
	if tokens, access := api.counts(); tokens+access != 0 {
		t.Errorf("a request without a bearer token sent %d token and %d access reviews, want none", tokens, access)
	}
}

func TestMetricsAuthChecksTokenAndAccessOnce(t *testing.T) {
	api := &reviewServer{}
	srv := metricsBehindAuth(t, api)
	for round := range 2 { // the second round is answered from the caches
		if code, _ := scrape(t, srv, http.MethodGet, "/metrics", "Bearer not-a-token"); code != http.StatusUnauthorized {
			t.Errorf("round %d: an unknown token: status %d, want 401", round, code)
		}
		if code, body := scrape(t, srv, http.MethodGet, "/metrics", "Bearer "+nobodyToken); code != http.StatusForbidden ||
			!strings.Contains(body, "Authorization denied for user nobody") {
			t.Errorf("round %d: a token that may not read metrics: %d %q, want 403 naming the user", round, code, body)
		}
		if code, body := scrape(t, srv, http.MethodGet, "/metrics", "bearer "+prometheusToken); code != http.StatusOK ||
			!strings.Contains(body, "controller_runtime_reconcile_total") {
			t.Errorf("round %d: a metrics reader: %d %q, want the metrics", round, code, body)
		}
		if tokens, access := api.counts(); tokens != 3 || access != 2 {
			t.Errorf("round %d: %d token and %d access reviews, want 3 and 2 (one per token and per user)", round, tokens, access)
		}
	}
	api.mu.Lock()
	got := api.lastAccess
	api.mu.Unlock()
	if got.User != prometheusUser || got.UID != "uid-1" || !slices.Equal(got.Groups, []string{"system:serviceaccounts", "system:authenticated"}) ||
		!slices.Equal(got.Extra["authentication.kubernetes.io/pod-name"], authorizationv1.ExtraValue{"prometheus-0"}) ||
		got.NonResourceAttributes == nil || *got.NonResourceAttributes != (authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}) ||
		got.ResourceAttributes != nil {
		t.Errorf("access review %+v, want prometheus's identity asking get on the non-resource path /metrics", got)
	}
	// Another verb or path is its own question, and refused.
	if code, _ := scrape(t, srv, http.MethodPost, "/metrics", "Bearer "+prometheusToken); code != http.StatusForbidden {
		t.Errorf("POST /metrics by a metrics reader: status %d, want 403", code)
	}
}

func TestMetricsAuthFailedReviewIs500WithoutTheToken(t *testing.T) {
	api := &reviewServer{}
	srv := metricsBehindAuth(t, api)
	code, body := scrape(t, srv, http.MethodGet, "/metrics", "Bearer "+failingToken)
	if code != http.StatusInternalServerError || strings.Contains(body, failingToken) {
		t.Errorf("the API server failing the token review: %d %q, want 500 without the token", code, body)
	}
	if tokens, _ := api.counts(); tokens != 3 {
		t.Errorf("%d token reviews for an API server that fails, want 3 (retried to the backoff's steps)", tokens)
	}
	// A failure is not remembered as a refusal: the next request asks again.
	scrape(t, srv, http.MethodGet, "/metrics", "Bearer "+failingToken)
	if tokens, _ := api.counts(); tokens != 6 {
		t.Errorf("%d token reviews after a second request, want 6", tokens)
	}
}
