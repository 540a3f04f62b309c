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

package controllers

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/hooks"
	"github.com/forgeops/forge-operator/controllers/internal/kinds"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/controllers/internal/words"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/receiver"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// RBAC of the Receiver controller (and the Secret it generates its hooks'
// secret into).
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=receivers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=receivers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=receivers/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=create

// receiverKind keeps a Receiver's organization hooks: a set kind of the
// loop whose members are organizations, one hook each, delivering to the
// manager's endpoint at spec.url + status.path. Its pass registers the
// Receiver with the endpoint, which then accepts the deliveries signed
// with its secret.
type receiverKind struct {
	kinds.Base[forgev1.Receiver, forgev1.ReceiverList]
	endpoint *receiver.Endpoint
}

func (receiverKind) Key(*forgev1.Receiver) string { return "" }
func (receiverKind) Describe(r *forgev1.Receiver) string {
	return fmt.Sprintf("the hooks of receiver %s", r.Name)
}
func (receiverKind) Connect(context.Context, *forgev1.Receiver, *reconciler.Pass) (reconciler.External, error) {
	return nil, errors.New("a Receiver is synced as a set")
}

// KeepsDeliveries: each accepted delivery asks for a pass of its Receiver
// (at most once a minute), which records status.lastEvent.
func (receiverKind) KeepsDeliveries() {}

// Secrets: the one holding the hooks' secret.
func (receiverKind) Secrets(r *forgev1.Receiver) []string {
	if r.Spec.SecretRef != nil {
		return []string{r.Spec.SecretRef.Name}
	}
	return []string{r.GeneratedSecretName()}
}

// WriteScopes: organization hooks are written under the organization's scope.
func (receiverKind) WriteScopes(*forgev1.Receiver, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteOrganization}
}

// Forget stops serving a Receiver that is gone.
func (k receiverKind) Forget(key types.NamespacedName) {
	if k.endpoint != nil {
		k.endpoint.Forget(key)
	}
}

func (k receiverKind) ConnectSet(ctx context.Context, r *forgev1.Receiver, pass *reconciler.Pass) (reconciler.SetExternal, error) {
	deleting := !r.DeletionTimestamp.IsZero()
	if !deleting && pass.Writer != nil && !k.endpoint.Served() {
		return nil, reconciler.Stall(forgev1.ReasonEndpointNotServed,
			"the manager serves no receiver endpoint: start it with --receiver-bind-address (the chart's receiver value), else the hooks would deliver to nothing")
	}
	e := &receiverSet{obj: r, pass: pass, endpoint: k.endpoint}
	secret, err := e.secret(ctx, deleting)
	if err != nil {
		return nil, err
	}
	e.secretValue = secret
	e.path = r.Status.Path
	if secret != "" {
		e.path = receiverPath(r.UID, secret)
	}
	e.fc = forge.RedactingHooks(pass.Forge, secret)
	return e, nil
}

// receiverPath is the path a Receiver is served at: an HMAC of its uid
// under its secret, so that it can be neither guessed nor reused by a
// Receiver made again under the same name, and a new secret moves it.
func receiverPath(uid types.UID, secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("forge-operator receiver path\x00" + string(uid)))
	return "/hook/" + hex.EncodeToString(m.Sum(nil))[:40]
}

type receiverSet struct {
	obj         *forgev1.Receiver
	pass        *reconciler.Pass
	endpoint    *receiver.Endpoint
	fc          forge.HooksClient
	secretValue string
	path        string
	// held are the organizations (lower case) where this pass found the
	// Receiver's hook delivering to its URL, or made it with its secret:
	// the only ones it is served for.
	held map[string]bool
}

