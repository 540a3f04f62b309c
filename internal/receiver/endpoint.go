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

// Package receiver serves the forge's webhook deliveries to Receivers: it
// checks each one (its path and the form of its signature before it reads
// its body, then the signature, its delivery id and body, its
// organization), and turns an accepted one into requests for passes
// (reconciler.Wakes). A delivery never carries data the operator writes:
// it only says where to look again.
package receiver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/netutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// MaxBody is the largest delivery read (413 beyond): the events a
// Receiver asks for carry a repository and a few commits at most.
const MaxBody = 1 << 20

// ReplayWindow is how long a delivery is remembered, by its id and by its
// body's HMAC: a delivery repeated within it (the forge's redelivery, or a
// replay under another id, which the forge does not sign) is ignored.
// MaxRemembered bounds that memory: the oldest go first.
const (
	ReplayWindow  = time.Hour
	MaxRemembered = 100_000
)

// MaxConnections bounds the connections the endpoint serves at once: more
// wait to be accepted, so that a flood of slow or idle connections cannot
// hold the manager's memory or file descriptors.
const MaxConnections = 64

// Results of a delivery, as the deliveries metric counts them.
const (
	ResultAccepted     = "accepted"     // checked: its passes were requested
	ResultUnknownPath  = "unknownPath"  // 404: no Receiver's path
	ResultTooLarge     = "tooLarge"     // 413
	ResultBadSignature = "badSignature" // 401: missing, malformed or wrong signature
	ResultReplayed     = "replayed"     // 200: a delivery id or signed body seen in the last hour
	ResultIgnored      = "ignored"      // 200: an event the Receiver does not ask for
	ResultForeign      = "foreign"      // 200: an organization the Receiver does not name
	ResultMalformed    = "malformed"    // 400: a signed body that is no event payload
)

var deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "forge_receiver_deliveries_total",
	Help: "Webhook deliveries to the receiver endpoint, by Receiver (namespace/name, empty for an unknown path), event and result.",
}, []string{"receiver", "event", "result"})

func init() {
	ctrlmetrics.Registry.MustRegister(Collectors()...)
}

// Collectors gives the endpoint's metrics.
func Collectors() []prometheus.Collector { return []prometheus.Collector{deliveries} }

// Entry is what the endpoint knows of one Receiver, registered by its
// pass: the secret its hooks sign with, what it accepts, where it wakes.
// Organizations are those where the Receiver holds its hook, not every
// one its spec names: a delivery for another is ignored.
type Entry struct {
	Receiver      types.NamespacedName
	ForgeRef      forgev1.ForgeReference
	Secret        []byte
	Organizations []forgev1.OwnerName
	Events        []forgev1.ReceiverEvent
}

// Endpoint is the manager's receiver: an HTTP server of its own on Addr,
// apart from metrics and probes, serving the Receivers' paths only.
type Endpoint struct {
	// Addr is --receiver-bind-address; empty, nothing is served.
	Addr  string
	wakes *reconciler.Wakes
	// maxConns is MaxConnections (tests lower it).
	maxConns int

	mu     sync.RWMutex
	byPath map[string]*Entry
	paths  map[types.NamespacedName]string
	last   map[types.NamespacedName]forgev1.ReceiverLastEvent
	seen   seen
	// listening is closed once the server listens.
	listening chan struct{}
	bound     net.Addr
}

// New makes the endpoint of addr (--receiver-bind-address; empty serves
// nothing), which hands accepted events to the controllers through Wakes.
func New(addr string) *Endpoint {
	return &Endpoint{Addr: addr, wakes: reconciler.NewWakes(), maxConns: MaxConnections, byPath: map[string]*Entry{}, paths: map[types.NamespacedName]string{},
		last: map[types.NamespacedName]forgev1.ReceiverLastEvent{}, listening: make(chan struct{})}
}

// Wakes is where the controllers take the events the endpoint accepts.
func (e *Endpoint) Wakes() *reconciler.Wakes { return e.wakes }

// Served reports whether the manager serves deliveries at all.
func (e *Endpoint) Served() bool { return e != nil && e.Addr != "" }

// Register serves entry's Receiver at path (its status.path), in place of
// any path it had.
func (e *Endpoint) Register(path string, entry Entry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if old, ok := e.paths[entry.Receiver]; ok && old != path {
		delete(e.byPath, old)
	}
	e.paths[entry.Receiver] = path
	e.byPath[path] = &entry
}

// Serves reports whether the Receiver key is served for organization org.
func (e *Endpoint) Serves(key types.NamespacedName, org string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	entry := e.byPath[e.paths[key]]
	return entry != nil && slices.ContainsFunc(entry.Organizations, func(o forgev1.OwnerName) bool { return strings.EqualFold(string(o), org) })
}

// Forget stops serving a Receiver that is gone.
func (e *Endpoint) Forget(key types.NamespacedName) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.byPath, e.paths[key])
	delete(e.paths, key)
	delete(e.last, key)
}

