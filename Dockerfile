# The kruise-webhook image: built on Debian 12, run on Debian 12 slim with only the runtime
# libraries, as a non-root user, the binary as entrypoint.
#
#   make image                    # docker or podman, whichever is installed; IMAGE=name:tag
#
# The tag make image gives, kruise-webhook:<version>, is the one manifests/ deploys.

FROM debian:12 AS build
WORKDIR /src
# The packages the Makefile needs (scripts/install-deps.sh: the one list) and a compiler.
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev make \
    && scripts/install-deps.sh \
    && rm -rf /var/lib/apt/lists/*
COPY . .
RUN make -j"$(nproc)" build/kruise-webhook \
    && install -D -m 0755 build/kruise-webhook /out/kruise-webhook

FROM debian:12-slim
# What the binary links (make manifests compares this list with its NEEDED entries).
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libmicrohttpd12 libgnutls30 libssl3 libjansson4 libyaml-0-2 libcurl4 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/kruise-webhook /usr/local/bin/kruise-webhook
# The Deployment's runAsUser; no home, no shell needed.
USER 65532:65532
EXPOSE 9876 8000 8080
ENTRYPOINT ["/usr/local/bin/kruise-webhook"]
