"""A CRM lead for a studio service: the lead card is read with the lead type's catalogue
(intents and products with their words in Russian, Ukrainian and English), which an
administrator edits; the studio's is the default, the first seed's car dealer a second type
that CRM_LEAD_TYPE selects. Natural mails: a request with a product, a quote request, a
complaint, a job application and spam, in each language."""

from __future__ import annotations

import json
import re

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse
from django.utils import timezone

from crm.card import lead_card_model, lead_prompt
from crm.catalogue import builtin_catalogue
from crm.models import InboundMessage, Lead, LeadIntent, LeadProduct, LeadType
from crm.selectors import lead_catalogue
from crm.services import lead_briefing_title, lead_start_briefing, lead_type_touch
from dlq.models import DeadLetter
from llmkit.parse import parse

pytestmark = pytest.mark.django_db

Status = InboundMessage.Status

MAILS = {
    ("ru", "request"): (
        "Добрый день! Я Олег Кравцов, директор по маркетингу компании «Полярная Ягода». "
        "Нужен ролик к запуску морса «Клюквенный Север». Бюджет примерно 2 млн рублей, сдать "
        "к 15 апреля. Мой телефон +7 (905) 111-22-33.",
        "new_project",
        "video",
    ),
    ("uk", "request"): (
        "Доброго дня! Мене звати Ірина, я з кав'ярні «Зерно». Хочемо зняти серію коротких "
        "анімаційних роликів для Instagram про нашу каву. Виділили 120 тисяч гривень. "
        "Зателефонуйте, будь ласка: +380 67 123 45 67.",
        "new_project",
        "animation",
    ),
    ("en", "request"): (
        "Hello, this is Priya Nair from Brightwave Ltd. We need a 60-second explainer for our "
        "budgeting app, ideally live by the end of March. You can reach me at "
        "priya.nair@brightwave.co.uk.",
        "new_project",
        "animation",
    ),
    ("ru", "quote"): (
        "Здравствуйте! Подскажите, сколько будет стоить съёмка нашей конференции 12 мая: "
        "один день, две камеры, нужен монтаж итогового ролика. Пришлите, пожалуйста, смету "
        "на anna.k@techforum.ru",
        "quote_request",
        "event_filming",
    ),
    ("uk", "quote"): (
        "Вітаю! Нам потрібна предметна фотозйомка 40 позицій для каталогу. Скільки це "
        "коштуватиме і які терміни? Олена, +380 50 765 43 21",
        "quote_request",
        "photo",
    ),
    ("en", "quote"): (
        "Hi there, could you send us a quote for recording a 6-episode video podcast? We have "
        "our own host, just need the studio, cameras and editing. Thanks, Tom",
        "quote_request",
        "podcast",
    ),
    ("ru", "complaint"): (
        "Добрый день. Мы заказали у вас рекламный ролик ещё в феврале, вы сорвали все сроки, "
        "а в финальной версии опечатка в названии бренда. Мы крайне недовольны и требуем "
        "вернуть деньги за монтаж. Сергей, +7 916 222-33-44",
        "complaint",
        "video",
    ),
    ("uk", "complaint"): (
        "Доброго дня. Фото з нашого корпоративу ми досі не отримали, хоча минув місяць. "
        "Це неприпустимо, я дуже незадоволена. Марина, +380 63 111 22 33",
        "complaint",
        "event_filming",
    ),
    ("en", "complaint"): (
        "Hello, I'm writing to complain about the wedding film you delivered last week: the "
        "sound is out of sync for half of the ceremony. This is unacceptable and I'd like a "
        "refund or a fixed version by Friday. Kate Morgan, +44 7700 900123",
        "complaint",
        "event_filming",
    ),
    ("ru", "job"): (
        "Здравствуйте! Меня зовут Дмитрий, я моушн-дизайнер с опытом 5 лет (After Effects, "
        "Cinema 4D). Хотел бы работать в вашей команде. Резюме и ссылка на шоурил во "
        "вложении. +7 999 123-45-67",
        "job_application",
        None,
    ),
    ("uk", "job"): (
        "Добрий день! Я оператор і монтажер, шукаю роботу в продакшн-студії. Чи є у вас "
        "вакансії? Портфоліо: vimeo.com/andriy. Андрій",
        "job_application",
        None,
    ),
    ("en", "job"): (
        "Dear team, I'm a junior video editor and I'd love to join your team. I'm applying "
        "for the editor position you posted; my CV and showreel are attached. Best, Sam Lee",
        "job_application",
        None,
    ),
    ("ru", "spam"): (
        "Добрый день! Предлагаем услуги SEO-продвижения вашего сайта в ТОП-10 Яндекса за 30 "
        "дней. Гарантия результата, первый месяц бесплатно. Ответьте на это письмо.",
        "spam",
        None,
    ),
    ("uk", "spam"): (
        "Вітаємо! Пропонуємо послуги з просування сайту та e-mail розсилки по базі 500 000 "
        "клієнтів. Знижка 50% лише сьогодні!",
        "spam",
        None,
    ),
    ("en", "spam"): (
        "Hi, I noticed your website isn't ranking on Google. We offer SEO and link building "
        "packages with guaranteed backlinks from high-authority sites. Reply YES to get started.",
        "spam",
        None,
    ),
}


