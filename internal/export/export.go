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
// one organization (the organization, its hooks, labels and disabled
// runners; per repository its hooks, projects, tag protections, disabled
// runners, and its labels as LabelSets), as a YAML stream that the operator adopts without a
// write: every field is the forge's own value (unset where the forge holds
// nothing), every resource has deletionPolicy Orphan, and no credential is
// ever written (hook secrets cannot be read; chat webhook URLs and
// authorization headers become references to Secrets to create). Runner
// registration tokens are not exported: the forge hands one out on request
// and lists none, so there is nothing to describe (a RunnerRegistrationToken
// is written by hand where runners need one).
package export

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Source is what the export reads from the forge; it never writes.
type Source interface {
	forge.ServerClient
	GetOrg(ctx context.Context, name string) (*forge.Organization, error)
	ListOrgRepos(ctx context.Context, org string) ([]forge.Repository, error)
	ListHooks(ctx context.Context, scope forge.Scope) ([]forge.Hook, error)
	ListLabels(ctx context.Context, scope forge.Scope) ([]forge.Label, error)
	ListProjects(ctx context.Context, scope forge.Scope, state string) ([]forge.Project, error)
	ListRunners(ctx context.Context, scope forge.Scope) ([]forge.Runner, error)
	ListCollaborators(ctx context.Context, owner, repo string) ([]forge.User, error)
	ListTeams(ctx context.Context, org string) ([]forge.Team, error)
	ListTeamMembers(ctx context.Context, id int64) ([]forge.User, error)
	ListTeamRepos(ctx context.Context, id int64) ([]forge.Repository, error)
	ListActionsSecrets(ctx context.Context, scope forge.Scope) ([]forge.ActionsSecret, error)
	ListActionsVariables(ctx context.Context, scope forge.Scope) ([]forge.ActionsVariable, error)
	ListBranchProtections(ctx context.Context, owner, repo string) ([]forge.BranchProtection, error)
	ListDeployKeys(ctx context.Context, owner, repo string) ([]forge.DeployKey, error)
	ListTagProtections(ctx context.Context, owner, repo string) ([]forge.TagProtection, error)
	ListPushMirrors(ctx context.Context, owner, repo string) ([]forge.PushMirror, error)
	GetCollaboratorPermission(ctx context.Context, owner, repo, user string) (string, error)
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
	version, err := src.Version(ctx)
	if err != nil {
		return fmt.Errorf("read the server version: %w", err)
	}
	org, err := src.GetOrg(ctx, opts.Org)
	if err != nil {
		return fmt.Errorf("read organization %q: %w", opts.Org, err)
	}
	b := &builder{opts: opts, names: map[string]bool{}, server: forge.NewServer(version)}
	b.organization(org)
	if err := b.scope(ctx, src, forge.OrgScope(org.Name)); err != nil {
		return err
	}
	if err := b.teams(ctx, src, org.Name); err != nil {
		return err
	}
	repos, err := src.ListOrgRepos(ctx, org.Name)
	if err != nil {
		return fmt.Errorf("list the repositories of organization %q: %w", org.Name, err)
	}
	slices.SortFunc(repos, func(x, y forge.Repository) int { return strings.Compare(x.Name, y.Name) })
	var labelled []repoLabels
	var protected []repoRules
	for _, r := range repos {
		if err := b.repository(ctx, src, org.Name, r); err != nil {
			return err
		}
		if r.Archived {
			continue // archived means frozen: LabelSets skip them too
		}
		labels, rules, err := b.repoObjects(ctx, src, org.Name, r.Name)
		if err != nil {
			return err
		}
		if len(labels) > 0 {
			labelled = append(labelled, repoLabels{repo: org.Name + "/" + r.Name, labels: labels})
		}
		if len(rules) > 0 {
			protected = append(protected, repoRules{repo: org.Name + "/" + r.Name, rules: rules})
		}
	}
	b.labelSets(org.Name, labelled)
	b.branchProtections(org.Name, protected)

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

// repoObjects writes the objects of a live repository (its hooks,
// runners, Actions values, projects, deploy keys and tag rules) and returns
// its labels and branch rules, which go into the organization's sets.
func (b *builder) repoObjects(ctx context.Context, src Source, owner, repo string) ([]forge.Label, []forge.BranchProtection, error) {
	rs := forge.RepoScope(owner, repo)
	if err := b.scope(ctx, src, rs); err != nil {
		return nil, nil, err
	}
	labels, err := src.ListLabels(ctx, rs)
	if err != nil {
		return nil, nil, fmt.Errorf("list the labels of %s: %w", rs, err)
	}
	if err := b.projects(ctx, src, owner, repo); err != nil {
		return nil, nil, err
	}
	if err := b.deployKeys(ctx, src, owner, repo); err != nil {
		return nil, nil, err
	}
	if err := b.tagProtections(ctx, src, owner, repo); err != nil {
		return nil, nil, err
	}
	if err := b.pushMirrors(ctx, src, owner, repo); err != nil {
		return nil, nil, err
	}
	rules, err := src.ListBranchProtections(ctx, owner, repo)
	if err != nil {
		return nil, nil, fmt.Errorf("list the branch protection rules of %s: %w", rs, err)
	}
	return labels, rules, nil
}

// scope writes the hooks and disabled runners of an organization or a
// repository, and for an organization its labels (a repository's labels
// go into LabelSets).
func (b *builder) scope(ctx context.Context, src Source, sc forge.Scope) error {
	hooks, err := src.ListHooks(ctx, sc)
	if err != nil {
		return fmt.Errorf("list the hooks of %s: %w", sc, err)
	}
	slices.SortFunc(hooks, func(x, y forge.Hook) int { return cmp.Compare(x.ID, y.ID) })
	for _, h := range hooks {
		b.hook(sc, h)
	}
	if sc.Repo == "" {
		labels, err := src.ListLabels(ctx, sc)
		if err != nil {
			return fmt.Errorf("list the labels of %s: %w", sc, err)
		}
		slices.SortFunc(labels, byNameThenID)
		b.orgLabels(sc.Owner, labels)
	}
	runners, err := src.ListRunners(ctx, sc)
	if err != nil && !forge.IsNotFound(err) && !forge.IsRouteNotFound(err) {
		return fmt.Errorf("list the runners of %s: %w", sc, err)
	}
	slices.SortFunc(runners, func(x, y forge.Runner) int { return cmp.Compare(x.ID, y.ID) })
	b.runnerSettings(sc, runners)
	return b.actions(ctx, src, sc)
}

// actions writes the scope's Actions variables with their values, and its
// secrets as resources whose valueFrom names a Secret to create first (the
// forge never gives a value back): applying such a resource sends the
// Secret's value once, as any adoption of a secret does.
func (b *builder) actions(ctx context.Context, src Source, sc forge.Scope) error {
	vars, err := src.ListActionsVariables(ctx, sc)
	if err != nil && !forge.IsRouteNotFound(err) {
		return fmt.Errorf("list the Actions variables of %s: %w", sc, err)
	}
	secrets, err := src.ListActionsSecrets(ctx, sc)
	if err != nil && !forge.IsRouteNotFound(err) {
		return fmt.Errorf("list the Actions secrets of %s: %w", sc, err)
	}
	scope := forgev1.ActionsScope{}
	base := sc.Owner
	if sc.Repo != "" {
		scope.Repository = ptr(forgev1.RepositoryName(sc.String()))
		base = sc.Owner + "-" + sc.Repo
	} else {
		scope.Organization = ptr(forgev1.OwnerName(sc.Owner))
	}
	for _, v := range vars {
		vs := scope
		vs.Name, vs.Description = ptr(forgev1.ActionsName(v.Name)), ptr(v.Description)
		b.add(&forgev1.ActionsVariable{TypeMeta: typeMeta("ActionsVariable"),
			ObjectMeta: b.meta("ActionsVariable", base+"-"+v.Name, 0),
			Spec: forgev1.ActionsVariableSpec{ManagedSpec: b.managed(), ActionsScope: vs,
				DeletionPolicy: forgev1.DeletionPolicyOrphan, Value: ptr(v.Data)}})
	}
	for _, s := range secrets {
		ss := scope
		ss.Name, ss.Description = ptr(forgev1.ActionsName(s.Name)), ptr(s.Description)
		meta := b.meta("ActionsSecret", base+"-"+s.Name, 0)
		secret := meta.Name
		b.add(&forgev1.ActionsSecret{TypeMeta: typeMeta("ActionsSecret"), ObjectMeta: meta,
			Spec: forgev1.ActionsSecretSpec{ManagedSpec: b.managed(), ActionsScope: ss, DeletionPolicy: forgev1.DeletionPolicyOrphan,
				ValueFrom: forgev1.ActionsSecretValueFrom{SecretKeyRef: forgev1.SecretKeySelector{Name: secret, Key: "value"}}}},
			fmt.Sprintf("Actions secret %s of %s. The forge never gives a secret's value back: create Secret %s", s.Name, sc, secret),
			"with key value holding it before applying (the value is then sent once, on adoption):",
			fmt.Sprintf("  kubectl create secret generic %s --from-literal=value=<the secret's value>", secret))
	}
	return nil
}

func byNameThenID(x, y forge.Label) int {
	if c := strings.Compare(x.Name, y.Name); c != 0 {
		return c
	}
	return cmp.Compare(x.ID, y.ID)
}

// doc is one resource of the stream with the comment written above it.
type doc struct {
	comment []string
	obj     client.Object
}

func (d doc) write(w io.Writer) error {
	var buf bytes.Buffer
	buf.WriteString("---\n")
	for _, c := range d.comment {
		buf.WriteString("# " + c + "\n")
	}
	data, err := manifest(d.obj)
	if err != nil {
		return err
	}
	buf.Write(data)
	_, err = w.Write(buf.Bytes())
	return err
}

// manifest renders obj as YAML without its status and server-set metadata.
func manifest(obj client.Object) ([]byte, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	if spec, ok := m["spec"].(map[string]any); ok {
		dropNulls(spec)
	}
	return yaml.Marshal(m)
}

// dropNulls removes the fields a resource leaves unset (lists that are
// managed when set, [] included, marshal as null).
func dropNulls(m map[string]any) {
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			dropNulls(v)
		case []any:
			for _, e := range v {
				if em, ok := e.(map[string]any); ok {
					dropNulls(em)
				}
			}
		}
	}
}

