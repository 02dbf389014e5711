# syntax=docker/dockerfile:1
# alertd as a container: a static binary (CGO off) on a distroless base,
# running as a non-root user, its data on a volume, healthy while GET /health
# answers 200. Build: make image (or docker build --build-arg VERSION=...).

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
# Modules first: a source change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=devel
ARG COMMIT=unknown
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/alertd ./cmd/alertd \
    && mkdir -p /out/data

# static-debian12:nonroot has no shell and no package manager; uid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/alertd /usr/local/bin/alertd
COPY --from=build --chown=65532:65532 /out/data /data
ENV ALERTD_ADDR=0.0.0.0:8080 \
    ALERTD_DATA_DIR=/data
EXPOSE 8080
VOLUME ["/data"]
USER 65532:65532
# The binary asks its own /health: the image has no curl or wget.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/alertd", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/alertd"]
CMD ["serve"]
