"""The back office in Russian in a real browser: a producer whose browser asks for Russian
sees Russian pages, stage titles and field labels (not the client's language, not camelCase
keys), and the navigation's switcher turns the pages English; on a phone the pages fit the
screen's width."""

from __future__ import annotations

import pytest

from briefing.models import StaffProfile
from briefing.services import lock_set, project_create, turn_receive

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def russian_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ru-RU")
    yield context.new_page()
    context.close()


def test_the_russian_back_office_with_russian_labels(live_server, russian_page, producer):
    page = russian_page
    # The client writes Ukrainian: the producer's stage titles must stay Russian.
    project = project_create(title="Кав'ярня", language="uk", producer=producer)
    turn_receive(project=project, text="Добрий день! Хочемо відео для нашої кав'ярні")
    lock_set(project=project, key="product_name", value="Зерно", user=producer)

    page.goto(f"{live_server.url}/login/")
    assert page.locator("h1").inner_text() == "Вход"
    page.fill("input[name=username]", "prod")
    page.fill("input[name=password]", "pw")
    page.click("form.login button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    assert page.locator("html").get_attribute("lang") == "ru"
    assert page.locator("main h1").inner_text() == "Брифинги"
    assert "Новый брифинг" in page.locator("header.top nav").inner_text()

    page.goto(f"{live_server.url}/briefings/{project.pk}/")
    assert page.locator("#stages h2").inner_text() == "Этапы и поля"
    assert page.locator("#status .timeline a").first.inner_text() == "Знакомство"
    assert "Знайомство" not in page.content()  # the client's Ukrainian title
    vision = page.locator("#stage-vision")
    assert vision.locator("h3").inner_text() == "2. Идея проекта"
    labels = [label.rstrip(" *") for label in vision.locator("th label").all_inner_texts()]
    assert "Основная идея" in labels
    assert not [label for label in labels if "coreIdea" in label]
    assert page.locator("#locks th[scope=row]").first.inner_text() == "Продукт"
    status = page.locator("#status .status-lines").inner_text()
    assert "этап 1 из 5 (Знакомство) открыт: не хватает:" in status
    assert "clientName" not in status

    # The switcher in the navigation turns the back office English (a cookie and the
    # producer's profile) as soon as a language is picked: no extra button with JavaScript.
    assert page.locator("form.language-switch button").is_hidden()
    with page.expect_navigation():
        page.select_option("#language-switch", "en")
    page.wait_for_url(f"{live_server.url}/briefings/{project.pk}/")
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("#stages h2").inner_text() == "Stages and fields"
    assert page.locator("#status .timeline a").first.inner_text() == "Introduction"
    assert page.locator("#locks th[scope=row]").first.inner_text() == "Product"
    assert StaffProfile.objects.get(user=producer).language == "en"


PHONE = {"width": 390, "height": 844}
FITS_THE_SCREEN = "() => document.scrollingElement.scrollWidth <= window.innerWidth"


def test_a_phone_shows_the_dashboard_and_a_briefing_without_sideways_scrolling(
    live_server, browser, manager
):
    projects = [
        project_create(
            title=f"Рекламная кампания весеннего запуска морса «Клюквенный Север» №{n}",
            language="ru",
            producer=manager,
        )
        for n in range(12)
    ]
    turn_receive(project=projects[0], text="Здравствуйте! " + "очень-длинное-слово-" * 20)
    context = browser.new_context(viewport=PHONE, locale="ru-RU", is_mobile=True)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", "boss")
        page.fill("input[name=password]", "pw")
        page.click("form.login button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        page.locator("main h1").wait_for()
        assert page.evaluate(FITS_THE_SCREEN), page.evaluate(
            "() => document.scrollingElement.scrollWidth"
        )
        page.goto(f"{live_server.url}/briefings/{projects[0].pk}/")
        page.locator("#transcript").wait_for()
        assert page.evaluate(FITS_THE_SCREEN), page.evaluate(
            "() => document.scrollingElement.scrollWidth"
        )
    finally:
        context.close()
