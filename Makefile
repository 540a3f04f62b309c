# forge-operator: the targets everyone uses are generate, manifests, fmt,
# vet, test, envtest (and, with their issues, demo, install, run, deploy,
# helm-lint, helm-template).
# docs/development.md says how to build, test and add a kind; a new kind's
# documentation is a row in the README's table of kinds and a section of
# docs/kinds.md, written by hand, and its fields in docs/reference.md,
# written by `make generate` (test/docs fails while one is missing).

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

# Image the deploy target renders into the manager Deployment.
IMG ?= forge-operator:latest
# Where the envtest binaries (kube-apiserver, etcd) are built and cached,
# outside the checkout so that clean clones reuse them.
ENVTEST_K8S_VERSION := $(shell awk '$$1=="k8s.io/kubernetes"{sub(/^v/,"",$$2); print $$2; exit}' hack/envtest/go.mod)
ENVTEST_ASSETS_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/forge-operator/envtest/$(ENVTEST_K8S_VERSION)
export ENVTEST_ASSETS_DIR
# The real Gitea `make test-gitea` runs against, built from its Go module
# (hack/gitea/build.sh; about ten minutes cold per release; 1.27.x from an
# edited copy of its module, whose module path is gitea.dev). `make
# test-gitea-all` runs the suites against each release of GITEA_VERSIONS.
GITEA_VERSION ?= 1.27.3
GITEA_VERSIONS ?= 1.24.6 1.25.5 1.26.4 1.27.3
GITEA_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/forge-operator/gitea/$(GITEA_VERSION)
export GITEA_DIR

CONTROLLER_GEN := go tool controller-gen
# golangci-lint is pinned in a module of its own (hack/tools/go.mod), so that
# its dependencies never move the manager's. The first run builds it (about a
# minute on 2 cores); later runs reuse Go's build cache.
GOLANGCI_LINT := go tool -modfile=hack/tools/go.mod golangci-lint
# crd-ref-docs writes docs/reference.md from the API types; pinned in a
# module of its own (hack/refdocs/go.mod) for the same reason, with its
# configuration and templates beside it.
CRD_REF_DOCS := go tool -modfile=hack/refdocs/go.mod crd-ref-docs
GO_TEST_FLAGS ?=
# Helm is pinned in a module of its own (hack/helm/go.mod), for the same
# reason as golangci-lint; the chart tests of test/deploy run the same build.
HELM := go tool -modfile=hack/helm/go.mod helm
# promtool is pinned in a module of its own (hack/promtool/go.mod) too: the
# chart's alert rules are checked and unit-tested with it, and the dashboard
# test parses every query with the same module's PromQL parser.
PROMTOOL := go tool -modfile=hack/promtool/go.mod promtool
CHART := charts/forge-operator

.PHONY: all
all: generate manifests fmt vet lint test

##@ Development (docs/development.md; a new kind: a row in the README's and docs/kinds.md's tables, a section of docs/kinds.md; make generate writes its docs/reference.md)

.PHONY: generate
generate: ## Generate deepcopy code, the kinds' accessors, PROJECT and docs/reference.md from the API types.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."
	go run ./hack/kindgen
	$(CRD_REF_DOCS) --config hack/refdocs/config.yaml --templates-dir hack/refdocs/templates \
		--source-path ./api --renderer markdown --output-path docs/reference.md --log-level ERROR