type builder struct {
	opts Options
	docs []doc
	// names holds each metadata.name given, per kind.
	names map[string]bool
	// server is what the forge reported itself to be: a rule field it lacks is not exported.
	server forge.Server
}

func (b *builder) add(obj client.Object, comment ...string) {
	b.docs = append(b.docs, doc{comment: comment, obj: obj})
}

func (b *builder) meta(kind, forgeName string, id int64) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: b.name(kind, forgeName, id), Namespace: b.opts.Namespace}
}

func (b *builder) managed() forgev1.ManagedSpec {
	return forgev1.ManagedSpec{ForgeRef: b.opts.ForgeRef}
}

func (b *builder) organization(o *forge.Organization) {
	obj := &forgev1.Organization{
		TypeMeta:   typeMeta("Organization"),
		ObjectMeta: b.meta("Organization", o.Name, o.ID),
		Spec: forgev1.OrganizationSpec{
			ManagedSpec:    b.managed(),
			DeletionPolicy: forgev1.DeletionPolicyOrphan,
			Name:           ptr(forgev1.OwnerName(o.Name)),
			FullName:       nonEmpty(o.FullName),
			Description:    nonEmpty(o.Description),
			Email:          nonEmpty(o.Email),
			Website:        nonEmpty(o.Website),
			Location:       nonEmpty(o.Location),
			Visibility:     nonEmpty(o.Visibility),
		},
	}
	if o.RepoAdminChangeTeamAccess {
		obj.Spec.RepoAdminChangeTeamAccess = ptr(true)
	}
	b.add(obj)
}

