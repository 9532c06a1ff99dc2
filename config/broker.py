"""kombu's Redis transport with one guard, selected by settings when the broker is Redis.

When Redis goes away under a worker, Celery 5.7's consumer collects the broken connection
(kombu then forgets the transport's connection info) and closes it once more; closing the
channel again restores its unacknowledged messages, which needs that connection info, and
the worker dies with "Unrecoverable error: AttributeError(... 'hostname')" and is not
restarted (issue 25; tests/test_broker_outage.py). The guard: with no connection info left,
the restore is skipped. Nothing is lost by that: the messages stay in Redis's unacked index,
which any worker restores after the visibility timeout (CELERY_VISIBILITY_TIMEOUT_S), and
the turns they carried are queued again by the sweep within a minute.
"""

from __future__ import annotations

import logging

from kombu.transport import redis

logger = logging.getLogger(__name__)


class QoS(redis.QoS):
    def restore_unacked(self, client=None) -> None:
        if client is None and self.channel.connection.client is None:
            if self._delivered:
                logger.warning(
                    "The broker connection is gone: %d unacknowledged message(s) are left to "
                    "Redis's visibility timeout instead of being restored now",
                    len(self._delivered),
                )
            self._delivered.clear()
            return
        super().restore_unacked(client)


class Channel(redis.Channel):
    QoS = QoS


class Transport(redis.Transport):
    Channel = Channel