// secret reads the hooks' secret: spec.secretRef's, or the one generated
// into the Secret this Receiver owns (made here when missing). "" when a
// plan may not read it, or a deletion finds it gone.
func (e *receiverSet) secret(ctx context.Context, deleting bool) (string, error) {
	r := e.obj
	if ref := r.Spec.SecretRef; ref != nil {
		v, _, err := connection.SecretValue(ctx, e.pass.Reader, r.Namespace, ref.Name, ref.Key)
		switch {
		case errors.Is(err, reconciler.ErrUnreadable) || (err != nil && deleting):
			return "", nil
		case err != nil:
			return "", err
		case v == "":
			return "", reconciler.Stall(forgev1.ReasonRejected, "Secret %s key %s is empty: the hooks need a secret to sign with", ref.Name, ref.Key)
		}
		return v, nil
	}
	name := r.GeneratedSecretName()
	var sec corev1.Secret
	err := e.pass.Reader.Get(ctx, types.NamespacedName{Namespace: r.Namespace, Name: name}, &sec)
	switch {
	case errors.Is(err, reconciler.ErrUnreadable):
		return "", nil
	case apierrors.IsNotFound(err):
		if deleting || e.pass.Writer == nil || r.Spec.ManagementPolicy == forgev1.ManagementPolicyObserve {
			return "", nil
		}
		return e.generate(ctx, name)
	case err != nil:
		return "", fmt.Errorf("read Secret %s/%s: %w", r.Namespace, name, err)
	}
	if !secrets.OwnedBy(&sec, "Receiver", r) {
		return "", reconciler.Stall(forgev1.ReasonConflict,
			"Secret %s was not created by this Receiver: the operator never writes into a Secret it did not create; delete it, or name a secret in spec.secretRef", name)
	}
	v := string(sec.Data[forgev1.ReceiverSecretKey])
	if v == "" {
		return "", reconciler.Stall(forgev1.ReasonRejected, "Secret %s holds no key %s; delete it to have a new secret made", name, forgev1.ReceiverSecretKey)
	}
	return v, nil
}

// generate makes a random secret into a Secret the Receiver owns (the
// garbage collector removes it with the Receiver).
func (e *receiverSet) generate(ctx context.Context, name string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate a secret: %w", err)
	}
	v := hex.EncodeToString(b)
	sec := secrets.Owned(e.obj, "Receiver", name)
	sec.Data = map[string][]byte{forgev1.ReceiverSecretKey: []byte(v)}
	if err := e.pass.Writer.Create(ctx, sec); err != nil {
		// Made since the read (AlreadyExists) too: the retry reads it.
		return "", fmt.Errorf("create Secret %s/%s: %w", e.obj.Namespace, name, err)
	}
	return v, nil
}

// hookURL is where the hooks deliver.
func (e *receiverSet) hookURL() string { return strings.TrimSuffix(e.obj.Spec.URL, "/") + e.path }

// hookEvents are the events the hooks ask for, sorted.
func (e *receiverSet) hookEvents() []string {
	var out []string
	for _, ev := range e.obj.ReceiverEvents() {
		out = append(out, string(ev))
	}
	return hooks.NormalizeEvents(out)
}

func (e *receiverSet) Sync(ctx context.Context, write bool) (reconciler.SetResult, error) {
	r := e.obj
	st := &r.Status
	e.record()
	e.held = map[string]bool{}
	holders, err := e.orgHooks(ctx)
	if err != nil {
		return reconciler.SetResult{}, err
	}
	recorded := map[string]int64{}
	for _, h := range st.Hooks {
		recorded[strings.ToLower(h.Organization)] = h.ID
	}
	var out receiverOutcome
	orgs := slices.Clone(r.Spec.Organizations)
	slices.Sort(orgs)
	for _, o := range orgs {
		org := string(o)
		id, change, err := e.keep(ctx, org, recorded[strings.ToLower(org)], holders, write)
		if err := out.add(org, id, change, err); err != nil {
			return reconciler.SetResult{}, err
		}
		delete(recorded, strings.ToLower(org))
	}
	// Hooks of organizations no longer listed go.
	for _, h := range st.Hooks {
		if _, gone := recorded[strings.ToLower(h.Organization)]; gone {
			e.drop(ctx, h, write, &out)
		}
	}
	res := out.result(st, orgs)
	e.register(write, orgs)
	return res, nil
}

// key is the Receiver's name.
func (e *receiverSet) key() types.NamespacedName {
	return types.NamespacedName{Namespace: e.obj.Namespace, Name: e.obj.Name}
}

// record records in status the path and the last delivery.
func (e *receiverSet) record() {
	r := e.obj
	if e.path != "" {
		r.Status.Path = e.path
	}
	if e.endpoint != nil {
		if l, ok := e.endpoint.LastEvent(e.key()); ok {
			r.Status.LastEvent = &l
		}
	}
}