// repository writes a Repository holding every setting the forge reports
// (so that applying it writes nothing), its topics and its direct
// collaborators with the permission the forge reports for each (the
// effective one: a collaborator who also gets more through a team is
// written with the higher permission; adjust it before applying). Never
// init: the repository exists.
func (b *builder) repository(ctx context.Context, src Source, owner string, r forge.Repository) error {
	users, err := src.ListCollaborators(ctx, owner, r.Name)
	if err != nil {
		return fmt.Errorf("list the collaborators of %s/%s: %w", owner, r.Name, err)
	}
	collaborators := []forgev1.Collaborator{}
	for _, u := range users {
		p, err := src.GetCollaboratorPermission(ctx, owner, r.Name, u.Login)
		if err != nil {
			return fmt.Errorf("read the permission of %s in %s/%s: %w", u.Login, owner, r.Name, err)
		}
		if p == "owner" {
			p = "admin"
		}
		if p != "read" && p != "write" && p != "admin" {
			continue // none: a collaborator without access adds nothing
		}
		collaborators = append(collaborators, forgev1.Collaborator{User: forgev1.OwnerName(u.Login), Permission: p})
	}
	slices.SortFunc(collaborators, func(x, y forgev1.Collaborator) int { return strings.Compare(string(x.User), string(y.User)) })
	topics := []forgev1.Topic{}
	for _, t := range r.Topics {
		topics = append(topics, forgev1.Topic(t))
	}
	obj := &forgev1.Repository{
		TypeMeta:   typeMeta("Repository"),
		ObjectMeta: b.meta("Repository", r.Name, r.ID),
		Spec: forgev1.RepositorySpec{
			ManagedSpec:                   b.managed(),
			DeletionPolicy:                forgev1.RepositoryDeletionPolicy(forgev1.DeletionPolicyOrphan),
			Owner:                         forgev1.OwnerName(owner),
			Name:                          ptr(forgev1.RepoName(r.Name)),
			Description:                   ptr(r.Description),
			Website:                       ptr(r.Website),
			Private:                       ptr(r.Private),
			Template:                      ptr(r.Template),
			Archived:                      ptr(r.Archived),
			DefaultBranch:                 nonEmpty(r.DefaultBranch),
			HasIssues:                     ptr(r.HasIssues),
			HasWiki:                       ptr(r.HasWiki),
			HasPullRequests:               ptr(r.HasPullRequests),
			HasProjects:                   ptr(r.HasProjects),
			HasReleases:                   ptr(r.HasReleases),
			HasPackages:                   ptr(r.HasPackages),
			HasActions:                    ptr(r.HasActions),
			HasCode:                       since(b.server, "RepositorySpec", "hasCode", ptr(r.HasCode)),
			AllowMergeCommits:             ptr(r.AllowMergeCommits),
			AllowRebase:                   ptr(r.AllowRebase),
			AllowRebaseExplicit:           ptr(r.AllowRebaseExplicit),
			AllowSquashMerge:              ptr(r.AllowSquashMerge),
			AllowFastForwardOnlyMerge:     ptr(r.AllowFastForwardOnlyMerge),
			AllowManualMerge:              ptr(r.AllowManualMerge),
			AutodetectManualMerge:         ptr(r.AutodetectManualMerge),
			AllowRebaseUpdate:             ptr(r.AllowRebaseUpdate),
			AllowMergeUpdate:              since(b.server, "RepositorySpec", "allowMergeUpdate", ptr(r.AllowMergeUpdate)),
			DefaultUpdateStyle:            since(b.server, "RepositorySpec", "defaultUpdateStyle", nonEmpty(r.DefaultUpdateStyle)),
			DefaultMergeStyle:             nonEmpty(r.DefaultMergeStyle),
			DefaultDeleteBranchAfterMerge: ptr(r.DefaultDeleteBranchAfterMerge),
			DefaultAllowMaintainerEdit:    ptr(r.DefaultAllowMaintainerEdit),
			IgnoreWhitespaceConflicts:     ptr(r.IgnoreWhitespaceConflicts),
			Topics:                        topics,
			Collaborators:                 collaborators,
		},
	}
	b.add(obj)
	return nil
}

