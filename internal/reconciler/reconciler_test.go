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

package reconciler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
)

func TestJitter(t *testing.T) {
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 10 * time.Minute, time.Hour} {
		lo, hi := time.Duration(float64(d)*0.9), time.Duration(float64(d)*1.1)
		minSeen, maxSeen := d, d
		for range 10000 {
			j := Jitter(d)
			if j < lo || j > hi {
				t.Fatalf("Jitter(%s) = %s, outside [%s, %s]", d, j, lo, hi)
			}
			minSeen, maxSeen = min(minSeen, j), max(maxSeen, j)
		}
		// It spreads, too: the draws cover most of the +-10% band.
		if minSeen > time.Duration(float64(d)*0.92) || maxSeen < time.Duration(float64(d)*1.08) {
			t.Errorf("Jitter(%s) only spread over [%s, %s]", d, minSeen, maxSeen)
		}
	}
}

// TestClassify covers the mapping of every kind of error to a condition
// reason, a state (stalled or waiting) and a retry delay, as every
// controller sees it: Classify, then Backoff.Failed, then Failure.
func TestClassify(t *testing.T) {
	const interval = time.Minute
	opts := Options{SyncInterval: interval, BaseBackoff: time.Second, MaxBackoff: 30 * time.Second}
	fe := func(kind forge.ErrorKind, code int, msg string) error {
		return &forge.Error{Op: `create label "bug" in acme/web`, Kind: kind, StatusCode: code, Message: msg}
	}
	type want struct {
		State  conditions.State
		Reason string
		// Message must contain this.
		Message string
		// The retry delay lies in [MinRequeue, MaxRequeue].
		MinRequeue, MaxRequeue time.Duration
	}
	stalled := func(reason, msg string) want {
		return want{State: conditions.Stalled, Reason: reason, Message: msg,
			MinRequeue: interval * 9 / 10, MaxRequeue: interval * 11 / 10}
	}
	waiting := func(reason, msg string) want {
		return want{State: conditions.Waiting, Reason: reason, Message: msg, MinRequeue: time.Second, MaxRequeue: time.Second}
	}
	tests := []struct {
		name string
		err  error
		want want
	}{
		{"401", fe(forge.KindUnauthorized, 401, "invalid username, password or token"),
			stalled(forgev1.ReasonUnauthorized, "401 invalid username, password or token")},
		{"403", fe(forge.KindForbidden, 403, "Must be an organization owner"),
			stalled(forgev1.ReasonUnauthorized, "403 Must be an organization owner")},
		{"422 keeps the forge's message", fe(forge.KindValidation, 422, "invalid color: #12345g"),
			stalled(forgev1.ReasonRejected, `create label "bug" in acme/web: 422 invalid color: #12345g`)},
		{"409", fe(forge.KindConflict, 409, "exists"), stalled(forgev1.ReasonConflict, "409 exists")},
		{"missing endpoint", fe(forge.KindRouteNotFound, 404, ""), stalled(forgev1.ReasonUnsupported, "route not found")},
		{"404 of a parent", fe(forge.KindNotFound, 404, ""), waiting(forgev1.ReasonParentNotFound, "404")},
		{"500", fe(forge.KindServer, 500, ""), waiting(forgev1.ReasonForgeError, "500 internal server error")},
		{"reset", &forge.Error{Op: "list labels", Kind: forge.KindNetwork, Err: syscall.ECONNRESET},
			waiting(forgev1.ReasonForgeError, "connection reset")},
		{"timeout", &forge.Error{Op: "list labels", Kind: forge.KindNetwork, Err: context.DeadlineExceeded},
			waiting(forgev1.ReasonForgeError, "deadline exceeded")},
		{"429 honours Retry-After", &forge.Error{Op: "list labels", Kind: forge.KindRateLimited, StatusCode: 429, RetryAfter: 7 * time.Second},
			want{State: conditions.Waiting, Reason: forgev1.ReasonRateLimited, Message: "retry after 7s", MinRequeue: 7 * time.Second, MaxRequeue: 7 * time.Second}},
		{"429 with a Retry-After of centuries waits MaxBackoff", &forge.Error{Op: "list labels", Kind: forge.KindRateLimited, StatusCode: 429, RetryAfter: 1<<63 - 1},
			want{State: conditions.Waiting, Reason: forgev1.ReasonRateLimited, Message: "429", MinRequeue: 30 * time.Second, MaxRequeue: 30 * time.Second}},
		{"an answer the client refuses", &forge.Error{Op: "create label", Kind: forge.KindInvalidResponse, Err: errors.New("the forge answered 201 with id 0")},
			waiting(forgev1.ReasonForgeError, "with id 0")},
		{"429 without Retry-After backs off", fe(forge.KindRateLimited, 429, ""),
			want{State: conditions.Waiting, Reason: forgev1.ReasonRateLimited, Message: "429", MinRequeue: time.Second, MaxRequeue: time.Second}},
		{"wrapped forge error", fmt.Errorf("adopt: %w", fe(forge.KindValidation, 422, "[Name]: Required")),
			stalled(forgev1.ReasonRejected, "[Name]: Required")},
		{"forge error with advice", fmt.Errorf("%w; fix the credentials in Secret ns/token", fe(forge.KindUnauthorized, 401, "")),
			stalled(forgev1.ReasonUnauthorized, "401 unauthorized; fix the credentials in Secret ns/token")},
		{"missing Secret", &connection.SecretError{Namespace: "ns", Name: "hook-secret", Key: "secret", KeyMissing: true},
			waiting(forgev1.ReasonSecretNotFound, `key "secret" not found or empty in Secret ns/hook-secret`)},
		{"Stall", Stall(forgev1.ReasonConflict, "two of %s", "them"), stalled(forgev1.ReasonConflict, "two of them")},
		{"Wait", Wait(forgev1.ReasonRunnerNotFound, "no runner yet"), waiting(forgev1.ReasonRunnerNotFound, "no runner yet")},
		{"ParentMissing", ParentMissing(fe(forge.KindNotFound, 404, ""), "repository acme/web"),
			waiting(forgev1.ReasonParentNotFound, "repository acme/web not found on the forge")},
		{"ParentMissing passes other errors through", ParentMissing(fe(forge.KindServer, 502, ""), "repository acme/web"),
			waiting(forgev1.ReasonForgeError, "502")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := Classify(tt.err)
			if !ok {
				t.Fatalf("Classify(%v) did not classify it", tt.err)
			}
			out := Failure(c, NewBackoff(opts).Failed(types.NamespacedName{Namespace: "ns", Name: "bug"}, c, interval))
			got := want{State: out.Summary.State, Reason: out.Summary.Reason, Message: tt.want.Message,
				MinRequeue: tt.want.MinRequeue, MaxRequeue: tt.want.MaxRequeue}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if !strings.Contains(out.Summary.Message, tt.want.Message) {
				t.Errorf("message %q does not contain %q", out.Summary.Message, tt.want.Message)
			}
			if out.Requeue < tt.want.MinRequeue || out.Requeue > tt.want.MaxRequeue {
				t.Errorf("requeue %s outside [%s, %s]", out.Requeue, tt.want.MinRequeue, tt.want.MaxRequeue)
			}
			if want := (Event{Type: "Warning", Reason: out.Summary.Reason, Action: "Reconcile", Note: out.Summary.Message}); out.Event != want {
				t.Errorf("event %+v, want %+v", out.Event, want)
			}
		})
	}
}

