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
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/controllers/internal/kinds"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the Repository controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositories,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositories/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositories/finalizers,verbs=update

// repositoryKind manages repositories: identified by the forge's id,
// adopted by name (or by a previous name, then renamed in place), observed
// from the owner's repository listing, settings written field by field.
type repositoryKind struct {
	kinds.Base[forgev1.Repository, forgev1.RepositoryList]
}

// Key: owner and repository names are case-insensitive on the forge.
func (repositoryKind) Key(r *forgev1.Repository) string {
	return "repo:" + strings.ToLower(r.FullName())
}

func (repositoryKind) Describe(r *forgev1.Repository) string {
	return fmt.Sprintf("repository %q", r.FullName())
}

// Declares: a Repository its owner/name.
func (repositoryKind) Declares(r *forgev1.Repository) []reconciler.Ref {
	return []reconciler.Ref{{Kind: reconciler.RefRepository, Name: r.FullName()}}
}

// References of a Repository: its owner, an organization or a user (its
// template is a RepoRef).
func (repositoryKind) References(r *forgev1.Repository) []reconciler.Ref {
	owner := string(r.Spec.Owner)
	return []reconciler.Ref{{Kind: reconciler.RefOrganization, Name: owner}, {Kind: reconciler.RefUser, Name: owner}}
}

// WriteScopes of a Repository: write:repository; its plain create goes
// to POST /orgs/{owner}/repos first (the organization routes: also
// write:organization, asked before the forge looks the owner up), then,
// for the token's own user, to POST /user/repos (also write:user).
func (repositoryKind) WriteScopes(r *forgev1.Repository, pass *reconciler.Pass, create bool) []string {
	out := []string{forge.ScopeWriteRepository}
	if !create || (r.Spec.Init != nil && r.Spec.Init.Template != nil) {
		return out
	}
	out = append(out, forge.ScopeWriteOrganization)
	if strings.EqualFold(string(r.Spec.Owner), pass.Login) {
		out = append(out, forge.ScopeWriteUser)
	}
	return out
}

func (repositoryKind) Connect(_ context.Context, r *forgev1.Repository, pass *reconciler.Pass) (reconciler.External, error) {
	return &repository{obj: r, fc: pass.Forge, pass: pass}, nil
}

type repository struct {
	obj  *forgev1.Repository
	fc   forge.Interface
	pass *reconciler.Pass
	// found is the repository Observe found; collaborators its direct
	// collaborators (lower-cased login -> login) when they are managed.
	found         *forge.Repository
	collaborators map[string]string
	// current is true when found was read just now by id (or made by this
	// pass): its name may be used for a destructive write.
	current bool
	// enforced are the settings (and "topics") of the spec that an
	// enforcing RepositorySet holds in found, by that set's name: left out
	// of the writes, and the resource's Conflict.
	enforced map[string]string
}

func (e *repository) owner() string { return string(e.obj.Spec.Owner) }

func (e *repository) Observe(ctx context.Context) (reconciler.Observation, error) {
	all, err := child.OwnerRepos(ctx, e.fc, e.owner())
	if err != nil {
		return reconciler.Observation{}, err
	}
	return e.observeIn(ctx, all)
}

// ConfirmAbsent observes the repository by one GET per name (its name and
// each previous name) rather than a fresh listing of its owner, which may
// run to many pages: the loop asks it before creating a repository that a
// paged listing did not show.
func (e *repository) ConfirmAbsent(ctx context.Context) (reconciler.Observation, error) {
	var found []forge.Repository
	names := []string{e.obj.RepoName()}
	for _, p := range e.obj.Spec.PreviousNames {
		names = append(names, string(p))
	}
	for _, n := range names {
		r, err := e.fc.GetRepo(ctx, e.owner(), n)
		if forge.IsNotFound(err) {
			continue
		}
		if err != nil {
			return reconciler.Observation{}, err
		}
		mine := r.Owner != nil && strings.EqualFold(r.Owner.Login, e.owner())
		if mine && !slices.ContainsFunc(found, func(f forge.Repository) bool { return f.ID == r.ID }) {
			found = append(found, *r)
		}
	}
	return e.observeIn(ctx, found)
}

