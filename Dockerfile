# `sitar serve` on CPU: the package, the `serve` extra and the default checkpoint (installed as
# package data), run as an unprivileged user. Build and run:
#   docker build -t sitar-serve .
#   docker run --rm -p 127.0.0.1:8000:8000 sitar-serve
# Inside the container the server binds 0.0.0.0 (the container's own interface); publish the port
# on the host's loopback as above unless it should be reachable from other machines.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1

WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY sitar ./sitar
COPY checkpoints ./checkpoints
RUN pip install ".[serve]" \
    && rm -rf /src \
    && useradd --create-home --uid 10001 --shell /usr/sbin/nologin sitar

USER sitar
WORKDIR /home/sitar
EXPOSE 8000

# /readyz turns 200 once the model is loaded and warm.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
    CMD python -c "import urllib.request, sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2).status != 200)"

# Add --api-key-file /run/secrets/sitar_api_key (mounted secret) to require a bearer token, and
# --workers N for N model sessions. SIGTERM (docker stop) drains in-flight requests first.
ENTRYPOINT ["sitar", "serve", "--host", "0.0.0.0", "--port", "8000"]
CMD []
