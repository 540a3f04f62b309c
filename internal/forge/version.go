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
	"regexp"
	"strings"
)

// Flavors reported by ParseVersion.
const (
	FlavorGitea   = "gitea"
	FlavorForgejo = "forgejo"
)

// versionPattern is a leading semver: major.minor[.patch][-pre][+build].
var versionPattern = regexp.MustCompile(`^v?(\d+)\.(\d+)(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(?:\+(.*))?$`)

// ParseVersion reads the string of GET /version.
//
//	"1.27.3"                -> gitea, 1.27.3
//	"1.28.0+dev-12-gabcdef" -> gitea, 1.28.0 (dev build)
//	"15.0.3+gitea-1.22.0"   -> forgejo, 15.0.3 (Forgejo marks its Gitea base)
//	"development", ""       -> "", "", false (no stamped version)
//
// The semver keeps a pre-release suffix ("1.26.0-rc1") and drops build
// metadata; a missing patch is read as 0.
func ParseVersion(s string) (flavor, semver string, ok bool) {
	m := versionPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", "", false
	}
	patch := m[3]
	if patch == "" {
		patch = "0"
	}
	semver = m[1] + "." + m[2] + "." + patch + m[4]
	flavor = FlavorGitea
	build := m[5]
	if strings.HasPrefix(build, "gitea-") {
		flavor = FlavorForgejo
	}
	return flavor, semver, true
}
