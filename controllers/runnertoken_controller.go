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
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the RunnerRegistrationToken controller. Secrets: "create" for
// the Secret the token is written to, and "update" to write a rotated
// token into that same Secret: the one Secret each resource owns, which
// the code checks (controller reference to the resource and the
// runnerTokenLabel naming it) before every write. The operator never
// patches or deletes a Secret; the garbage collector removes it with the
// resource.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=runnerregistrationtokens,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=runnerregistrationtokens/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=runnerregistrationtokens/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=create;update

// runnerTokenLabel marks a Secret a RunnerRegistrationToken made, with the
// resource's name: with the controller reference, what the operator checks
// before it writes into a Secret.
const runnerTokenLabel = "forge.forgeops.dev/runner-registration-token"

const runnerTokenKindName = "RunnerRegistrationToken"

// runnerTokenKind keeps the token runners register with in a Secret. A
// token is no object on the forge: the Secret holding the token the
// operator wrote is what exists, so a pass at rest reads the Secret only
// and asks the forge nothing. The forge is asked once when the Secret
// lacks the token, and once per value of the rotate annotation (recorded
// on the Secret in the same write as the token, and echoed in status, so
// that no value is handled twice, also across restarts). Gitea answers the
// scope's current token to every request and its API cannot reset it: a
// rotation brings a new token only after someone reset it in the web UI,
// and otherwise says so (Warning TokenUnchanged). The token never leaves
// the Secret: no status, Event, log or error holds it. It is declared as
// a repository's child (of an organization, or of the instance, too): its
// wait for its Repository, its archived stall and its token scopes are
// those of where it lives.
func runnerTokenKind() child.Kind[*forgev1.RunnerRegistrationToken] {
	return child.Kind[*forgev1.RunnerRegistrationToken]{
		Noun:       "runner registration token",
		DescribeOf: runnerTokenDescribe,
		// No key: any number of resources may hold a scope's token (the
		// forge answers them all the same one); two naming one Secret are
		// told apart by its owner (Conflict).
		Where: runnerTokenScope,
		List:  &forgev1.RunnerRegistrationTokenList{},
		// The token's own Secret, whose deletion brings a new request.
		SecretsOf: func(t *forgev1.RunnerRegistrationToken) []string { return []string{t.Spec.SecretName} },
		// A pass reads the Secret, not the repository: a Repository
		// resource declaring it is waited for before the token is asked.
		KeptElsewhere: true,
		UnknownNoteOf: runnerTokenUnknownNote,
		External:      connectRunnerToken,
	}
}

func runnerTokenScope(t *forgev1.RunnerRegistrationToken) child.Place {
	return child.PlaceOf(t.Spec.Repository, t.Spec.Organization)
}

// runnerTokenWhere names the token's scope for messages.
func runnerTokenWhere(t *forgev1.RunnerRegistrationToken) string {
	if t.Instance() {
		return "the instance"
	}
	return runnerTokenScope(t).Describe()
}

func runnerTokenDescribe(t *forgev1.RunnerRegistrationToken) string {
	return fmt.Sprintf("runner registration token of %s (Secret %s)", runnerTokenWhere(t), t.Spec.SecretName)
}

// connectRunnerToken reads the token's Secret, which must be this
// resource's own. Asking for the token is a POST in its scope (an
// instance's under /admin): the write scope of where it lives.
func connectRunnerToken(ctx context.Context, t *forgev1.RunnerRegistrationToken, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
	e := &runnerToken{obj: t, fc: pass.Forge, scope: at.Scope, writer: pass.Writer, webURL: pass.WebURL, server: pass.Server}
	if !t.DeletionTimestamp.IsZero() {
		e.deleting = true // nothing on the forge to delete; the Secret goes with the resource
		return e, nil
	}
	var sec corev1.Secret
	err := pass.Reader.Get(ctx, types.NamespacedName{Namespace: t.Namespace, Name: t.Spec.SecretName}, &sec)
	switch {
	case errors.Is(err, reconciler.ErrUnreadable):
		e.unknown = true
		return e, nil
	case apierrors.IsNotFound(err):
		return e, nil
	case err != nil:
		return nil, fmt.Errorf("read Secret %s/%s: %w", t.Namespace, t.Spec.SecretName, err)
	}
	if !e.owns(&sec) {
		return nil, reconciler.Stall(forgev1.ReasonConflict,
			"Secret %s was not created by this RunnerRegistrationToken: the operator never writes into a Secret it did not create (nor uses a token it did not write); delete it, or name another in spec.secretName",
			t.Spec.SecretName)
	}
	e.secret = &sec
	return e, nil
}

