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

// Package plan is the result of `forge-operator plan`: what the operator
// would do per object, printed as text for people and as JSON for CI bots,
// and the exit code that sums it up. The decisions come from the kinds'
// own observe and diff code (controllers.Plan); this package only holds and
// prints them.
package plan

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// Version is the version of the JSON form. It changes only when a field
// changes meaning or goes away; new fields may be added within a version.
const Version = 1

// Action is what the operator would do with one object.
type Action string

const (
	// InSync: nothing to do, also when the object exists by its natural
	// key and matches the spec (adoption writes nothing).
	InSync Action = "in sync"
	// Create: no forge object matches; the operator would create one.
	Create Action = "create"
	// Update: the forge object differs in the fields listed.
	Update Action = "update"
	// Replace: a field the forge cannot change differs (Reason says
	// which): the operator would create a new object and delete the old.
	Replace Action = "replace"
	// Delete: the operator would delete forge objects (authoritative kinds).
	Delete Action = "delete"
	// Conflict: two resources claim one forge object, or several forge
	// objects match one resource; the operator would stall until fixed.
	Conflict Action = "conflict"
	// Unknown: whether the object exists cannot be told without a Secret
	// plan could not read (a hook's URL); give --kubeconfig and -n.
	Unknown Action = "unknown"
	// Error: the object could not be planned (Reason says why).
	Error Action = "error"
)

// Pending reports whether the action changes the forge (or may).
func (a Action) Pending() bool {
	switch a {
	case Create, Update, Replace, Delete, Unknown:
		return true
	}
	return false
}

// Change is one field that differs, with the forge's and the spec's values
// as printed: strings quoted, Secret-backed values as "(secret)", values
// plan could not read as "unknown".
type Change struct {
	Field string `json:"field"`
	Forge string `json:"forge"`
	Spec  string `json:"spec"`
}

// Item is the plan of one object.
type Item struct {
	Kind      string   `json:"kind"`
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Action    Action   `json:"action"`
	Reason    string   `json:"reason,omitempty"`
	Changes   []Change `json:"changes"`
	// PendingRemovals are the removals an object with removals Report
	// would not make, as its status.pendingRemovals would hold them: no
	// change to the forge, so they leave the action as it is.
	PendingRemovals *forgev1.PendingRemovals `json:"pendingRemovals,omitempty"`
}

// Plan is every object's plan, sorted by kind, namespace and name.
type Plan struct {
	Version int    `json:"version"`
	Objects []Item `json:"objects"`
}

// New sorts items into a Plan.
func New(items []Item) Plan {
	items = slices.Clone(items)
	for i := range items {
		if items[i].Changes == nil {
			items[i].Changes = []Change{}
		}
	}
	slices.SortStableFunc(items, func(a, b Item) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	if items == nil {
		items = []Item{}
	}
	return Plan{Version: Version, Objects: items}
}

// ExitCode sums the plan up as terraform plan -detailed-exitcode does:
// 1 when an object could not be planned, else 2 when the forge would
// change (or may: unknown), else 0.
func (p Plan) ExitCode() int {
	code := 0
	for _, it := range p.Objects {
		switch {
		case it.Action == Error || it.Action == Conflict:
			return 1
		case it.Action.Pending():
			code = 2
		}
	}
	return code
}

// WriteJSON writes the plan as one indented JSON object.
func (p Plan) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// WriteText writes one line per object, then its fields indented, then
// the removals it would not make (removals Report):
//
//	Organization ns/acme: update
//	  description: "old" -> "new"
//	Team ns/developers: in sync
//	  pending removal (removals Report): Member "bob"
func (p Plan) WriteText(w io.Writer) error {
	var b strings.Builder
	counts := map[Action]int{}
	for _, it := range p.Objects {
		counts[it.Action]++
		name := it.Name
		if it.Namespace != "" {
			name = it.Namespace + "/" + it.Name
		}
		fmt.Fprintf(&b, "%s %s: %s", it.Kind, name, it.Action)
		if it.Reason != "" {
			fmt.Fprintf(&b, " (%s)", oneLine(it.Reason))
		}
		b.WriteByte('\n')
		for _, c := range it.Changes {
			if c.Spec == UnknownValue {
				fmt.Fprintf(&b, "  %s: unknown\n", c.Field)
				continue
			}
			if c.Forge == "" {
				// What would happen to a member of a set, e.g. a repository's labels.
				fmt.Fprintf(&b, "  %s: %s\n", c.Field, c.Spec)
				continue
			}
			fmt.Fprintf(&b, "  %s: %s -> %s\n", c.Field, c.Forge, c.Spec)
		}
		if p := it.PendingRemovals; p != nil {
			for _, r := range p.Items {
				fmt.Fprintf(&b, "  pending removal (removals Report): %s\n", r)
			}
			if n := int(p.Count) - len(p.Items); n > 0 {
				fmt.Fprintf(&b, "  pending removals (removals Report): %d more\n", n)
			}
		}
	}
	var sum []string
	for _, a := range []Action{Create, Update, Replace, Delete, Unknown, Conflict, Error, InSync} {
		if counts[a] > 0 {
			sum = append(sum, fmt.Sprintf("%d %s", counts[a], a))
		}
	}
	if len(sum) == 0 {
		sum = []string{"no objects of the operator's kinds"}
	}
	fmt.Fprintf(&b, "Plan: %s.\n", strings.Join(sum, ", "))
	_, err := io.WriteString(w, b.String())
	return err
}

// UnknownValue is a Change's spec value when plan could not read it.
const UnknownValue = "unknown"

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
