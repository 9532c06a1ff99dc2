"""Client memory on the briefing page: the producer sees the facts the snapshot holds for the
briefing's client and corrects or removes one in place (htmx) or by a plain POST; each change
is a `memory_corrected` event with who, the old line and the new one, is kept by the daily
rebuild and reaches the prompt; only those who may act on the briefing may change it."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from briefing.models import BriefingEvent, Project, StageRun
from briefing.services import project_create
from studio.memory import company_key, contact_key, snapshot_for_profile, snapshots_rebuild
from studio.models import ClientSnapshot, MemoryItem
from tests.conftest import user_in_group

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
EARLIER = {
    "intro": {"clientName": "Олег Кравцов", "company": "Полярная Ягода",
              "contact": "oleg@polar-berry.ru"},
    "vision": {"productName": "Клюквенный Север", "tone": "тёплый, семейный"},
    "service": {"contentType": "Рекламный ролик."},
}  # fmt: skip


@pytest.fixture
def returning(project):
    """The page's briefing is for a client memory knows (an earlier completed briefing)."""
    earlier = project_create(title="Весенний ролик", language="ru")
    when = datetime.datetime(2026, 5, 3, tzinfo=datetime.UTC)
    Project.objects.filter(pk=earlier.pk).update(
        status=Project.Status.COMPLETED, completed_at=when, profile=EARLIER
    )
    snapshots_rebuild()
    intro = StageRun.objects.get(project=project, key="intro")
    intro.fields = {**intro.fields, "company": "Полярная Ягода", "contact": "oleg@polar-berry.ru"}
    intro.save()
    Project.objects.filter(pk=project.pk).update(
        profile={"intro": {"company": "Полярная Ягода", "contact": "oleg@polar-berry.ru"}}
    )
    project.refresh_from_db()
    return project


@pytest.fixture
def producer_client(client, producer):
    client.force_login(producer)
    return client


def act(client, project, action, htmx=True, **data):
    return client.post(
        reverse("project_action", args=[project.pk]), {"action": action, **data},
        **(HTMX if htmx else {}),
    )  # fmt: skip


def test_the_page_lists_what_memory_holds_with_its_actions(producer_client, returning):
    page = producer_client.get(reverse("project_detail", args=[returning.pk])).content.decode()
    section = page[page.index('<section id="memory"') :]
    section = section[: section.index("</section>")]
    assert "Client memory" in section
    assert 'value="Клюквенный Север"' in section  # a product, editable in place
    assert "2026-05 «Весенний ролик», Рекламный ролик" in section  # an earlier brief
    assert section.count('value="memory_remove"') == section.count("<tr>")
    assert "style=" not in section
    assert "<script" not in section


def test_a_project_for_an_unknown_client_says_memory_holds_nothing(producer_client, project):
    page = producer_client.get(reverse("project_detail", args=[project.pk])).content.decode()
    assert "Memory holds nothing about this client." in page


def test_a_correction_is_swapped_in_audited_kept_and_reaches_the_prompt(
    producer, producer_client, returning
):
    response = act(producer_client, returning, "memory_correct", fact="products",
                   old="Клюквенный Север", value="Клюквенный Север 2.0")  # fmt: skip
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="memory"')
    assert 'value="Клюквенный Север 2.0"' in html
    assert 'hx-swap-oob="true"' in html  # the status (with the activity) follows

    event = returning.events.get(kind=BriefingEvent.Kind.MEMORY_CORRECTED)
    assert event.actor == producer
    assert event.data["fact"] == "products"
    assert (event.data["old"], event.data["new"]) == ("Клюквенный Север", "Клюквенный Север 2.0")
    # Both of the client's snapshots (by contact and by company) say it, and the rebuild keeps it.
    for key in (contact_key("oleg@polar-berry.ru"), company_key("Полярная Ягода")):
        assert "- products: Клюквенный Север 2.0" in ClientSnapshot.objects.get(key=key).text
    assert sorted(event.data["keys"]) == sorted(
        [contact_key("oleg@polar-berry.ru"), company_key("Полярная Ягода")]
    )
    snapshots_rebuild()
    assert "- products: Клюквенный Север 2.0" in snapshot_for_profile(returning.profile)
    page = producer_client.get(reverse("project_detail", args=[returning.pk])).content.decode()
    assert "client memory: Products “Клюквенный Север” corrected to “Клюквенный Север 2.0”" in page


def test_removing_a_fact_takes_it_out_of_the_snapshot_and_the_retrieval_items(
    producer_client, returning
):
    old = "2026-05 «Весенний ролик», Рекламный ролик"
    response = act(producer_client, returning, "memory_remove", fact="briefs", old=old,
                   htmx=False)  # fmt: skip
    assert response.status_code == 302
    assert response["Location"].endswith("#memory")
    assert "Весенний ролик" not in snapshot_for_profile(returning.profile)
    assert not MemoryItem.objects.filter(text__contains="Весенний ролик").exists()
    event = returning.events.get(kind=BriefingEvent.Kind.MEMORY_CORRECTED)
    assert (event.data["old"], event.data["new"]) == (old, "")


def test_a_stale_or_empty_correction_is_refused_in_place(producer_client, returning):
    response = act(producer_client, returning, "memory_correct", fact="products",
                   old="Ничего такого", value="X")  # fmt: skip
    assert response.status_code == 400
    assert "memory no longer holds that fact" in response.content.decode()
    response = act(producer_client, returning, "memory_correct", fact="products",
                   old="Клюквенный Север", value="   ")  # fmt: skip
    assert response.status_code == 400
    assert "Write the corrected fact, or remove it." in response.content.decode()
    response = act(producer_client, returning, "memory_correct", fact="briefs",
                   old="2026-05 «Весенний ролик», Рекламный ролик", value="другое")  # fmt: skip
    assert response.status_code == 400
    assert not returning.events.filter(kind=BriefingEvent.Kind.MEMORY_CORRECTED).exists()
    assert "- products: Клюквенный Север" in snapshot_for_profile(returning.profile)


def test_only_those_who_may_act_on_the_briefing_change_its_clients_memory(client, returning):
    outsider = user_in_group("outsider", "Producers")
    client.force_login(outsider)
    assert client.get(reverse("project_detail", args=[returning.pk])).status_code == 404
    response = act(client, returning, "memory_remove", fact="products", old="Клюквенный Север")
    assert response.status_code == 404
    assert "- products: Клюквенный Север" in snapshot_for_profile(returning.profile)
    assert not BriefingEvent.objects.filter(kind=BriefingEvent.Kind.MEMORY_CORRECTED).exists()
