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
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrorKind classifies a failed call so reconcilers can decide between
// stalling, waiting and backing off without looking at status codes.
type ErrorKind int

const (
	// KindUnknown is any failure not covered below (also non-forge errors).
	KindUnknown ErrorKind = iota
	// KindNotFound: the object (or its parent) does not exist (404 with a JSON body).
	KindNotFound
	// KindRouteNotFound: the server does not offer the endpoint at all
	// (plain-text "404 page not found", or 405).
	KindRouteNotFound
	// KindUnauthorized: 401, credentials missing or rejected.
	KindUnauthorized
	// KindForbidden: 403, authenticated but not allowed.
	KindForbidden
	// KindValidation: 422 (or 400), the forge rejected the input; Message says why.
	KindValidation
	// KindConflict: 409.
	KindConflict
	// KindRateLimited: 429; RetryAfter holds the server's requested delay.
	KindRateLimited
	// KindServer: 5xx.
	KindServer
	// KindNetwork: no usable response: timeout, reset, refused, cancelled,
	// or an address the address policy denies.
	KindNetwork
	// KindInvalidResponse: the forge answered something the client refuses
	// to use: an undecodable or oversized body, a null object, an id <= 0,
	// a list past its bounds or inconsistent on every walk, a redirect to
	// another origin. Transient: the forge may recover.
	KindInvalidResponse
	// KindMoved: the forge answered with a redirect on its own origin, as
	// Gitea answers every API route of a renamed or transferred
	// organization, user or repository by its old name. The client does not
	// follow it: what answers at the new name is not the object the old
	// name meant to whoever wrote it, and nothing is read or written
	// through it (MovedError says where it points).
	KindMoved
)

var kindNames = map[ErrorKind]string{
	KindUnknown:         "Unknown",
	KindNotFound:        "NotFound",
	KindRouteNotFound:   "RouteNotFound",
	KindUnauthorized:    "Unauthorized",
	KindForbidden:       "Forbidden",
	KindValidation:      "Validation",
	KindConflict:        "Conflict",
	KindRateLimited:     "RateLimited",
	KindServer:          "Server",
	KindNetwork:         "Network",
	KindInvalidResponse: "InvalidResponse",
	KindMoved:           "Moved",
}

// String gives the kind's CamelCase name, e.g. "RouteNotFound".
func (k ErrorKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "ErrorKind(" + strconv.Itoa(int(k)) + ")"
}

// Error is the error every client method returns. It names the call and the
// object (Op) and never holds a credential.
type Error struct {
	// Op names the call and its object, e.g. `create label "kind/bug" in acme/web`.
	Op string
	// Kind classifies the failure.
	Kind ErrorKind
	// StatusCode is the HTTP status, 0 when no response arrived.
	StatusCode int
	// Message is the forge's own message (the "message" of its error body).
	Message string
	// RetryAfter is the delay the server asked for (429/503 Retry-After).
	RetryAfter time.Duration
	// Err is the underlying transport or decoding error, if any.
	Err error
}

// Error renders "op: 422 message", or "op: cause" without a response.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	b.WriteString(": ")
	switch {
	case e.StatusCode != 0:
		b.WriteString(strconv.Itoa(e.StatusCode))
		b.WriteByte(' ')
		switch {
		case e.Kind == KindRouteNotFound:
			b.WriteString("route not found: the server does not offer this endpoint")
		case e.Message != "":
			b.WriteString(e.Message)
		default:
			b.WriteString(strings.ToLower(http.StatusText(e.StatusCode)))
		}
		if e.RetryAfter > 0 {
			fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
		}
		if e.Err != nil {
			b.WriteString(": ")
			b.WriteString(e.Err.Error())
		}
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	default:
		b.WriteString(strings.ToLower(e.Kind.String()))
	}
	return b.String()
}

// Unwrap exposes the transport error (e.g. context.DeadlineExceeded).
func (e *Error) Unwrap() error { return e.Err }

// KindOf gives the kind of a client error, KindUnknown for nil and for
// errors that did not come from this package.
func KindOf(err error) ErrorKind {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Kind
	}
	return KindUnknown
}

// IsNotFound reports a missing object (not a missing endpoint).
func IsNotFound(err error) bool { return KindOf(err) == KindNotFound }

// IsMoved reports an answer through a redirect: the name called was
// renamed or transferred.
func IsMoved(err error) bool { return KindOf(err) == KindMoved }