@pytest.mark.parametrize(("language", "kind"), list(MAILS))
def test_the_rules_agent_reads_a_studio_mail_for_why_and_what(receive, language, kind):
    text, intent, product = MAILS[language, kind]
    message = receive(text, channel=InboundMessage.Channel.EMAIL, sender="client@example.org")
    assert message.status == Status.LEAD
    lead = message.lead
    assert (lead.client_intent, lead.product_class or None) == (intent, product)
    assert lead.lead_type == "studio"
    assert message.extracted["lead_type"] == "studio"


def test_a_studio_request_keeps_its_budget_phone_and_summary(receive):
    lead = receive(MAILS["ru", "request"][0]).lead
    assert (lead.budget_amount, lead.phones) == (2_000_000, ["+79051112233"])
    assert lead.summary.startswith("Нужен ролик к запуску морса")


def test_a_lemma_finds_a_word_in_any_of_its_forms():
    pytest.importorskip("pymorphy3")
    studio = builtin_catalogue("studio")
    # "фотосессия" and "подкаст" are written once, in the dictionary form.
    assert studio.read("Хотим заказать фотосессию для команды") == ("new_project", "photo")
    assert studio.read("Скільки коштує запис подкастів?") == ("quote_request", "podcast")


def test_the_dealer_catalogue_is_a_second_selectable_type(receive, settings):
    text = "Хочу купить кроссовер, перезвоните: +7 916 123-45-67"
    studio = receive(text)
    assert studio.lead.product_class == ""  # a crossover is nothing the studio sells
    settings.CRM_LEAD_TYPE = "dealer"
    dealer = receive("Интересует седан в кредит, мой номер +7 916 000-11-22")
    assert (dealer.lead.client_intent, dealer.lead.product_class) == ("purchase", "sedan")
    assert dealer.lead.lead_type == "dealer"


def test_an_unknown_lead_type_is_a_configuration_error(settings):
    settings.CRM_LEAD_TYPE = "bakery"
    with pytest.raises(ImproperlyConfigured, match="bakery"):
        lead_catalogue()


def test_the_shipped_catalogue_reads_when_the_database_has_none():
    seeded = lead_catalogue("studio")
    LeadType.objects.all().delete()
    assert lead_catalogue("studio") == seeded == builtin_catalogue("studio")


def test_an_administrators_change_to_the_catalogue_is_read_at_once(receive):
    text = "Нужна аэросъёмка нашего завода с дрона, +7 916 555-44-33"
    assert receive(text).lead.product_class == ""
    studio = LeadType.objects.get(code="studio")
    LeadProduct.objects.create(
        lead_type=studio, code="aerial", label="Aerial filming", position=0,
        words_ru="аэросъемк*\nдрон", words_en="drone*\naerial",
    )  # fmt: skip
    lead_type_touch(lead_type=studio)
    again = receive(text + " Повторно.")
    assert again.lead.product_class == "aerial"
    schema = json.dumps(lead_card_model(lead_catalogue()).model_json_schema())
    assert '"aerial"' in schema


