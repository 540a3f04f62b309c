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

package claims

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// What tenants learn of each other (docs/tenancy.md): a message a resource
// of one namespace shows (Conflict, the Orphaned Event of a deletion left
// to another holder, a set's Conflict per name) names the resources of that
// namespace only; another namespace's is said to exist, never named, so a
// tenant does not learn the names of another's objects or namespaces. The
// platform's ClusterForge, which any tenant allowed to read ClusterForges
// reads, counts its users per namespace (CountByNamespace).

// HolderFor names resource o of kind for a reader in namespace ns:
// "Label team-a/bug" when o is in ns, "a Label in another namespace"
// otherwise.
func HolderFor(ns, kind string, o client.Object) string {
	if o.GetNamespace() == ns {
		return Holder(kind, o)
	}
	article := "a"
	// "an Organization", "an OrgHook"; "a User" (said "you").
	if strings.ContainsRune("AEIO", rune(kind[0])) {
		article = "an"
	}
	return article + " " + kind + " in another namespace"
}

// CountByNamespace counts objs per namespace, for a reader of no namespace
// (a ClusterForge's status): "3 in team-a, 1 in team-b", the namespaces in
// order of name, at most named of them and then the rest counted ("and 4
// in 2 other namespaces").
func CountByNamespace(objs []client.Object, named int) string {
	count := map[string]int{}
	for _, o := range objs {
		count[o.GetNamespace()]++
	}
	nss := make([]string, 0, len(count))
	for ns := range count {
		nss = append(nss, ns)
	}
	slices.Sort(nss)
	var parts []string
	rest, restNS := 0, 0
	for i, ns := range nss {
		if i < named {
			parts = append(parts, fmt.Sprintf("%d in %s", count[ns], ns))
			continue
		}
		rest += count[ns]
		restNS++
	}
	switch restNS {
	case 0:
	case 1:
		parts = append(parts, fmt.Sprintf("and %d in 1 other namespace", rest))
	default:
		parts = append(parts, fmt.Sprintf("and %d in %d other namespaces", rest, restNS))
	}
	return strings.Join(parts, ", ")
}

// PermittedBy reports whether ClusterForge cf lets obj act (Permits, its
// namespace's labels read from c): a resource it does not permit writes
// nothing through it and so does not keep it in use.
func PermittedBy(ctx context.Context, c client.Reader, cf *forgev1.ClusterForge, obj forgev1.Managed) (bool, error) {
	p, err := PermissionOf(ctx, c, cf, obj)
	return p.Allowed, err
}