type runnerToken struct {
	obj    *forgev1.RunnerRegistrationToken
	fc     forge.RunnersClient
	scope  forge.Scope
	writer client.Writer
	webURL string
	server forge.Server

	// secret is the resource's own Secret, nil when there is none;
	// unknown when it cannot be read (plan without the cluster).
	secret  *corev1.Secret
	unknown bool
	notices []reconciler.Event
	// deleting: the resource is being deleted, which Delete only tells.
	deleting bool
}

// owns reports whether sec is the Secret this resource made: its
// controller reference and its label both name the resource.
func (e *runnerToken) owns(sec *corev1.Secret) bool {
	return secrets.OwnedBy(sec, runnerTokenKindName, e.obj) && sec.Labels[runnerTokenLabel] == e.obj.Name
}

func (e *runnerToken) kept() []byte {
	if e.secret == nil {
		return nil
	}
	return e.secret.Data[forgev1.RunnerTokenKey]
}

// rotation is the rotate annotation's value when it asks for a request
// not made yet: the Secret records the value its token was asked for
// after, status the value handled last.
func (e *runnerToken) rotation() string {
	v := e.obj.Annotations[forgev1.RotateRequestedAtAnnotation]
	if v == "" || v == e.obj.Status.LastHandledRotateAt || (e.secret != nil && e.secret.Annotations[forgev1.RotateRequestedAtAnnotation] == v) {
		return ""
	}
	return v
}

// found is what exists once the Secret holds the token: no forge object,
// so no id; the Secret's name is the resource's identity (status.externalName).
func (e *runnerToken) found() reconciler.Observation {
	return reconciler.Observation{Exists: true, Name: e.obj.Spec.SecretName, URL: e.url()}
}

// Observe asks the forge nothing: the token exists when the Secret holds
// it; a rotation not handled yet, or a forge URL that changed, differs.
func (e *runnerToken) Observe(context.Context) (reconciler.Observation, error) {
	obs := e.found()
	switch {
	case e.deleting:
		return obs, nil
	case e.unknown:
		obs.Unknown = []string{"token"}
		return obs, nil
	case len(e.kept()) == 0:
		obs.Exists = false
		obs.Changes = []reconciler.Change{{Field: "token", Have: "none in Secret " + e.obj.Spec.SecretName, Want: "would request a token"}}
		return obs, nil
	}
	if v := e.rotation(); v != "" {
		obs.Changes = append(obs.Changes, reconciler.Change{Field: "token", Have: "kept in Secret " + e.obj.Spec.SecretName,
			Want: fmt.Sprintf("would request a token (%s %q)", forgev1.RotateRequestedAtAnnotation, v)})
	} else if v := e.secret.Annotations[forgev1.RotateRequestedAtAnnotation]; v != "" {
		e.obj.Status.LastHandledRotateAt = v // handled by a pass whose status was not written
	}
	if have := string(e.secret.Data[forgev1.RunnerTokenURLKey]); have != e.webURL {
		obs.Changes = append(obs.Changes, compare.Change(forgev1.RunnerTokenURLKey, have, e.webURL))
	}
	obs.Diff = reconciler.Fields(obs.Changes)
	return obs, nil
}

// Create asks the forge for a token and writes it: into a new Secret, or
// into the resource's own Secret that lacks it.
func (e *runnerToken) Create(ctx context.Context) (reconciler.Observation, error) {
	if e.unknown {
		return reconciler.Observation{}, reconciler.Wait(forgev1.ReasonSecretNotFound, "Secret %s cannot be read", e.obj.Spec.SecretName)
	}
	tok, err := e.request(ctx)
	if err != nil {
		return reconciler.Observation{}, err
	}
	if e.secret != nil {
		return e.found(), e.write(ctx, tok)
	}
	sec := secrets.Owned(e.obj, runnerTokenKindName, e.obj.Spec.SecretName)
	sec.Labels = map[string]string{runnerTokenLabel: e.obj.Name}
	e.fill(sec, tok)
	if err := e.writer.Create(ctx, sec); err != nil {
		// Another pass may have written it: the next reads it.
		return reconciler.Observation{}, fmt.Errorf("create Secret %s/%s for the runner registration token: %w", sec.Namespace, sec.Name, apiReason(err))
	}
	return e.found(), nil
}