// TestClassifyLeavesKubernetesErrors checks that errors of the Kubernetes
// API are left to controller-runtime's own retries.
func TestClassifyLeavesKubernetesErrors(t *testing.T) {
	for _, err := range []error{
		apierrors.NewConflict(schema.GroupResource{Resource: "labels"}, "bug", errors.New("modified")),
		fmt.Errorf("update finalizer of Label ns/bug: %w", apierrors.NewServiceUnavailable("etcd")),
	} {
		if c, ok := Classify(err); ok {
			t.Errorf("Classify(%v) = %+v, want it left unclassified", err, c)
		}
	}
}

// TestClassifyYield: a read that gave way (forge.ErrYield), wrapped by a
// kind or not, is known as a yield, never as a failure to report.
func TestClassifyYield(t *testing.T) {
	for _, err := range []error{forge.ErrYield, fmt.Errorf("observe label bug: %w", forge.ErrYield)} {
		c, ok := Classify(err)
		if !ok || !c.Yield || c.Reason != "" {
			t.Errorf("Classify(%v) = %+v, %v; want a yield without a reason", err, c, ok)
		}
	}
	if c, _ := Classify(&forge.Error{Kind: forge.KindServer, StatusCode: 500}); c.Yield {
		t.Errorf("a 500 is classified as a yield: %+v", c)
	}
}