.PHONY: manifests
manifests: ## Generate CRDs, their kustomization, RBAC from the kubebuilder markers, the samples' kustomization, and the Helm chart's copies of the CRDs and manager role.
	$(CONTROLLER_GEN) crd:allowDangerousTypes=true rbac:roleName=manager-role paths="./..." \
		output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	go run ./hack/crdversions config/crd/bases
	hack/crd-kustomization.sh > config/crd/kustomization.yaml.tmp && mv config/crd/kustomization.yaml.tmp config/crd/kustomization.yaml
	hack/samples-kustomization.sh > config/samples/kustomization.yaml.tmp && mv config/samples/kustomization.yaml.tmp config/samples/kustomization.yaml
	rm -f $(CHART)/files/crds/*.yaml && cp config/crd/bases/*.yaml $(CHART)/files/crds/
	cp config/rbac/role.yaml $(CHART)/files/rbac/manager-role.yaml

.PHONY: fmt
fmt: ## Run gofmt on the tree.
	gofmt -l -w $$(git ls-files '*.go')

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: lint
lint: ## Run golangci-lint with .golangci.yml (govet, staticcheck, errcheck, gocognit, misspell, gofmt, ...).
	$(GOLANGCI_LINT) run ./...

.PHONY: helm
helm: ## Build the pinned Helm into Go's build cache (once; several minutes cold): make test's chart tests run it.
	@$(HELM) version >/dev/null

.PHONY: promtool
promtool: ## Build the pinned promtool into Go's build cache (once; a few minutes cold): make test's alert and dashboard tests run it.
	@$(PROMTOOL) --version >/dev/null

.PHONY: promtool-check
promtool-check: ## Check the chart's Prometheus alert rules (charts/forge-operator/files/prometheus/rules.yaml) with promtool.
	$(PROMTOOL) check rules $(CHART)/files/prometheus/rules.yaml

.PHONY: helm-lint
helm-lint: ## Lint the Helm chart (charts/forge-operator), cluster-wide, namespaced, with shards, with the NetworkPolicy and a verifying ServiceMonitor, and with the operations kit (alerts, dashboards, kube-state-metrics).
	$(HELM) lint --strict $(CHART)
	$(HELM) lint --strict $(CHART) --set 'manager.watchNamespaces={team-a,team-b}'
	$(HELM) lint --strict $(CHART) --set 'shards={eu-1,eu-2}'
	$(HELM) lint --strict $(CHART) --set networkPolicy.enabled=true --set 'networkPolicy.apiServer.cidrs={10.0.0.1/32}' \
		--set 'networkPolicy.forges[0].cidrs={192.0.2.7/32}' --set metrics.serviceMonitor.enabled=true \
		--set metrics.certSecret=metrics-cert --set metrics.serviceMonitor.tlsConfig.ca.secret.name=metrics-cert \
		--set metrics.serviceMonitor.tlsConfig.ca.secret.key=ca.crt
	$(HELM) lint --strict $(CHART) --set prometheusRule.enabled=true --set dashboards.enabled=true \
		--set kubeStateMetrics.customResourceState.enabled=true \
		--set kubeStateMetrics.customResourceState.serviceAccount.name=kube-state-metrics \
		--set kubeStateMetrics.customResourceState.serviceAccount.namespace=monitoring

.PHONY: helm-template
helm-template: ## Render the Helm chart into bin/chart.yaml (HELM_ARGS adds flags, e.g. --set image.tag=v0.1.0).
	@mkdir -p bin
	$(HELM) template forge-operator $(CHART) --namespace forge-operator-system $(HELM_ARGS) > bin/chart.yaml

.PHONY: envtest
envtest: ## Build kube-apiserver and etcd for envtest into ENVTEST_ASSETS_DIR (once; about six minutes cold).
	@hack/envtest/build.sh >/dev/null

.PHONY: test
test: envtest helm promtool ## Run the unit and envtest suites (each package may take 30 minutes: the controllers suite takes close to go test's default limit of 10 on a loaded 2-core machine).
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS_DIR)" go test -timeout 30m $(GO_TEST_FLAGS) ./...

.PHONY: gitea
gitea: ## Build Gitea $(GITEA_VERSION) from its Go module into GITEA_DIR (once; about ten minutes cold).
	@GITEA_VERSION=$(GITEA_VERSION) hack/gitea/build.sh >/dev/null

.PHONY: test-gitea
test-gitea: gitea envtest ## Start one real Gitea and run the forge contract and end-to-end suites against it.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS_DIR)" go run ./hack/gitea -- \
		go test -v -count=1 $(GO_TEST_FLAGS) -run '^(TestContract|TestKinds)$$' ./internal/forge/ ./test/e2e/

.PHONY: test-gitea-all
test-gitea-all: envtest ## Run the contract and end-to-end suites against each Gitea release of GITEA_VERSIONS (each built once).
	@set -e; for v in $(GITEA_VERSIONS); do \
		echo "== Gitea $$v"; \
		$(MAKE) --no-print-directory test-gitea GITEA_VERSION=$$v \
			GITEA_DIR=$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/forge-operator/gitea/$$v; \
	done

.PHONY: bench
bench: envtest ## Run the benchmarks and print their figures (never asserted); about an hour (W1 10 minutes, W2 50: at a 10 minute interval, then at 30 s, then its receiver variant; W3 10: one manager, then two shards), W1_SIZES=small W2_SIZES=small W3_SIZES=small only their small variants.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS_DIR)" go test -run '^$$' -bench . -benchmem -benchtime=$(or $(BENCHTIME),1s) -timeout 180m ./test/bench/ ./controllers/ ./internal/...

##@ Demo

.PHONY: demo
demo: envtest ## Run the operator on a local control plane against the fake forge, apply config/samples, show drift corrected (DEMO_ONCE=1 exits after).
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS_DIR)" go run ./hack/demo $(if $(filter 1,$(DEMO_ONCE)),--once,)

##@ Build

.PHONY: build
build: ## Build the manager binary into bin/manager.
	go build -o bin/manager .

# `make run` passes --kubeconfig only for a single file: controller-runtime
# reads KUBECONFIG itself, including a colon-separated list of files.
RUN_KUBECONFIG_FLAG = $(if $(KUBECONFIG),$(if $(findstring :,$(KUBECONFIG)),,--kubeconfig=$(KUBECONFIG)))
RUN_ARGS ?=
# Outside a cluster the manager has no namespace of its own: its secret digest
# key Secret goes to this one unless RUN_ARGS names another.
RUN_SECRET_DIGEST_KEY ?= default/forge-operator-secret-digest-key

.PHONY: run
run: ## Run the manager from source against the cluster of KUBECONFIG (or ~/.kube/config); RUN_ARGS adds flags.
	go run . $(RUN_KUBECONFIG_FLAG) $(RUN_ARGS) $(if $(findstring --secret-digest-key,$(RUN_ARGS)),,--secret-digest-key=$(RUN_SECRET_DIGEST_KEY))

CONTAINER_TOOL ?= docker

.PHONY: docker-build
docker-build: ## Build the manager image IMG with CONTAINER_TOOL (docker or podman).
	$(CONTAINER_TOOL) build -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push the manager image IMG.
	$(CONTAINER_TOOL) push $(IMG)

##@ Deployment

# kubectl from PATH: these targets act on the cluster of the current context.
KUBECTL ?= kubectl
# The overlay `make deploy` writes: config/default with the image set to IMG,
# so that the checked-in kustomizations stay untouched.
DEPLOY_DIR := bin/deploy

.PHONY: install
install: ## Install the CRDs into the cluster (server-side apply).
	$(KUBECTL) apply --server-side -k config/crd

.PHONY: uninstall
uninstall: ## Remove the CRDs; refuses while forge resources exist, as deleting the CRDs would delete them.
	@left=$$( { $(KUBECTL) get forge --all-namespaces -o name 2>/dev/null || true; } | wc -l); \
	if [ "$$left" -ne 0 ]; then \
		echo "uninstall: $$left forge.forgeops.dev resources remain (kubectl get forge -A)." >&2; \
		echo "Delete them first while the manager runs, so that each deletionPolicy is applied, or they hang on their finalizers." >&2; \
		exit 1; \
	fi
	$(KUBECTL) delete -k config/crd --ignore-not-found

.PHONY: deploy-dir
deploy-dir: ## Write bin/deploy/kustomization.yaml: config/default with the manager image set to IMG.
	@mkdir -p $(DEPLOY_DIR)
	@img='$(IMG)'; ref="$${img%%@*}"; digest=""; \
	if [ "$$ref" != "$$img" ]; then digest="$${img#*@}"; fi; \
	name="$$ref"; tag=""; last="$${ref##*/}"; \
	if [ "$${last%:*}" != "$$last" ]; then name="$${ref%:*}"; tag="$${ref##*:}"; fi; \
	{ \
		echo "# Generated by make deploy-dir (IMG=$$img); do not edit."; \
		echo "apiVersion: kustomize.config.k8s.io/v1beta1"; \
		echo "kind: Kustomization"; \
		echo "resources:"; \
		echo "  - ../../config/default"; \
		echo "images:"; \
		echo "  - name: forge-operator"; \
		echo "    newName: \"$$name\""; \
		if [ -n "$$tag" ]; then echo "    newTag: \"$$tag\""; fi; \
		if [ -n "$$digest" ]; then echo "    digest: \"$$digest\""; fi; \
	} > $(DEPLOY_DIR)/kustomization.yaml

.PHONY: deploy
deploy: deploy-dir ## Deploy CRDs, RBAC and the manager running image IMG into namespace forge-operator-system.
	$(KUBECTL) apply --server-side -k $(DEPLOY_DIR)

# The CRDs stay: deleting them deletes every forge resource, and a manager
# still running at that moment would delete their objects on the forge.
.PHONY: undeploy
undeploy: ## Remove the manager, its RBAC and namespace; keep the CRDs and resources (then `make uninstall`).
	$(KUBECTL) delete -k config/default -l 'app.kubernetes.io/component!=crd' --ignore-not-found

##@ Help

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-12s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)
