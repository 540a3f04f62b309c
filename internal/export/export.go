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

// Package export writes the resources that describe what a forge holds for
// one organization (the organization, its teams, hooks, labels, Actions
// values and disabled runners; its repositories and what each holds, with
// what several repositories hold alike as sets), as a YAML stream that the
// operator adopts without a write: every field is the forge's own value
// (unset where the forge holds nothing), every resource has deletionPolicy
// Orphan, and no credential is ever written (hook secrets cannot be read;
// chat webhook URLs and authorization headers become references to Secrets
// to create). Runner registration tokens are not exported: the forge hands
// one out on request and lists none, so there is nothing to describe (a
// RunnerRegistrationToken is written by hand where runners need one).
//
// This package holds the walk (the organization, then its repositories
// sorted by name), the YAML writing and the helpers the writers share
// (Builder); each kind's Writer is declared in the kind's file in
// controllers and given to Export in Options.Writers.
package export

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Source is what the walk reads from the forge; each Writer reads the
// rest through an interface of its own, which the Source must offer too
// (a *forge.Client offers every one). The export never writes.
type Source interface {
	forge.ServerClient
	GetOrg(ctx context.Context, name string) (*forge.Organization, error)
	ListOrgRepos(ctx context.Context, org string) ([]forge.Repository, error)
}

// Options say what to export and how the resources are written.
type Options struct {
	// Org is the organization's name on the forge.
	Org string
	// ForgeRef is the connection the resources refer to: a Forge in their
	// namespace (default "gitea") or a ClusterForge (ParseForgeRef reads
	// the command line's form of it).
	ForgeRef forgev1.ForgeReference
	// Namespace of the resources; none when "".
	Namespace string
	// Server is the forge's URL, for the header comment.
	Server string
	// Now stamps the header comment.
	Now time.Time
	// Writers are the kinds' writers, in the order of the output: in the
	// organization's pass those for the organization and for scopes run
	// in this order, then in each repository's pass (repositories sorted
	// by name) those for repositories, scopes, live repositories and the
	// aggregates' collections, then the aggregates write.
	Writers []Writer
}

// DefaultForgeRef is the Forge the resources refer to when none is given.
const DefaultForgeRef = "gitea"

// ParseForgeRef reads --forge-ref: NAME (a Forge in the resources'
// namespace), Forge/NAME, or ClusterForge/NAME, the kind in any case.
func ParseForgeRef(s string) (forgev1.ForgeReference, error) {
	kind, name, qualified := strings.Cut(s, "/")
	if !qualified {
		kind, name = forgev1.ForgeKind, s
	}
	var ref forgev1.ForgeReference
	switch {
	case strings.EqualFold(kind, forgev1.ForgeKind):
		// Forge is the default kind: written as a plain name, as before.
	case strings.EqualFold(kind, forgev1.ClusterForgeKind):
		ref.Kind = forgev1.ClusterForgeKind
	default:
		return ref, fmt.Errorf("unknown kind %q in %q: want NAME, Forge/NAME or ClusterForge/NAME", kind, s)
	}
	if name == "" {
		return ref, fmt.Errorf("no name in %q: want NAME, Forge/NAME or ClusterForge/NAME", s)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return ref, fmt.Errorf("%q is not a %s's name: %s", name, cmp.Or(ref.Kind, forgev1.ForgeKind), strings.Join(errs, "; "))
	}
	ref.Name = name
	return ref, nil
}

// Export reads the organization and writes its resources to w.
func Export(ctx context.Context, src Source, opts Options, w io.Writer) error {
	if opts.ForgeRef.Name == "" {
		opts.ForgeRef = forgev1.ForgeReference{Name: DefaultForgeRef}
	}
	for _, wr := range opts.Writers {
		if !wr.reads(src) {
			return fmt.Errorf("the export's source %T cannot read as %v", src, wr.reader) // a bug: a writer reads more than the client offers
		}
	}
	version, err := src.Version(ctx)
	if err != nil {
		return fmt.Errorf("read the server version: %w", err)
	}
	org, err := src.GetOrg(ctx, opts.Org)
	if err != nil {
		return fmt.Errorf("read organization %q: %w", opts.Org, err)
	}
	b := newBuilder(opts, version)
	if err := walk(ctx, b, src, org); err != nil {
		return err
	}

	where := "a namespace holding " + opts.ForgeRef.String()
	if opts.ForgeRef.Cluster() {
		// A ClusterForge writes only for the namespaces and owners its
		// tenants entries allow; elsewhere every object is NotPermitted.
		where = fmt.Sprintf("a namespace that %s allows to manage %s", opts.ForgeRef, org.Name)
	}
	header := fmt.Sprintf("# forge-operator export of organization %s from %s (server version %s) at %s.\n"+
		"# Applying it to %s adopts every object without changing the forge;\n"+
		"# every resource has deletionPolicy: Orphan, so deleting one never deletes the forge object.\n",
		org.Name, opts.Server, version, opts.Now.UTC().Format(time.RFC3339), where)
	if _, err := io.WriteString(w, header); err != nil {
		return err
	}
	for _, d := range b.docs {
		if err := d.write(w); err != nil {
			return err
		}
	}
	return nil
}

// walk runs the writers over the organization and then over each of its
// repositories, sorted by name, in the writers' order (see Options.Writers).
func walk(ctx context.Context, b *Builder, src Source, org *forge.Organization) error {
	writers := b.opts.Writers
	collections := make([]collection, len(writers))
	for i, wr := range writers {
		var err error
		switch wr.where {
		case inOrganization:
			err = wr.write(ctx, b, src, place{org: org})
		case inScope:
			err = wr.write(ctx, b, src, place{org: org, scope: forge.OrgScope(org.Name)})
		case inAggregate:
			collections[i] = wr.collection()
		}
		if err != nil {
			return err
		}
	}
	repos, err := src.ListOrgRepos(ctx, org.Name)
	if err != nil {
		return fmt.Errorf("list the repositories of organization %q: %w", org.Name, err)
	}
	slices.SortFunc(repos, func(x, y forge.Repository) int { return strings.Compare(x.Name, y.Name) })
	for _, r := range repos {
		at := place{org: org, scope: forge.RepoScope(org.Name, r.Name), repo: r}
		for i, wr := range writers {
			var err error
			switch {
			case wr.where == inRepository:
				err = wr.write(ctx, b, src, at)
			case r.Archived:
				// Archived means frozen: nothing in it but the Repository
				// is written, and the aggregates skip it too.
			case wr.where == inScope || wr.where == inLiveRepository:
				err = wr.write(ctx, b, src, at)
			case wr.where == inAggregate:
				err = collections[i].collect(ctx, src, at)
			}
			if err != nil {
				return err
			}
		}
	}
	for i, wr := range writers {
		if wr.where == inAggregate {
			if err := collections[i].write(ctx, b, src, org.Name); err != nil {
				return err
			}
		}
	}
	return nil
}