// register serves the Receiver at its path (a pass that writes, with its
// secret) for the organizations of orgs where it holds its hook, and for
// no other: one whose hook the forge refused, or that another resource
// holds, is not the Receiver's to speak for, though its spec names it and
// its secret signs anything.
func (e *receiverSet) register(write bool, orgs []forgev1.OwnerName) {
	r := e.obj
	if !write || e.secretValue == "" || e.endpoint == nil {
		return
	}
	var served []forgev1.OwnerName
	for _, o := range orgs {
		if e.held[strings.ToLower(string(o))] && slices.ContainsFunc(r.Status.Hooks, func(h forgev1.ReceiverHook) bool {
			return strings.EqualFold(h.Organization, string(o))
		}) {
			served = append(served, o)
		}
	}
	e.endpoint.Register(e.path, receiver.Entry{Receiver: e.key(), ForgeRef: r.Spec.ForgeRef, Secret: []byte(e.secretValue),
		Organizations: served, Events: r.ReceiverEvents()})
}

// drop deletes the hook of an organization no longer listed (a plan
// reports it).
func (e *receiverSet) drop(ctx context.Context, h forgev1.ReceiverHook, write bool, out *receiverOutcome) {
	if !write {
		out.failures = append(out.failures, reconciler.MemberFailure{Member: h.Organization, Reason: forgev1.ReasonDriftDetected,
			Message: fmt.Sprintf("hook %d is no longer listed and would be deleted", h.ID), Removes: 1})
		out.kept = append(out.kept, h)
		return
	}
	if err := e.fc.DeleteHook(ctx, forge.OrgScope(h.Organization), h.ID); err != nil && !forge.IsNotFound(err) {
		out.kept = append(out.kept, h)
		c, _ := reconciler.Classify(err)
		out.failures = append(out.failures, reconciler.MemberFailure{Member: h.Organization, Reason: c.Reason, Message: words.Bound(c.Message)})
		return
	}
	out.changed = append(out.changed, fmt.Sprintf("%s: hook %d deleted (no longer listed)", h.Organization, h.ID))
}

// receiverOutcome is what one Sync kept, changed and failed.
type receiverOutcome struct {
	kept     []forgev1.ReceiverHook
	changed  []string
	failures []reconciler.MemberFailure
}

// add records one organization's outcome; an error of the Kubernetes API
// stops the pass, and so does a read that gave way (a routine check's
// turn in the forge's drift lane comes later, as a set's does): that is no
// failure of the organization, and the loop brings the whole check back
// on its turn, which it holds, rather than reporting it not ready.
func (o *receiverOutcome) add(org string, id int64, change string, err error) error {
	c, ok := reconciler.Classify(err)
	if err != nil && (!ok || c.Yield) {
		return err
	}
	if id != 0 {
		o.kept = append(o.kept, forgev1.ReceiverHook{Organization: org, ID: id})
	}
	if change != "" {
		o.changed = append(o.changed, org+": "+change)
	}
	if err == nil {
		return nil
	}
	o.failures = append(o.failures, reconciler.MemberFailure{Member: org, Reason: c.Reason, Message: words.Bound(c.Message),
		Stall: c.State == conditions.Stalled})
	return nil
}

// result writes the outcome into status and says it to the loop.
func (o *receiverOutcome) result(st *forgev1.ReceiverStatus, orgs []forgev1.OwnerName) reconciler.SetResult {
	res := reconciler.SetResult{Noun: "organization", Nouns: "organizations", Members: len(orgs)}
	slices.SortFunc(o.kept, func(a, b forgev1.ReceiverHook) int { return strings.Compare(a.Organization, b.Organization) })
	st.Hooks = o.kept
	slices.SortFunc(o.failures, func(a, b reconciler.MemberFailure) int { return strings.Compare(a.Member, b.Member) })
	res.Failures = o.failures
	listed := 0
	for _, f := range o.failures {
		if slices.Contains(orgs, forgev1.OwnerName(f.Member)) {
			listed++
		}
	}
	res.InSync = res.Members - listed
	if len(o.changed) > 0 {
		res.Changes = strings.Join(o.changed, "; ")
		if len(res.Changes) > 512 {
			res.Changes = fmt.Sprintf("%d hooks written", len(o.changed))
		}
	}
	var next []forgev1.ReceiverFailure
	for _, f := range o.failures[:min(len(o.failures), 20)] {
		next = append(next, forgev1.ReceiverFailure{Organization: f.Member, Reason: f.Reason, Message: f.Message})
	}
	res.FailuresChanged = !slices.Equal(st.Failures, next)
	st.Failures = next
	st.Organizations, st.InSync = int32(len(o.kept)), int32(res.InSync)
	return res
}

