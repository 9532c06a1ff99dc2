"""The human queue is read a page at a time, oldest first, by a keyset cursor."""

from __future__ import annotations

import datetime
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from crm.models import InboundMessage
from crm.views import QUEUE_PAGE_SIZE

pytestmark = pytest.mark.django_db

NEXT = re.compile(r'href="([^"]+)" rel="next"')
ITEM = re.compile(r'id="human-message-(\d+)"')


def test_the_human_queue_pages_oldest_first_losing_no_message_at_an_edge(manager_client, receive):
    start = timezone.now() - datetime.timedelta(days=1)
    ids = []
    for index in range(QUEUE_PAGE_SIZE * 2 + 3):
        # Pairs received at the same moment: the id orders them across a page edge.
        moment = start + datetime.timedelta(minutes=index // 2)
        ids.append(receive(f"Добрый день! #{index}", received_at=moment).pk)
    assert InboundMessage.objects.filter(pk__in=ids, status="human").count() == len(ids)

    url, seen, queries = reverse("crm:human_queue"), [], []
    while url:
        with CaptureQueriesContext(connection) as captured:
            html = manager_client.get(url).content.decode()
        queries.append(len(captured.captured_queries))
        assert f"{len(ids)} messages wait for a person" in html
        seen += [int(pk) for pk in ITEM.findall(html)]
        found = NEXT.search(html)
        url = found.group(1).replace("&amp;", "&") if found else ""
    assert seen == ids
    assert len(queries) == 3
    assert queries[1] == queries[2]  # a later page costs what the second does


def test_a_cursor_the_queue_did_not_make_reads_as_the_first_page(manager_client, receive):
    first = receive("Добрый день!")
    html = manager_client.get(reverse("crm:human_queue"), {"after": "x.y"}).content.decode()
    assert ITEM.findall(html) == [str(first.pk)]
