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

// Package hooks is the webhook kind OrgHook and RepoHook share: one
// declaration (Kind, a child.Kind over the organization or repository a
// hook lives in) and one External, adopting a hook by its type and URL,
// sending its URL, secret and authorization header from Secrets without
// ever showing them, and recording the values sent as keyed digests
// (status.appliedSecrets); and their export writers (OrgExport,
// RepoExport). It also gives the events a hook's spec means as the forge
// stores them (ExpandEvents, NormalizeEvents), which the Receiver compares
// too. It serves the hook kinds of package controllers; of the shared
// pieces beside it, it imports child, compare and secrets.
package hooks

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// Spec fields whose sent values hook status records (as keyed digests).
const (
	FieldSecret     = "secretRef"
	FieldAuthHeader = "authorizationHeaderSecretRef"
)

// Kind declares the webhooks of one scope kind (organization or
// repository): OrgHook and RepoHook are this one implementation over their
// scopes, which parts gives with the object's hook spec and status. Hooks
// have no natural key: an existing hook is adopted only when exactly one
// unclaimed hook has the spec's type and URL. The URL, secret and
// authorization header may come from Secrets, so neither messages nor
// Describe ever carry them. digests keys the record of the secret values
// sent (see secretdigest); sent what this manager sent last (see secrets.Sent).
func Kind[T forgev1.Managed](digests *secretdigest.Digester, sent *secrets.Sent, list client.ObjectList,
	parts func(T) (*forgev1.HookSpec, *forgev1.HookStatus, child.Place)) child.Kind[T] {
	k := kind[T]{digests: digests, sent: sent, parts: parts}
	return child.Kind[T]{
		Shown: func(obj T) string {
			spec, _, _ := parts(obj)
			if spec.Name != "" {
				return fmt.Sprintf("%s hook %q", spec.Type, spec.Name)
			}
			return fmt.Sprintf("%s hook", spec.Type)
		},
		Where: func(obj T) child.Place {
			_, _, sc := parts(obj)
			return sc
		},
		List:          list,
		UnknownNoteOf: unknownNote,
		SecretsOf: func(obj T) []string {
			spec, _, _ := parts(obj)
			var names []string
			for _, ref := range []*forgev1.SecretKeySelector{spec.URLSecretRef, spec.SecretRef, spec.AuthorizationHeaderSecretRef} {
				if ref != nil && !slices.Contains(names, ref.Name) {
					names = append(names, ref.Name)
				}
			}
			return names
		},
		External: k.connect,
	}
}

// kind is what a hook kind's passes share.
type kind[T forgev1.Managed] struct {
	digests *secretdigest.Digester
	sent    *secrets.Sent
	parts   func(T) (*forgev1.HookSpec, *forgev1.HookStatus, child.Place)
}

