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
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Spec fields whose Secret versions OrgHook status records.
const (
	fieldSecret     = "secretRef"
	fieldAuthHeader = "authorizationHeaderSecretRef"
)

// orgHookKind manages organization webhooks. Hooks have no natural key: an
// existing hook is adopted only when exactly one unclaimed hook has the
// spec's type and URL. The URL, secret and authorization header may come
// from Secrets, so neither messages nor Describe ever carry them.
type orgHookKind struct{}

func (orgHookKind) New() *forgev1.OrgHook       { return &forgev1.OrgHook{} }
func (orgHookKind) NewList() client.ObjectList  { return &forgev1.OrgHookList{} }
func (orgHookKind) Key(*forgev1.OrgHook) string { return "" }
func (orgHookKind) Describe(h *forgev1.OrgHook) string {
	if h.Spec.Name != "" {
		return fmt.Sprintf("%s hook %q in organization %s", h.Spec.Type, h.Spec.Name, h.Spec.Organization)
	}
	return fmt.Sprintf("%s hook in organization %s", h.Spec.Type, h.Spec.Organization)
}

func (orgHookKind) Secrets(h *forgev1.OrgHook) []string {
	var names []string
	for _, ref := range []*forgev1.SecretKeySelector{h.Spec.URLSecretRef, h.Spec.SecretRef, h.Spec.AuthorizationHeaderSecretRef} {
		if ref != nil && !slices.Contains(names, ref.Name) {
			names = append(names, ref.Name)
		}
	}
	return names
}

// Connect reads the referenced Secrets. While the resource is being deleted
// a missing Secret is no obstacle: the hook is found by status.id.
func (orgHookKind) Connect(ctx context.Context, h *forgev1.OrgHook, pass *reconciler.Pass) (reconciler.External, error) {
	e := &orgHook{obj: h, fc: pass.Forge, pending: pass.Pending, claimedBy: pass.ClaimedBy,
		headerReadable: pass.Server.ReturnsHookAuthHeader, url: h.Spec.URL}
	deleting := !h.DeletionTimestamp.IsZero()
	read := func(ref *forgev1.SecretKeySelector, field string, dst *string) error {
		if ref == nil {
			return nil
		}
		v, rv, err := connection.SecretValue(ctx, pass.Reader, h.Namespace, ref.Name, ref.Key)
		if err != nil {
			if deleting {
				return nil
			}
			return err
		}
		*dst = v
		if field != "" {
			e.applied = append(e.applied, forgev1.AppliedSecret{Field: field, Name: ref.Name, Key: ref.Key, ResourceVersion: rv})
		}
		return nil
	}
	if err := read(h.Spec.URLSecretRef, "", &e.url); err != nil {
		return nil, err
	}
	if err := read(h.Spec.SecretRef, fieldSecret, &e.secret); err != nil {
		return nil, err
	}
	if err := read(h.Spec.AuthorizationHeaderSecretRef, fieldAuthHeader, &e.authHeader); err != nil {
		return nil, err
	}
	slices.SortFunc(e.applied, func(x, y forgev1.AppliedSecret) int { return strings.Compare(x.Field, y.Field) })
	// The forge knows these values and may quote them in any answer, not
	// only in answers to the calls that send them.
	e.fc = forge.RedactingOrgHooks(e.fc, e.url, e.secret, e.authHeader)
	return e, nil
}

type orgHook struct {
	obj       *forgev1.OrgHook
	fc        forge.OrgHooksClient
	pending   bool
	claimedBy func(context.Context, int64) (string, error)
	// headerReadable: the server returns authorization_header.
	headerReadable bool
	// Desired values read from the spec and its Secrets.
	url, secret, authHeader string
	// applied is what status.appliedSecrets becomes once the values are sent.
	applied []forgev1.AppliedSecret
	found   *forge.Hook
}

func (e *orgHook) org() string { return string(e.obj.Spec.Organization) }

func (e *orgHook) Observe(ctx context.Context) (reconciler.Observation, error) {
	if id := e.obj.Status.ID; id != 0 {
		h, err := e.fc.GetOrgHook(ctx, e.org(), id)
		switch {
		case err == nil:
			return e.observed(h, false), nil
		case !forge.IsNotFound(err):
			return reconciler.Observation{}, err
		}
		// Gone (or its organization is): look for one to adopt, as on first sight.
	}
	if e.url == "" {
		return reconciler.Observation{}, nil // being deleted without its URL Secret
	}
	h, err := e.adoptable(ctx)
	if err != nil || h == nil {
		return reconciler.Observation{}, err
	}
	if !e.pending {
		// Someone else's hook: nothing recorded applies to it.
		e.obj.Status.AppliedSecrets = nil
	}
	return e.observed(h, true), nil
}

