# The platform's image for compose.yaml: the code and its dependencies (not the local-model
# extra); every process of the stack is `scripts/serve <role>` in this image.
FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VENV=/opt/venv VAR_DIR=/var/lib/briefing
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-client \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . /app
RUN python -m venv /opt/venv && /opt/venv/bin/pip install --no-cache-dir . \
    && useradd --system --home /var/lib/briefing briefing \
    && mkdir -p /var/lib/briefing && chown briefing /var/lib/briefing
USER briefing
EXPOSE 8000
CMD ["scripts/serve", "web"]
