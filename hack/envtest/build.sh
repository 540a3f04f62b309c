#!/usr/bin/env bash
# Builds kube-apiserver and etcd for envtest from the Go modules pinned in
# this directory's go.mod, into $ENVTEST_ASSETS_DIR (default
# ~/.cache/forge-operator/envtest/<k8s version>/). Does nothing when both
# binaries are already there. Prints the directory on its last line of stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(awk '$1=="k8s.io/kubernetes"{print $2; exit}' "$here/go.mod" | sed 's/^v//')
dir=${ENVTEST_ASSETS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/forge-operator/envtest/$version}
if [[ -x "$dir/kube-apiserver" && -x "$dir/etcd" ]]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$dir"
echo "building envtest binaries (kube-apiserver $version, etcd) into $dir: the first build takes about six minutes on 2 cores" >&2
cd "$here"
tmp=$(mktemp -d "$dir/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$tmp/etcd" ./etcd
# Move into place only when both are built, so an interrupted build is redone.
mv "$tmp/etcd" "$dir/etcd"
mv "$tmp/kube-apiserver" "$dir/kube-apiserver"
echo "envtest binaries ready in $dir" >&2
echo "$dir"