// adoptable finds the one hook of the spec's type and URL that no other
// OrgHook holds; nil when there is none, or more than one.
func (e *orgHook) adoptable(ctx context.Context) (*forge.Hook, error) {
	all, err := e.fc.ListOrgHooks(ctx, e.org())
	if err != nil {
		return nil, reconciler.ParentMissing(err, "organization "+e.org())
	}
	var match []forge.Hook
	for _, h := range all {
		if h.Type != string(e.obj.Spec.Type) || h.Config["url"] != e.url || h.ID == e.obj.Status.ID {
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

func (e *orgHook) observed(h *forge.Hook, adopted bool) reconciler.Observation {
	e.found = h
	obs := reconciler.Observation{Exists: true, ID: h.ID}
	switch {
	case h.Type != string(e.obj.Spec.Type):
		obs.Replace, obs.ReplaceBecause = true, "type"
	case e.secretChanged(adopted):
		obs.Replace, obs.ReplaceBecause = true, "secret"
	}
	obs.Diff = e.changes(h).fields
	return obs
}

// secretChanged: the forge never returns the secret, so compare the Secret
// version last sent with the current one. A hook found after a create whose
// response was lost carries the secret of that create: record it as sent.
// Any other hook adopted has an unknown secret: replaced when the spec sets one.
func (e *orgHook) secretChanged(adopted bool) bool {
	want, _ := appliedFor(e.applied, fieldSecret)
	if adopted && e.pending {
		e.record(fieldSecret)
		return false
	}
	have, _ := appliedFor(e.obj.Status.AppliedSecrets, fieldSecret)
	return e.differs(fieldSecret, want, have, e.secret)
}

func (e *orgHook) Create(ctx context.Context) (reconciler.Observation, error) {
	if e.pending && e.obj.Status.ID != 0 {
		// A replacement whose create response was lost: Observe found the
		// old hook by id, the new one is the unclaimed hook of the same
		// type and URL. Take it rather than create a third.
		h, err := e.adoptable(ctx)
		if err != nil {
			return reconciler.Observation{}, err
		}
		if h != nil {
			if c := e.changes(h); len(c.fields) > 0 {
				if _, err := e.fc.EditOrgHook(ctx, e.org(), h.ID, c.opt); err != nil {
					return reconciler.Observation{}, err
				}
			}
			e.sent()
			return reconciler.Observation{Exists: true, ID: h.ID}, nil
		}
	}
	s := e.obj.Spec
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
	h, err := e.fc.CreateOrgHook(ctx, e.org(), opt)
	if err != nil {
		return reconciler.Observation{}, reconciler.ParentMissing(err, "organization "+e.org())
	}
	e.sent()
	return reconciler.Observation{Exists: true, ID: h.ID}, nil
}

// Update sends every managed field: the forge replaces events, branch filter
// and authorization header on each PATCH, whatever is omitted.
func (e *orgHook) Update(ctx context.Context, obs reconciler.Observation) error {
	_, err := e.fc.EditOrgHook(ctx, e.org(), obs.ID, e.changes(e.found).opt)
	if err != nil {
		return err
	}
	e.sent()
	return nil
}

func (e *orgHook) Delete(ctx context.Context, obs reconciler.Observation) error {
	return e.fc.DeleteOrgHook(ctx, e.org(), obs.ID)
}

// config is the hook's config as the spec wants it, over the type-specific
// keys the forge already has (a Slack PATCH resets the keys it omits).
func (e *orgHook) config(have map[string]string) map[string]string {
	cfg := map[string]string{}
	for k, v := range have {
		if k != "url" && k != "content_type" && k != "secret" {
			cfg[k] = v
		}
	}
	maps.Copy(cfg, e.obj.Spec.Config)
	cfg["url"] = e.url
	cfg["content_type"] = hookContentType(e.obj.Spec)
	return cfg
}

type hookChanges struct {
	opt    forge.EditHookOption
	fields []string
}

// changes compares the managed fields. Config keys the forge does not
// return (it shows only Slack's) cannot be compared: they are sent on
// create and with every update.
func (e *orgHook) changes(h *forge.Hook) hookChanges {
	s := e.obj.Spec
	active := hookActive(s)
	c := hookChanges{opt: forge.EditHookOption{
		Config:              e.config(h.Config),
		Events:              hookEvents(s.Events),
		BranchFilter:        s.BranchFilter,
		AuthorizationHeader: e.authHeader,
		Active:              &active,
		Name:                &s.Name,
	}}
	diff := func(field string, differs bool) {
		if differs {
			c.fields = append(c.fields, field)
		}
	}
	diff("url", h.Config["url"] != e.url)
	diff("contentType", h.Config["content_type"] != hookContentType(s))
	diff("active", h.Active != active)
	diff("branchFilter", h.BranchFilter != s.BranchFilter)
	diff("name", h.Name != s.Name)
	diff("events", !slices.Equal(ExpandHookEvents(s.Events), normalizeEvents(h.Events)))
	configDiffers := false
	for k, v := range s.Config {
		if have, ok := h.Config[k]; ok && have != v {
			configDiffers = true
		}
	}
	diff("config", configDiffers)
	diff("authorizationHeader", e.authHeaderChanged(h))
	slices.Sort(c.fields)
	return c
}

// authHeaderChanged compares the header itself where the server returns it,
// and otherwise the version of its Secret last sent.
func (e *orgHook) authHeaderChanged(h *forge.Hook) bool {
	if e.headerReadable || h.AuthorizationHeader != "" {
		if h.AuthorizationHeader != e.authHeader {
			return true
		}
		// Equal: what was sent is what the spec says, whatever was recorded.
		e.record(fieldAuthHeader)
		return false
	}
	want, _ := appliedFor(e.applied, fieldAuthHeader)
	have, _ := appliedFor(e.obj.Status.AppliedSecrets, fieldAuthHeader)
	return e.differs(fieldAuthHeader, want, have, e.authHeader)
}

// differs tells whether the value of a Secret-backed field may differ from
// the one last sent. A new resourceVersion of the same Secret key is a
// change only when this process did not see the value sent, or saw another:
// a write to another key, or to labels, does not replace the hook.
func (e *orgHook) differs(field string, want, have forgev1.AppliedSecret, value string) bool {
	if want == have {
		return false
	}
	if want.Name == have.Name && want.Key == have.Key && sentValues.same(e.obj.UID, field, value) {
		e.record(field)
		return false
	}
	return true
}

// sent records the current Secret versions as sent, in status, and a keyed
// digest of their values in memory.
func (e *orgHook) sent() {
	e.obj.Status.AppliedSecrets = e.applied
	sentValues.remember(e.obj.UID, fieldSecret, e.secret)
	sentValues.remember(e.obj.UID, fieldAuthHeader, e.authHeader)
}

// sentValues remembers, in this process only, an HMAC of each secret value
// sent to the forge, under a random key that never leaves memory: status
// holds no secret material nor an unkeyed hash of it. After a restart it is
// empty, and a new Secret version counts as a change (a replacement).
var sentValues = newSecretDigests()

type secretDigests struct {
	key []byte
	mu  sync.Mutex
	m   map[string][]byte
}

func newSecretDigests() *secretDigests {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic(fmt.Sprintf("read random key: %v", err))
	}
	return &secretDigests{key: key, m: map[string][]byte{}}
}

func (d *secretDigests) digest(value string) []byte {
	mac := hmac.New(sha256.New, d.key)
	mac.Write([]byte(value))
	return mac.Sum(nil)
}

func (d *secretDigests) remember(uid types.UID, field, value string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.m[string(uid)+"/"+field] = d.digest(value)
}

func (d *secretDigests) same(uid types.UID, field, value string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	seen, ok := d.m[string(uid)+"/"+field]
	return ok && hmac.Equal(seen, d.digest(value))
}

func appliedFor(list []forgev1.AppliedSecret, field string) (forgev1.AppliedSecret, bool) {
	i := slices.IndexFunc(list, func(a forgev1.AppliedSecret) bool { return a.Field == field })
	if i < 0 {
		return forgev1.AppliedSecret{}, false
	}
	return list[i], true
}

// record marks the current Secret version of field as sent (or nothing, when
// the spec references none).
func (e *orgHook) record(field string) {
	switch field {
	case fieldSecret:
		sentValues.remember(e.obj.UID, field, e.secret)
	case fieldAuthHeader:
		sentValues.remember(e.obj.UID, field, e.authHeader)
	}
	list := slices.DeleteFunc(slices.Clone(e.obj.Status.AppliedSecrets), func(a forgev1.AppliedSecret) bool { return a.Field == field })
	if want, ok := appliedFor(e.applied, field); ok {
		list = append(list, want)
		slices.SortFunc(list, func(x, y forgev1.AppliedSecret) int { return strings.Compare(x.Field, y.Field) })
	}
	if len(list) == 0 {
		list = nil
	}
	e.obj.Status.AppliedSecrets = list
}

func hookActive(s forgev1.OrgHookSpec) bool { return s.Active == nil || *s.Active }

func hookContentType(s forgev1.OrgHookSpec) string {
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

// ExpandHookEvents gives the set of events the forge stores for the spec's
// events, sorted: no events means push; issues and pull_request stand for
// their groups, issues_only and pull_request_only for the one event.
func ExpandHookEvents(events []forgev1.HookEvent) []string {
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
	return normalizeEvents(out)
}

// normalizeEvents makes a sorted set of events as the forge lists them.
func normalizeEvents(events []string) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = strings.ToLower(strings.TrimSpace(ev))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