// observeIn is Observe over all, the owner's repositories as read.
func (e *repository) observeIn(ctx context.Context, all []forge.Repository) (reconciler.Observation, error) {
	found, err := e.locate(ctx, all)
	if err != nil || found == nil {
		if err == nil {
			e.obj.Status.PendingRemovals = nil // no repository, nothing to remove
		}
		return reconciler.Observation{}, err
	}
	e.found = found
	e.settleCreated(found)
	if err := e.administered(found); err != nil {
		e.report(found)
		return reconciler.Observation{Exists: true, ID: found.ID, URL: found.HTMLURL}, err
	}
	var cache client.Reader
	if e.pass != nil {
		cache = e.pass.Cache
	}
	if e.enforced, err = enforcedSettings(ctx, cache, e.obj, found); err != nil {
		return reconciler.Observation{}, err
	}
	if e.obj.Spec.Collaborators != nil {
		users, err := e.fc.ListCollaborators(ctx, e.owner(), found.Name)
		if err != nil {
			// A failed or partial listing removes nobody: the pass stops here.
			return reconciler.Observation{}, err
		}
		e.collaborators = map[string]string{}
		for _, u := range users {
			e.collaborators[strings.ToLower(u.Login)] = u.Login
		}
		e.adoptCollaborators()
	} else {
		e.obj.Status.CollaboratorPermissions = nil
	}
	e.reportRemovals()
	e.report(found)
	c := e.changes(found)
	diff := reconciler.Fields(c)
	if i := slices.Index(diff, "rename"); i >= 0 {
		diff[i] = "name"
	}
	return reconciler.Observation{Exists: true, ID: found.ID, URL: found.HTMLURL, Diff: diff, Changes: c,
		Left: leftToEnforcers(repositoryKind{}.Describe(e.obj), e.enforced)}, nil
}

// locate finds the repository: by status.id (it may have been renamed by
// hand: the id is what counts), else by name, else by a previous name. A
// repository under the name and another under a previous name is a
// conflict: nothing is renamed.
func (e *repository) locate(ctx context.Context, all []forge.Repository) (*forge.Repository, error) {
	if id := e.obj.Status.ID; id != 0 {
		for i := range all {
			if all[i].ID == id {
				return &all[i], nil
			}
		}
		// A listing can miss one that moved across a page boundary: the
		// forge's GET by id confirms the miss before anything is created.
		r, err := e.fc.GetRepoByID(ctx, id)
		switch {
		case err == nil && r.Owner != nil && strings.EqualFold(r.Owner.Login, e.owner()):
			return r, nil
		case err == nil:
			// Transferred, or its owner renamed: what the spec's owner
			// grants does not reach where it is now, and a repository
			// made under the old name would not be the one recorded.
			now := "another owner"
			if r.Owner != nil {
				now = r.Owner.Login + "/" + r.Name
			}
			return nil, reconciler.Stall(forgev1.ReasonMoved,
				"repository %s/%s (id %d) has moved to %s: nothing is written to it; change spec.owner, or delete the resource (which leaves it)",
				e.owner(), e.obj.RepoName(), id, now)
		case !forge.IsNotFound(err):
			return nil, err
		}
		// Gone: look it up by name as on first sight.
	}
	byName := child.FindRepo(all, e.obj.RepoName())
	var byPrev *forge.Repository
	for _, p := range e.obj.Spec.PreviousNames {
		if r := child.FindRepo(all, string(p)); r != nil && (byName == nil || r.ID != byName.ID) {
			byPrev = r
			break
		}
	}
	switch {
	case byName != nil && byPrev != nil:
		return nil, reconciler.Stall(forgev1.ReasonConflict,
			"repository %s/%s (id %d) and %s/%s (id %d, a previous name) both exist: nothing is renamed; delete or rename one on the forge, or drop the name from spec.previousNames",
			e.owner(), byName.Name, byName.ID, e.owner(), byPrev.Name, byPrev.ID)
	case byName != nil:
		return byName, nil
	}
	return byPrev, nil
}

// administered stalls a Repository that manages (managementPolicy Manage)
// a repository its token may read but not administer, before any write and
// also when the spec happens to match: the forge answers each caller its
// own access (permissions), and a plain user's token reads a public
// repository of an organization it has no part in. Such a Repository
// records the repository's id all the same (the loop keeps it), and the
// stall (Unauthorized) makes it hold nothing (claims.Refused): it keeps
// no field from a RepositorySet and blocks no other Repository. A forge
// that answers no permissions is taken at its word, as before.
func (e *repository) administered(r *forge.Repository) error {
	p := r.Permissions
	if p == nil || p.Admin || e.obj.Spec.ManagementPolicy == forgev1.ManagementPolicyObserve || !e.obj.DeletionTimestamp.IsZero() {
		return nil
	}
	return reconciler.Stall(forgev1.ReasonUnauthorized,
		"the token of %s may not administer %s (the forge grants it %s): a Repository manages only a repository its token administers; nothing is written (managementPolicy Observe only reads it)",
		e.obj.Spec.ForgeRef, repoPath(e.owner(), r), grantOf(p))
}