// teams writes every team of the organization with its access, members
// and repositories (none listed for a team with every repository). The
// Owners team gets its members only: the rest is the forge's.
func (b *builder) teams(ctx context.Context, src Source, org string) error {
	teams, err := src.ListTeams(ctx, org)
	if err != nil {
		return fmt.Errorf("list the teams of organization %q: %w", org, err)
	}
	for _, t := range teams {
		users, err := src.ListTeamMembers(ctx, t.ID)
		if err != nil {
			return fmt.Errorf("list the members of team %q: %w", t.Name, err)
		}
		members := []forgev1.OwnerName{}
		for _, u := range users {
			members = append(members, forgev1.OwnerName(u.Login))
		}
		slices.Sort(members)
		obj := &forgev1.Team{
			TypeMeta:   typeMeta("Team"),
			ObjectMeta: b.meta("Team", t.Name, t.ID),
			Spec: forgev1.TeamSpec{
				ManagedSpec:    b.managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Organization:   forgev1.OwnerName(org),
				Name:           ptr(forgev1.TeamName(t.Name)),
				Description:    ptr(t.Description),
				Members:        members,
			},
		}
		// The forge's Owners team is the one with permission owner, also
		// when renamed: its access is the forge's, never exported.
		if t.Permission == "owner" {
			var note []string
			if !strings.EqualFold(t.Name, "owners") {
				note = append(note, fmt.Sprintf("Team %q is the organization's Owners team, renamed on the forge: the operator", t.Name),
					"manages the Owners team only under the name Owners (this resource stalls with Conflict);",
					"rename it back to Owners on the forge, or leave this resource out.")
			}
			b.add(obj, note...)
			continue
		}
		obj.Spec.CanCreateOrgRepo = ptr(t.CanCreateOrgRepo)
		obj.Spec.Visibility = since(b.server, "TeamSpec", "visibility", nonEmpty(t.Visibility))
		obj.Spec.IncludesAllRepositories = ptr(t.IncludesAllRepositories)
		if t.Permission == "admin" {
			obj.Spec.Permission = ptr("admin")
		} else {
			obj.Spec.Units = teamUnits(t.UnitsMap)
		}
		if !t.IncludesAllRepositories {
			repos, err := src.ListTeamRepos(ctx, t.ID)
			if err != nil {
				return fmt.Errorf("list the repositories of team %q: %w", t.Name, err)
			}
			obj.Spec.Repositories = []forgev1.RepoName{}
			for _, r := range repos {
				obj.Spec.Repositories = append(obj.Spec.Repositories, forgev1.RepoName(r.Name))
			}
			slices.Sort(obj.Spec.Repositories)
		}
		b.add(obj)
	}
	return nil
}

// teamUnits turns the forge's units map into spec.units (none left out).
func teamUnits(m map[string]string) *forgev1.TeamUnits {
	u := &forgev1.TeamUnits{}
	for key, dst := range map[string]*forgev1.UnitAccess{
		"repo.code": &u.Code, "repo.issues": &u.Issues, "repo.pulls": &u.Pulls, "repo.releases": &u.Releases,
		"repo.wiki": &u.Wiki, "repo.ext_issues": &u.ExtIssues, "repo.ext_wiki": &u.ExtWiki,
		"repo.projects": &u.Projects, "repo.packages": &u.Packages, "repo.actions": &u.Actions,
	} {
		if v := m[key]; v == "read" || v == "write" {
			*dst = forgev1.UnitAccess(v)
		}
	}
	return u
}

// hookConfigKeys are the config keys besides url and content_type that the
// forge returns (Slack's) and that OrgHook manages in spec.config.
var hookConfigKeys = []string{"channel", "username", "icon_url", "color"}

// hook writes an OrgHook or, for a repository, a RepoHook.
func (b *builder) hook(sc forge.Scope, h forge.Hook) {
	kind, base := "OrgHook", sc.Owner
	if sc.Repo != "" {
		kind, base = "RepoHook", sc.Owner+"-"+sc.Repo
	}
	name := b.name(kind, fmt.Sprintf("%s-hook-%d", base, h.ID), h.ID)
	spec := forgev1.HookSpec{
		Type:         forgev1.HookType(h.Type),
		ContentType:  h.Config["content_type"],
		Events:       hookEvents(h.Events),
		BranchFilter: h.BranchFilter,
		Active:       ptr(h.Active),
		Name:         h.Name,
	}
	comment := []string{fmt.Sprintf("%s hook %d. The forge never returns a hook's secret: this hook is adopted", h.Type, h.ID),
		"as it is (never replaced); add spec.secretRef to set a new secret, which replaces the hook."}
	if forge.URLIsSecret(h.Type, h.Config["url"]) { // a token in the URL: into a Secret
		secret := name + "-url"
		spec.URLSecretRef = &forgev1.SecretKeySelector{Name: secret, Key: "url"}
		comment = append(comment, fmt.Sprintf("Its URL may carry a credential (a chat or Packagist hook, a query or user info): create Secret %s with key url holding the hook's URL before applying:", secret),
			fmt.Sprintf("  kubectl create secret generic %s --from-literal=url=<the hook's URL>", secret))
	} else {
		spec.URL = h.Config["url"]
	}
	for _, k := range hookConfigKeys {
		if v, ok := h.Config[k]; ok && v != "" {
			if spec.Config == nil {
				spec.Config = map[string]string{}
			}
			spec.Config[k] = v
		}
	}
	if h.AuthorizationHeader != "" {
		secret := name + "-authorization"
		spec.AuthorizationHeaderSecretRef = &forgev1.SecretKeySelector{Name: secret, Key: "header"}
		comment = append(comment, fmt.Sprintf("It sends an authorization header: create Secret %s with key header holding it before applying:", secret),
			fmt.Sprintf("  kubectl create secret generic %s --from-literal=header=<the header>", secret))
	}
	meta := metav1.ObjectMeta{Name: name, Namespace: b.opts.Namespace}
	if sc.Repo != "" {
		b.add(&forgev1.RepoHook{TypeMeta: typeMeta(kind), ObjectMeta: meta, Spec: forgev1.RepoHookSpec{
			ManagedSpec:    b.managed(),
			DeletionPolicy: forgev1.DeletionPolicyOrphan,
			Repository:     forgev1.RepositoryName(sc.Owner + "/" + sc.Repo),
			HookSpec:       spec,
		}}, comment...)
		return
	}
	b.add(&forgev1.OrgHook{TypeMeta: typeMeta(kind), ObjectMeta: meta, Spec: forgev1.OrgHookSpec{
		ManagedSpec:    b.managed(),
		DeletionPolicy: forgev1.DeletionPolicyOrphan,
		Organization:   forgev1.OwnerName(sc.Owner),
		HookSpec:       spec,
	}}, comment...)
}

