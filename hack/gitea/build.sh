#!/usr/bin/env bash
# Builds the Gitea server that `make test-gitea` runs the contract and
# end-to-end suites against, from its Go module, into $GITEA_DIR (default
# ~/.cache/forge-operator/gitea/<version>/). Does nothing when the binary and
# the record of its module directory (the server's STATIC_ROOT_PATH: its
# templates, locales and options are read from there, as the build has no
# bindata) are already there. Prints the directory on its last line of stdout.
#
# Gitea 1.24.x to 1.26.x build this way: from v1.27 the module path is
# gitea.dev, which the Go module proxy does not serve as code.gitea.io/gitea.
set -euo pipefail
version=${GITEA_VERSION:-1.26.4}
dir=${GITEA_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/forge-operator/gitea/$version}
moddir=""
if [[ -f "$dir/module-dir" ]]; then
	moddir=$(cat "$dir/module-dir")
fi
if [[ -x "$dir/gitea" && -n "$moddir" && -d "$moddir/templates" ]]; then
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
if [[ ! -x "$dir/gitea" ]]; then
	echo "building Gitea $version (sqlite) into $dir: the first build takes about ten minutes on 2 cores" >&2
	# Inside the module's own directory with -mod=mod, so that its go.mod and
	# its replace lines apply (a build from another module ignores them).
	(cd "$moddir" && GOFLAGS=-mod=mod CGO_ENABLED=1 go build -trimpath \
		-tags 'sqlite sqlite_unlock_notify' \
		-ldflags "-s -w -X main.Version=$version -X 'main.Tags=sqlite sqlite_unlock_notify'" \
		-o "$scratch/gitea" .)
	mv "$scratch/gitea" "$dir/gitea"
fi
echo "$moddir" > "$dir/module-dir"
echo "Gitea $version ready in $dir" >&2
echo "$dir"