// grantOf names the access permissions give short of admin: "write",
// "read" or "no access".
func grantOf(p *forge.RepoPermissions) string {
	switch {
	case p.Push:
		return "write"
	case p.Pull:
		return "read"
	}
	return "no access"
}

// repoPath is owner/name of r as the forge names it.
func repoPath(owner string, r *forge.Repository) string {
	if r.Owner != nil {
		owner = r.Owner.Login
	}
	return owner + "/" + r.Name
}

// report copies what the forge says into status.
func (e *repository) report(r *forge.Repository) {
	st := &e.obj.Status
	st.CloneURL, st.SSHURL, st.DefaultBranch, st.Empty, st.Archived = r.CloneURL, r.SSHURL, r.DefaultBranch, r.Empty, r.Archived
	if e.pass.Pending && st.ID == 0 {
		// Found after a create whose answer was lost: the operator made it.
		st.CreatedID = r.ID
	}
}

// settleCreated moves the mark of earlier versions (status.created, which
// named no id) to status.createdID while status.id still finds the
// repository it was made for, and drops it otherwise: a repository made
// by hand under the name of a created one that went is not the operator's.
func (e *repository) settleCreated(found *forge.Repository) {
	st := &e.obj.Status
	if !st.Created {
		return
	}
	if st.CreatedID == 0 && st.ID != 0 && found.ID == st.ID {
		st.CreatedID = st.ID
	}
	st.Created = false
}

// reread reads the repository afresh by its id, right before a write that
// addresses it by name and destroys something (a rename, an archive, a
// removal, a delete): the owner's listing it was found in may be older
// than a rename, and the name read there may now be another repository's
// (DESIGN "Addressing"). When it now belongs to another owner, nothing
// may be written to it: moved says where it went, and found is kept. A
// forge error, 404 included, is returned as it is.
func (e *repository) reread(ctx context.Context) (r *forge.Repository, moved string, err error) {
	if e.current {
		return e.found, "", nil
	}
	if r, err = e.fc.GetRepoByID(ctx, e.found.ID); err != nil {
		return nil, "", err
	}
	if r.Owner == nil || !strings.EqualFold(r.Owner.Login, e.owner()) {
		now := "another owner"
		if r.Owner != nil {
			now = r.Owner.Login + "/" + r.Name
		}
		return nil, fmt.Sprintf("repository %s/%s (id %d) has moved to %s", e.owner(), e.found.Name, e.found.ID, now), nil
	}
	e.found, e.current = r, true
	return r, "", nil
}

// destructive reports whether bringing r to the spec renames it, archives
// it, or removes collaborators: writes that must address the repository
// under the name it has now.
func (e *repository) destructive(r *forge.Repository) bool {
	s := e.obj.Spec
	if r.Name != e.obj.RepoName() || s.Archived != nil && *s.Archived && !r.Archived {
		return true
	}
	if s.Collaborators != nil && !s.Removals.Reports() {
		_, _, remove := e.collaboratorChanges()
		return len(remove) > 0
	}
	return false
}

func (e *repository) Create(ctx context.Context) (reconciler.Observation, error) {
	var r *forge.Repository
	var err error
	if in := e.obj.Spec.Init; in != nil && in.Template != nil {
		r, err = e.generate(ctx, in.Template)
	} else {
		r, err = e.createPlain(ctx)
	}
	if r == nil {
		return reconciler.Observation{}, err
	}
	made := reconciler.Observation{Exists: true, ID: r.ID, URL: r.HTMLURL}
	e.obj.Status.CreatedID = r.ID
	if err != nil {
		return made, err
	}
	e.found, e.collaborators, e.current = r, map[string]string{}, true
	e.report(r)
	// The forge takes only these on create: the other settings, topics,
	// collaborators and the archive follow as an update. Should that fail,
	// the loop still records what was made.
	if len(e.changes(r)) > 0 {
		if err := e.Update(ctx, made); err != nil {
			return made, err
		}
	}
	return made, nil
}

