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
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The deployKey behaviours are what the DeployKey kind relies on, read in
// Gitea's source (deploykeys.go) and probed on 1.26.4 and 1.24.6.
// TestContract runs them.
var _ = registerBehaviours("deployKey", []behaviour{
	{"deploykeys/create, list, get, delete; text normalised, fingerprint SHA256, read_only as sent", contractDeployKeyLifecycle, nil},
	{"deploykeys/refusals in order: required, invalid, short RSA, a user's key, the key or the title twice", contractDeployKeyRefusals, nil},
	{"deploykeys/one key in two repositories reads the text first added; another repository's id", contractDeployKeyShared, nil},
	{"deploykeys/repository admins only, the listing included", contractDeployKeyAccess, nil},
})

func contractDeployKeyAccess(t *testing.T, tg *target) {
	wantAdminsOnly(t, tg, "keys", http.StatusUnauthorized)
}

// wantAdminsOnly checks that a repository's listing under collection
// ("keys") is refused to a write collaborator (403) and to a caller
// without a token (anonymous: the status the forge answers then).
func wantAdminsOnly(t *testing.T, tg *target, collection string, anonymous int) {
	t.Helper()
	org := tg.org()
	repo := tg.repo(org)
	name, password := tg.createUser("adm")
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), org, repo, name, "write"))
	path := "/api/v1/repos/" + org + "/" + repo + "/" + collection
	status, body := tg.rawWith(func(req *http.Request) { req.SetBasicAuth(name, password) }, http.MethodGet, path, nil)
	if status != http.StatusForbidden || !strings.Contains(string(body), "user should be an owner or a collaborator with admin write of a repository") {
		t.Fatalf("a write collaborator lists %s: %d %s", collection, status, body)
	}
	status, body = tg.rawWith(nil, http.MethodGet, path, nil)
	if status != anonymous {
		t.Fatalf("no token lists %s: %d %s, want %d", collection, status, body, anonymous)
	}
}

// newSSHKey is a fresh ed25519 public key as an authorized_keys line
// with comment (none when "").
func newSSHKey(t *testing.T, comment string) (string, string) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	mustNoErr(t, err)
	pk, err := ssh.NewPublicKey(pub)
	mustNoErr(t, err)
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk)))
	if comment != "" {
		line += " " + comment
	}
	return line, ssh.FingerprintSHA256(pk)
}

func contractDeployKeyLifecycle(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	all, err := tg.c.ListDeployKeys(ctx(t), org, repo)
	mustNoErr(t, err)
	if len(all) != 0 {
		t.Fatalf("a new repository's keys: %#v", all)
	}
	line, fp := newSSHKey(t, "flux@cluster")
	// Surrounding space and a trailing newline are trimmed.
	k, err := tg.c.CreateDeployKey(ctx(t), org, repo, forge.CreateDeployKeyOption{Title: "flux", Key: "  " + line + "\n", ReadOnly: true})
	mustNoErr(t, err)
	if k.ID <= 0 || k.Key != line || k.Fingerprint != fp || !k.ReadOnly || k.Title != "flux" {
		t.Fatalf("created: %#v, want key %q fingerprint %s", k, line, fp)
	}
	if got, _ := forge.FingerprintOf(line); got != fp {
		t.Fatalf("FingerprintOf = %s, want %s", got, fp)
	}
	// Without a comment the text is type and base64 alone; read_only false is a writable key.
	bare, bareFP := newSSHKey(t, "")
	w, err := tg.c.CreateDeployKey(ctx(t), org, repo, forge.CreateDeployKeyOption{Title: "push", Key: bare})
	mustNoErr(t, err)
	if w.Key != bare || w.ReadOnly || w.Fingerprint != bareFP {
		t.Fatalf("created without comment: %#v", w)
	}
	all, err = tg.c.ListDeployKeys(ctx(t), org, repo)
	mustNoErr(t, err)
	if len(all) != 2 || all[0].ID != k.ID || all[1].ID != w.ID || all[0].Key != line || all[0].Fingerprint != fp {
		t.Fatalf("listed: %#v", all)
	}
	got, err := tg.c.GetDeployKey(ctx(t), org, repo, k.ID)
	mustNoErr(t, err)
	if got.Key != line || got.Title != "flux" || !got.ReadOnly {
		t.Fatalf("got: %#v", got)
	}
	mustNoErr(t, tg.c.DeleteDeployKey(ctx(t), org, repo, k.ID))
	_, err = tg.c.GetDeployKey(ctx(t), org, repo, k.ID)
	wantKind(t, err, forge.KindNotFound)
	// Deleting what is gone, or was never there, is 204.
	mustNoErr(t, tg.c.DeleteDeployKey(ctx(t), org, repo, k.ID))
	mustNoErr(t, tg.c.DeleteDeployKey(ctx(t), org, repo, 987654321))
	// The key can be added again once deleted.
	_, err = tg.c.CreateDeployKey(ctx(t), org, repo, forge.CreateDeployKeyOption{Title: "flux", Key: line, ReadOnly: true})
	mustNoErr(t, err)
}

