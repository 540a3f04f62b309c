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

package testenv

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// Kinds are the kinds of forge.forgeops.dev/v1beta1, read from the
// scheme the API package registers: every kind with its list type, sorted,
// the Forge last (the others refer to it, so that deleting in this order
// removes a Forge after what uses it). Test lists of kinds come from here,
// so that a new kind is in them without an edit.
func Kinds() []string {
	s := forgeScheme()
	var kinds []string
	for name := range s.KnownTypes(forgev1.GroupVersion) {
		kind, ok := strings.CutSuffix(name, "List")
		if !ok || !s.Recognizes(forgev1.GroupVersion.WithKind(kind)) {
			continue
		}
		kinds = append(kinds, kind)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "Forge":
			return 1
		case b == "Forge":
			return -1
		}
		return strings.Compare(a, b)
	})
	return kinds
}

// Lists returns an empty list of each of Kinds, in that order.
func Lists() []client.ObjectList {
	s := forgeScheme()
	var lists []client.ObjectList
	for _, kind := range Kinds() {
		obj, err := s.New(forgev1.GroupVersion.WithKind(kind + "List"))
		if err != nil {
			panic(err) // Kinds found it in the same scheme
		}
		lists = append(lists, obj.(client.ObjectList))
	}
	return lists
}

func forgeScheme() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	if err := forgev1.AddToScheme(s); err != nil {
		panic(err) // only a type registered twice under two kinds fails
	}
	return s
}

// RemoveAll deletes every forge.forgeops.dev resource of namespace ns,
// dropping their finalizers first: envtest runs no namespace controller,
// and no controller should work on a spec's resources after it ends.
func RemoveAll(ctx context.Context, c client.Client, ns string) error {
	for _, list := range Lists() {
		if _, cluster := list.(*forgev1.ClusterForgeList); cluster {
			continue // cluster-scoped: no namespace's to remove
		}
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return err
		}
		for _, it := range items {
			o := it.(client.Object)
			if len(o.GetFinalizers()) > 0 {
				// A merge patch carries no resourceVersion: the operator may
				// be writing the object meanwhile (a status, a mark), and an
				// update would fail on that with a conflict.
				patch := client.MergeFrom(o.DeepCopyObject().(client.Object))
				o.SetFinalizers(nil)
				if err := client.IgnoreNotFound(c.Patch(ctx, o, patch)); err != nil {
					return err
				}
			}
			if err := client.IgnoreNotFound(c.Delete(ctx, o)); err != nil {
				return err
			}
		}
	}
	return nil
}