// createPlain makes the repository with a plain create in its owner, an
// organization or else the token's own user, with spec.init. Either way
// Create gets what was made, and an error when a step after the making
// failed.
func (e *repository) createPlain(ctx context.Context) (*forge.Repository, error) {
	s := e.obj.Spec
	opt := forge.CreateRepoOption{Name: e.obj.RepoName()}
	compare.SetIf(&opt.Description, s.Description)
	compare.SetIf(&opt.Private, s.Private)
	compare.SetIf(&opt.Template, s.Template)
	compare.SetIf(&opt.DefaultBranch, s.DefaultBranch)
	if in := s.Init; in != nil {
		compare.SetIf(&opt.AutoInit, in.AutoInit)
		compare.SetIf(&opt.Gitignores, in.Gitignores)
		compare.SetIf(&opt.License, in.License)
		compare.SetIf(&opt.Readme, in.Readme)
		compare.SetIf(&opt.ObjectFormat, in.ObjectFormat)
		compare.SetIf(&opt.TrustModel, in.TrustModel)
	}
	r, err := e.fc.CreateOrgRepo(ctx, e.owner(), opt)
	if forge.IsNotFound(err) {
		// Not an organization: the authenticated user's own repository?
		me, uerr := e.fc.CurrentUser(ctx)
		if uerr != nil {
			return nil, uerr
		}
		if !strings.EqualFold(me.Login, e.owner()) {
			return nil, reconciler.ParentMissing(err, "organization "+e.owner())
		}
		r, err = e.fc.CreateUserRepo(ctx, opt)
	}
	return r, err
}

// generate makes the repository from template t with the forge's generate
// call, into spec.owner (an organization the token may create in, or the
// token's own user: the forge decides, as for a plain create). The
// template is read first and only read: one the forge does not have, or
// the token cannot see, waits (ParentNotFound, retried, and at once when
// a Repository resource of that name becomes Ready); nothing is created
// in its place, ever. One not marked as a template stalls until it is.
// The generate is addressed by the template's name as read, which
// follows a rename. A lost answer is the loop's create-pending mark: the
// next pass finds the repository by name before it generates again.
func (e *repository) generate(ctx context.Context, t *forgev1.RepositoryTemplate) (*forge.Repository, error) {
	owner, name, _ := strings.Cut(string(t.Repository), "/")
	src, err := e.fc.GetRepo(ctx, owner, name)
	if err != nil {
		return nil, reconciler.ParentMissing(err, "template repository "+string(t.Repository))
	}
	path := src.FullName
	if src.Owner != nil {
		path = src.Owner.Login + "/" + src.Name
	}
	if !src.Template {
		return nil, reconciler.Stall(forgev1.ReasonRejected,
			"repository %s is not a template: nothing was created; mark it as one (spec.template: true of its Repository, or its settings on the forge)", path)
	}
	s := e.obj.Spec
	opt := forge.GenerateRepoOption{Owner: e.owner(), Name: e.obj.RepoName(),
		GitContent: ptrOr(t.GitContent, true), Topics: ptrOr(t.Topics, false), Labels: ptrOr(t.Labels, false),
		Webhooks: ptrOr(t.Webhooks, false), GitHooks: ptrOr(t.GitHooks, false), Avatar: ptrOr(t.Avatar, false),
		ProtectedBranches: ptrOr(t.ProtectedBranches, false)}
	compare.SetIf(&opt.Description, s.Description)
	compare.SetIf(&opt.Private, s.Private)
	compare.SetIf(&opt.DefaultBranch, s.DefaultBranch)
	// The forge takes the caller's own account only under its login as
	// it is: in another case it is "another user", 403 for a non-admin.
	me, err := e.fc.CurrentUser(ctx)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(me.Login, opt.Owner) {
		opt.Owner = me.Login
	}
	r, err := e.fc.GenerateRepo(ctx, path, opt)
	if err != nil {
		// The template was just read: a 404 is the owner missing.
		return nil, reconciler.ParentMissing(err, "organization or user "+e.owner())
	}
	// Its answer lists no topics, even copied ones (Gitea 1.24 to 1.26):
	// the settings are compared with the repository read back, or copied
	// topics would be written again. Should that read fail, r is still
	// what was made.
	fresh, err := e.fc.GetRepoByID(ctx, r.ID)
	if err != nil {
		return r, err
	}
	return fresh, nil
}