// orgHooks are the OrgHook resources of the Receiver's server, by
// organization (lower case): a hook one of them holds or names by URL is
// never the Receiver's to write.
func (e *receiverSet) orgHooks(ctx context.Context) (map[string][]forgev1.OrgHook, error) {
	if e.pass.Cache == nil {
		return nil, nil
	}
	servers, err := claims.ServersOf(ctx, e.pass.Cache, e.obj)
	if err != nil {
		return nil, err
	}
	out := map[string][]forgev1.OrgHook{}
	for _, in := range servers.Lists() {
		var hooks forgev1.OrgHookList
		if err := e.pass.Cache.List(ctx, &hooks, in...); err != nil {
			return nil, fmt.Errorf("list OrgHooks: %w", err)
		}
		for _, h := range hooks.Items {
			if servers.Reach(h.Namespace, h.Spec.ForgeRef) {
				org := strings.ToLower(string(h.Spec.Organization))
				out[org] = append(out[org], h)
			}
		}
	}
	return out, nil
}

// orgHookHolding names the OrgHook resource that holds hook id or delivers to url.
func orgHookHolding(hooks []forgev1.OrgHook, id int64, url string) string {
	for _, h := range hooks {
		if (id != 0 && h.Status.ID == id) || (h.Spec.URL != "" && h.Spec.URL == url) {
			return "OrgHook " + h.Namespace + "/" + h.Name
		}
	}
	return ""
}

// keep brings the Receiver's hook on org to the spec: the one of status
// (recorded), else the one hook of the type and URL nobody holds
// (adopted), else a new one. It returns the hook's id, what it changed, and
// why it could not.
func (e *receiverSet) keep(ctx context.Context, org string, recorded int64, holders map[string][]forgev1.OrgHook, write bool) (int64, string, error) {
	sc := forge.OrgScope(org)
	url := e.hookURL()
	found, err := e.find(ctx, sc, recorded, holders[strings.ToLower(org)])
	if err != nil {
		if c, _ := reconciler.Classify(err); c.State == conditions.Waiting && c.Reason != forgev1.ReasonParentNotFound &&
			e.endpoint != nil && e.endpoint.Serves(e.key(), org) {
			// The forge did not answer this time (a rate limit, an
			// error): the hook found before is still served.
			e.held[strings.ToLower(org)] = true
		}
		return recorded, "", err
	}
	events := e.hookEvents()
	switch {
	case found == nil && !write:
		return 0, "", reconciler.Wait(forgev1.ReasonDriftDetected, "no hook: one would be created")
	case found == nil:
		id, err := e.create(ctx, sc, url, events)
		if err != nil {
			return 0, "", err
		}
		e.held[strings.ToLower(org)] = true
		return id, "hook created", nil
	case found.Type != hookTypeGitea || (e.path != "" && found.Config["url"] != url):
		// A new secret (its path moved with it) or a new spec.url: the
		// forge cannot change a hook's secret (nor its type), so the hook
		// is made anew.
		if !write {
			return found.ID, "", reconciler.Wait(forgev1.ReasonDriftDetected, "the hook's URL or type differs: it would be replaced")
		}
		id, change, err := e.replace(ctx, sc, found.ID, url, events)
		if id != found.ID {
			e.held[strings.ToLower(org)] = true
		}
		return id, change, err
	}
	// The hook delivers to the Receiver's URL, whose path only its secret
	// derives.
	e.held[strings.ToLower(org)] = true
	change := "hook adopted"
	if found.ID == recorded {
		change = ""
	}
	diff := hookDiff(found, events)
	if len(diff) == 0 {
		return found.ID, change, nil
	}
	if !write {
		return found.ID, "", reconciler.Wait(forgev1.ReasonDriftDetected, "the hook's %s differ", strings.Join(diff, ", "))
	}
	active := true
	_, err = e.fc.EditHook(ctx, sc, found.ID, forge.EditHookOption{
		Config: map[string]string{"url": url, "content_type": "json"}, Events: events, BranchFilter: "*", Active: &active})
	if err != nil {
		return found.ID, "", err
	}
	return found.ID, "hook corrected: " + strings.Join(diff, ", "), nil
}

