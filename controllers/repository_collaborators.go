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
	"maps"
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// A repository's direct collaborators: added, given the spec's permission
// and removed (bounded by spec.maxCollaboratorRemovals), with the
// permission written kept in status since the forge does not report it.

// defaultMaxCollaboratorRemovals applies when spec.maxCollaboratorRemovals is unset.
const defaultMaxCollaboratorRemovals = 5

// applyCollaborators adds the missing, changes the permissions the spec
// changed, and removes the unlisted unless they are more than the limit;
// then it returns a TooManyRemovals stall (the rest is applied).
func (e *repository) applyCollaborators(ctx context.Context, name string) (error, error) {
	s := e.obj.Spec
	if s.Collaborators == nil {
		return nil, nil
	}
	add, change, remove := e.collaboratorChanges()
	st := &e.obj.Status
	if st.CollaboratorPermissions == nil {
		st.CollaboratorPermissions = map[string]string{}
	}
	for _, c := range slices.Concat(add, change) {
		if err := e.fc.SetCollaborator(ctx, e.owner(), name, string(c.User), c.Permission); err != nil {
			return nil, err
		}
		st.CollaboratorPermissions[strings.ToLower(string(c.User))] = c.Permission
	}
	if len(remove) > 0 {
		// Removals decide on a listing taken now, after this pass's own
		// writes, of the repository under the name it has now (DESIGN
		// "Removals"); a failed listing removes nobody.
		users, err := forge.Fresh(e.fc).ListCollaborators(ctx, e.owner(), name)
		if err != nil {
			return nil, err
		}
		e.collaborators = map[string]string{}
		for _, u := range users {
			e.collaborators[strings.ToLower(u.Login)] = u.Login
		}
		_, _, remove = e.collaboratorChanges()
	}
	if s.Removals.Reports() {
		// Decided on the listing just taken, as a removal would be; none
		// is made, so no limit applies.
		e.reportRemovals()
		return nil, nil
	}
	limit := int(ptrOr(s.MaxCollaboratorRemovals, defaultMaxCollaboratorRemovals))
	if len(remove) > limit {
		return reconciler.Stall(forgev1.ReasonTooManyRemovals,
			"%d collaborators of %s/%s are not in spec.collaborators (%s), more than spec.maxCollaboratorRemovals (%d): none was removed; raise the limit or list them",
			len(remove), e.owner(), name, strings.Join(remove, ", "), limit), nil
	}
	for _, login := range remove {
		if err := e.fc.RemoveCollaborator(ctx, e.owner(), name, login); err != nil && !forge.IsNotFound(err) {
			return nil, err
		}
		delete(st.CollaboratorPermissions, strings.ToLower(login))
	}
	return nil, nil
}

// reportRemovals keeps, with removals Report, the direct collaborators
// spec.collaborators leaves out in status.pendingRemovals, from the
// listing this pass took (never a kept one; a pass that writes lists
// again after its additions, as a removal would). None is removed, so
// spec.maxCollaboratorRemovals does not apply. With Apply, or with
// collaborators unmanaged, it clears the field.
func (e *repository) reportRemovals() {
	st, s := &e.obj.Status, e.obj.Spec
	if s.Collaborators == nil || !s.Removals.Reports() {
		st.PendingRemovals = nil
		return
	}
	_, _, remove := e.collaboratorChanges()
	items := make([]forgev1.PendingRemoval, len(remove))
	for i, login := range remove {
		// Under the name the spec gives it: the one a rename in this pass leaves.
		items[i] = forgev1.PendingRemoval{Repository: e.obj.FullName(), Kind: "Collaborator", Name: login}
	}
	st.PendingRemovals = reconciler.PendingRemovals(items)
}

// collaboratorChanges compares spec.collaborators with the direct
// collaborators listed. The forge does not report a direct collaborator's
// permission (its permission endpoint answers the effective one, teams
// included), so a permission is written when it is not the one last
// written (status.collaboratorPermissions); a permission changed by hand
// on the forge is not seen.
func (e *repository) collaboratorChanges() (add, change []forgev1.Collaborator, remove []string) {
	want := map[string]bool{}
	applied := e.obj.Status.CollaboratorPermissions
	for _, c := range e.obj.Spec.Collaborators {
		k := strings.ToLower(string(c.User))
		want[k] = true
		_, listed := e.collaborators[k]
		switch {
		case !listed:
			add = append(add, c)
		case applied[k] != c.Permission:
			change = append(change, c)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.collaborators)) {
		if !want[k] {
			remove = append(remove, e.collaborators[k])
		}
	}
	return add, change, remove
}

// adoptCollaborators records, for a listed collaborator the status has no
// permission of (found on adoption, or added by hand with the name the
// spec lists), the spec's permission: the forge cannot say whether it
// differs. Entries of users no longer listed are dropped.
func (e *repository) adoptCollaborators() {
	st := &e.obj.Status
	m := map[string]string{}
	for _, c := range e.obj.Spec.Collaborators {
		k := strings.ToLower(string(c.User))
		if _, listed := e.collaborators[k]; !listed {
			continue
		}
		m[k] = c.Permission
		if p := st.CollaboratorPermissions[k]; p != "" {
			m[k] = p
		}
	}
	st.CollaboratorPermissions = m
}
