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

package forge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// redacted replaces every secret value in errors and logs.
	redacted = "[redacted]"
	// MaxMessage bounds a forge message and a cause kept in an error, so
	// that conditions, Events and logs stay small whatever the forge says.
	MaxMessage = 1024
)

// newRedactor builds one replacer for a set of secret values. A forge
// echoing a request may quote a value JSON- or URL-escaped, so those forms
// are replaced too. strings.Replacer works in one pass and, at each
// position, takes the first old string that matches in argument order:
// with the longest values first the longest match wins, and a replacement
// is never scanned again, so a short secret that occurs inside the
// placeholder (or inside a longer secret) cannot mangle the output.
func newRedactor(values ...string) *strings.Replacer {
	var olds []string
	add := func(v string) {
		if v != "" && !slices.Contains(olds, v) {
			olds = append(olds, v)
		}
	}
	for _, v := range values {
		add(v)
		add(jsonEscaped(v, true))
		add(jsonEscaped(v, false))
		add(url.QueryEscape(v))
		add(url.PathEscape(v))
	}
	if len(olds) == 0 {
		return nil
	}
	slices.SortStableFunc(olds, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	pairs := make([]string, 0, 2*len(olds))
	for _, o := range olds {
		pairs = append(pairs, o, redacted)
	}
	return strings.NewReplacer(pairs...)
}

// jsonEscaped is v as it appears inside a JSON string.
func jsonEscaped(v string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if enc.Encode(v) != nil {
		return ""
	}
	s := strings.TrimSuffix(b.String(), "\n")
	return strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`)
}

// redactWith replaces the secrets of r in s; r may be nil.
func redactWith(r *strings.Replacer, s string) string {
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// truncate cuts s to at most n bytes on a rune boundary, saying so.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const more = "… (truncated)"
	cut := max(n-len(more), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + more
}

// quoteAnswer is a forge answer as an error quotes it: every secret
// removed from the whole body first, in each form newRedactor knows (a
// secret cut in two at the bound, or escaped again by the quoting, would
// no longer be recognised), then cut to maxAnswerShown bytes on a rune
// boundary, then quoted.
func quoteAnswer(r *strings.Replacer, body []byte) string {
	return strconv.Quote(truncate(redactWith(r, string(body)), maxAnswerShown))
}

// hookSecrets are the values of a hook's body that errors must not show.
// The URL counts as one whatever its source: chat webhook URLs carry a
// token in the path.
func hookSecrets(config map[string]string, authorizationHeader string) []string {
	return []string{config["secret"], config["url"], authorizationHeader}
}

type secretsKey struct{}

// WithSecrets gives a context whose calls also remove values from their
// errors and logs: values the forge knows and may quote in an answer to a
// call that did not send them, such as the secret and URL of the hook a
// pass works on, in the error of a GET or a list.
func WithSecrets(ctx context.Context, values ...string) context.Context {
	prev, _ := ctx.Value(secretsKey{}).([]string)
	return context.WithValue(ctx, secretsKey{}, append(slices.Clone(prev), values...))
}

func secretsOf(ctx context.Context) []string {
	v, _ := ctx.Value(secretsKey{}).([]string)
	return v
}

// RedactingHooks wraps c so that every call redacts values as well.
func RedactingHooks(c HooksClient, values ...string) HooksClient {
	return redactingHooks{c: c, values: values}
}

type redactingHooks struct {
	c      HooksClient
	values []string
}

func (r redactingHooks) ctx(ctx context.Context) context.Context {
	return WithSecrets(ctx, r.values...)
}

func (r redactingHooks) ListHooks(ctx context.Context, scope Scope) ([]Hook, error) {
	return r.c.ListHooks(r.ctx(ctx), scope)
}

func (r redactingHooks) GetHook(ctx context.Context, scope Scope, id int64) (*Hook, error) {
	return r.c.GetHook(r.ctx(ctx), scope, id)
}

func (r redactingHooks) CreateHook(ctx context.Context, scope Scope, opt CreateHookOption) (*Hook, error) {
	return r.c.CreateHook(r.ctx(ctx), scope, opt)
}

func (r redactingHooks) EditHook(ctx context.Context, scope Scope, id int64, opt EditHookOption) (*Hook, error) {
	return r.c.EditHook(r.ctx(ctx), scope, id, opt)
}

func (r redactingHooks) DeleteHook(ctx context.Context, scope Scope, id int64) error {
	return r.c.DeleteHook(r.ctx(ctx), scope, id)
}
