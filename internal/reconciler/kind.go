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
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// Kind is what one managed kind supplies to the loop.
type Kind[T forgev1.Managed] interface {
	// New returns an empty object of the kind.
	New() T
	// NewList returns an empty list of the kind.
	NewList() client.ObjectList
	// Key is the object's natural key on its forge, such as the scope and
	// name of a label, normalised so that equal keys mean the same forge
	// object; "" when the kind has none. Two resources with one key conflict.
	Key(obj T) string
	// Describe names the forge object for messages, e.g. `label "kind/bug" in acme/web`.
	Describe(obj T) string
	// Secrets lists the Secrets (in obj's namespace) obj references itself;
	// a change to one of them triggers a pass.
	Secrets(obj T) []string
	// Connect prepares one pass over obj: it reads what obj references
	// (Secrets) and returns the kind's view of the forge object.
	Connect(ctx context.Context, obj T, pass *Pass) (External, error)
}

// RepoScoped is implemented by kinds whose objects live in repositories.
// RepoRefs names the repositories obj lives in, as "owner/name", or
// "owner/*" for every repository of an owner (a set selecting by
// organization); none for an object of an organization. A Repository
// resource of one of them becoming Ready requeues obj at once, rather than
// at its next backoff (DESIGN "Repository").
type RepoScoped[T forgev1.Managed] interface {
	RepoRefs(obj T) []string
}

// RepoResident is a RepoScoped kind whose objects live in the
// repositories RepoRefs names (not one that only names them, as a Team
// its repositories): its pass reads the forge there before it writes, so
// a repository it reached exists, and the loop does not wait before the
// write for a Repository resource that declares it (refs.go).
// LivesInRepository says so; false for a kind that implements the method
// (a declaration shared by many kinds) but reads nothing there before it
// writes (a RunnerRegistrationToken, kept in its Secret).
type RepoResident interface {
	LivesInRepository() bool
}

// Forgetter is a kind that keeps something of its resources in memory
// (a set's round): the loop tells it when a resource is gone.
type Forgetter interface {
	Forget(key types.NamespacedName)
}

// RepoSelector is a set kind whose repositories a selector picks (an
// organization and name globs): a Repository resource of its server that
// becomes Ready (created or adopted) and that the selector picks re-runs
// the set at once, whose listing of repositories is then taken afresh
// (Pass.Arrived), rather than at its next interval.
type RepoSelector[T forgev1.Managed] interface {
	SelectsRepository(obj T, owner, name string) bool
}

// ConfigMapReader is implemented by kinds whose objects read ConfigMaps
// (in their namespace): a change to one of them requeues the objects that
// name it.
type ConfigMapReader[T forgev1.Managed] interface {
	ConfigMaps(obj T) []string
}

// WriteGuard is implemented by kinds that check before a pass writes to
// the forge (a create, replace or update): an error stops the pass, such
// as a Stall with RepositoryArchived for an object of an archived repository.
type WriteGuard[T forgev1.Managed] interface {
	BeforeWrite(ctx context.Context, obj T, pass *Pass) error
}

// Scoped is implemented by every kind: WriteScopes names the token scopes
// (forge.ScopeWriteOrganization, ...) obj's writes need on a server that
// tells a token's scopes (Gitea 1.27's GET /token, the Forge's
// status.tokenScopes), as Gitea's routes ask them of the calls the kind
// makes; create says the pass creates the forge object (a repository's
// create needs its owner's scope too). A resource whose token lacks one
// stalls, InsufficientScope, before it writes.
type Scoped[T forgev1.Managed] interface {
	WriteScopes(obj T, pass *Pass, create bool) []string
}

// AbsenceConfirmer is implemented by an External that can confirm the
// absence of its object more cheaply than by observing it through a fresh
// listing of its scope (one GET by name instead of a listing of many
// pages). The loop asks it before a create decided on a paged listing.
type AbsenceConfirmer interface {
	ConfirmAbsent(ctx context.Context) (Observation, error)
}