func contractDeployKeyRefusals(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	line, _ := newSSHKey(t, "a")
	create := func(title, key string) error {
		_, err := tg.c.CreateDeployKey(ctx(t), org, repo, forge.CreateDeployKeyOption{Title: title, Key: key, ReadOnly: true})
		return err
	}
	wantRejected(t, create("", ""), "[Title]: Required")
	wantRejected(t, create("t", ""), "[Key]: Required")
	wantRejected(t, create("t", "ssh-ed25519 not-base64!"), "Invalid key content")
	// RSA below 3071 bits is refused (MinimumKeySizes).
	small, err := rsa.GenerateKey(rand.Reader, 2048)
	mustNoErr(t, err)
	smallPK, err := ssh.NewPublicKey(&small.PublicKey)
	mustNoErr(t, err)
	wantRejected(t, create("t", string(ssh.MarshalAuthorizedKey(smallPK))), "Invalid key content")

	// A user's SSH key cannot be a deploy key.
	userKey, _ := newSSHKey(t, "me")
	status, body := tg.raw(http.MethodPost, "/api/v1/user/keys", map[string]any{"title": uniqueName("k"), "key": userKey})
	if status != http.StatusCreated {
		t.Fatalf("add a user key: %d %s", status, body)
	}
	wantRejected(t, create("t", userKey), "Key content has been used as non-deploy key")

	mustNoErr(t, create("first", line))
	// The same key again, under another title and another comment.
	other := strings.TrimSuffix(line, " a") + " b"
	wantRejected(t, create("second", other), "This key has already been added to this repository")
	// Another key under a taken title; the key check comes first.
	fresh, _ := newSSHKey(t, "")
	wantRejected(t, create("first", fresh), "A key with the same name already exists")
	wantRejected(t, create("first", line), "This key has already been added to this repository")
}

func contractDeployKeyShared(t *testing.T, tg *target) {
	org := tg.org()
	a, b := tg.repo(org), tg.repo(org)
	line, fp := newSSHKey(t, "first")
	ka, err := tg.c.CreateDeployKey(ctx(t), org, a, forge.CreateDeployKeyOption{Title: "k", Key: line, ReadOnly: true})
	mustNoErr(t, err)
	// The same key in another repository, another comment, writable: one
	// public key server-wide, read back with the first text.
	second := strings.TrimSuffix(line, " first") + " second"
	_, err = tg.c.CreateDeployKey(ctx(t), org, b, forge.CreateDeployKeyOption{Title: "k", Key: second})
	mustNoErr(t, err)
	all, err := tg.c.ListDeployKeys(ctx(t), org, b)
	mustNoErr(t, err)
	if len(all) != 1 || all[0].Key != line || all[0].Fingerprint != fp || all[0].ReadOnly {
		t.Fatalf("b lists: %#v, want the text %q", all, line)
	}
	// Repository a's key is not b's.
	_, err = tg.c.GetDeployKey(ctx(t), org, b, ka.ID)
	wantKind(t, err, forge.KindNotFound)
	err = tg.c.DeleteDeployKey(ctx(t), org, b, ka.ID)
	wantKind(t, err, forge.KindServer)
	got, err := tg.c.GetDeployKey(ctx(t), org, a, ka.ID)
	mustNoErr(t, err)
	if got.Key != line {
		t.Fatalf("a reads %q", got.Key)
	}
}