// connect reads the referenced Secrets. While the resource is being deleted
// a missing Secret is no obstacle: the hook is found by status.id.
func (k kind[T]) connect(ctx context.Context, obj T, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
	spec, status, _ := k.parts(obj)
	deleting := !obj.GetDeletionTimestamp().IsZero()
	if !deleting && pass.Server.Lacks(forge.GateWorkflowRunEvent) && slices.Contains(spec.Events, "workflow_run") {
		// The forge would drop the event and the hook would be rewritten
		// at every check: say so once instead.
		return nil, reconciler.Stall(forgev1.ReasonUnsupported, "%s: remove it from spec.events or upgrade the forge",
			pass.Server.Unsupported([]forge.Gate{forge.GateWorkflowRunEvent}))
	}
	e := &hook{spec: spec, status: status, At: at, fc: pass.Forge, pending: pass.Pending, claimedBy: pass.ClaimedBy,
		uid: obj.GetUID(), sentTo: k.sent, deleting: deleting, headerReadable: pass.Server.ReturnsHookAuthHeader, url: spec.URL}
	if k.digests != nil {
		e.digestKey = k.digests.Ref().String()
	}
	// shown names the field in Diff and Unknown.
	read := func(ref *forgev1.SecretKeySelector, field, shown string, dst *string) error {
		if ref == nil {
			return nil
		}
		v, rv, err := connection.SecretValue(ctx, pass.Reader, obj.GetNamespace(), ref.Name, ref.Key)
		if errors.Is(err, reconciler.ErrUnreadable) {
			// A plan without access to the Secret: compare what can be.
			e.unknown = append(e.unknown, shown)
			return nil
		}
		if err != nil {
			if deleting {
				return nil
			}
			return err
		}
		*dst = v
		if field == "" || deleting {
			return nil // the URL is compared as it is; a deletion sends nothing
		}
		a, err := secrets.Record(ctx, k.digests, obj, field, ref, v, rv)
		if errors.Is(err, reconciler.ErrUnreadable) {
			e.unknown = append(e.unknown, shown)
			return nil
		}
		if err != nil {
			return err
		}
		e.applied = append(e.applied, a)
		return nil
	}
	if err := read(spec.URLSecretRef, "", "url", &e.url); err != nil {
		return nil, err
	}
	if err := read(spec.SecretRef, FieldSecret, "secret", &e.secret); err != nil {
		return nil, err
	}
	if err := read(spec.AuthorizationHeaderSecretRef, FieldAuthHeader, "authorizationHeader", &e.authHeader); err != nil {
		return nil, err
	}
	slices.SortFunc(e.applied, func(x, y forgev1.AppliedSecret) int { return strings.Compare(x.Field, y.Field) })
	// The forge knows these values and may quote them in any answer, not
	// only in answers to the calls that send them.
	e.fc = forge.RedactingHooks(e.fc, e.url, e.secret, e.authHeader)
	return e, nil
}

type hook struct {
	spec   *forgev1.HookSpec
	status *forgev1.HookStatus
	child.At
	fc        forge.HooksClient
	pending   bool
	deleting  bool
	claimedBy func(context.Context, int64) (string, error)
	// headerReadable: the server returns authorization_header.
	headerReadable bool
	// Desired values read from the spec and its Secrets.
	url, secret, authHeader string
	// applied is what status.appliedSecrets becomes once the values are sent.
	applied []forgev1.AppliedSecret
	// digestKey names the secret digest key Secret, for messages.
	digestKey string
	// unknown names the fields whose Secret a plan could not read.
	unknown []string
	found   *forge.Hook
	// uid is the resource's; sentTo what the manager last sent for it.
	uid    types.UID
	sentTo *secrets.Sent
}

func (e *hook) isUnknown(field string) bool { return slices.Contains(e.unknown, field) }

func (e *hook) Observe(ctx context.Context) (reconciler.Observation, error) {
	if id := e.status.ID; id != 0 {
		h, err := e.fc.GetHook(ctx, e.Scope, id)
		switch {
		case err == nil:
			return e.observed(h, false), nil
		case !forge.IsNotFound(err):
			return reconciler.Observation{}, err
		}
		// Gone (or its organization or repository is): look for one to adopt, as on first sight.
	}
	if e.isUnknown("url") {
		// A hook is found by its URL: without it, a plan cannot tell
		// whether one exists.
		return reconciler.Observation{Unknown: []string{"url"}}, nil
	}
	if e.url == "" {
		return reconciler.Observation{}, nil // being deleted without its URL Secret
	}
	h, err := e.adoptable(ctx, 0)
	if err != nil || h == nil {
		return reconciler.Observation{}, err
	}
	return e.observed(h, true), nil
}