// tagProtections writes a repository's tag protections, one
// TagProtection each, with both lists as the forge shows them (so that
// adoption writes nothing). A server without the API (Gitea before 1.23)
// has none to write. The forge may hold several of one pattern (a PATCH
// can rename onto a taken one): each is written, and said to stall.
func (b *builder) tagProtections(ctx context.Context, src Source, owner, repo string) error {
	all, err := src.ListTagProtections(ctx, owner, repo)
	if forge.IsRouteNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list the tag protections of %s/%s: %w", owner, repo, err)
	}
	slices.SortFunc(all, func(x, y forge.TagProtection) int { return cmp.Compare(x.ID, y.ID) })
	count := map[string]int{}
	for _, t := range all {
		count[t.NamePattern]++
	}
	for _, t := range all {
		var comment []string
		if n := count[t.NamePattern]; n > 1 {
			comment = append(comment, fmt.Sprintf("The forge holds %d tag protections of pattern %q in %s/%s: this one "+
				"stalls (Conflict) until all but one are deleted on the forge.", n, t.NamePattern, owner, repo))
		}
		b.add(&forgev1.TagProtection{
			TypeMeta:   typeMeta("TagProtection"),
			ObjectMeta: b.meta("TagProtection", fmt.Sprintf("%s-%s-tags-%d", owner, repo, t.ID), t.ID),
			Spec: forgev1.TagProtectionSpec{
				ManagedSpec:        b.managed(),
				DeletionPolicy:     forgev1.DeletionPolicyOrphan,
				Repository:         forgev1.RepositoryName(owner + "/" + repo),
				NamePattern:        forgev1.TagNamePattern(t.NamePattern),
				WhitelistUsernames: asNames[forgev1.UserName](t.WhitelistUsernames),
				WhitelistTeams:     asNames[forgev1.TeamName](t.WhitelistTeams),
			},
		}, comment...)
	}
	return nil
}

// asNames is a list of names as the spec types them, [] (managed, empty)
// rather than nil.
func asNames[S ~string](l []string) []S {
	out := make([]S, 0, len(l))
	for _, n := range l {
		out = append(out, S(n))
	}
	return out
}

// projects writes a repository's projects, open and closed. A server
// without the projects API (every released Gitea) has none to write.
func (b *builder) projects(ctx context.Context, src Source, owner, repo string) error {
	projects, err := src.ListProjects(ctx, forge.RepoScope(owner, repo), "all")
	if forge.IsRouteNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list the projects of %s/%s: %w", owner, repo, err)
	}
	slices.SortFunc(projects, func(x, y forge.Project) int { return cmp.Compare(x.ID, y.ID) })
	for _, p := range projects {
		b.add(&forgev1.Project{
			TypeMeta:   typeMeta("Project"),
			ObjectMeta: b.meta("Project", fmt.Sprintf("%s-%s-project-%d", owner, repo, p.ID), p.ID),
			Spec: forgev1.ProjectSpec{
				ManagedSpec:    b.managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repository:     forgev1.RepositoryName(owner + "/" + repo),
				Title:          p.Title,
				Description:    nonEmpty(p.Description),
				CardType:       p.CardType,
				TemplateType:   p.TemplateType,
				State:          p.State,
			},
		})
	}
	return nil
}

// deployKeys writes a DeployKey per deploy key of the repository, with
// its public key as the forge holds it (never generate: the private half is
// not the forge's to give) and its title and readOnly, so that applying it
// adopts each key by fingerprint without a write.
func (b *builder) deployKeys(ctx context.Context, src Source, owner, repo string) error {
	keys, err := src.ListDeployKeys(ctx, owner, repo)
	if err != nil {
		return fmt.Errorf("list the deploy keys of %s/%s: %w", owner, repo, err)
	}
	slices.SortFunc(keys, func(x, y forge.DeployKey) int { return cmp.Compare(x.ID, y.ID) })
	for _, k := range keys {
		b.add(&forgev1.DeployKey{
			TypeMeta:   typeMeta("DeployKey"),
			ObjectMeta: b.meta("DeployKey", fmt.Sprintf("%s-%s-deploykey-%d", owner, repo, k.ID), k.ID),
			Spec: forgev1.DeployKeySpec{
				ManagedSpec:    b.managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repository:     forgev1.RepositoryName(owner + "/" + repo),
				Title:          ptr(k.Title),
				ReadOnly:       ptr(k.ReadOnly),
				PublicKey:      ptr(k.Key),
			},
		})
	}
	return nil
}