// LastEvent is the last delivery a Receiver accepted.
func (e *Endpoint) LastEvent(key types.NamespacedName) (forgev1.ReceiverLastEvent, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	l, ok := e.last[key]
	return l, ok
}

// NeedLeaderElection: every replica listens, but only the leader's
// controllers register Receivers; the others answer 404, and the next
// sync interval catches what a lost delivery told.
func (e *Endpoint) NeedLeaderElection() bool { return false }

// Start serves until ctx ends (a manager Runnable).
func (e *Endpoint) Start(ctx context.Context) error {
	if !e.Served() {
		return nil
	}
	mux := http.NewServeMux()
	mux.Handle("POST /hook/", e)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
	l, err := net.Listen("tcp", e.Addr)
	if err != nil {
		return err
	}
	e.bound = l.Addr()
	l = netutil.LimitListener(l, e.maxConns)
	close(e.listening)
	ctrl.Log.WithName("receiver").Info("serving webhook deliveries", "address", l.Addr().String())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shut)
	case err := <-done:
		return err
	}
}

// BoundAddr is the address the server listens on, once it does (tests bind port 0).
func (e *Endpoint) BoundAddr(ctx context.Context) (net.Addr, error) {
	select {
	case <-e.listening:
		return e.bound, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ServeHTTP checks one delivery: path and the form of its signature
// headers (before anything of the body is read), then size, then the
// signature, then delivery id and signed body (replays), event and
// organization. Nothing of the body reaches logs or the metric.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.RLock()
	entry := e.byPath[r.URL.Path]
	e.mu.RUnlock()
	if entry == nil {
		count("", "", ResultUnknownPath)
		http.NotFound(w, r)
		return
	}
	who := entry.Receiver.String()
	event := eventName(r.Header)
	given := signatures(r.Header)
	if len(given) == 0 || len(entry.Secret) == 0 {
		// Unsigned, or signed in no form an HMAC-SHA256 has: the body,
		// which only the signature could vouch for, is not read at all.
		count(who, event, ResultBadSignature)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	if r.ContentLength > MaxBody {
		count(who, event, ResultTooLarge)
		http.Error(w, "delivery too large", http.StatusRequestEntityTooLarge)
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			count(who, event, ResultTooLarge)
			http.Error(w, "delivery too large", http.StatusRequestEntityTooLarge)
			return
		}
		count(who, event, ResultMalformed)
		http.Error(w, "delivery not read", http.StatusBadRequest)
		return
	}
	mac, ok := signedBy(given, body, entry.Secret)
	if !ok {
		count(who, event, ResultBadSignature)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	id := deliveryID(r.Header)
	now := time.Now()
	// The delivery id is not signed: the same signed body under a new id
	// is the same delivery replayed.
	keys := []string{who + "\x00body\x00" + hex.EncodeToString(mac)}
	if id != "" {
		keys = append(keys, who+"\x00id\x00"+id)
	}
	if !e.seen.first(now, keys...) {
		count(who, event, ResultReplayed)
		w.WriteHeader(http.StatusOK)
		return
	}
	if !slices.Contains(entry.Events, forgev1.ReceiverEvent(event)) {
		count(who, event, ResultIgnored)
		w.WriteHeader(http.StatusOK)
		return
	}
	var p Payload
	if err := json.Unmarshal(body, &p); err != nil {
		count(who, event, ResultMalformed)
		http.Error(w, "not an event payload", http.StatusBadRequest)
		return
	}
	owner, repo := p.Repo()
	if !slices.ContainsFunc(entry.Organizations, func(o forgev1.OwnerName) bool { return strings.EqualFold(string(o), owner) }) {
		count(who, event, ResultForeign)
		w.WriteHeader(http.StatusOK)
		return
	}
	wk := reconciler.Wake{Receiver: entry.Receiver, ForgeRef: entry.ForgeRef, Event: forgev1.ReceiverEvent(event), Owner: owner, Repo: repo}
	switch wk.Event {
	case forgev1.ReceiverEventCreate:
		if p.RefType != "branch" {
			// A tag: no kind depends on one.
			count(who, event, ResultIgnored)
			w.WriteHeader(http.StatusOK)
			return
		}
		wk.Branch = p.Ref
	case forgev1.ReceiverEventPush:
		wk.Branch = strings.TrimPrefix(p.Ref, "refs/heads/")
		if p.Repository != nil {
			// Which kept files the push concerns: a FileSet without a
			// branch keeps them on the default one.
			wk.DefaultBranch = p.Repository.DefaultBranch
		}
	}
	e.mu.Lock()
	if len(id) > 64 {
		id = id[:64]
	}
	e.last[entry.Receiver] = forgev1.ReceiverLastEvent{Event: event, Delivery: id, Time: metav1.NewTime(now)}
	e.mu.Unlock()
	e.wakes.Wake(r.Context(), wk)
	count(who, event, ResultAccepted)
	w.WriteHeader(http.StatusOK)
}

func count(receiver, event, result string) {
	deliveries.WithLabelValues(receiver, event, result).Inc()
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
}

// eventName is the delivery's event, one of the three a Receiver knows or
// "other", so that a caller cannot grow the metric's labels.
func eventName(h http.Header) string {
	ev := firstHeader(h, "X-Gitea-Event", "X-Forgejo-Event", "X-Gogs-Event")
	switch forgev1.ReceiverEvent(ev) {
	case forgev1.ReceiverEventRepository, forgev1.ReceiverEventCreate, forgev1.ReceiverEventPush:
		return ev
	}
	return "other"
}

func deliveryID(h http.Header) string {
	return firstHeader(h, "X-Gitea-Delivery", "X-Forgejo-Delivery", "X-Gogs-Delivery")
}

func firstHeader(h http.Header, names ...string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// Signature is the hex HMAC-SHA256 of body under secret, as the forge
// sends it in X-Gitea-Signature and X-Forgejo-Signature (and, prefixed
// "sha256=", in X-Hub-Signature-256).
func Signature(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Signed reports whether a signature header carries the HMAC-SHA256 of
// body under secret, compared in constant time. A delivery without one is
// not signed; an empty secret signs nothing.
func Signed(h http.Header, body, secret []byte) bool {
	_, ok := signedBy(signatures(h), body, secret)
	return ok
}

// signatures are the well-formed signatures of a delivery's headers:
// X-Gitea-Signature, X-Forgejo-Signature and X-Hub-Signature-256 (with
// its sha256= prefix), each the hex of 32 bytes. Anything else there is
// no signature.
func signatures(h http.Header) [][]byte {
	var given []string
	for _, n := range []string{"X-Gitea-Signature", "X-Forgejo-Signature"} {
		if v := h.Get(n); v != "" {
			given = append(given, v)
		}
	}
	if v, ok := strings.CutPrefix(h.Get("X-Hub-Signature-256"), "sha256="); ok {
		given = append(given, v)
	}
	var out [][]byte
	for _, g := range given {
		if len(g) != 2*sha256.Size {
			continue
		}
		if sig, err := hex.DecodeString(g); err == nil {
			out = append(out, sig)
		}
	}
	return out
}

// signedBy reports whether one of given is the HMAC-SHA256 of body under
// secret, and returns that HMAC.
func signedBy(given [][]byte, body, secret []byte) ([]byte, bool) {
	if len(secret) == 0 || len(given) == 0 {
		return nil, false
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	want := m.Sum(nil)
	ok := false
	for _, sig := range given {
		if hmac.Equal(sig, want) {
			ok = true
		}
	}
	return want, ok
}

// Payload holds the fields of a delivery the endpoint reads: where the
// event happened. Gitea sends repository (with owner and full_name) in
// repository, create and push payloads (the repository with its
// default_branch), ref and ref_type in create, ref in push.
type Payload struct {
	Action     string `json:"action,omitempty"`
	Ref        string `json:"ref,omitempty"`
	RefType    string `json:"ref_type,omitempty"`
	Repository *struct {
		Name          string `json:"name"`
		FullName      string `json:"full_name"`
		DefaultBranch string `json:"default_branch"`
		Owner         *struct {
			Login    string `json:"login"`
			UserName string `json:"username"`
		} `json:"owner"`
	} `json:"repository,omitempty"`
	Organization *struct {
		UserName string `json:"username"`
	} `json:"organization,omitempty"`
}

// Repo is the repository's owner and name.
func (p Payload) Repo() (owner, name string) {
	if p.Repository == nil {
		if p.Organization != nil {
			return p.Organization.UserName, ""
		}
		return "", ""
	}
	if o, n, ok := strings.Cut(p.Repository.FullName, "/"); ok {
		return o, n
	}
	if o := p.Repository.Owner; o != nil {
		return cmpOr(o.UserName, o.Login), p.Repository.Name
	}
	return "", p.Repository.Name
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// seen remembers deliveries (their ids and signed bodies) for
// ReplayWindow, at most MaxRemembered.
type seen struct {
	mu    sync.Mutex
	at    map[string]time.Time
	order []seenKey
}

type seenKey struct {
	key string
	at  time.Time
}

// first records keys and reports whether none of them was seen in the
// window.
func (s *seen) first(now time.Time, keys ...string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == nil {
		s.at = map[string]time.Time{}
	}
	for len(s.order) > 0 && (len(s.order)+len(keys) > MaxRemembered || now.Sub(s.order[0].at) > ReplayWindow) {
		// A key recorded again since keeps its later time.
		if old := s.order[0]; s.at[old.key].Equal(old.at) {
			delete(s.at, old.key)
		}
		s.order = s.order[1:]
	}
	for _, k := range keys {
		if t, ok := s.at[k]; ok && now.Sub(t) <= ReplayWindow {
			return false
		}
	}
	for _, k := range keys {
		s.at[k] = now
		s.order = append(s.order, seenKey{key: k, at: now})
	}
	return true
}
