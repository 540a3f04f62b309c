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
	"context"
	"fmt"
	"time"

	"golang.org/x/crypto/ssh"
)

// Deploy keys of a repository, GET|POST /repos/{o}/{r}/keys and
// GET|DELETE .../keys/{id}.
//
// What the forge does, read in Gitea 1.24.6, 1.25.5 and 1.26.4
// (routers/api/v1/repo/key.go, models/asymkey/ssh_key_deploy.go,
// ssh_key_parse.go, ssh_key_fingerprint.go, services/asymkey/deploy_key.go:
// the same in all three) and checked by the contract suite on each; the
// fake (internal/fakeforge/handlers_deploykeys.go) answers the same:
//
//   - Access: repository admins only, the listing included (401 without a
//     token, 403 otherwise).
//   - A key cannot be edited: there is no PATCH. A new title, key or
//     read_only means a new key.
//   - key is normalised: trimmed, and stored as "type base64 comment" (the
//     comment kept; without one, "type base64"). The public key is one row
//     server-wide: a key already a deploy key of another repository is
//     reused with the text it was first added with, so compare keys by
//     fingerprint, never by text.
//   - fingerprint is ssh.FingerprintSHA256 of the key: "SHA256:" and the
//     unpadded standard base64 of the key blob's SHA-256.
//   - POST: title and key are required ("[Title]: Required"); key text that
//     does not parse is 422 "Invalid key content: ..."; then, in this
//     order, 422 "Key content has been used as non-deploy key" (a user's
//     SSH key), "This key has already been added to this repository", "A
//     key with the same name already exists" (titles are unique in a
//     repository). So a key cannot be added to a repository twice, even
//     under another title, and no two keys share a title there.
//   - GET of an id of another repository is 404; DELETE of an unknown id
//     is 204, of another repository's key 500.
//   - The listing has X-Total-Count, no Link, ordered by id.

// DeployKey mirrors the forge's deploy key.
type DeployKey struct {
	ID          int64     `json:"id"`
	Key         string    `json:"key"`
	URL         string    `json:"url"`
	Title       string    `json:"title"`
	Fingerprint string    `json:"fingerprint"`
	ReadOnly    bool      `json:"read_only"`
	Created     time.Time `json:"created_at"`
}

// CreateDeployKeyOption is the body of POST .../keys. read_only is always
// sent: the forge makes an omitted one a writable key.
type CreateDeployKeyOption struct {
	Title    string `json:"title"`
	Key      string `json:"key"`
	ReadOnly bool   `json:"read_only"`
}

// DeployKeysClient manages a repository's deploy keys.
type DeployKeysClient interface {
	ListDeployKeys(ctx context.Context, owner, repo string) ([]DeployKey, error)
	GetDeployKey(ctx context.Context, owner, repo string, id int64) (*DeployKey, error)
	// CreateDeployKey refuses a key already in the repository, a title
	// taken there, and a user's SSH key, each with 422.
	CreateDeployKey(ctx context.Context, owner, repo string, opt CreateDeployKeyOption) (*DeployKey, error)
	// DeleteDeployKey succeeds for an unknown id (the forge answers 204).
	DeleteDeployKey(ctx context.Context, owner, repo string, id int64) error
}

var _ DeployKeysClient = (*Client)(nil)

var deployKeys = declare(&resource[DeployKey]{noun: "deploy key", plural: "deploy keys", path: "/keys", item: "/{id}", of: true,
	key: func(k DeployKey) int64 { return k.ID }})

// ListDeployKeys implements DeployKeysClient.
func (c *Client) ListDeployKeys(ctx context.Context, owner, repo string) ([]DeployKey, error) {
	return deployKeys.list(ctx, c, RepoScope(owner, repo))
}

// GetDeployKey implements DeployKeysClient.
func (c *Client) GetDeployKey(ctx context.Context, owner, repo string, id int64) (*DeployKey, error) {
	return deployKeys.get(ctx, c, RepoScope(owner, repo), id)
}

// CreateDeployKey implements DeployKeysClient.
func (c *Client) CreateDeployKey(ctx context.Context, owner, repo string, opt CreateDeployKeyOption) (*DeployKey, error) {
	return deployKeys.create(ctx, c, RepoScope(owner, repo), deployKeys.one(opt.Title), opt)
}

// DeleteDeployKey implements DeployKeysClient.
func (c *Client) DeleteDeployKey(ctx context.Context, owner, repo string, id int64) error {
	return deployKeys.delete(ctx, c, RepoScope(owner, repo), id)
}

// ---- through Snapshots: one listing per repository ----

func (s *Snapshots) ListDeployKeys(ctx context.Context, owner, repo string) ([]DeployKey, error) {
	return listIn(ctx, s, deployKeys, RepoScope(owner, repo), func(ctx context.Context, sc Scope) ([]DeployKey, error) {
		return s.Interface.ListDeployKeys(ctx, sc.Owner, sc.Repo)
	})
}

func (s *Snapshots) GetDeployKey(ctx context.Context, owner, repo string, id int64) (*DeployKey, error) {
	return byID(s, deployKeys.cache(s), id,
		func() (*DeployKey, error) { return s.Interface.GetDeployKey(ctx, owner, repo, id) },
		func() ([]DeployKey, error) { return s.ListDeployKeys(ctx, owner, repo) })
}

func (s *Snapshots) CreateDeployKey(ctx context.Context, owner, repo string, opt CreateDeployKeyOption) (*DeployKey, error) {
	return deployKeys.cache(s).answer(RepoScope(owner, repo))(s.Interface.CreateDeployKey(ctx, owner, repo, opt))
}

func (s *Snapshots) DeleteDeployKey(ctx context.Context, owner, repo string, id int64) error {
	return deployKeys.cache(s).deleted(RepoScope(owner, repo), id)(s.Interface.DeleteDeployKey(ctx, owner, repo, id))
}

// FingerprintOf is the forge's fingerprint of an authorized_keys line
// (ssh.FingerprintSHA256), or an error saying why it does not parse.
func FingerprintOf(key string) (string, error) {
	pk, _, _, _, err := ssh.ParseAuthorizedKey([]byte(key))
	if err != nil {
		return "", fmt.Errorf("not an SSH public key: %w", err)
	}
	return ssh.FingerprintSHA256(pk), nil
}