// CreateNote is what plan says of a repository it would create.
func (repositoryKind) CreateNote(r *forgev1.Repository) string {
	if in := r.Spec.Init; in != nil && in.Template != nil {
		return "from template " + string(in.Template.Repository)
	}
	return ""
}

// RepoRefs: a repository made from a template waits for it, and goes on
// at once when a Repository resource of that name becomes Ready.
func (repositoryKind) RepoRefs(r *forgev1.Repository) []string {
	if in := r.Spec.Init; in != nil && in.Template != nil {
		return []string{string(in.Template.Repository)}
	}
	return nil
}

// Update writes what differs in the order the forge needs: unarchive first,
// then the settings (a rename among them), topics and collaborators, and
// archive last.
func (e *repository) Update(ctx context.Context, _ reconciler.Observation) error {
	if e.destructive(e.found) {
		_, moved, err := e.reread(ctx)
		if err != nil {
			return err
		}
		if moved != "" {
			return reconciler.Stall(forgev1.ReasonMoved,
				"%s on the forge: nothing is written to it; change spec.owner, or delete the resource (which leaves it)", moved)
		}
		e.report(e.found)
	}
	s, r := e.obj.Spec, e.found
	name := r.Name
	if s.Archived != nil && !*s.Archived && r.Archived {
		if _, err := e.fc.EditRepo(ctx, e.owner(), name, forge.EditRepoOption{Archived: new(false)}); err != nil {
			return err
		}
	}
	if opt, n := e.settings(r); n > 0 {
		updated, err := e.fc.EditRepo(ctx, e.owner(), name, opt)
		if err != nil {
			return err
		}
		name = updated.Name
		e.report(updated)
	}
	if e.managesTopics() && !slices.Equal(e.topics(), normalTopics(r.Topics)) {
		if err := e.fc.SetRepoTopics(ctx, e.owner(), name, e.topics()); err != nil {
			return err
		}
	}
	removalsErr, err := e.applyCollaborators(ctx, name)
	if err != nil {
		return err
	}
	if s.Archived != nil && *s.Archived && !r.Archived {
		updated, err := e.fc.EditRepo(ctx, e.owner(), name, forge.EditRepoOption{Archived: new(true)})
		if err != nil {
			return err
		}
		e.report(updated)
	}
	return removalsErr
}

func (e *repository) Delete(ctx context.Context, obs reconciler.Observation) error {
	policy := e.obj.GetDeletionPolicy()
	if policy != forgev1.DeletionPolicyArchive && policy != forgev1.DeletionPolicyDelete {
		return nil
	}
	// Addressed by the name it has now, read by its id: a name read from a
	// listing may since have passed to another repository.
	r, moved, err := e.reread(ctx)
	if err != nil {
		return err // a 404 counts as deleted
	}
	if moved != "" {
		return reconciler.Leave(corev1.EventTypeWarning, forgev1.ReasonMoved, "left the repository on the forge: %s since it was managed here", moved)
	}
	if p := r.Permissions; p != nil && !p.Admin {
		// Neither archived nor deleted by a token the forge would refuse:
		// the resource goes, the repository stays as it is.
		return reconciler.Leave(corev1.EventTypeWarning, forgev1.ReasonUnauthorized,
			"left repository %s on the forge: the token of %s may not administer it (the forge grants it %s)",
			repoPath(e.owner(), r), e.obj.Spec.ForgeRef, grantOf(p))
	}
	name := r.Name
	switch policy {
	case forgev1.DeletionPolicyArchive:
		if !r.Archived {
			if _, err := e.fc.EditRepo(ctx, e.owner(), name, forge.EditRepoOption{Archived: new(true)}); err != nil {
				return err
			}
		}
		return reconciler.Leave(corev1.EventTypeNormal, forgev1.ReasonArchived,
			"archived repository %s/%s on the forge (deletionPolicy Archive)", e.owner(), name)
	case forgev1.DeletionPolicyDelete:
		if created := e.obj.Status.CreatedID; (created == 0 || created != r.ID) && e.obj.GetAnnotations()[forgev1.AllowDeleteAnnotation] != "true" {
			return reconciler.Leave(corev1.EventTypeWarning, forgev1.ReasonOrphaned,
				"left repository %s/%s on the forge: the operator adopted it rather than created it, and deletes such a repository only with the annotation %s: \"true\"",
				e.owner(), name, forgev1.AllowDeleteAnnotation)
		}
		return e.fc.DeleteRepo(ctx, e.owner(), name)
	}
	return nil
}

