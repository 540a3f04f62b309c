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
	"regexp"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

// pushMirrorExport writes a PushMirror per push mirror of each live
// repository, with its address, interval and syncOnCommit as the forge
// shows them, so that applying it adopts each mirror by address without a
// write. The forge never shows a mirror's credentials: each is written
// without spec.auth (adding it later replaces the mirror once, its
// password being unknown). A server with mirrors disabled has none to
// write; an address the kind cannot take (a local path) is left out.
var pushMirrorExport = export.ForLiveRepository(exportPushMirrors)

// pushMirrorReader is what the push mirror export reads.
type pushMirrorReader interface {
	ListPushMirrors(ctx context.Context, owner, repo string) ([]forge.PushMirror, error)
}

func exportPushMirrors(ctx context.Context, b *export.Builder, src pushMirrorReader, owner, repo string) error {
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
		b.Add(&forgev1.PushMirror{
			TypeMeta:   export.TypeMeta("PushMirror"),
			ObjectMeta: b.Meta("PushMirror", fmt.Sprintf("%s-%s-mirror-%s", owner, repo, strings.TrimPrefix(m.RemoteName, "remote_mirror_")), 0),
			Spec: forgev1.PushMirrorSpec{
				ManagedSpec:    b.Managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repository:     forgev1.RepositoryName(owner + "/" + repo),
				RemoteAddress:  m.RemoteAddress,
				Interval:       &metav1.Duration{Duration: interval},
				SyncOnCommit:   export.Ptr(m.SyncOnCommit),
			},
		}, comment...)
	}
	return nil
}

// mirrorAddress is what PushMirror's admission takes as remoteAddress.
var mirrorAddress = regexp.MustCompile(`^(https?|git)://[^/?#\s@]+(/|$)`)
