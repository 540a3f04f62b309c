// Package reconciler is the reconcile loop every managed kind shares. A kind
// supplies only how to observe, create, update and delete its forge object
// (and its natural key, if it has one); the loop does the rest, once: Forge
// resolution, finalizers, deletion and management policies, suspend,
// adoption, the create-pending mark, conflicts between resources, drift
// checks on a jittered interval, conditions, Events, metrics, and the
// mapping of errors to retries.
//
// The shape follows crossplane-runtime's managed reconciler (Observe never
// writes, Create is safe to repeat, Delete of a missing object succeeds) and
// Flux's habit of writing status once per pass from one summary.
package reconciler

import (
	"context"
	"strconv"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/forge"
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

// External is one pass's view of one forge object.
type External interface {
	// Observe reads the forge object: by status.id when known, otherwise by
	// natural key (adoption). It never writes. It may fill kind-specific
	// status fields of the object.
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
	// ID and URL of the forge object.
	ID  int64
	URL string
	// Diff names the managed fields that differ from the spec; empty when up to date.
	Diff []string
	// Replace says the object must be created anew and the old one deleted,
	// because a field the forge cannot change differs; ReplaceBecause says which.
	Replace        bool
	ReplaceBecause string
}

// UpToDate reports whether nothing needs to change.
func (o Observation) UpToDate() bool { return o.Exists && len(o.Diff) == 0 && !o.Replace }

// Pass is what the loop hands a kind for one pass.
type Pass struct {
	// Forge is the client of the referenced Forge.
	Forge forge.Interface
	// ForgeObject is the referenced Forge (for its server version).
	ForgeObject *forgev1.Forge
	// Reader reads Secrets, uncached.
	Reader client.Reader
	// Pending is true when a create-pending mark is set: a create may have
	// succeeded without its response arriving, so look before creating.
	Pending bool

	claimedBy func(ctx context.Context, id int64) (string, error)
}

// ClaimedBy names another resource of the kind (namespace/name) that holds
// forge object id, "" when none does.
func (p *Pass) ClaimedBy(ctx context.Context, id int64) (string, error) {
	if p.claimedBy == nil {
		return "", nil
	}
	return p.claimedBy(ctx, id)
}

// One returns the one item that match selects from a forge listing, nil when
// none does. The forge allows several labels of one name, projects of one
// title, runners of one name: when several match, it returns a Conflict
// stall instead, counting them and listing their ids after what
// ("labels named "bug" exist in acme/web"), followed by advice.
func One[T any](items []T, match func(T) bool, id func(T) int64, what, advice string) (*T, error) {
	var found []int
	for i, it := range items {
		if match(it) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return &items[found[0]], nil
	}
	ids := make([]string, len(found))
	for i, at := range found {
		ids[i] = strconv.FormatInt(id(items[at]), 10)
	}
	return nil, Stall(forgev1.ReasonConflict, "%d %s (ids %s); %s", len(found), what, strings.Join(ids, ", "), advice)
}
