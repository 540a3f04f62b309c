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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
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

// TestFailure covers the mapping of every kind of error to a condition
// reason, a state (stalled or waiting) and a retry delay.
func TestFailure(t *testing.T) {
	const interval = time.Minute
	opts := Options{SyncInterval: interval, BaseBackoff: time.Second, MaxBackoff: 30 * time.Second}
	opts.defaults()
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
			r := &Reconciler[*forgev1.Label]{opts: opts, backoff: workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](opts.BaseBackoff, opts.MaxBackoff)}
			obj := &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "bug"}}
			out := r.failure(obj, types.NamespacedName{Namespace: "ns", Name: "bug"}, tt.err)
			got := want{State: out.summary.State, Reason: out.summary.Reason, Message: tt.want.Message,
				MinRequeue: tt.want.MinRequeue, MaxRequeue: tt.want.MaxRequeue}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if !strings.Contains(out.summary.Message, tt.want.Message) {
				t.Errorf("message %q does not contain %q", out.summary.Message, tt.want.Message)
			}
			if out.requeue < tt.want.MinRequeue || out.requeue > tt.want.MaxRequeue {
				t.Errorf("requeue %s outside [%s, %s]", out.requeue, tt.want.MinRequeue, tt.want.MaxRequeue)
			}
			if out.eventType != "Warning" || out.eventReason != out.summary.Reason {
				t.Errorf("event %s %s, want a Warning with the reason", out.eventType, out.eventReason)
			}
		})
	}
}

// TestFailureBackoff checks that waiting retries back off exponentially,
// capped by MaxBackoff and by the object's sync interval, and that
// stalled ones never retry sooner than the interval.
func TestFailureBackoff(t *testing.T) {
	opts := Options{SyncInterval: 10 * time.Minute, BaseBackoff: time.Second, MaxBackoff: 8 * time.Second}
	opts.defaults()
	r := &Reconciler[*forgev1.Label]{opts: opts, backoff: workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](opts.BaseBackoff, opts.MaxBackoff)}
	key := types.NamespacedName{Namespace: "ns", Name: "bug"}
	obj := &forgev1.Label{}
	server := &forge.Error{Op: "get label", Kind: forge.KindServer, StatusCode: 500}
	var got []time.Duration
	for range 6 {
		got = append(got, r.failure(obj, key, server).requeue)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}

	short := &forgev1.Label{Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{SyncInterval: &metav1.Duration{Duration: 3 * time.Second}}}}
	if d := r.failure(short, key, server).requeue; d != 3*time.Second {
		t.Errorf("waiting requeue %s, want the 3s sync interval as a cap", d)
	}
	limited := &forge.Error{Op: "get label", Kind: forge.KindRateLimited, StatusCode: 429, RetryAfter: 7 * time.Second}
	if d := r.failure(short, key, limited).requeue; d != 3*time.Second {
		t.Errorf("Retry-After 7s waits %s, want the 3s sync interval as a cap", d)
	}
	if d := r.failure(obj, key, Stall(forgev1.ReasonConflict, "x")).requeue; d < 9*time.Minute {
		t.Errorf("stalled requeue %s, want about the sync interval", d)
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

func TestOlder(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Second))
	obj := func(name string, ts metav1.Time) *forgev1.Label {
		return &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: ts}}
	}
	tests := []struct {
		a, b *forgev1.Label
		want bool
	}{
		{obj("z", t0), obj("a", t1), true},
		{obj("a", t1), obj("z", t0), false},
		// Created in the same second: the name decides, so exactly one of two is older.
		{obj("a", t0), obj("b", t0), true},
		{obj("b", t0), obj("a", t0), false},
	}
	for _, tt := range tests {
		if got := older(tt.a, tt.b); got != tt.want {
			t.Errorf("older(%s@%s, %s@%s) = %t, want %t", tt.a.Name, tt.a.CreationTimestamp, tt.b.Name, tt.b.CreationTimestamp, got, tt.want)
		}
	}
}
