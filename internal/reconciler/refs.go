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
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// References: what one apply declares, the others wait for (DESIGN
// "Reconciliation semantics"). A resource references forge objects (its
// repository, the teams and users of an allow-list, a team's members, a
// template) and a resource of the Repository, Team, User and Organization
// kinds declares one (its own). While a resource of the same server
// declares an object that a resource references, in a way that could be
// honoured (claims.Servers.Awaits: its connection Ready and permitted, in
// the referencing resource's namespace or under the same ClusterForge),
// and has neither become Ready nor recorded its object on the forge, the
// referencing resource writes nothing: it waits (Reconciling,
// TeamNotFound, UserNotFound or ParentNotFound, naming the declaring
// resource), is retried at its sync interval without backing off, and
// goes on at once when the declaring resource becomes Ready (a watch on
// the declaring kinds, through the index of references). A reference
// nothing declares, or only another tenant declares, is left to the
// forge's answer, as before.

// Ref is a forge object one resource references or declares.
type Ref struct {
	// Kind is RefRepository, RefTeam, RefUser or RefOrganization.
	Kind string
	// Name is the object's name on the forge: "owner/name" of a
	// repository, "org/team" of a team, a user's login, an organization's
	// name. Names compare without case, as the forge compares them.
	Name string
}

// The kinds of forge object a Ref names.
const (
	RefRepository   = "Repository"
	RefTeam         = "Team"
	RefUser         = "User"
	RefOrganization = "Organization"
)

// Referrer is a kind whose resources reference forge objects that other
// resources may declare (besides the repositories of RepoScoped, which
// count as references too): a resource waits before it writes while a
// resource of its server that declares one of them is on its way.
type Referrer[T forgev1.Managed] interface {
	References(obj T) []Ref
}

// Declarer is a kind whose resources declare forge objects others may
// reference: a Repository its owner/name, a Team its org/name, a User its
// login, an Organization its name.
type Declarer[T forgev1.Managed] interface {
	Declares(obj T) []Ref
}

// Field indexes of references: declaring resources by what they declare,
// referencing ones by what they reference, both cluster-wide (the server
// is decided when asking, as for claims).
const (
	indexDeclares   = ".forgeDeclares"
	indexReferences = ".forgeReferences"
)

// refValue is a Ref's index value: its kind and its name in lower case.
func refValue(ref Ref) string { return ref.Kind + "\x00" + strings.ToLower(ref.Name) }

// String names the object for messages: Team "web" in acme, User "alice".
func (ref Ref) String() string {
	if ref.Kind == RefTeam {
		if org, team, ok := strings.Cut(ref.Name, "/"); ok {
			return fmt.Sprintf("%s %q in %s", ref.Kind, team, org)
		}
	}
	return fmt.Sprintf("%s %q", ref.Kind, ref.Name)
}

// reason is the condition reason of a wait for ref.
func (ref Ref) reason() string {
	switch ref.Kind {
	case RefTeam:
		return forgev1.ReasonTeamNotFound
	case RefUser:
		return forgev1.ReasonUserNotFound
	}
	return forgev1.ReasonParentNotFound
}

// errAwaiting marks a wait for a declared object: it is retried at the
// resource's sync interval, not with backoff, as the declaring resource
// becoming Ready brings it back.
var errAwaiting = errors.New("waiting for a declared object")

// refsOf is what obj references: its RepoRefs as repositories (not the
// "owner/*" of a set), then its References, without repeats.
func refsOf[T forgev1.Managed](kind Kind[T], obj T) []Ref {
	var out []Ref
	if rs, ok := any(kind).(RepoScoped[T]); ok {
		for _, r := range rs.RepoRefs(obj) {
			if !strings.HasSuffix(r, "/*") {
				out = append(out, Ref{Kind: RefRepository, Name: r})
			}
		}
	}
	if rf, ok := any(kind).(Referrer[T]); ok {
		out = append(out, rf.References(obj)...)
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(r Ref) bool {
		v := refValue(r)
		if r.Name == "" || seen[v] {
			return true
		}
		seen[v] = true
		return false
	})
}