def test_the_lead_schema_takes_the_catalogues_codes_and_reads_a_label_as_its_code():
    studio = builtin_catalogue("studio")
    schema = json.dumps(lead_card_model(studio).model_json_schema(), ensure_ascii=False)
    for code in ("new_project", "quote_request", "job_application", "spam", "video", "podcast"):
        assert f'"{code}"' in schema
    assert '"purchase"' not in schema
    assert '"crossover"' not in schema
    answer = {"client_intent": "Quote request", "product_class": "Video production"}
    outcome = parse(json.dumps(answer), lead_card_model(studio))
    assert outcome.ok
    assert (outcome.value.client_intent, outcome.value.product_class) == (
        "quote_request",
        "video",
    )
    assert not parse(json.dumps({"client_intent": "purchase"}), lead_card_model(studio)).ok


def test_the_prompt_lists_the_studio_catalogue():
    prompt = lead_prompt(
        subject="", text="Нужен ролик", sender="a@example.org", language="ru",
        catalogue=builtin_catalogue("studio"),
    )  # fmt: skip
    system = "\n".join(m.content for m in prompt.messages() if m.role == "system")
    assert "a video and content production studio" in system
    assert "- job_application: someone asking for a job" in system
    assert "- event_filming: filming a conference" in system
    assert "car" not in re.sub(r"card", "", system)


def test_a_models_dealer_answer_for_a_studio_lead_is_a_dead_letter(receive, scripted_model):
    dealer_card = {"client_intent": "purchase", "product_class": "crossover", "summary": "x"}
    scripted_model.answers(dealer_card, dealer_card)
    message = receive(MAILS["en", "quote"][0])
    assert message.status == Status.DEAD_LETTERED
    letter = DeadLetter.objects.get(source_id=str(message.pk), source_kind="inbound_message")
    assert {e["path"] for e in letter.errors} >= {"client_intent", "product_class"}
    system = scripted_model.requests[0]["messages"][0]["content"]
    assert "- quote_request:" in system


def test_a_briefing_from_a_studio_lead_is_not_titled_by_its_product_label(receive, manager):
    # The client reads the title on their page: the catalogue's English label is the back
    # office's word (issue 27); tests/crm/test_lead_briefing_title.py has the title's rules.
    lead = receive(MAILS["ru", "request"][0]).lead
    project = lead_start_briefing(lead=lead, user=manager)
    assert project.title == lead_briefing_title(lead, language="ru")
    assert "Video production" not in project.title


# --- the back office -------------------------------------------------------------------------


