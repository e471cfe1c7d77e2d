# The gauntlet image: the hosted-provider build (no embedded model) and git, on a
# slim Debian, run as a user without root. The GitLab template runs it; the
# release workflow builds and pushes it as ghcr.io/gauntlet-review/gauntlet:X.Y.Z.
#
#   docker build --build-arg GAUNTLET_BUILD_COMMIT="$(git rev-parse HEAD)" -t gauntlet .
#   docker run --rm -v "$PWD:/repo" -w /repo -e ANTHROPIC_API_KEY gauntlet gauntlet review
#
# Both bases are pinned by tag; the builder's Debian release is the runtime's, so
# the binary finds the C library it was linked against.

FROM rust:1.95-slim-trixie AS build
WORKDIR /src
COPY . .
# .git stays out of the build context (.dockerignore): the commit `gauntlet
# --version` names comes in as this argument.
ARG GAUNTLET_BUILD_COMMIT=unknown
ENV GAUNTLET_BUILD_COMMIT=${GAUNTLET_BUILD_COMMIT}
RUN cargo build --release --locked --no-default-features -p gauntlet \
    && install -m 0755 target/release/gauntlet /usr/local/bin/gauntlet \
    && gauntlet --version

FROM debian:13-slim
# git: gauntlet reads the change through it; ca-certificates: git over https
# (shared rule sets). Nothing else.
RUN apt-get update \
    && apt-get install -y --no-install-recommends git ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 --user-group gauntlet
COPY --from=build /usr/local/bin/gauntlet /usr/local/bin/gauntlet
USER gauntlet
WORKDIR /home/gauntlet
# No entrypoint: CI systems (GitLab) run their own shell in the image.
CMD ["gauntlet", "--help"]