// adoptable finds the one hook of the spec's type and URL, but skip, that
// no other resource of the kind holds; nil when there is none, or more
// than one.
func (e *hook) adoptable(ctx context.Context, skip int64) (*forge.Hook, error) {
	all, err := e.fc.ListHooks(ctx, e.Scope)
	if err != nil {
		return nil, e.Classify(err)
	}
	var match []forge.Hook
	for _, h := range all {
		if h.Type != string(e.spec.Type) || h.Config["url"] != e.url || h.ID == e.status.ID || h.ID == skip {
			continue
		}
		other, err := e.claimedBy(ctx, h.ID)
		if err != nil {
			return nil, err
		}
		if other == "" {
			match = append(match, h)
		}
	}
	if len(match) != 1 {
		return nil, nil
	}
	return &match[0], nil
}

// observed decides what differs, then records in status the Secret values
// that, as far as the forge holds them, equal the spec's.
func (e *hook) observed(h *forge.Hook, adopted bool) reconciler.Observation {
	e.found = h
	have := e.status.AppliedSecrets
	switch {
	case adopted && e.pending:
		// Found after a create whose response was lost: it carries the
		// values of that create.
		have = e.applied
	case adopted:
		// Someone else's hook: its secret is unknown, nothing recorded applies.
		have = nil
	}
	// What this manager sent to this hook last is newer than a status the
	// cache lags on (a replacement found by its URL included).
	have = e.sentTo.Have(e.uid, h.ID, have)
	obs := reconciler.Observation{Exists: true, ID: h.ID}
	changed := map[string]bool{
		FieldSecret:     e.secretChanged(have, &obs),
		FieldAuthHeader: e.authHeaderChanged(h, have, &obs),
	}
	switch {
	case h.Type != string(e.spec.Type):
		obs.Replace, obs.ReplaceBecause = true, "type"
	case changed[FieldSecret]:
		obs.Replace, obs.ReplaceBecause = true, "secret"
	}
	obs.Changes = e.changes(h).changes
	if changed[FieldAuthHeader] {
		obs.Changes = append(obs.Changes, reconciler.Change{Field: "authorizationHeader", Have: secrets.Shown, Want: secrets.Shown})
		slices.SortFunc(obs.Changes, compare.ByField)
	}
	obs.Diff = reconciler.Fields(obs.Changes)
	if e.isUnknown("url") {
		obs.Unknown = append(obs.Unknown, "url")
	}
	slices.Sort(obs.Unknown)
	if !e.deleting {
		e.status.AppliedSecrets = settled(have, e.applied, changed)
		e.sentTo.Settled(e.uid, h.ID, e.status.AppliedSecrets)
		obs.Notices = e.keyChanged(have)
	}
	return obs
}

// keyChanged warns, once (the records are re-stamped in the same pass),
// when digests in status were made under another secret digest key.
func (e *hook) keyChanged(have []forgev1.AppliedSecret) []reconciler.Event {
	return secrets.KeyChanged(have, e.applied, e.digestKey)
}

// settled is status.appliedSecrets after an observation: the wanted record
// for each field whose value the forge holds, the old one for each that
// differs (until it is sent).
func settled(have, want []forgev1.AppliedSecret, changed map[string]bool) []forgev1.AppliedSecret {
	var out []forgev1.AppliedSecret
	for _, field := range []string{FieldAuthHeader, FieldSecret} {
		from := want
		if changed[field] {
			from = have
		}
		if a, ok := secrets.For(from, field); ok {
			out = append(out, a)
		}
	}
	return out
}

