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

package secrets

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// Record is the record status keeps of value v of Secret ref (at
// resourceVersion rv), sent for field of obj: a keyed digest bound to the
// resource and field. ErrUnreadable when a plan cannot read the digest key
// (it cannot tell the value from the one last sent); a Wait with
// DigestKeyUnavailable when the manager cannot read or make it.
func Record(ctx context.Context, digests *secretdigest.Digester, obj client.Object, field string,
	ref *forgev1.SecretKeySelector, v, rv string) (forgev1.AppliedSecret, error) {
	digest, err := digests.Digest(ctx, string(obj.GetUID())+"/"+field, v)
	if errors.Is(err, reconciler.ErrUnreadable) {
		return forgev1.AppliedSecret{}, err
	}
	if err != nil {
		// The operator's setup, not the resource, needs fixing: say so
		// on the resource, and retry with backoff.
		return forgev1.AppliedSecret{}, reconciler.Wait(forgev1.ReasonDigestKeyUnavailable, "%s", err)
	}
	return forgev1.AppliedSecret{Field: field, Name: ref.Name, Key: ref.Key, ResourceVersion: rv, Digest: digest}, nil
}

// KeyChanged is the Warning to tell when records in have were made
// under another secret digest key than the current records in want.
func KeyChanged(have, want []forgev1.AppliedSecret, digestKey string) []reconciler.Event {
	var fields []string
	for _, h := range have {
		if w, ok := For(want, h.Field); ok && h.Digest != "" {
			if _, known := secretdigest.Compare(h.Digest, w.Digest); !known {
				fields = append(fields, h.Field)
			}
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return []reconciler.Event{{Type: corev1.EventTypeWarning, Reason: forgev1.ReasonDigestKeyChanged, Action: "Compare", Always: true,
		Note: fmt.Sprintf("the digests recorded for %s were made with another secret digest key than Secret %s holds now (it was re-created or --secret-digest-key changed); "+
			"compared by the Secrets' resourceVersion instead and recorded under the current key: unchanged Secrets replace nothing",
			strings.Join(fields, ", "), digestKey)}}
}

// Differs tells whether the value of a Secret-backed field may differ
// from the one last sent: compared by keyed digest, so that a write to the
// Secret that keeps the value (another key, labels, a re-apply) changes
// nothing, also after a restart. A record without a digest (written before
// digests were kept) compares by Secret version.
func Differs(have, want []forgev1.AppliedSecret, field string) bool {
	h, hok := For(have, field)
	w, wok := For(want, field)
	switch {
	case !hok && !wok:
		return false
	case !hok || !wok:
		// Set where it was not, or dropped: either way the forge holds another value.
		return true
	case h.Digest != "":
		if equal, known := secretdigest.Compare(h.Digest, w.Digest); known {
			return !equal
		}
		// Recorded under a key the operator no longer has: the Secret's
		// version tells whether it was written since. Unwritten, the value
		// is the one sent, and settled re-stamps it under the current key.
		return h.Name != w.Name || h.Key != w.Key || h.ResourceVersion != w.ResourceVersion
	default:
		return h.Name != w.Name || h.Key != w.Key || h.ResourceVersion != w.ResourceVersion
	}
}

// For is the record of field in list.
func For(list []forgev1.AppliedSecret, field string) (forgev1.AppliedSecret, bool) {
	i := slices.IndexFunc(list, func(a forgev1.AppliedSecret) bool { return a.Field == field })
	if i < 0 {
		return forgev1.AppliedSecret{}, false
	}
	return list[i], true
}