// repositoryExport writes a Repository per repository, archived ones too,
// holding every setting the forge reports (so that applying it writes
// nothing), its topics and its direct collaborators with the permission
// the forge reports for each (the effective one: a collaborator who also
// gets more through a team is written with the higher permission; adjust
// it before applying). Never init: the repository exists.
var repositoryExport = export.ForRepository(exportRepository)

// repositoryReader is what the repository export reads.
type repositoryReader interface {
	ListCollaborators(ctx context.Context, owner, repo string) ([]forge.User, error)
	GetCollaboratorPermission(ctx context.Context, owner, repo, user string) (string, error)
}

func exportRepository(ctx context.Context, b *export.Builder, src repositoryReader, owner string, r forge.Repository) error {
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
	server := b.Server()
	b.Add(&forgev1.Repository{
		TypeMeta:   export.TypeMeta("Repository"),
		ObjectMeta: b.Meta("Repository", r.Name, r.ID),
		Spec: forgev1.RepositorySpec{
			ManagedSpec:        b.Managed(),
			DeletionPolicy:     forgev1.RepositoryDeletionPolicy(forgev1.DeletionPolicyOrphan),
			Owner:              forgev1.OwnerName(owner),
			Name:               export.Ptr(forgev1.RepoName(r.Name)),
			RepositorySettings: repositorySettingsOf(server, &r),
			Archived:           export.Ptr(r.Archived),
			Topics:             topics,
			Collaborators:      collaborators,
		},
	})
	return nil
}

// repositorySettingsOf is every setting of r as a spec writes it: what a
// Repository adopting it holds (a field the server lacks left unset).
func repositorySettingsOf(server forge.Server, r *forge.Repository) forgev1.RepositorySettings {
	return forgev1.RepositorySettings{
		Description:                   export.Ptr(r.Description),
		Website:                       export.Ptr(r.Website),
		Private:                       export.Ptr(r.Private),
		Template:                      export.Ptr(r.Template),
		DefaultBranch:                 export.NonEmpty(r.DefaultBranch),
		HasIssues:                     export.Ptr(r.HasIssues),
		HasWiki:                       export.Ptr(r.HasWiki),
		HasPullRequests:               export.Ptr(r.HasPullRequests),
		HasProjects:                   export.Ptr(r.HasProjects),
		HasReleases:                   export.Ptr(r.HasReleases),
		HasPackages:                   export.Ptr(r.HasPackages),
		HasActions:                    export.Ptr(r.HasActions),
		HasCode:                       export.Since(server, "RepositorySettings", "hasCode", export.Ptr(r.HasCode)),
		AllowMergeCommits:             export.Ptr(r.AllowMergeCommits),
		AllowRebase:                   export.Ptr(r.AllowRebase),
		AllowRebaseExplicit:           export.Ptr(r.AllowRebaseExplicit),
		AllowSquashMerge:              export.Ptr(r.AllowSquashMerge),
		AllowFastForwardOnlyMerge:     export.Ptr(r.AllowFastForwardOnlyMerge),
		AllowManualMerge:              export.Since(server, "RepositorySettings", "allowManualMerge", export.Ptr(r.AllowManualMerge)),
		AutodetectManualMerge:         export.Since(server, "RepositorySettings", "autodetectManualMerge", export.Ptr(r.AutodetectManualMerge)),
		AllowRebaseUpdate:             export.Ptr(r.AllowRebaseUpdate),
		AllowMergeUpdate:              export.Since(server, "RepositorySettings", "allowMergeUpdate", export.Ptr(r.AllowMergeUpdate)),
		DefaultUpdateStyle:            export.Since(server, "RepositorySettings", "defaultUpdateStyle", export.NonEmpty(r.DefaultUpdateStyle)),
		DefaultMergeStyle:             export.NonEmpty(r.DefaultMergeStyle),
		DefaultDeleteBranchAfterMerge: export.Ptr(r.DefaultDeleteBranchAfterMerge),
		DefaultAllowMaintainerEdit:    export.Ptr(r.DefaultAllowMaintainerEdit),
		IgnoreWhitespaceConflicts:     export.Ptr(r.IgnoreWhitespaceConflicts),
	}
}