func (e *hook) Create(ctx context.Context) (reconciler.Observation, error) {
	if e.pending && e.status.ID != 0 {
		// A replacement whose create response was lost: Observe found the
		// old hook by id, the new one is the unclaimed hook of the same
		// type and URL. Take it rather than create a third; but never the
		// hook this pass found and now replaces (a secret rolled back
		// while the cache lagged: see secrets.Sent).
		var replaced int64
		if e.found != nil {
			replaced = e.found.ID
		}
		h, err := e.adoptable(ctx, replaced)
		if err != nil {
			return reconciler.Observation{}, err
		}
		if h != nil {
			if c := e.changes(h); len(c.changes) > 0 {
				if _, err := e.fc.EditHook(ctx, e.Scope, h.ID, c.opt); err != nil {
					return reconciler.Observation{Exists: true, ID: h.ID}, err
				}
			}
			e.sent(h.ID)
			return reconciler.Observation{Exists: true, ID: h.ID}, nil
		}
	}
	s := *e.spec
	opt := forge.CreateHookOption{
		Type:                string(s.Type),
		Name:                s.Name,
		Config:              e.config(nil),
		Events:              hookEvents(s.Events),
		BranchFilter:        s.BranchFilter,
		AuthorizationHeader: e.authHeader,
		Active:              hookActive(s),
	}
	if e.secret != "" {
		opt.Config["secret"] = e.secret
	}
	h, err := e.fc.CreateHook(ctx, e.Scope, opt)
	if err != nil {
		return reconciler.Observation{}, e.Classify(err)
	}
	e.sent(h.ID)
	return reconciler.Observation{Exists: true, ID: h.ID}, nil
}

// Update sends every managed field: the forge replaces events, branch filter
// and authorization header on each PATCH, whatever is omitted.
func (e *hook) Update(ctx context.Context, obs reconciler.Observation) error {
	_, err := e.fc.EditHook(ctx, e.Scope, obs.ID, e.changes(e.found).opt)
	if err != nil {
		return err
	}
	e.sent(obs.ID)
	return nil
}

func (e *hook) Delete(ctx context.Context, obs reconciler.Observation) error {
	e.sentTo.Forget(e.uid, obs.ID)
	return e.fc.DeleteHook(ctx, e.Scope, obs.ID)
}

// config is the hook's config as the spec wants it, over the type-specific
// keys the forge already has (a Slack PATCH resets the keys it omits).
func (e *hook) config(have map[string]string) map[string]string {
	cfg := map[string]string{}
	for k, v := range have {
		if k != "url" && k != "content_type" && k != "secret" {
			cfg[k] = v
		}
	}
	maps.Copy(cfg, e.spec.Config)
	cfg["url"] = e.url
	cfg["content_type"] = hookContentType(*e.spec)
	return cfg
}

type hookChanges struct {
	opt     forge.EditHookOption
	changes []reconciler.Change
}

// changes compares the managed fields but the authorization header (see
// authHeaderChanged). Config keys the forge does not return (it shows only
// Slack's) cannot be compared: they are sent on create and with every update.
func (e *hook) changes(h *forge.Hook) hookChanges {
	s := *e.spec
	active := hookActive(s)
	c := hookChanges{opt: forge.EditHookOption{
		Config:              e.config(h.Config),
		Events:              hookEvents(s.Events),
		BranchFilter:        s.BranchFilter,
		AuthorizationHeader: e.authHeader,
		Active:              &active,
		Name:                &s.Name,
	}}
	diff := func(field string, have, want any, differs bool) {
		if differs {
			c.changes = append(c.changes, compare.Change(field, have, want))
		}
	}
	switch {
	case e.isUnknown("url"):
		// Not compared: Observation.Unknown says so.
	case h.Config["url"] != e.url:
		// A URL from a Secret, or a chat hook's, carries a token: not shown.
		have, want := compare.Show(h.Config["url"]), compare.Show(e.url)
		if forge.URLIsSecret(h.Type, h.Config["url"]) || forge.URLIsSecret(string(s.Type), e.url) || s.URLSecretRef != nil {
			have = secrets.Shown
		}
		if forge.URLIsSecret(string(s.Type), e.url) || s.URLSecretRef != nil {
			want = secrets.Shown
		}
		c.changes = append(c.changes, reconciler.Change{Field: "url", Have: have, Want: want})
	}
	diff("contentType", h.Config["content_type"], hookContentType(s), h.Config["content_type"] != hookContentType(s))
	diff("active", h.Active, active, h.Active != active)
	diff("branchFilter", h.BranchFilter, s.BranchFilter, h.BranchFilter != s.BranchFilter)
	diff("name", h.Name, s.Name, h.Name != s.Name)
	wantEvents, haveEvents := ExpandEvents(s.Events), NormalizeEvents(h.Events)
	diff("events", haveEvents, wantEvents, !slices.Equal(wantEvents, haveEvents))
	var haveCfg, wantCfg []string
	for _, k := range slices.Sorted(maps.Keys(s.Config)) {
		if have, ok := h.Config[k]; ok && have != s.Config[k] {
			haveCfg = append(haveCfg, k+"="+have)
			wantCfg = append(wantCfg, k+"="+s.Config[k])
		}
	}
	diff("config", haveCfg, wantCfg, len(wantCfg) > 0)
	slices.SortFunc(c.changes, compare.ByField)
	return c
}

