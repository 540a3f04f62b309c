# forge-operator: the targets everyone uses are generate, manifests, fmt,
# vet, test, envtest (and, with their issues, demo, install, run, deploy).

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

# Image the deploy target renders into the manager Deployment.
IMG ?= forge-operator:latest
# Where the envtest binaries (kube-apiserver, etcd) are built and cached,
# outside the checkout so that clean clones reuse them.
ENVTEST_K8S_VERSION := $(shell awk '$$1=="k8s.io/kubernetes"{sub(/^v/,"",$$2); print $$2; exit}' hack/envtest/go.mod)
ENVTEST_ASSETS_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/forge-operator/envtest/$(ENVTEST_K8S_VERSION)
export ENVTEST_ASSETS_DIR

CONTROLLER_GEN := go tool controller-gen
GO_TEST_FLAGS ?=

.PHONY: all
all: generate manifests fmt vet test

##@ Development

.PHONY: generate
generate: ## Generate deepcopy code for the API types.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: manifests
manifests: ## Generate CRDs and RBAC from the kubebuilder markers.
	$(CONTROLLER_GEN) crd:allowDangerousTypes=true rbac:roleName=manager-role paths="./..." \
		output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac

.PHONY: fmt
fmt: ## Run gofmt on the tree.
	gofmt -l -w $$(git ls-files '*.go')

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: envtest
envtest: ## Build kube-apiserver and etcd for envtest into ENVTEST_ASSETS_DIR (once; about six minutes cold).
	@hack/envtest/build.sh >/dev/null

.PHONY: test
test: envtest ## Run the unit and envtest suites.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS_DIR)" go test $(GO_TEST_FLAGS) ./...

.PHONY: bench
bench: ## Run the benchmarks and print time and memory per operation (never asserted).
	go test -run '^$$' -bench . -benchmem -benchtime=$(or $(BENCHTIME),1s) ./test/bench/ ./controllers/ ./internal/...

##@ Demo

.PHONY: demo
demo: envtest ## Run the operator on a local control plane against the fake forge, apply config/samples, show drift corrected (DEMO_ONCE=1 exits after).
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS_DIR)" go run ./hack/demo $(if $(filter 1,$(DEMO_ONCE)),--once,)

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-12s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)