// TestBackoff checks that waiting retries back off exponentially, capped
// by MaxBackoff and by the object's sync interval, that stalled ones never
// retry sooner than the interval, and that a success starts over.
func TestBackoff(t *testing.T) {
	const interval = 10 * time.Minute
	b := NewBackoff(Options{BaseBackoff: time.Second, MaxBackoff: 8 * time.Second})
	key := types.NamespacedName{Namespace: "ns", Name: "bug"}
	server := Class{State: conditions.Waiting, Reason: forgev1.ReasonForgeError}
	var got []time.Duration
	for range 6 {
		got = append(got, b.Failed(key, server, interval))
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}
	if d := b.Failed(key, server, 3*time.Second); d != 3*time.Second {
		t.Errorf("waiting requeue %s, want the 3s sync interval as a cap", d)
	}
	limited := Class{State: conditions.Waiting, Reason: forgev1.ReasonRateLimited, RetryAfter: 7 * time.Second}
	if d := b.Failed(key, limited, 3*time.Second); d != 3*time.Second {
		t.Errorf("Retry-After 7s waits %s, want the 3s sync interval as a cap", d)
	}
	if d := b.Failed(key, Class{State: conditions.Stalled, Reason: forgev1.ReasonConflict}, interval); d < 9*time.Minute {
		t.Errorf("stalled requeue %s, want about the sync interval", d)
	}
	b.Succeeded(key)
	if d := b.Failed(key, server, interval); d != time.Second {
		t.Errorf("requeue after a success %s, want the base backoff again", d)
	}
	if d := NewBackoff(Options{}).Failed(key, server, interval); d != time.Second {
		t.Errorf("default base backoff %s, want 1s", d)
	}
}

func TestErrorMessage(t *testing.T) {
	inner := errors.New("inner")
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Message: "msg", Err: inner}, "msg"},
		{&Error{Err: inner}, "inner"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		if tt.err.Err != nil && !errors.Is(tt.err, inner) {
			t.Errorf("%v does not unwrap to its cause", tt.err)
		}
	}
}

func TestDiffText(t *testing.T) {
	tests := []struct {
		obs  Observation
		want string
	}{
		{Observation{Diff: []string{"color"}}, "color"},
		{Observation{Diff: []string{"name", "color", "color"}}, "color, name"},
		{Observation{Diff: []string{"events"}, Replace: true, ReplaceBecause: "secret"}, "events, secret"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, diffText(tt.obs)); diff != "" {
			t.Errorf("diffText(%+v) (-want +got):\n%s", tt.obs, diff)
		}
	}
}

func TestObservationUpToDate(t *testing.T) {
	tests := []struct {
		obs  Observation
		want bool
	}{
		{Observation{}, false},
		{Observation{Exists: true}, true},
		{Observation{Exists: true, Diff: []string{"color"}}, false},
		{Observation{Exists: true, Replace: true}, false},
	}
	for _, tt := range tests {
		if got := tt.obs.UpToDate(); got != tt.want {
			t.Errorf("%+v.UpToDate() = %t, want %t", tt.obs, got, tt.want)
		}
	}
}