// pushMirrors writes a PushMirror per push mirror of the repository, with
// its address, interval and syncOnCommit as the forge shows them, so that
// applying it adopts each mirror by address without a write. The forge
// never shows a mirror's credentials: each is written without spec.auth
// (adding it later replaces the mirror once, its password being unknown).
// A server with mirrors disabled has none to write; an address the kind
// cannot take (a local path) is left out.
func (b *builder) pushMirrors(ctx context.Context, src Source, owner, repo string) error {
	all, err := src.ListPushMirrors(ctx, owner, repo)
	if forge.MirrorsDisabled(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list the push mirrors of %s/%s: %w", owner, repo, err)
	}
	count := map[string]int{}
	for _, m := range all {
		count[m.RemoteAddress]++
	}
	for _, m := range all {
		if !mirrorAddress.MatchString(m.RemoteAddress) {
			continue
		}
		interval, err := time.ParseDuration(m.Interval)
		if err != nil {
			return fmt.Errorf("push mirror %s of %s/%s: interval %q: %w", m.RemoteName, owner, repo, m.Interval, err)
		}
		comment := []string{"The forge never shows a mirror's credentials: add spec.auth to manage them (the mirror is then replaced once)."}
		if n := count[m.RemoteAddress]; n > 1 {
			comment = append(comment, fmt.Sprintf("The forge holds %d push mirrors to %s in %s/%s: this one "+
				"stalls (Conflict) until all but one are deleted on the forge.", n, m.RemoteAddress, owner, repo))
		}
		b.add(&forgev1.PushMirror{
			TypeMeta:   typeMeta("PushMirror"),
			ObjectMeta: b.meta("PushMirror", fmt.Sprintf("%s-%s-mirror-%s", owner, repo, strings.TrimPrefix(m.RemoteName, "remote_mirror_")), 0),
			Spec: forgev1.PushMirrorSpec{
				ManagedSpec:    b.managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repository:     forgev1.RepositoryName(owner + "/" + repo),
				RemoteAddress:  m.RemoteAddress,
				Interval:       &metav1.Duration{Duration: interval},
				SyncOnCommit:   ptr(m.SyncOnCommit),
			},
		}, comment...)
	}
	return nil
}

// mirrorAddress is what PushMirror's admission takes as remoteAddress.
var mirrorAddress = regexp.MustCompile(`^(https?|git)://[^/?#\s@]+(/|$)`)

// repoLabels is one repository's label list.
type repoLabels struct {
	repo   string
	labels []forge.Label
}

