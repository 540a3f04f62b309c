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

package reconciler

import (
	"fmt"
	"reflect"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Unsupported is the release gate of every kind (forge.Gate): when obj's
// spec sets a field the server's release or flavor lacks, the resource is
// Stalled, reason Unsupported, naming each such field and the releases
// that have it, before anything is read or written: the server would
// ignore the field without a word. A set (a list of rules) is gated as a
// whole, each list entry named. The loop asks it at the start of every
// pass that is not a deletion (removing an object needs none of its
// fields), and plan asks it as the loop would.
func Unsupported(obj forgev1.Managed, server forge.Server) error {
	spec := reflect.Indirect(reflect.ValueOf(obj)).FieldByName("Spec")
	if !spec.IsValid() {
		return nil
	}
	var found []lacking
	walkGates(spec, spec.Type().PkgPath(), "", server, &found)
	if len(found) == 0 {
		return nil
	}
	parts := make([]string, len(found))
	for i, l := range found {
		parts[i] = server.Unsupported(l.gates)
		if l.where != "" {
			parts[i] = l.where + ": " + parts[i]
		}
	}
	written := "nothing was written"
	if found[0].where != "" {
		// A list entry is a rule a set applies to many repositories.
		written = "nothing was written to any repository"
	}
	return Stall(forgev1.ReasonUnsupported, "%s; %s", strings.Join(parts, "; "), written)
}

// lacking is what one part of a spec (where: "" for the spec itself, or
// a list entry's name) sets that the server lacks.
type lacking struct {
	where string
	gates []forge.Gate
}

// walkGates collects the gated fields v sets, going into embedded and
// referenced structs of the API package (pkg) and into lists of them.
func walkGates(v reflect.Value, pkg, where string, server forge.Server, out *[]lacking) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct || v.Type().PkgPath() != pkg {
		return
	}
	if gates := server.LacksFields(v.Interface()); len(gates) > 0 {
		merged := false
		for i := range *out {
			if (*out)[i].where == where {
				(*out)[i].gates, merged = append((*out)[i].gates, gates...), true
			}
		}
		if !merged {
			*out = append(*out, lacking{where: where, gates: gates})
		}
	}
	t := v.Type()
	for i := range t.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Struct, reflect.Pointer:
			walkGates(f, pkg, where, server, out)
		case reflect.Slice:
			for j := range f.Len() {
				e := f.Index(j)
				if e.Kind() != reflect.Struct {
					break
				}
				name := fmt.Sprintf("%s[%d]", jsonName(t.Field(i)), j)
				if s, ok := e.Interface().(interface{ Entry() string }); ok {
					name = s.Entry()
				}
				walkGates(e, pkg, name, server, out)
			}
		}
	}
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}