// Noticer is an External whose writes have something to tell besides the
// pass's own Event (a rotation that brought back the token kept already):
// the loop emits its notices after a write that succeeded.
type Noticer interface {
	WriteNotices() []Event
}

// Keeper is an External whose object is kept somewhere other than on the
// forge (a RunnerRegistrationToken's token, in its Secret): a create after
// it went missing says where it was missing.
type Keeper interface {
	KeptIn() string
}

// External is one pass's view of one forge object.
type External interface {
	// Observe reads the forge object: by status.id when known, otherwise by
	// natural key (adoption). It never writes. It may fill kind-specific
	// status fields of the object. It may return the object it found with
	// an error that ends the pass before any write (a stall): the loop
	// records the object's identity all the same.
	Observe(ctx context.Context) (Observation, error)
	// Create creates the forge object and returns what Observe would.
	Create(ctx context.Context) (Observation, error)
	// Update sets the managed fields of the observed object to the spec.
	Update(ctx context.Context, obs Observation) error
	// Delete removes the observed object; a missing object is not an error.
	Delete(ctx context.Context, obs Observation) error
}

// Observation is what Observe found.
type Observation struct {
	// Exists is false when no forge object matches.
	Exists bool
	// ID and URL of the forge object. Name is the forge's name of an
	// object it addresses by name and gives no id (status.externalName);
	// such a kind leaves ID 0. The natural key (Kind.Key) of such a kind
	// is its identity: two resources with one key conflict.
	ID   int64
	Name string
	URL  string
	// Diff names the managed fields that differ from the spec; empty when up
	// to date. It is Fields(Changes) where the kind reports Changes.
	Diff []string
	// Changes are the differing fields with the forge's and the spec's
	// values as plan prints them; a Secret-backed value is never shown.
	Changes []Change
	// Unknown names the fields that could not be compared because the
	// Secret holding the spec's value could not be read (plan without
	// access to the cluster); the loop never sees one.
	Unknown []string
	// Replace says the object must be created anew and the old one deleted,
	// because a field the forge cannot change differs; ReplaceBecause says which.
	Replace        bool
	ReplaceBecause string
	// Notices are Events the kind wants told with the pass's outcome,
	// such as a Warning that digests were recorded under another key.
	Notices []Event
	// Left is what the resource leaves to another that enforces it (a
	// Stall, reason Conflict, naming the fields or paths and the holder):
	// the kind left those out of Diff, the pass writes the rest and then
	// ends in Left's state instead of Ready.
	Left error
}

// Change is one managed field that differs: Have is the forge's value and
// Want the spec's, both formatted for people (strings quoted).
type Change struct {
	Field, Have, Want string
}

// Fields names the fields of changes, sorted and without repeats: an
// Observation's Diff.
func Fields(changes []Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Field)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ErrUnreadable marks a Secret that a read-only run (plan) was not allowed
// to read: the kinds then report the fields it backs as Unknown instead of
// failing.
var ErrUnreadable = errors.New("not readable by this run")

// ident names the observed object for Events: `id 7` or `name "TOKEN"`.
func (o Observation) ident() string {
	if o.ID == 0 && o.Name != "" {
		return fmt.Sprintf("name %q", o.Name)
	}
	return fmt.Sprintf("id %d", o.ID)
}

// sameObject reports whether status records the object observed.
func sameObject(status *forgev1.ManagedStatus, o Observation) bool {
	if o.ID == 0 && o.Name != "" {
		return status.ExternalName == o.Name
	}
	return status.ID == o.ID
}

// UpToDate reports whether nothing needs to change.
func (o Observation) UpToDate() bool { return o.Exists && len(o.Diff) == 0 && !o.Replace }

