"""The heartbeats of the background processes, which /readyz reads."""

from django.db import models


class ProcessHeartbeat(models.Model):
    """The last sign of life of one Celery worker (by its host name) or of the beat."""

    class Kind(models.TextChoices):
        WORKER = "worker", "worker"
        BEAT = "beat", "beat"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    name = models.CharField(max_length=200)
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "name"], name="process_heartbeat_unique")
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.name} at {self.seen_at:%Y-%m-%d %H:%M:%S}"
