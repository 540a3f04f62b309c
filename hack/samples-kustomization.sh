#!/usr/bin/env bash
# Prints config/samples/kustomization.yaml: its own head (everything up to
# `resources:`, kept as written) and every sample file of config/samples,
# so that a new kind's sample needs no hand edit there. `make manifests`
# runs it; kustomize itself has no globs.
set -euo pipefail
export LC_ALL=C # the same order everywhere
cd "$(dirname "$0")/.."
sed '/^resources:/q' config/samples/kustomization.yaml
for f in config/samples/*.yaml; do
	[[ ${f##*/} == kustomization.yaml ]] || echo "  - ${f##*/}"
done