def test_the_lead_list_shows_and_filters_the_studios_intents_and_products(manager_client, receive):
    quote = receive(MAILS["uk", "quote"][0]).lead
    complaint = receive(MAILS["en", "complaint"][0]).lead
    html = manager_client.get(reverse("crm:leads")).content.decode()
    assert '<option value="job_application">Job application</option>' in html
    assert '<option value="animation">Animation</option>' in html
    assert ">Quote request</span>" in html
    assert "<td>Photo shoot</td>" in html
    listed = manager_client.get(reverse("crm:leads"), {"product": "photo"}).content.decode()
    assert f'data-lead="{quote.pk}"' in listed
    assert f'data-lead="{complaint.pk}"' not in listed
    fragment = manager_client.get(
        reverse("crm:leads"), {"intent": "complaint"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert re.findall(r'data-lead="(\d+)"', fragment) == [str(complaint.pk)]
    detail = manager_client.get(reverse("crm:lead_detail", args=[quote.pk])).content.decode()
    assert "Quote request" in detail
    assert "Photo shoot" in detail


def test_a_lead_of_another_type_keeps_its_own_labels(manager_client, settings):
    settings.CRM_LEAD_TYPE = "dealer"
    lead_catalogue()  # the dealer's words are read
    settings.CRM_LEAD_TYPE = "studio"
    lead = Lead.objects.create(
        channel="form", client_intent="service", product_class="SUV", lead_type="dealer",
        last_message_at=timezone.now(),
    )  # fmt: skip
    html = manager_client.get(reverse("crm:lead_detail", args=[lead.pk])).content.decode()
    assert "Service" in html
    assert "SUV" in html


def test_the_human_queue_form_offers_the_studios_products(manager_client, receive):
    message = receive("Добрый день!")
    html = manager_client.get(reverse("crm:human_queue")).content.decode()
    form = html[html.index(f'id="lead-form-{message.pk}"') :]
    assert 'value="question" selected' in form
    assert '<option value="podcast">Podcast</option>' in form


# --- the admin -------------------------------------------------------------------------------


@pytest.fixture
def admin_client_logged(client, admin_user):
    client.force_login(admin_user)
    return client


def test_the_lead_type_admin_lists_and_opens_the_seeded_catalogues(admin_client_logged):
    listing = admin_client_logged.get(reverse("admin:crm_leadtype_changelist"))
    assert listing.status_code == 200
    assert "Production studio" in listing.content.decode()
    assert "Car dealer" in listing.content.decode()
    studio = LeadType.objects.get(code="studio")
    page = admin_client_logged.get(reverse("admin:crm_leadtype_change", args=[studio.pk]))
    assert page.status_code == 200
    assert "анимаци*" in page.content.decode()


REPORT = "Нужен фотоотчёт с открытия магазина"


def _admin_form(lead_type: LeadType) -> dict[str, str]:
    """The change form as the admin page posts it, unchanged."""
    data = {"code": lead_type.code, "name": lead_type.name, "business": lead_type.business}
    for prefix, items in (
        ("intents", list(lead_type.intents.all())),
        ("products", list(lead_type.products.all())),
    ):
        data |= {
            f"{prefix}-TOTAL_FORMS": str(len(items)), f"{prefix}-INITIAL_FORMS": str(len(items)),
            f"{prefix}-MIN_NUM_FORMS": "0", f"{prefix}-MAX_NUM_FORMS": "1000",
        }  # fmt: skip
        for index, item in enumerate(items):
            fields = ["id", "code", "label", "description", "words_ru", "words_uk", "words_en",
                      "position"]  # fmt: skip
            for name in fields:
                data[f"{prefix}-{index}-{name}"] = str(getattr(item, name))
            data[f"{prefix}-{index}-lead_type"] = str(lead_type.pk)
            for flag in ("fallback", "product_only", "reads_product"):
                if getattr(item, flag, False):
                    data[f"{prefix}-{index}-{flag}"] = "on"
    return data


def test_an_admin_edits_a_products_words_and_the_next_reading_uses_them(
    admin_client_logged, receive
):
    studio = LeadType.objects.get(code="studio")
    data = _admin_form(studio)
    index = next(i for i, p in enumerate(studio.products.all()) if p.code == "photo")
    data[f"products-{index}-words_ru"] += "\nфотоотчет"
    url = reverse("admin:crm_leadtype_change", args=[studio.pk])
    response = admin_client_logged.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert builtin_catalogue().read(REPORT)[1] is None  # not a word of the shipped catalogue
    assert receive(REPORT).lead.product_class == "photo"


def test_the_admin_refuses_a_lead_type_without_exactly_one_fallback(admin_client_logged):
    studio = LeadType.objects.get(code="studio")
    data = _admin_form(studio)
    fallback = next(i for i, t in enumerate(studio.intents.all()) if t.fallback)
    del data[f"intents-{fallback}-fallback"]
    response = admin_client_logged.post(
        reverse("admin:crm_leadtype_change", args=[studio.pk]), data
    )
    assert response.status_code == 200
    assert "exactly one intent as the fallback" in response.content.decode()
    assert LeadIntent.objects.filter(lead_type=studio, fallback=True).count() == 1


def test_a_product_edited_on_its_own_admin_page_is_read_at_once(admin_client_logged, receive):
    photo = LeadProduct.objects.get(lead_type__code="studio", code="photo")
    lead_catalogue()  # a copy of the catalogue as it was
    data = {
        "lead_type": photo.lead_type_id, "code": photo.code, "label": photo.label,
        "description": photo.description, "words_ru": photo.words_ru + "\nфотоотчет",
        "words_uk": photo.words_uk, "words_en": photo.words_en, "position": photo.position,
    }  # fmt: skip
    url = reverse("admin:crm_leadproduct_change", args=[photo.pk])
    assert admin_client_logged.post(url, data).status_code == 302
    assert builtin_catalogue().read(REPORT)[1] is None  # not a word of the shipped catalogue
    assert receive(REPORT).lead.product_class == "photo"