// Update handles a rotation (one request) and a changed forge URL.
func (e *runnerToken) Update(ctx context.Context, _ reconciler.Observation) error {
	tok := string(e.kept())
	if e.rotation() != "" {
		fresh, err := e.request(ctx)
		if err != nil {
			return err
		}
		if fresh == tok {
			e.notices = append(e.notices, reconciler.Event{Type: corev1.EventTypeWarning, Reason: forgev1.ReasonTokenUnchanged, Action: "Rotate", Always: true,
				Note: fmt.Sprintf("the forge answered the token Secret %s holds already: its API cannot reset a registration token; reset it in the web UI (%s), then set %s again",
					e.obj.Spec.SecretName, e.url(), forgev1.RotateRequestedAtAnnotation)})
		} else {
			now := metav1.Now()
			e.obj.Status.LastRotated = &now
		}
		tok = fresh
	}
	return e.write(ctx, tok)
}

// KeptIn implements reconciler.Keeper: a token found missing was missing
// from the Secret, never on the forge.
func (e *runnerToken) KeptIn() string { return "Secret " + e.obj.Spec.SecretName }

// WriteNotices implements reconciler.Noticer.
func (e *runnerToken) WriteNotices() []reconciler.Event { return e.notices }

// Delete writes nothing: a registration token is no object on the forge
// (the runners registered with it stay), and the garbage collector removes
// the Secret, which the resource owns.
func (e *runnerToken) Delete(context.Context, reconciler.Observation) error {
	return reconciler.Leave(corev1.EventTypeNormal, forgev1.ReasonDeleted,
		"nothing to delete on the forge (a registration token is no object there; runners registered with it stay); Secret %s goes with the resource", e.obj.Spec.SecretName)
}

// request asks the forge for the scope's token.
func (e *runnerToken) request(ctx context.Context) (string, error) {
	tok, err := e.fc.RunnerRegistrationToken(ctx, e.scope)
	if forge.IsRouteNotFound(err) {
		// Gitea 1.24 to 1.27 all serve it; a server that refuses the
		// route (another flavor, a future release) tells only so.
		return "", reconciler.Stall(forgev1.ReasonUnsupported,
			"the forge (version %s) has no POST .../actions/runners/registration-token for %s (Gitea 1.24 to 1.27 have it)", e.server.ReportedVersion(), runnerTokenWhere(e.obj))
	}
	if err != nil && !e.obj.Instance() {
		return "", reconciler.ParentMissing(err, runnerTokenWhere(e.obj))
	}
	return tok, err
}

// write puts tok into the resource's own Secret, checked to be its own
// again right before the update (which the API server refuses if the
// Secret changed since it was read).
func (e *runnerToken) write(ctx context.Context, tok string) error {
	if !e.owns(e.secret) {
		return reconciler.Stall(forgev1.ReasonConflict, "Secret %s is no longer this RunnerRegistrationToken's own: nothing is written", e.obj.Spec.SecretName)
	}
	sec := e.secret.DeepCopy()
	e.fill(sec, tok)
	if err := e.writer.Update(ctx, sec); err != nil {
		return fmt.Errorf("update Secret %s/%s with the runner registration token: %w", sec.Namespace, sec.Name, apiReason(err))
	}
	return nil
}

// fill sets the Secret's token and URL, and records the rotate
// annotation's value the token was asked for after (echoed in status).
func (e *runnerToken) fill(sec *corev1.Secret, tok string) {
	if sec.Data == nil {
		sec.Data = map[string][]byte{}
	}
	sec.Data[forgev1.RunnerTokenKey] = []byte(tok)
	sec.Data[forgev1.RunnerTokenURLKey] = []byte(e.webURL)
	if v := e.obj.Annotations[forgev1.RotateRequestedAtAnnotation]; v != "" {
		if sec.Annotations == nil {
			sec.Annotations = map[string]string{}
		}
		sec.Annotations[forgev1.RotateRequestedAtAnnotation] = v
		e.obj.Status.LastHandledRotateAt = v
	}
}

// url is the forge's page of the scope's runners, where its token is reset.
func (e *runnerToken) url() string {
	switch {
	case e.obj.Instance():
		return e.webURL + "/-/admin/actions/runners"
	case e.scope.IsOrg():
		return fmt.Sprintf("%s/org/%s/settings/actions/runners", e.webURL, e.scope.Owner)
	}
	return fmt.Sprintf("%s/%s/%s/settings/actions/runners", e.webURL, e.scope.Owner, e.scope.Repo)
}

// runnerTokenUnknownNote: the forge lists no registration token, so
// whether the Secret holds one is the question, and only the cluster
// answers it.
func runnerTokenUnknownNote(d reconciler.Action, unknown []string) string {
	if d == reconciler.InSync && slices.Contains(unknown, "token") {
		return "whether the Secret holds a token is known only from the cluster; give --kubeconfig and -n"
	}
	return ""
}