// labelSets writes one LabelSet per label list: repositories whose lists
// are equal share one, naming them all. The sets are Additive (the
// default), so adopting them never deletes a label.
func (b *builder) labelSets(org string, repos []repoLabels) {
	type group struct {
		repos  []string
		labels []forgev1.LabelSetLabel
		skip   []string
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range repos {
		labels, skip := setLabels(r.labels)
		count := nameCounts(r.labels)
		key, _ := json.Marshal(labels)
		g, ok := groups[string(key)]
		if !ok {
			g = &group{labels: labels}
			groups[string(key)] = g
			order = append(order, string(key))
		}
		g.repos = append(g.repos, r.repo)
		for _, n := range skip {
			g.skip = append(g.skip, fmt.Sprintf("%s has %d labels named %q: left out, a LabelSet cannot adopt one of several.", r.repo, count[n], n))
		}
	}
	for _, key := range order {
		g := groups[key]
		if len(g.labels) == 0 {
			continue
		}
		base := strings.ReplaceAll(g.repos[0], "/", "-") + "-labels"
		var comment []string
		if len(g.repos) > 1 {
			base = fmt.Sprintf("%s-labels-%d-repositories", org, len(g.repos))
			comment = append(comment, fmt.Sprintf("%d repositories hold exactly these labels.", len(g.repos)))
		}
		names := make([]forgev1.RepositoryName, len(g.repos))
		for i, r := range g.repos {
			names[i] = forgev1.RepositoryName(r)
		}
		b.add(&forgev1.LabelSet{
			TypeMeta:   typeMeta("LabelSet"),
			ObjectMeta: b.meta("LabelSet", base, int64(len(b.docs))),
			Spec: forgev1.LabelSetSpec{
				ManagedSpec:    b.managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repositories:   forgev1.RepositorySelector{Names: names},
				Labels:         g.labels,
			},
		}, append(comment, g.skip...)...)
	}
}

// setLabels turns a repository's labels into a LabelSet's, sorted by name;
// names held by several labels are left out and returned.
func setLabels(labels []forge.Label) ([]forgev1.LabelSetLabel, []string) {
	var out []forgev1.LabelSetLabel
	var skip []string
	count := nameCounts(labels)
	for _, l := range slices.SortedFunc(slices.Values(labels), byNameThenID) {
		if count[l.Name] > 1 {
			if !slices.Contains(skip, l.Name) {
				skip = append(skip, l.Name)
			}
			continue
		}
		out = append(out, forgev1.LabelSetLabel{
			Name:        forgev1.LabelName(l.Name),
			Color:       "#" + l.Color,
			Description: nonEmpty(l.Description),
			Exclusive:   trueOnly(l.Exclusive),
			Archived:    trueOnly(l.IsArchived),
		})
	}
	return out, skip
}

// nameCounts counts the labels of each name: the forge allows several of one name.
func nameCounts(labels []forge.Label) map[string]int {
	n := map[string]int{}
	for _, l := range labels {
		n[l.Name]++
	}
	return n
}

func (b *builder) orgLabels(org string, labels []forge.Label) {
	count := nameCounts(labels)
	for _, l := range labels {
		var comment []string
		if count[l.Name] > 1 {
			// The operator adopts by name and stalls on duplicates: say so
			// here rather than write a resource that cannot become Ready.
			comment = []string{fmt.Sprintf("%d labels are named %q in organization %s: this one (id %d) conflicts until the duplicates are removed on the forge.", count[l.Name], l.Name, org, l.ID)}
		}
		b.add(&forgev1.Label{
			TypeMeta:   typeMeta("Label"),
			ObjectMeta: b.meta("Label", org+"-label-"+l.Name, l.ID),
			Spec: forgev1.LabelSpec{
				ManagedSpec:    b.managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Organization:   ptr(forgev1.OwnerName(org)),
				Name:           l.Name,
				Color:          "#" + l.Color,
				Description:    nonEmpty(l.Description),
				Exclusive:      trueOnly(l.Exclusive),
				Archived:       trueOnly(l.IsArchived),
			},
		}, comment...)
	}
}

// runnerSettings exports the runners of a scope that are disabled: an
// enabled runner is the forge's default and needs no resource.
func (b *builder) runnerSettings(scope forge.Scope, runners []forge.Runner) {
	count := map[string]int{}
	for _, r := range runners {
		count[r.Name]++
	}
	for _, r := range runners {
		if !r.Disabled {
			continue
		}
		spec := forgev1.RunnerSettingSpec{
			ManagedSpec:    b.managed(),
			DeletionPolicy: forgev1.DeletionPolicyOrphan,
			Disabled:       true,
		}
		if count[r.Name] == 1 {
			spec.Runner.Name = r.Name
		} else {
			spec.Runner.ID = ptr(r.ID) // several of that name: the name would not select one
		}
		if scope.Repo != "" {
			spec.Repository = ptr(forgev1.RepositoryName(scope.Owner + "/" + scope.Repo))
		} else {
			spec.Organization = ptr(forgev1.OwnerName(scope.Owner))
		}
		base := scope.Owner
		if scope.Repo != "" {
			base += "-" + scope.Repo
		}
		b.add(&forgev1.RunnerSetting{
			TypeMeta:   typeMeta("RunnerSetting"),
			ObjectMeta: b.meta("RunnerSetting", fmt.Sprintf("%s-runner-%d", base, r.ID), r.ID),
			Spec:       spec,
		})
	}
}

var invalidNameChars = regexp.MustCompile(`[^a-z0-9-]+`)

// name turns a forge name into a valid, unique metadata.name for kind:
// lower case, DNS-1123, with a short hash of the forge name and id appended
// when making it valid changed more than its case, or when it would
// collide (forge names that differ in case only, or labels of one name).
func (b *builder) name(kind, forgeName string, id int64) string {
	lower := strings.ToLower(forgeName)
	n := strings.Trim(invalidNameChars.ReplaceAllString(lower, "-"), "-")
	hashed := n != lower || len(n) > 50 || n == "" || b.names[kind+"/"+n]
	if hashed {
		sum := sha256.Sum256([]byte(forgeName + "#" + strconv.FormatInt(id, 10)))
		n = strings.Trim(truncate(n, 50), "-")
		if n != "" {
			n += "-"
		}
		n += hex.EncodeToString(sum[:])[:6]
	}
	if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
		panic(fmt.Sprintf("export: made an invalid name %q: %v", n, errs)) // a bug in this function
	}
	b.names[kind+"/"+n] = true
	return n
}

// hookEvents are the hook's events, sorted, as the spec's set.
func hookEvents(events []string) []forgev1.HookEvent {
	out := make([]forgev1.HookEvent, 0, len(events))
	for _, e := range slices.Sorted(slices.Values(events)) {
		out = append(out, forgev1.HookEvent(e))
	}
	return slices.Compact(out)
}

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: forgev1.GroupVersion.String(), Kind: kind}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func trueOnly(v bool) *bool {
	if !v {
		return nil
	}
	return &v
}

func ptr[T any](v T) *T { return &v }

// repoRules is one repository's branch protection rules.
type repoRules struct {
	repo  string
	rules []forge.BranchProtection
}