// find reads the organization's hooks: the recorded one, else the one of
// the Receiver's type and URL no OrgHook holds. One an OrgHook holds, or
// an OrgHook delivering to the Receiver's URL, is a Conflict.
func (e *receiverSet) find(ctx context.Context, sc forge.Scope, recorded int64, held []forgev1.OrgHook) (*forge.Hook, error) {
	url := e.hookURL()
	all, err := e.fc.ListHooks(ctx, sc)
	if err != nil {
		if forge.IsNotFound(err) {
			return nil, reconciler.Wait(forgev1.ReasonParentNotFound, "organization %s not found", sc.Owner)
		}
		return nil, err
	}
	var found *forge.Hook
	if i := slices.IndexFunc(all, func(h forge.Hook) bool { return recorded != 0 && h.ID == recorded }); i >= 0 {
		found = &all[i]
	}
	if found == nil && e.path != "" {
		var match []*forge.Hook
		for i, h := range all {
			if h.Type == hookTypeGitea && h.Config["url"] == url && orgHookHolding(held, h.ID, "") == "" {
				match = append(match, &all[i])
			}
		}
		if len(match) == 1 {
			found = match[0]
		}
	}
	var id int64
	if found != nil {
		id = found.ID
	}
	if who := orgHookHolding(held, id, url); who != "" {
		return nil, reconciler.Stall(forgev1.ReasonConflict, "%s holds the hook or delivers to the Receiver's URL: the Receiver writes no hook beside it", who)
	}
	return found, nil
}

// hookDiff names what of a Receiver's hook differs from what it needs.
func hookDiff(h *forge.Hook, events []string) []string {
	var diff []string
	if h.Config["content_type"] != "json" {
		diff = append(diff, "contentType")
	}
	if !h.Active {
		diff = append(diff, "active")
	}
	if !slices.Equal(hooks.NormalizeEvents(h.Events), events) {
		diff = append(diff, "events")
	}
	if h.BranchFilter != "" && h.BranchFilter != "*" {
		diff = append(diff, "branchFilter")
	}
	return diff
}

// replace makes the hook anew, then deletes the old one.
func (e *receiverSet) replace(ctx context.Context, sc forge.Scope, old int64, url string, events []string) (int64, string, error) {
	id, err := e.create(ctx, sc, url, events)
	if err != nil {
		return old, "", err
	}
	if err := e.fc.DeleteHook(ctx, sc, old); err != nil && !forge.IsNotFound(err) {
		return id, "hook replaced", err
	}
	return id, "hook replaced", nil
}

func (e *receiverSet) create(ctx context.Context, sc forge.Scope, url string, events []string) (int64, error) {
	if e.secretValue == "" {
		return 0, reconciler.Wait(forgev1.ReasonSecretNotFound, "the hooks' secret is not readable yet")
	}
	h, err := e.fc.CreateHook(ctx, sc, forge.CreateHookOption{Type: hookTypeGitea,
		Config: map[string]string{"url": url, "content_type": "json", "secret": e.secretValue},
		Events: events, BranchFilter: "*", Active: true})
	if err != nil {
		return 0, err
	}
	return h.ID, nil
}

// Remove deletes the hooks status records (deletionPolicy Delete).
func (e *receiverSet) Remove(ctx context.Context) (string, error) {
	st := &e.obj.Status
	n := 0
	for len(st.Hooks) > 0 {
		h := st.Hooks[0]
		if err := e.fc.DeleteHook(ctx, forge.OrgScope(h.Organization), h.ID); err != nil && !forge.IsNotFound(err) {
			return "", err
		}
		st.Hooks = st.Hooks[1:]
		n++
	}
	return fmt.Sprintf("deleted the receiver's %d hooks", n), nil
}

// hookTypeGitea is the hooks' type: Gitea's own payload, which Forgejo
// sends as well.
const hookTypeGitea = "gitea"

// branchWoken is a repository child whose objects depend on the
// repository's branches (a branch rule): a branch created there (a
// Receiver's create event) passes over it at once.
type branchWoken[T forgev1.Managed] struct{ child.Kind[T] }

// WokenByBranches marks the kind (reconciler.BranchWoken).
func (branchWoken[T]) WokenByBranches() {}

// WokenByBranches: a branch created in a repository the set selects
// passes over the set at once (reconciler.BranchWoken).
func (branchProtectionSetKind) WokenByBranches() {}
