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

package sets

import (
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Topic selectors (repositories.topics): a set over an organization keeps
// only the repositories carrying every listed topic. Gitea serves each
// repository's topics in the organization's listing (1.24.6 to 1.27.3, the
// contract suite checks it), so the set reads them with the listing it
// takes anyway: no read per repository.

// listedRepo is repository r of owner as a listing gave it, topics with it.
func listedRepo(owner string, r forge.Repository) Repo {
	return Repo{Owner: owner, Name: r.Name, Topics: r.Topics, TopicsRead: true, ID: r.ID, archived: r.Archived}
}

// carriesTopics reports whether a repository's topics hold every one of
// want. The forge keeps topics in lower case (it lower-cases them on
// write) and admission takes only lower case, yet they are compared
// without case, as the forge compares them.
func carriesTopics(have []string, want []forgev1.Topic) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, string(w)) }) {
			return false
		}
	}
	return true
}
