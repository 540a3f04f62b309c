# Build a static manager binary, then ship it alone on a distroless, non-root base.
# The builder runs on the build machine's platform and cross-compiles for the
# target one, so that multi-platform builds (docker buildx --platform) need no
# emulation.
FROM --platform=$BUILDPLATFORM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
WORKDIR /workspace
# Dependencies first, so that source changes reuse the module cache layer.
COPY go.mod go.sum ./
RUN go mod download
# Only what the manager is built from; test/deploy checks that these cover
# every package main imports.
COPY *.go ./
COPY api/ api/
COPY controllers/ controllers/
COPY internal/ internal/
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -ldflags="-s -w" -o manager .

FROM gcr.io/distroless/static:nonroot
LABEL org.opencontainers.image.title="forge-operator" \
      org.opencontainers.image.description="Keeps Gitea and Forgejo organizations, webhooks, labels, projects and runners equal to Kubernetes resources" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532
ENTRYPOINT ["/manager"]
