#!/usr/bin/env bash
# Builds the Gitea server that `make test-gitea` runs the contract and
# end-to-end suites against, from its Go module, into $GITEA_DIR (default
# ~/.cache/forge-operator/gitea/<version>/). Does nothing when the binary and
# the record of its source directory (the server's STATIC_ROOT_PATH: its
# templates, locales and options are read from there, as the build has no
# bindata) are already there. Prints the directory on its last line of stdout.
#
# Gitea 1.24.x to 1.26.x build from their module directory as downloaded.
# From 1.27 the module says `module gitea.dev` and requires modules the Go
# module proxy does not serve; such a release is built from a writable copy
# of its module directory ($GITEA_DIR/src) with the substitutions below, and
# that copy is its static root.
set -euo pipefail
version=${GITEA_VERSION:-1.27.3}
dir=${GITEA_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/forge-operator/gitea/$version}

# The substitutions a release needs to build, as data: `go mod edit` flags
# (edits) and files removed from the copy (removed), each with why. A
# release with neither builds from its module directory untouched.
edits=()
removed=()
case "$version" in
1.27.*)
	edits+=(
		# gitea.dev/actions-proto-go v0.6.0 is not served; the same
		# release is published as code.gitea.io/actions-proto-go.
		-replace gitea.dev/actions-proto-go=code.gitea.io/actions-proto-go@v0.6.0
		# gitea.dev/sdk v1.1.0 is not served; its only user is removed
		# below, but go.mod still requires it, so the module graph needs
		# a module there: the SDK as served under its old path.
		-replace gitea.dev/sdk=code.gitea.io/sdk/gitea@v0.25.1
		# gitlab.com/gitlab-org/api/client-go/v2 v2.42.0 is not served;
		# v2.62.0 is, and the GitLab migrations build against it.
		-require gitlab.com/gitlab-org/api/client-go/v2@v2.62.0
	)
	removed+=(
		# The only user of gitea.dev/sdk, whose API differs from the
		# served SDK's: it migrates repositories from other Gitea
		# servers, which no test of the operator needs.
		services/migrations/gitea_downloader.go
		services/migrations/gitea_downloader_test.go
	)
	;;
esac

srcdir=""
if [[ -f "$dir/module-dir" ]]; then
	srcdir=$(cat "$dir/module-dir")
fi
if [[ -x "$dir/gitea" && -n "$srcdir" && -d "$srcdir/templates" ]]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$dir"
# The module's directory: `go mod download` in a scratch module, so that
# this repository's go.mod is untouched.
scratch=$(mktemp -d "$dir/.mod.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
(cd "$scratch" && go mod init scratch >/dev/null 2>&1)
moddir=$(cd "$scratch" && go mod download -json "code.gitea.io/gitea@v$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [[ -z "$moddir" || ! -d "$moddir" ]]; then
	echo "go mod download code.gitea.io/gitea@v$version gave no module directory" >&2
	exit 1
fi
srcdir=$moddir
if ((${#edits[@]} + ${#removed[@]} > 0)); then
	# The module cache is read-only: edit a copy, made afresh (and moved
	# into place whole) so that an interrupted run leaves no half-edited
	# tree behind.
	srcdir=$dir/src
	rm -rf "$srcdir" "$srcdir.tmp"
	cp -R "$moddir" "$srcdir.tmp"
	chmod -R u+w "$srcdir.tmp"
	if ((${#edits[@]} > 0)); then
		(cd "$srcdir.tmp" && go mod edit "${edits[@]}")
	fi
	for f in "${removed[@]}"; do
		rm -f "$srcdir.tmp/$f"
	done
	mv "$srcdir.tmp" "$srcdir"
fi
if [[ ! -x "$dir/gitea" ]]; then
	echo "building Gitea $version (sqlite) into $dir: the first build takes about ten minutes on 2 cores" >&2
	# Inside the module's own directory with -mod=mod, so that its go.mod and
	# its replace lines apply (a build from another module ignores them).
	(cd "$srcdir" && GOFLAGS=-mod=mod CGO_ENABLED=1 go build -trimpath \
		-tags 'sqlite sqlite_unlock_notify' \
		-ldflags "-s -w -X main.Version=$version -X 'main.Tags=sqlite sqlite_unlock_notify'" \
		-o "$scratch/gitea" .)
	mv "$scratch/gitea" "$dir/gitea"
fi
echo "$srcdir" > "$dir/module-dir"
echo "Gitea $version ready in $dir" >&2
echo "$dir"