// IsRouteNotFound reports that the server lacks the endpoint.
func IsRouteNotFound(err error) bool { return KindOf(err) == KindRouteNotFound }

// IsUnauthorized reports a 401.
func IsUnauthorized(err error) bool { return KindOf(err) == KindUnauthorized }

// IsForbidden reports a 403.
func IsForbidden(err error) bool { return KindOf(err) == KindForbidden }

// ErrNotOrgMember is the cause of the 403 an organization's teams'
// routes answer a signed-in user who is no member of it: Gitea lists an
// organization's teams to its members only, public or private (its
// reqOrgMembership: 403 "Must be an organization member"; probed on
// 1.27.3, the same in 1.24.6), while GET /orgs/{org} of a private one
// answers such a user 404. The organization exists; a caller must not
// take the refusal for a missing organization or team.
var ErrNotOrgMember = errors.New("only the organization's members may read its teams, and the token's user is none")

// forgeNotMember is the message of that 403.
const forgeNotMember = "Must be an organization member"

// notOrgMember gives err, a 403 of a team route saying its user is no
// member, ErrNotOrgMember as its cause; any other err as it is.
func notOrgMember(err error) error {
	var fe *Error
	if errors.As(err, &fe) && fe.Kind == KindForbidden && fe.Err == nil && fe.Message == forgeNotMember {
		fe.Err = ErrNotOrgMember
	}
	return err
}

// IsValidation reports input the forge rejected (422, 400).
func IsValidation(err error) bool { return KindOf(err) == KindValidation }

// IsConflict reports a 409.
func IsConflict(err error) bool { return KindOf(err) == KindConflict }

// IsRateLimited reports a 429.
func IsRateLimited(err error) bool { return KindOf(err) == KindRateLimited }

// IsServerError reports a 5xx.
func IsServerError(err error) bool { return KindOf(err) == KindServer }

// IsNetwork reports a failure without a usable response.
func IsNetwork(err error) bool { return KindOf(err) == KindNetwork }

// RetryAfter gives the delay the server asked for, if it sent one.
func RetryAfter(err error) (time.Duration, bool) {
	var fe *Error
	if errors.As(err, &fe) && fe.RetryAfter > 0 {
		return fe.RetryAfter, true
	}
	return 0, false
}

// kindForStatus maps an HTTP error status onto a kind; body tells an
// object 404 (JSON or empty) from a route 404 (plain text).
func kindForStatus(code int, body []byte) ErrorKind {
	switch {
	case code == http.StatusNotFound:
		if isRouteNotFoundBody(body) {
			return KindRouteNotFound
		}
		return KindNotFound
	case code == http.StatusMethodNotAllowed:
		return KindRouteNotFound
	case code == http.StatusUnauthorized:
		return KindUnauthorized
	case code == http.StatusForbidden:
		return KindForbidden
	case code == http.StatusUnprocessableEntity, code == http.StatusBadRequest:
		return KindValidation
	case code == http.StatusConflict:
		return KindConflict
	case code == http.StatusTooManyRequests:
		return KindRateLimited
	case code >= 500:
		return KindServer
	}
	return KindUnknown
}

// isRouteNotFoundBody: the router of a server without the endpoint answers
// with text ("404 page not found"); a missing object always gets a JSON
// body (or, on old servers, none at all).
func isRouteNotFoundBody(body []byte) bool {
	t := bytes.TrimSpace(body)
	if len(t) == 0 {
		return false
	}
	return !json.Valid(t) || t[0] != '{'
}

// errorBody is the forge's error JSON.
type errorBody struct {
	Message string          `json:"message"`
	Errors  json.RawMessage `json:"errors"`
}

// forgeMessage extracts the forge's message; Gitea sometimes leaves message
// empty and puts the detail in "errors".
func forgeMessage(body []byte) string {
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err != nil {
		return ""
	}
	if eb.Message != "" {
		return eb.Message
	}
	var list []string
	if json.Unmarshal(eb.Errors, &list) == nil && len(list) > 0 {
		return strings.Join(list, "; ")
	}
	return ""
}

// now is replaced in tests to make HTTP-date Retry-After deterministic.
var now = time.Now

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP date.
// Dates in the past give 0.
func parseRetryAfter(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		const maxSecs = int64(1<<63-1) / int64(time.Second)
		if secs > maxSecs {
			secs = maxSecs
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now())
	if d < 0 {
		d = 0
	}
	return d.Round(time.Second), true
}