// declaring is one declaring kind as its manager serves it.
type declaring struct {
	kind     string
	list     func() client.ObjectList
	declares func(client.Object) []Ref // nil for another type
}

// declarers are the declaring kinds one manager serves, filled by Setup.
type declarers struct {
	mu    sync.RWMutex
	kinds []declaring
}

func (d *declarers) add(k declaring) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.kinds = append(d.kinds, k)
}

func (d *declarers) all() []declaring {
	if d == nil {
		return nil
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	return slices.Clone(d.kinds)
}

// declarersByManager keeps each manager's declarers: the kinds of one
// manager are set up one by one, a referring kind before or after the
// kinds it references.
var declarersByManager sync.Map // ctrl.Manager -> *declarers

func declarersOf(mgr ctrl.Manager) *declarers {
	d, _ := declarersByManager.LoadOrStore(mgr, &declarers{})
	return d.(*declarers)
}

// declaringTypes are the kinds a Ref can name, watched by the referring kinds.
var declaringTypes = map[string]func() client.Object{
	RefRepository:   func() client.Object { return &forgev1.Repository{} },
	RefTeam:         func() client.Object { return &forgev1.Team{} },
	RefUser:         func() client.Object { return &forgev1.User{} },
	RefOrganization: func() client.Object { return &forgev1.Organization{} },
}

// setupRefs registers what Setup needs for references: the indexes of a
// declaring and of a referencing kind, the kind among its manager's
// declarers, and a referencing kind's watches on the kinds it may wait for.
func (r *Reconciler[T]) setupRefs(ctx context.Context, mgr ctrl.Manager, b *builder.TypedBuilder[ctrl.Request]) (*builder.TypedBuilder[ctrl.Request], error) {
	r.declarers = declarersOf(mgr)
	if dk, ok := any(r.kind).(Declarer[T]); ok {
		err := mgr.GetFieldIndexer().IndexField(ctx, r.kind.New(), indexDeclares, func(o client.Object) []string {
			var out []string
			for _, ref := range dk.Declares(o.(T)) {
				out = append(out, refValue(ref))
			}
			return out
		})
		if err != nil {
			return nil, fmt.Errorf("index %s by %s: %w", r.kindName, indexDeclares, err)
		}
		r.declarers.add(declaring{kind: r.kindName, list: r.kind.NewList, declares: func(o client.Object) []Ref {
			if t, ok := o.(T); ok {
				return dk.Declares(t)
			}
			return nil
		}})
	}
	var watched []string
	if _, ok := any(r.kind).(Referrer[T]); ok {
		watched = []string{RefRepository, RefTeam, RefUser, RefOrganization}
	} else if _, ok := any(r.kind).(RepoScoped[T]); ok {
		watched = []string{RefRepository}
	}
	if len(watched) == 0 {
		return b, nil
	}
	err := mgr.GetFieldIndexer().IndexField(ctx, r.kind.New(), indexReferences, func(o client.Object) []string {
		var out []string
		for _, ref := range refsOf(r.kind, o.(T)) {
			out = append(out, refValue(ref))
		}
		return out
	})
	if err != nil {
		return nil, fmt.Errorf("index %s by %s: %w", r.kindName, indexReferences, err)
	}
	for _, k := range watched {
		// A declaring resource that becomes Ready (or Stalled, or goes)
		// lets the resources waiting for it go on.
		b = b.Watches(declaringTypes[k](), handler.EnqueueRequestsFromMapFunc(r.forDeclarer),
			builder.WithPredicates(declarerSettled{}))
	}
	return b, nil
}

// waitsOn reports whether declaring resource d is on its way: not Ready
// at its generation and, unless the forge already said the object is
// missing (afterNotFound), without a record of its object on the forge
// (one already there is not waited for: a Team stalled for another
// reason after it exists does not hold up the resources naming it).
// A resource that is going, suspended, only observing, or stalled (it
// needs its user's change, and its referrers' own passes tell what the
// forge says meanwhile) is not waited for either.
func waitsOn(d forgev1.Managed, afterNotFound bool) bool {
	spec := d.GetManagedSpec()
	if !d.GetDeletionTimestamp().IsZero() || spec.Suspend || spec.ManagementPolicy == forgev1.ManagementPolicyObserve {
		return false
	}
	if conditions.IsReady(d, d.GetGeneration()) || (!afterNotFound && d.GetManagedStatus().Known()) {
		return false
	}
	return !stalled(d)
}

// awaitRefs returns a Waiting error (errAwaiting) when obj references a
// forge object that a resource of its server declares and waits on
// (waitsOn), naming that resource as obj's namespace may learn of it
// (HolderFor); nil when none does. A declaring resource that is settled
// (Ready, or its object recorded) settles the reference, whatever others
// declaring it do.
//
// Before a write (not afterNotFound) the repositories a RepoResident's
// object lives in are not waited for: the pass's reads there succeeded, so
// the repository exists, and a Repository resource still adopting it
// would only delay the write by a status write and a pass (a repository
// that is missing fails the read, ParentNotFound, and is waited for then).
func (r *Reconciler[T]) awaitRefs(ctx context.Context, obj T, afterNotFound bool) error {
	refs := refsOf(r.kind, obj)
	if rr, ok := any(r.kind).(RepoResident); ok && rr.LivesInRepository() && !afterNotFound {
		refs = slices.DeleteFunc(refs, func(ref Ref) bool { return ref.Kind == RefRepository })
	}
	return r.awaitFor(ctx, obj, refs, afterNotFound)
}

// awaitSetRefs is awaitRefs for a set before the first pass at its
// generation writes: its teams and users only, as each repository it
// selects is waited for, or reported failing, on its own.
func (r *Reconciler[T]) awaitSetRefs(ctx context.Context, obj T) error {
	if readyAtGeneration(obj) {
		return nil
	}
	refs := slices.DeleteFunc(refsOf(r.kind, obj), func(ref Ref) bool { return ref.Kind == RefRepository })
	return r.awaitFor(ctx, obj, refs, false)
}

func (r *Reconciler[T]) awaitFor(ctx context.Context, obj T, refs []Ref, afterNotFound bool) error {
	kinds := r.declarers.all()
	if len(refs) == 0 || len(kinds) == 0 {
		return nil
	}
	var servers *claims.Servers
	serversOf := func() (*claims.Servers, error) {
		var err error
		if servers == nil {
			servers, err = claims.ServersOf(ctx, r.client, obj)
		}
		return servers, err
	}
	for _, ref := range refs {
		d, kind, err := r.onItsWay(ctx, obj, kinds, ref, serversOf, afterNotFound)
		if err != nil {
			return err
		}
		if d != nil {
			return &Error{State: conditions.Waiting, Reason: ref.reason(), Err: errAwaiting,
				Message: fmt.Sprintf("waiting for %s, declared by %s, which is not Ready yet", ref, claims.HolderFor(obj.GetNamespace(), kind, d))}
		}
	}
	return nil
}

// onItsWay returns the oldest resource of obj's server (and its kind)
// that declares ref in a way obj awaits (claims.Servers.Awaits) and waits
// on it (waitsOn), nil when none does or one declaring it is settled.
func (r *Reconciler[T]) onItsWay(ctx context.Context, obj T, kinds []declaring, ref Ref,
	serversOf func() (*claims.Servers, error), afterNotFound bool) (client.Object, string, error) {
	var waiting client.Object
	var waitingKind string
	for _, k := range kinds {
		list := k.list()
		if err := r.client.List(ctx, list, client.MatchingFields{indexDeclares: refValue(ref)}, client.UnsafeDisableDeepCopy); err != nil {
			return nil, "", fmt.Errorf("list %s by %s: %w", k.kind, indexDeclares, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, "", err
		}
		for _, it := range items {
			d, ok := it.(forgev1.Managed)
			if !ok || d.GetUID() == obj.GetUID() || !d.GetDeletionTimestamp().IsZero() {
				continue
			}
			servers, err := serversOf()
			if err != nil {
				return nil, "", err
			}
			// A declaration that could not be honoured here (another
			// server, a connection not Ready or not permitted, another
			// tenant's) makes nothing wait, not even by being settled.
			if !servers.Awaits(ctx, obj, d) {
				continue
			}
			if !waitsOn(d, afterNotFound) {
				return nil, "", nil // settled, or not to be waited for: the forge answers
			}
			if waiting == nil || claims.Older(d, waiting) {
				waiting, waitingKind = d, k.kind
			}
		}
	}
	return waiting, waitingKind, nil
}

// awaiting is the Class of a failed pass that waits for a declared object
// (nil when it does not): the pass's own wait (awaitRefs before a write),
// or a failure that says a parent, team or user is missing while a
// resource of the server declares it and is on its way. Such a pass is
// retried at the sync interval, not with backoff.
func (r *Reconciler[T]) awaiting(ctx context.Context, obj T, err error, c Class) *Class {
	if errors.Is(err, errAwaiting) {
		return &c
	}
	switch c.Reason {
	case forgev1.ReasonParentNotFound, forgev1.ReasonTeamNotFound, forgev1.ReasonUserNotFound:
	default:
		return nil
	}
	werr := r.awaitRefs(ctx, obj, true)
	if werr == nil || !errors.Is(werr, errAwaiting) {
		return nil
	}
	wc, _ := Classify(werr)
	return &wc
}

// declarerSettled passes the updates of a declaring resource that end a
// wait for it (it becomes Ready, or Stalled, when it is no longer waited
// for), and its deletion. Recording its object alone wakes no one: the
// Ready that follows in its next pass does, and a referrer woken in
// between would only find the forge not ready yet and write its wait
// again (one more status write per referrer).
type declarerSettled struct{ predicate.Funcs }

func (declarerSettled) Create(event.CreateEvent) bool   { return false }
func (declarerSettled) Delete(event.DeleteEvent) bool   { return true }
func (declarerSettled) Generic(event.GenericEvent) bool { return false }
func (declarerSettled) Update(e event.UpdateEvent) bool {
	o, ok1 := e.ObjectOld.(forgev1.Managed)
	n, ok2 := e.ObjectNew.(forgev1.Managed)
	if !ok1 || !ok2 {
		return false
	}
	return (conditions.IsReady(n, n.GetGeneration()) && !conditions.IsReady(o, o.GetGeneration())) ||
		(stalled(n) && !stalled(o))
}

// stalled reports whether d is Stalled at its generation.
func stalled(d forgev1.Managed) bool {
	c := meta.FindStatusCondition(d.GetConditions(), forgev1.ConditionStalled)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == d.GetGeneration()
}

// forDeclarer enqueues the resources that reference what declaring
// resource o declares and would wait for it (claims.Servers.Awaits: those
// of its namespace, or under the same ClusterForge), and are not Ready:
// another tenant's resource becoming Ready wakes nothing of the platform's.
func (r *Reconciler[T]) forDeclarer(ctx context.Context, o client.Object) []ctrl.Request {
	var refs []Ref
	for _, k := range r.declarers.all() {
		refs = append(refs, k.declares(o)...)
	}
	d, ok := o.(forgev1.Managed)
	if len(refs) == 0 || !ok {
		return nil
	}
	servers, err := claims.ServersOf(ctx, r.client, d)
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "read the servers of a declaring resource", "name", o.GetName())
		return nil
	}
	var reqs []ctrl.Request
	seen := map[types.NamespacedName]bool{}
	for _, ref := range refs {
		reqs = append(reqs, r.requestsOf(ctx, "", indexReferences, refValue(ref), func(o client.Object) bool {
			t, ok := o.(T)
			key := types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
			if !ok || seen[key] || readyAtGeneration(t) || !servers.Reach(t.GetNamespace(), t.GetManagedSpec().ForgeRef) ||
				!servers.Awaits(ctx, t, d) {
				return false
			}
			seen[key] = true
			return true
		})...)
	}
	return reqs
}