// Pass is what the loop hands a kind for one pass.
type Pass struct {
	// Forge is the client of the referenced Forge.
	Forge forge.Interface
	// Server is what the forge is and can do, from its reported version.
	Server forge.Server
	// WebURL is the forge's web root (spec.url without /api/v1), for the URLs of its objects.
	WebURL string
	// Login and UserID are the user the Forge's or ClusterForge's
	// credentials belong to (its status.login and status.userID, recorded
	// by the connection's check from GET /user; empty and 0 until then):
	// a kind that manages users writes nothing to that account.
	Login  string
	UserID int64
	// Scopes are the token's scopes (the Forge's status.tokenScopes); nil
	// when the server does not tell them or no token is used.
	Scopes []string
	// CommitAuthor is the author the connection pins for every commit
	// made through it (a ClusterForge's spec.commitAuthor); nil: each
	// resource's spec.author, else the connection's user.
	CommitAuthor *forgev1.CommitAuthor
	// forgeRef names the Forge or ClusterForge, for messages.
	forgeRef string
	// Reader reads Secrets, uncached.
	Reader client.Reader
	// Writer creates what a kind keeps in the cluster for its resources
	// (a DeployKey's generated key pair, in a Secret the resource owns);
	// nil outside the loop (plan), which writes nothing.
	Writer client.Writer
	// Cache reads the operator's resources from the manager's cache: a set
	// kind lists the other resources of its namespace, not to fight them.
	Cache client.Reader
	// Metadata, when set, reads Secrets' metadata from the manager's cache
	// (its Secret watches keep it; connection.SecretVersion): a kind that
	// recorded the resourceVersion of a Secret whose value it sent can tell
	// it unchanged without reading it. Nil outside the loop (plan), where
	// Secrets are read whole.
	Metadata client.Reader
	// Pending is true when a create-pending mark is set: a create may have
	// succeeded without its response arriving, so look before creating.
	Pending bool
	// Interval is the resource's sync interval.
	Interval time.Duration
	// FullCheckEvery is the connection's spec.fullCheckEvery: how many
	// intervals apart a file kind checks every repository completely,
	// between which it lists a tree only where the repository moved (0
	// outside the loop: every check is complete).
	FullCheckEvery int
	// Afresh is true when the pass must read the forge as it is now (a
	// reconcile was requested): a set begins its round of repositories anew.
	Afresh bool
	// Arrived is when the last of the repositories a set selects became
	// Ready as a Repository resource (zero when none did): a listing of the
	// set's repositories older than that may lack it (RepoSelector).
	Arrived func() time.Time

	reads *forge.ReadPolicy // how the pass reads the forge (readPolicy)

	claimedBy func(ctx context.Context, id int64) (string, error)
	admins    func(ctx context.Context) (claims.Permission, error)
}

// Admins says whether the pass may make, adopt or keep site
// administrators (a kind that manages users): through a ClusterForge, only
// a tenants entry with siteAdmin and grantAdmin whose owners match every
// owner of the resource lets it, decided afresh at each call from the
// ClusterForge and the namespace's labels as the manager's cache holds
// them. A pass no ClusterForge decides (plan, which writes nothing) may.
func (p *Pass) Admins(ctx context.Context) (claims.Permission, error) {
	if p.admins == nil {
		return claims.Permission{Allowed: true}, nil
	}
	return p.admins(ctx)
}

// WithAdmins sets what Admins answers, for a Pass built outside the loop.
func (p *Pass) WithAdmins(f func(ctx context.Context) (claims.Permission, error)) *Pass {
	p.admins = f
	return p
}

// ClaimedBy names another resource of the kind (namespace/name) that holds
// forge object id, "" when none does.
func (p *Pass) ClaimedBy(ctx context.Context, id int64) (string, error) {
	if p.claimedBy == nil {
		return "", nil
	}
	return p.claimedBy(ctx, id)
}

// WithClaimedBy sets what ClaimedBy answers, for a Pass built outside the
// loop (plan, whose holders are the other objects it plans).
func (p *Pass) WithClaimedBy(f func(ctx context.Context, id int64) (string, error)) *Pass {
	p.claimedBy = f
	return p
}
