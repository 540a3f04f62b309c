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

package forge_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/forge"
)

// TestUserPasswordNeverEchoed: a forge that quotes the request body back
// in its refusal (as a proxy or a debugging server may) never gets the
// password into the error: it is a secret of the create and edit calls.
func TestUserPasswordNeverEchoed(t *testing.T) {
	const password = `Pw-SECRET-<&"42>`
	for _, status := range []int{http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusInternalServerError} {
		echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(map[string]string{"message": fmt.Sprintf("refused %s body=%s", r.URL.Path, body)})
		})
		c, _ := hostileClient(t, echo)
		_, createErr := c.CreateUser(ctx(t), forge.CreateUserOption{Username: "bot", Email: "bot@example.com", Password: password})
		_, editErr := c.EditUser(ctx(t), "bot", forge.EditUserOption{LoginName: "bot", Password: password})
		for _, err := range []error{createErr, editErr} {
			if err == nil {
				t.Fatalf("%d: no error", status)
			}
			msg := fmt.Sprintf("%v %+v %#v", err, err, err)
			if !strings.Contains(msg, "refused /api/v1/admin/users") || !strings.Contains(msg, "[redacted]") {
				t.Fatalf("%d: the forge's message, redacted, should come through: %q", status, msg)
			}
			for _, form := range []string{password, "Pw-SECRET", `Pw-SECRET-\u003c\u0026\"42\u003e`} {
				if strings.Contains(msg, form) {
					t.Fatalf("%d: password %q in %q", status, form, msg)
				}
			}
		}
	}
}

// TestUserCallsClassified: the answers the kind acts on keep their kind
// (the status decides, never the wording), and a user answered with an id
// <= 0 is refused, as every object the forge answers is.
func TestUserCallsClassified(t *testing.T) {
	answer := func(status int, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		})
	}
	cases := []struct {
		name   string
		status int
		body   string
		want   forge.ErrorKind
	}{
		{"not the site admin", 403, `{"message":"user should be the site admin"}`, forge.KindForbidden},
		{"unknown user", 404, `{"message":"user redirect does not exist [name: x]"}`, forge.KindNotFound},
		{"owns repositories", 422, `{"message":"user still has ownership of repositories [uid: 3]"}`, forge.KindValidation},
		{"email in use", 400, `{"message":"e-mail already in use [email: a@b.c]"}`, forge.KindValidation},
		{"id zero", 200, `{"id":0,"login":"bot"}`, forge.KindInvalidResponse},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := hostileClient(t, answer(tc.status, tc.body))
			_, err := c.EditUser(ctx(t), "bot", forge.EditUserOption{LoginName: "bot"})
			wantKind(t, err, tc.want)
			if tc.status != 200 {
				wantKind(t, c.DeleteUser(ctx(t), "bot"), tc.want)
			}
		})
	}
}

// TestEditUserBody: only what is set is sent, besides the two fields the
// forge requires (login_name, source_id); an empty password is not sent.
func TestEditUserBody(t *testing.T) {
	var got map[string]any
	srv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewDecoder(r.Body).Decode(&got)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":7,"login":"bot"}`)
	})
	c, _ := hostileClient(t, srv)
	no := false
	_, err := c.EditUser(ctx(t), "bot", forge.EditUserOption{LoginName: "bot", Admin: &no})
	mustNoErr(t, err)
	want := map[string]any{"login_name": "bot", "source_id": float64(0), "admin": false}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("PATCH body (-want +got):\n%s", d)
	}
	if n := forge.LoginNameOf(&forge.User{Login: "bot"}); n != "bot" {
		t.Fatalf("login name of a local user: %q", n)
	}
	if n := forge.LoginNameOf(&forge.User{Login: "bot", LoginName: "uid=bot"}); n != "uid=bot" {
		t.Fatalf("login name of a user with one: %q", n)
	}
}
