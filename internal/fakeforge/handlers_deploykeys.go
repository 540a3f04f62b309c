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

package fakeforge

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Deploy keys, answered as Gitea 1.24.6, 1.25.5 and 1.26.4 do (read in
// routers/api/v1/repo/key.go, routers/api/v1/user/key.go,
// models/asymkey/ssh_key_deploy.go, ssh_key_parse.go, ssh_key.go,
// ssh_key_fingerprint.go, services/asymkey/deploy_key.go,
// services/convert/convert.go ToDeployKey, modules/setting/ssh.go; the
// same in the three releases) and held to the contract suite
// (internal/forge/contract_deploykeys_test.go), which runs on each:
//
//   - Repository admins only, the listing included (reqToken, reqAdmin).
//   - POST: "[Title]: Required", "[Key]: Required" (binding, in field
//     order); then the key text is parsed (CheckPublicKeyString): trimmed,
//     newlines removed, split into type, base64 and comment, and must
//     parse as an authorized_keys line; its size must reach
//     MinimumKeySizes (ed25519 and ecdsa 256, rsa 3071 bits; another type
//     is not allowed): any failure is 422 "Invalid key content: ...". The
//     text kept is "type base64 comment", trimmed.
//   - Then, in AddDeployKey's order: a key one of the users holds is 422
//     "Key content has been used as non-deploy key"; the same key in this
//     repository "This key has already been added to this repository"; the
//     title in this repository "A key with the same name already exists".
//   - A key already a deploy key elsewhere is reused: every repository
//     holding it reads the text it was first added with.
//   - fingerprint is ssh.FingerprintSHA256 (SHA256:, unpadded base64).
//   - GET of an unknown id, or of another repository's key, is 404 "not
//     found"; DELETE of an unknown id is 204, of another repository's key
//     500.
//   - POST /user/keys adds a user's SSH key (a fixture: the operator never
//     does): a fingerprint already in use anywhere is 422 "Key content has
//     been used as non-deploy key".

type deployKey struct {
	row
	title, content, fingerprint string
	readOnly                    bool
	created                     time.Time
}

// userKey is a user's SSH key, by fingerprint.
type userKey struct {
	id                          int64
	owner                       int64
	title, content, fingerprint string
}

// minKeySizes is Gitea's SSH.MinimumKeySizes default.
var minKeySizes = map[string]int{"ed25519": 256, "ed25519-sk": 256, "ecdsa": 256, "ecdsa-sk": 256, "rsa": 3071}

// checkPublicKey is CheckPublicKeyString: the kept text and fingerprint, or
// why the key is refused.
func checkPublicKey(content string) (string, string, error) {
	content = strings.NewReplacer("\r\n", "", "\n", "", "\r", "").Replace(strings.TrimSpace(content))
	parts := strings.SplitN(content, " ", 3)
	var typ, blob, comment string
	switch len(parts) {
	case 1:
		blob = parts[0]
	case 2:
		typ, blob = parts[0], parts[1]
	default:
		typ, blob, comment = parts[0], parts[1], parts[2]
	}
	raw, err := base64.StdEncoding.DecodeString(blob)
	if err != nil {
		return "", "", fmt.Errorf("extractTypeFromBase64Key: %w", err)
	}
	pk, err := ssh.ParsePublicKey(raw)
	if err != nil {
		return "", "", fmt.Errorf("extractTypeFromBase64Key: %w", err)
	}
	switch {
	case typ == "":
		typ = pk.Type()
	case typ != pk.Type():
		return "", "", fmt.Errorf("key type and content does not match: %s - %s", typ, pk.Type())
	}
	kept := strings.TrimSpace(typ + " " + blob + " " + comment)
	name, bits := keySize(pk)
	if min, ok := minKeySizes[name]; !ok {
		return "", "", fmt.Errorf("key type is not allowed: %s", name)
	} else if bits < min {
		return "", "", fmt.Errorf("key length is not enough: got %d, needs %d", bits, min)
	}
	return kept, ssh.FingerprintSHA256(pk), nil
}

// keySize is SSHNativeParsePublicKey's type name and length.
func keySize(pk ssh.PublicKey) (string, int) {
	switch pk.Type() {
	case ssh.KeyAlgoRSA:
		var k struct {
			Name string
			E, N *big.Int
		}
		_ = ssh.Unmarshal(pk.Marshal(), &k)
		if k.N != nil {
			return "rsa", k.N.BitLen()
		}
		return "rsa", 0
	case ssh.KeyAlgoED25519:
		return "ed25519", 256
	case ssh.KeyAlgoSKED25519:
		return "ed25519-sk", 256
	case ssh.KeyAlgoECDSA256:
		return "ecdsa", 256
	case ssh.KeyAlgoECDSA384:
		return "ecdsa", 384
	case ssh.KeyAlgoECDSA521:
		return "ecdsa", 521
	case ssh.KeyAlgoSKECDSA256:
		return "ecdsa-sk", 256
	}
	return strings.TrimPrefix(pk.Type(), "ssh-"), 0
}

// deployKeyText is the text the forge answers for a key of fingerprint fp:
// the text it was first added with, while any repository holds it.
func (st *state) deployKeyText(fp string) (int64, string) {
	for _, k := range st.deployKeys.where(func(k *deployKey) bool { return k.fingerprint == fp }) {
		return k.id, k.content
	}
	return 0, ""
}

func (s *Server) deployKeyJSON(k *deployKey) map[string]any {
	r := s.st.repos[k.owner.id]
	keyID, text := s.st.deployKeyText(k.fingerprint)
	return map[string]any{
		"id": k.id, "key_id": keyID, "key": text, "title": k.title, "fingerprint": k.fingerprint,
		"read_only": k.readOnly, "created_at": k.created.Format(time.RFC3339),
		"url": fmt.Sprintf("%s/api/v1/repos/%s/%s/keys/%d", s.root, s.ownerName(r), r.name, k.id),
	}
}

var deployKeyRes = &resource[*deployKey]{
	route: forge.RouteOf("deploy keys"), scopes: []string{forge.RepoRoute},
	table: func(st *state) *table[*deployKey] { return st.deployKeys },
	may:   (*rc).administers,
	missing: func(c *rc, _ owner, _ *deployKey) {
		c.notFoundMsg("not found")
	},
	json: func(c *rc, k *deployKey) map[string]any { return c.s.deployKeyJSON(k) },
}

// keyForm is a key's create form (a deploy key's, or a user's SSH key's,
// which has no read_only) as both endpoints check it first: the binding
// (title, then key, required), then the key's content, parsed and
// normalised (text) with its fingerprint. ok is false once it answered.
type keyForm struct {
	Title    string `json:"title"`
	Key      string `json:"key"`
	ReadOnly bool   `json:"read_only"`
}

func (c *rc) keyForm() (req keyForm, text, fp string, ok bool) {
	if !c.bind(&req) {
		return req, "", "", false
	}
	switch {
	case req.Title == "":
		c.validation("[Title]: Required")
		return req, "", "", false
	case req.Key == "":
		c.validation("[Key]: Required")
		return req, "", "", false
	}
	text, fp, err := checkPublicKey(req.Key)
	if err != nil {
		c.validation("Invalid key content: " + err.Error())
		return req, "", "", false
	}
	return req, text, fp, true
}

func (s *Server) createDeployKey(c *rc) {
	ow, ok := deployKeyRes.scope(c, "create")
	if !ok {
		return
	}
	req, text, fp, ok := c.keyForm()
	if !ok {
		return
	}
	if _, used := s.st.userKeys[fp]; used {
		c.validation("Key content has been used as non-deploy key")
		return
	}
	if _, dup := s.st.deployKeys.first(ow, func(k *deployKey) bool { return k.fingerprint == fp }); dup {
		c.validation("This key has already been added to this repository")
		return
	}
	if _, dup := s.st.deployKeys.first(ow, func(k *deployKey) bool { return k.title == req.Title }); dup {
		c.validation("A key with the same name already exists")
		return
	}
	k := s.st.deployKeys.add(&deployKey{row: row{owner: ow}, title: req.Title, content: text, fingerprint: fp,
		readOnly: req.ReadOnly, created: time.Now().UTC().Truncate(time.Second)})
	c.json(http.StatusCreated, s.deployKeyJSON(k))
}

// deleteDeployKey: an unknown id is done already; another repository's key
// fails inside the forge (500, no message but for site admins).
func (s *Server) deleteDeployKey(c *rc) {
	ow, ok := deployKeyRes.scope(c, "delete")
	if !ok {
		return
	}
	id, _ := c.id("id")
	k, found := s.st.deployKeys.at(id)
	switch {
	case !found:
	case k.owner != ow:
		c.error(http.StatusInternalServerError, "")
		return
	default:
		s.st.deployKeys.remove(id)
	}
	c.noContent()
}

// createUserKey is POST /user/keys: the caller's SSH key.
func (s *Server) createUserKey(c *rc) {
	if !c.requireToken() {
		return
	}
	req, text, fp, ok := c.keyForm()
	if !ok {
		return
	}
	if id, _ := s.st.deployKeyText(fp); id != 0 || s.st.userKeys[fp] != nil {
		c.validation("Key content has been used as non-deploy key")
		return
	}
	for _, k := range s.st.userKeys {
		if k.owner == c.doer.id && k.title == req.Title {
			c.validation("Key title has been used")
			return
		}
	}
	k := &userKey{id: s.st.next("userkey"), owner: c.doer.id, title: req.Title, content: text, fingerprint: fp}
	s.st.userKeys[fp] = k
	c.json(http.StatusCreated, map[string]any{"id": k.id, "key": k.content, "title": k.title, "fingerprint": k.fingerprint})
}

func (s *Server) deployKeyRoutes(h func(string, func(*rc))) {
	deployKeyRes.serve(h, onCollection("POST", s.createDeployKey), onItem("DELETE", s.deleteDeployKey))
	h("POST /api/v1/user/keys", s.createUserKey)
}

// DeployKeys gives a repository's deploy keys as the listing answers them.
func (s *Server) DeployKeys(ownerName, repoName string) []forge.DeployKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return nil
	}
	out := []forge.DeployKey{}
	for _, k := range s.st.deployKeys.in(owner{repo: true, id: r.id}) {
		_, text := s.st.deployKeyText(k.fingerprint)
		out = append(out, forge.DeployKey{ID: k.id, Key: text, Title: k.title, Fingerprint: k.fingerprint, ReadOnly: k.readOnly, Created: k.created})
	}
	return out
}

// AddUserKey gives user login the SSH key content, as POST /user/keys
// would: the forge then refuses it as a deploy key.
func (s *Server) AddUserKey(login, content string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	text, fp, err := checkPublicKey(content)
	if err != nil {
		return err
	}
	s.st.userKeys[fp] = &userKey{id: s.st.next("userkey"), title: login, content: text, fingerprint: fp}
	return nil
}

var _ = registerRoutes((*Server).deployKeyRoutes)
