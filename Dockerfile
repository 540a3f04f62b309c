# Build a static manager binary, then ship it alone on a distroless, non-root base.
# The builder runs on the build machine's platform and cross-compiles for the
# target one, so that multi-platform builds (docker buildx --platform) need no
# emulation.
#
# Both base images are pinned by the digest of their multi-platform index,
# with the tag it was resolved from beside it: a rebuild gets the same bytes
# whatever the tag points at by then. Dependabot (.github/dependabot.yml)
# proposes newer tags and digests. To refresh by hand, inspect the tag to pin
# and write its index digest (the "Digest:" line at the top) with it:
#   docker buildx imagetools inspect golang:1.26.9
#   docker buildx imagetools inspect gcr.io/distroless/static:nonroot
# (or `crane digest <image>`). Never pin one platform's manifest digest (the
# ones listed under "Manifests:"): every build would get that platform's
# image whatever --platform asks for. test/deploy checks that each FROM is
# image:tag@sha256:<digest>.
FROM --platform=$BUILDPLATFORM golang:1.26.9@sha256:f1f0bcc2c524a3ced375fcb4d1ecb7aa371aa7070e112599aaca45cc02d0101b AS builder
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
COPY cmd/ cmd/
COPY controllers/ controllers/
COPY internal/ internal/
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -ldflags="-s -w" -o manager .

FROM gcr.io/distroless/static:nonroot@sha256:e2e927ec666bae08560abb3c55d0659eceabb657f56b6782ab500a9fc7f555e3
LABEL org.opencontainers.image.title="forge-operator" \
      org.opencontainers.image.description="Keeps Gitea and Forgejo organizations, webhooks, labels, projects and runners equal to Kubernetes resources" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532
ENTRYPOINT ["/manager"]
