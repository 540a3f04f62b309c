//go:build tools

// Package envtest pins the commands this module builds, so that go mod tidy
// keeps their dependencies.
package envtest

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
