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
	"bytes"
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // X-Hub-Signature is SHA-1, as Gitea sends it
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"
)

// Webhook deliveries, as Gitea 1.24.6 and 1.27.3 send them (probed with an
// organization hook of type gitea, events repository, create and push):
//
//   - a repository created (any way: the API, a template, a migration) or
//     deleted sends `repository` with action created/deleted, the
//     repository, the organization (of an organization's repository) and
//     the sender; a rename sends nothing;
//   - a branch created sends `create` (ref: the branch's short name,
//     ref_type "branch", sha) and then `push` (ref "refs/heads/<branch>");
//     a commit through the contents API sends `push`;
//   - headers X-Gitea-Event, X-Gitea-Event-Type, X-Gitea-Delivery (a UUID),
//     X-Gitea-Signature (hex HMAC-SHA256 of the body under the hook's
//     secret), X-Gitea-Hook-Installation-Target-Type (organization or
//     repository), the same as X-Gogs-* and X-GitHub-*, X-Hub-Signature
//     ("sha1=" + hex HMAC-SHA1) and X-Hub-Signature-256 ("sha256=" + the
//     hex HMAC-SHA256); Content-Type application/json.
//
// Only active hooks of type gitea whose events hold the event deliver (a
// branch event also only when the branch filter matches); the fake sends
// no other type's payload. Deliveries go out after the change, from a
// goroutine of their own, as Gitea's hook queue sends them.

// delivery is one webhook call the forge makes.
type delivery struct {
	url, secret, event, target string
	body                       []byte
}

// deliver sends event to the hooks of r (of its organization and its
// own) that want it; branch is the branch of a create or push. Call it
// with s.mu held.
func (s *Server) deliver(event string, r *repo, payload map[string]any, branch string) {
	payload["repository"] = s.ownedRepoJSON(r)
	payload["sender"] = s.senderJSON()
	if o := s.st.orgs[r.orgID]; r.orgID != 0 && o != nil && event == "repository" {
		payload["organization"] = s.orgJSON(o)
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return
	}
	var out []delivery
	scopes := []owner{{repo: true, id: r.id}}
	if r.orgID != 0 {
		scopes = append(scopes, owner{id: r.orgID})
	}
	for _, ow := range scopes {
		target := "organization"
		if ow.repo {
			target = "repository"
		}
		for _, h := range s.st.hooks.in(ow) {
			if !h.active || h.typ != "gitea" || !slices.Contains(h.events, event) || !branchMatches(h.branchFilter, branch) {
				continue
			}
			out = append(out, delivery{url: h.url, secret: h.secret, event: event, target: target, body: body})
		}
	}
	for _, d := range out {
		go d.send()
	}
}

// branchMatches: an empty filter or "*" matches every branch (and a
// repository event, which has none).
func branchMatches(filter, branch string) bool {
	if filter == "" || filter == "*" || branch == "" {
		return true
	}
	ok, err := path.Match(filter, branch)
	return err == nil && ok
}

func (s *Server) senderJSON() map[string]any {
	for _, u := range s.users {
		if u.admin {
			return map[string]any{"id": u.id, "login": u.login, "username": u.login}
		}
	}
	return map[string]any{}
}

var deliveryClient = &http.Client{Timeout: 10 * time.Second}

func (d delivery) send() {
	req, err := http.NewRequest(http.MethodPost, d.url, bytes.NewReader(d.body))
	if err != nil {
		return
	}
	id := randomUUID()
	m := hmac.New(sha256.New, []byte(d.secret))
	m.Write(d.body)
	sig256 := hex.EncodeToString(m.Sum(nil))
	m1 := hmac.New(sha1.New, []byte(d.secret))
	m1.Write(d.body)
	req.Header.Set("Content-Type", "application/json")
	for _, p := range []string{"X-Gitea-", "X-Gogs-", "X-GitHub-"} {
		req.Header.Set(p+"Delivery", id)
		req.Header.Set(p+"Event", d.event)
		req.Header.Set(p+"Event-Type", d.event)
		req.Header.Set(p+"Hook-Installation-Target-Type", d.target)
	}
	req.Header.Set("X-Gitea-Signature", sig256)
	req.Header.Set("X-Gogs-Signature", sig256)
	req.Header.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(m1.Sum(nil)))
	req.Header.Set("X-Hub-Signature-256", "sha256="+sig256)
	resp, err := deliveryClient.Do(req)
	if err == nil {
		_ = resp.Body.Close()
	}
}

// CreateBranch makes a branch in a repository as a push of it would (the
// fake keeps no git content): the hooks get `create`, then `push`.
func (s *Server) CreateBranch(ownerName, repoName, branch string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return fmt.Errorf("create branch: no repository %s/%s", ownerName, repoName)
	}
	r.empty = false
	sha := strings.Repeat("0", 40)
	s.deliver("create", r, map[string]any{"ref": branch, "ref_type": "branch", "sha": sha}, branch)
	s.pushed(r, branch, "")
	return nil
}

// Push records a push to a branch of a repository: the hooks get `push`.
func (s *Server) Push(ownerName, repoName, branch string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return fmt.Errorf("push: no repository %s/%s", ownerName, repoName)
	}
	s.pushed(r, branch, "")
	return nil
}

// PushFiles pushes a commit to a branch of a repository as git push
// does on Gitea: the branch's head becomes a commit whose files are the
// branch's with files applied (nil content: the file deleted), the
// repository's updated_at moves (Gitea's push service calls
// UpdateRepositoryUpdatedTime) and the hooks get push. With force the
// commit has no parent and holds files alone: the branch's history and
// files are replaced, as a force-push of an unrelated commit does.
func (s *Server) PushFiles(ownerName, repoName, branch string, files map[string]*string, force bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return fmt.Errorf("push: no repository %s/%s", ownerName, repoName)
	}
	if branch == "" {
		branch = r.settings.defaultBranch
	}
	next := map[string][]byte{}
	if b := s.branches(r)[branch]; b != nil && !force {
		for p, c := range b.files {
			next[p] = c
		}
	}
	if force {
		delete(r.git, branch)
	}
	for p, c := range files {
		if c == nil {
			delete(next, p)
			continue
		}
		next[p] = []byte(*c)
	}
	r.empty = false
	cm := s.commitTo(r, branch, "pushed", "pusher", "pusher@example.com", next)
	s.pushed(r, branch, cm.sha)
	return nil
}

// pushed delivers a push to branch whose new head is commit after; ""
// stands for a commit the fake does not keep (a push from outside), which
// gets an id of its own. As Gitea's, no two pushes' payloads are the same:
// each names the commit it brought.
func (s *Server) pushed(r *repo, branch, after string) {
	zero := strings.Repeat("0", 40)
	if after == "" {
		s.pushes++
		after = fmt.Sprintf("%040x", s.pushes)
	}
	s.deliver("push", r, map[string]any{"ref": "refs/heads/" + branch, "before": zero, "after": after,
		"compare_url": "", "commits": []any{}, "total_commits": 0, "head_commit": nil, "pusher": s.senderJSON()}, branch)
}