// authHeaderChanged compares the header itself where the server returns it,
// and otherwise the digest of the value last sent. A header a plan cannot
// read is unknown (obs.Unknown), unless nothing was ever sent for it.
func (e *hook) authHeaderChanged(h *forge.Hook, have []forgev1.AppliedSecret, obs *reconciler.Observation) bool {
	readable := e.headerReadable || h.AuthorizationHeader != ""
	if e.isUnknown("authorizationHeader") {
		if _, sent := secrets.For(have, FieldAuthHeader); readable || sent {
			obs.Unknown = append(obs.Unknown, "authorizationHeader")
			return false
		}
		return true // set where it was not
	}
	if readable {
		return h.AuthorizationHeader != e.authHeader
	}
	return secrets.Differs(have, e.applied, FieldAuthHeader)
}

// secretChanged compares the secret by the digest of the value last sent.
// A secret a plan cannot read is unknown (obs.Unknown), unless nothing
// was ever sent for it: then it is set where it was not, whatever its value.
func (e *hook) secretChanged(have []forgev1.AppliedSecret, obs *reconciler.Observation) bool {
	if e.isUnknown("secret") {
		if _, sent := secrets.For(have, FieldSecret); sent {
			obs.Unknown = append(obs.Unknown, "secret")
			return false
		}
		return true
	}
	return secrets.Differs(have, e.applied, FieldSecret)
}

// sent records the values just sent to hook id, in status and in the
// manager's memory.
func (e *hook) sent(id int64) {
	e.status.AppliedSecrets = e.applied
	e.sentTo.Sent(e.uid, id, e.applied)
}

func hookActive(s forgev1.HookSpec) bool { return s.Active == nil || *s.Active }

func hookContentType(s forgev1.HookSpec) string {
	if s.ContentType == "" {
		return "json"
	}
	return s.ContentType
}

// hookEvents is the spec's events as sent; the forge expands group names.
func hookEvents(events []forgev1.HookEvent) []string {
	if len(events) == 0 {
		return []string{"push"}
	}
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = string(ev)
	}
	return out
}

// Hook event groups as the forge expands them.
var (
	issueEvents = []string{"issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"}
	pullEvents  = []string{"pull_request", "pull_request_assign", "pull_request_label", "pull_request_milestone",
		"pull_request_comment", "pull_request_review", "pull_request_review_request", "pull_request_sync"}
)

// ExpandEvents gives the set of events the forge stores for the spec's
// events, sorted: no events means push; issues and pull_request stand for
// their groups, issues_only and pull_request_only for the one event.
func ExpandEvents(events []forgev1.HookEvent) []string {
	var out []string
	for _, ev := range hookEvents(events) {
		switch ev := strings.ToLower(ev); ev {
		case "issues":
			out = append(out, issueEvents...)
		case "pull_request":
			out = append(out, pullEvents...)
		case "issues_only":
			out = append(out, "issues")
		case "pull_request_only":
			out = append(out, "pull_request")
		default:
			out = append(out, ev)
		}
	}
	return NormalizeEvents(out)
}

