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

package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Builder collects the resources of one export, in the order they are
// written, and gives each a name and the connection they refer to.
type Builder struct {
	opts Options
	docs []doc
	// names holds each metadata.name given, per kind.
	names map[string]bool
	// server is what the forge reported itself to be: a field it lacks is not exported.
	server forge.Server
}

func newBuilder(opts Options, version string) *Builder {
	return &Builder{opts: opts, names: map[string]bool{}, server: forge.NewServer(version)}
}

// Add writes obj, with comment's lines above it.
func (b *Builder) Add(obj client.Object, comment ...string) {
	b.docs = append(b.docs, doc{comment: comment, obj: obj})
}

// Note writes comment's lines as a document of their own, holding no
// resource: what an export looked at and left out, when no resource is
// there to carry the comment.
func (b *Builder) Note(comment ...string) {
	b.docs = append(b.docs, doc{comment: comment})
}

// Len is how many resources were added so far.
func (b *Builder) Len() int { return len(b.docs) }

// Meta is the metadata of a resource of kind for the forge object named
// forgeName (id tells apart objects of one name): its name (see Name) in
// the export's namespace.
func (b *Builder) Meta(kind, forgeName string, id int64) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: b.name(kind, forgeName, id), Namespace: b.opts.Namespace}
}

// Managed is the spec every resource shares: the connection it refers to.
func (b *Builder) Managed() forgev1.ManagedSpec {
	return forgev1.ManagedSpec{ForgeRef: b.opts.ForgeRef}
}

// Server is what the forge reported itself to be (see Since).
func (b *Builder) Server() forge.Server { return b.server }

var invalidNameChars = regexp.MustCompile(`[^a-z0-9-]+`)

// name turns a forge name into a valid, unique metadata.name for kind:
// lower case, DNS-1123, with a short hash of the forge name and id appended
// when making it valid changed more than its case, or when it would
// collide (forge names that differ in case only, or labels of one name).
func (b *Builder) name(kind, forgeName string, id int64) string {
	lower := strings.ToLower(forgeName)
	n := strings.Trim(invalidNameChars.ReplaceAllString(lower, "-"), "-")
	hashed := n != lower || len(n) > 50 || n == "" || b.names[kind+"/"+n]
	if hashed {
		sum := sha256.Sum256([]byte(forgeName + "#" + strconv.FormatInt(id, 10)))
		n = strings.Trim(truncate(n, 50), "-")
		if n != "" {
			n += "-"
		}
		n += hex.EncodeToString(sum[:])[:6]
	}
	if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
		panic(fmt.Sprintf("export: made an invalid name %q: %v", n, errs)) // a bug in this function
	}
	b.names[kind+"/"+n] = true
	return n
}

// doc is one resource of the stream with the comment written above it.
type doc struct {
	comment []string
	obj     client.Object
}

func (d doc) write(w io.Writer) error {
	var buf bytes.Buffer
	buf.WriteString("---\n")
	for _, c := range d.comment {
		buf.WriteString("# " + c + "\n")
	}
	if d.obj == nil {
		_, err := w.Write(buf.Bytes())
		return err
	}
	data, err := manifest(d.obj)
	if err != nil {
		return err
	}
	buf.Write(data)
	_, err = w.Write(buf.Bytes())
	return err
}

// manifest renders obj as YAML without its status and server-set metadata.
func manifest(obj client.Object) ([]byte, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	if spec, ok := m["spec"].(map[string]any); ok {
		dropNulls(spec)
	}
	return yaml.Marshal(m)
}

// dropNulls removes the fields a resource leaves unset (lists that are
// managed when set, [] included, marshal as null).
func dropNulls(m map[string]any) {
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			dropNulls(v)
		case []any:
			for _, e := range v {
				if em, ok := e.(map[string]any); ok {
					dropNulls(em)
				}
			}
		}
	}
}

// TypeMeta is the API version and kind of a resource of kind.
func TypeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: forgev1.GroupVersion.String(), Kind: kind}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// NonEmpty is s, or nil (unset) when the forge holds "".
func NonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// TrueOnly is v when true, else nil (unset: false is the forge's default).
func TrueOnly(v bool) *bool {
	if !v {
		return nil
	}
	return &v
}

// Ptr is a pointer to v.
func Ptr[T any](v T) *T { return &v }

// AsNames is a list of names as the spec types them, [] (managed, empty)
// rather than nil.
func AsNames[S ~string](l []string) []S {
	out := make([]S, 0, len(l))
	for _, n := range l {
		out = append(out, S(n))
	}
	return out
}

// Since is v, or nil when the server lacks the field (field, the JSON
// name, of the spec type in): a spec setting it would be Unsupported
// there, and the forge reads back its zero.
func Since[T any](server forge.Server, in, field string, v *T) *T {
	for _, g := range forge.FieldGates(in) {
		if g.Field == field && server.Lacks(g) {
			return nil
		}
	}
	return v
}

// Lacks tells whether the server lacks field f of the spec type in.
func Lacks(server forge.Server, in string, f reflect.StructField) bool {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return Since(server, in, name, new(bool)) == nil
}