// branchProtections writes the rules as labels are written: repositories
// whose rule lists are equal share one BranchProtectionSet naming them all
// (Additive, so adopting it never deletes a rule); a list only one
// repository holds becomes one BranchProtection per rule.
func (b *builder) branchProtections(org string, repos []repoRules) {
	type group struct {
		repos []string
		rules []forgev1.BranchProtectionRule
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range repos {
		rules := make([]forgev1.BranchProtectionRule, len(r.rules))
		for i, bp := range r.rules {
			rules[i] = specRule(bp, b.server)
		}
		slices.SortFunc(rules, func(x, y forgev1.BranchProtectionRule) int {
			return strings.Compare(string(x.RuleName), string(y.RuleName))
		})
		key, _ := json.Marshal(rules)
		g, ok := groups[string(key)]
		if !ok {
			g = &group{rules: rules}
			groups[string(key)] = g
			order = append(order, string(key))
		}
		g.repos = append(g.repos, r.repo)
	}
	for _, key := range order {
		g := groups[key]
		if len(g.repos) == 1 {
			for _, rule := range g.rules {
				b.add(&forgev1.BranchProtection{
					TypeMeta:   typeMeta("BranchProtection"),
					ObjectMeta: b.meta("BranchProtection", strings.ReplaceAll(g.repos[0], "/", "-")+"-"+string(rule.RuleName), 0),
					Spec: forgev1.BranchProtectionSpec{
						ManagedSpec:          b.managed(),
						DeletionPolicy:       forgev1.DeletionPolicyOrphan,
						Repository:           forgev1.RepositoryName(g.repos[0]),
						BranchProtectionRule: rule,
					},
				})
			}
			continue
		}
		names := make([]forgev1.RepositoryName, len(g.repos))
		for i, r := range g.repos {
			names[i] = forgev1.RepositoryName(r)
		}
		b.add(&forgev1.BranchProtectionSet{
			TypeMeta:   typeMeta("BranchProtectionSet"),
			ObjectMeta: b.meta("BranchProtectionSet", fmt.Sprintf("%s-branch-rules-%d-repositories", org, len(g.repos)), int64(len(b.docs))),
			Spec: forgev1.BranchProtectionSetSpec{
				ManagedSpec:    b.managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repositories:   forgev1.RepositorySelector{Names: names},
				Rules:          g.rules,
			},
		}, fmt.Sprintf("%d repositories hold exactly these branch protection rules.", len(g.repos)))
	}
}

// since is v, or nil when the server lacks the field (field, the JSON
// name, of the spec type in): a spec setting it would be Unsupported
// there, and the forge reads back its zero.
func since[T any](server forge.Server, in, field string, v *T) *T {
	for _, g := range forge.FieldGates(in) {
		if g.Field == field && server.Lacks(g) {
			return nil
		}
	}
	return v
}

// lacks tells whether the server lacks field f of the spec type in.
func lacks(server forge.Server, in string, f reflect.StructField) bool {
	json, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return since(server, in, json, new(bool)) == nil
}

// ruleSwitches names, by field name prefix, the switch an allow-list (or
// its deploy-keys flag) needs; admission refuses one set without it.
var ruleSwitches = map[string]string{
	"PushWhitelist":      "EnablePushWhitelist",
	"ForcePushAllowlist": "EnableForcePushAllowlist",
	"MergeWhitelist":     "EnableMergeWhitelist",
	"ApprovalsWhitelist": "EnableApprovalsWhitelist",
	"BypassAllowlist":    "EnableBypassAllowlist",
	"StatusCheck":        "EnableStatusCheck",
}

// chainSwitches names the switch another switch needs (admission refuses
// it true without); a PATCH can leave the forge otherwise.
var chainSwitches = map[string]string{
	"EnablePushWhitelist":      "EnablePush",
	"EnableForcePush":          "EnablePush",
	"EnableForcePushAllowlist": "EnableForcePush",
}

// specRule is the forge's rule as a spec that manages every field at the
// value the forge holds: switches and numbers always, file patterns when
// set, lists when not empty and under their switch (the forge keeps a list
// whatever its switch says; one that does nothing is left unmanaged).
// Field names are alike in both types (the controllers' TestRuleFieldsMatch).
// A field the server lacks is left out: it reads back as its zero, and a
// spec setting it would be Unsupported there.
func specRule(bp forge.BranchProtection, server forge.Server) forgev1.BranchProtectionRule {
	out := forgev1.BranchProtectionRule{RuleName: forgev1.BranchRuleName(bp.RuleName)}
	ov, hv := reflect.ValueOf(&out).Elem(), reflect.ValueOf(bp)
	t := ov.Type()
	on := func(name string) bool {
		if sw, ok := chainSwitches[name]; ok {
			return hv.FieldByName(sw).Bool()
		}
		for prefix, sw := range ruleSwitches {
			if strings.HasPrefix(name, prefix) {
				return hv.FieldByName(sw).Bool()
			}
		}
		return true
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "RuleName" || lacks(server, "BranchProtectionRule", f) {
			continue
		}
		have := hv.FieldByName(f.Name)
		switch have.Kind() {
		case reflect.Slice:
			if have.Len() == 0 || !on(f.Name) {
				continue
			}
			list := reflect.MakeSlice(f.Type, have.Len(), have.Len())
			for j := range have.Len() {
				list.Index(j).SetString(have.Index(j).String())
			}
			ov.Field(i).Set(list)
		case reflect.String:
			if have.String() != "" {
				p := reflect.New(f.Type.Elem())
				p.Elem().SetString(have.String())
				ov.Field(i).Set(p)
			}
		default: // bool, int64
			if have.Kind() == reflect.Bool && have.Bool() && !on(f.Name) {
				continue
			}
			p := reflect.New(f.Type.Elem())
			p.Elem().Set(have)
			ov.Field(i).Set(p)
		}
	}
	return out
}