// NormalizeEvents makes a sorted set of events as the forge lists them.
func NormalizeEvents(events []string) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = strings.ToLower(strings.TrimSpace(ev))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// OrgExport writes an OrgHook per hook of the organization, and
// RepoExport a RepoHook per hook of each live repository. The forge
// never returns a hook's secret: each is adopted as it is; a URL that may
// carry a credential and an authorization header become references to
// Secrets to create, never text.
var (
	OrgExport = export.ForOrganization(func(ctx context.Context, b *export.Builder, src hookReader, o *forge.Organization) error {
		return exportHooks(ctx, b, src, forge.OrgScope(o.Name))
	})
	RepoExport = export.ForLiveRepository(func(ctx context.Context, b *export.Builder, src hookReader, owner, repo string) error {
		return exportHooks(ctx, b, src, forge.RepoScope(owner, repo))
	})
)

// hookReader is what the hook export reads.
type hookReader interface {
	ListHooks(ctx context.Context, scope forge.Scope) ([]forge.Hook, error)
}

func exportHooks(ctx context.Context, b *export.Builder, src hookReader, sc forge.Scope) error {
	hooks, err := src.ListHooks(ctx, sc)
	return export.EachByID(hooks, err, "hooks of "+sc.String(), func(h forge.Hook) int64 { return h.ID },
		func(h forge.Hook) { exportHook(b, sc, h) })
}

// hookConfigKeys are the config keys besides url and content_type that the
// forge returns (Slack's) and that OrgHook manages in spec.config.
var hookConfigKeys = []string{"channel", "username", "icon_url", "color"}

// exportHook writes an OrgHook or, for a repository, a RepoHook.
func exportHook(b *export.Builder, sc forge.Scope, h forge.Hook) {
	kind, base := "OrgHook", sc.Owner
	if sc.Repo != "" {
		kind, base = "RepoHook", sc.Owner+"-"+sc.Repo
	}
	meta := b.Meta(kind, fmt.Sprintf("%s-hook-%d", base, h.ID), h.ID)
	name := meta.Name
	spec := forgev1.HookSpec{
		Type:         forgev1.HookType(h.Type),
		ContentType:  h.Config["content_type"],
		Events:       specHookEvents(h.Events),
		BranchFilter: h.BranchFilter,
		Active:       export.Ptr(h.Active),
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
	if sc.Repo != "" {
		b.Add(&forgev1.RepoHook{TypeMeta: export.TypeMeta(kind), ObjectMeta: meta, Spec: forgev1.RepoHookSpec{
			ManagedSpec:    b.Managed(),
			DeletionPolicy: forgev1.DeletionPolicyOrphan,
			Repository:     forgev1.RepositoryName(sc.Owner + "/" + sc.Repo),
			HookSpec:       spec,
		}}, comment...)
		return
	}
	b.Add(&forgev1.OrgHook{TypeMeta: export.TypeMeta(kind), ObjectMeta: meta, Spec: forgev1.OrgHookSpec{
		ManagedSpec:    b.Managed(),
		DeletionPolicy: forgev1.DeletionPolicyOrphan,
		Organization:   forgev1.OwnerName(sc.Owner),
		HookSpec:       spec,
	}}, comment...)
}

// specHookEvents are the hook's events, sorted, as the spec's set.
func specHookEvents(events []string) []forgev1.HookEvent {
	out := make([]forgev1.HookEvent, 0, len(events))
	for _, e := range slices.Sorted(slices.Values(events)) {
		out = append(out, forgev1.HookEvent(e))
	}
	return slices.Compact(out)
}

// unknownNote: a hook is found by its URL; from a Secret plan cannot
// read, whether the hook exists is unknown.
func unknownNote(d reconciler.Action, unknown []string) string {
	if d == reconciler.Create && slices.Contains(unknown, "url") {
		return "the hook is found by its URL, which comes from a Secret plan cannot read; give --kubeconfig and -n"
	}
	return ""
}
