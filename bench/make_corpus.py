"""Generate the corpus of real, noisy SmolLM2 answers the parse-pipeline benchmark runs on.

    python -m bench.make_corpus --n 200 --out bench/corpus/smollm2_answers.jsonl

Each line is one unconstrained answer (no grammar) to a realistic prompt that asks for
JSON in one of the three shapes of `bench.schemas`: the raw text exactly as the model wrote
it, with the prompt (the exact chat messages sent), seed and temperature that produced it.
Answer i uses seed `--first-seed + i`; its scenario follows from i and its prompt style and
temperature from the seed, so a rerun with the same arguments, llama.cpp build and thread
count writes the same file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from llmkit.providers.local import LocalLlamaProvider
from llmkit.types import Message

DEFAULT_OUT = Path(__file__).parent / "corpus" / "smollm2_answers.jsonl"
TEMPERATURES = (0.7, 0.8, 0.9, 1.0)
SCHEMA_ORDER = ("lead", "service", "budget")

# --- lead cards: one inbound customer message each ----------------------------------------

LEAD_SKELETON = """{
  "client_intent": "purchase" | "service" | "info" | "complaint",
  "product_class": string or null,
  "budget_rub": integer or null,
  "urgency_days": integer from 1 to 90 or null,
  "needs_call_back": true | false,
  "phones": ["+7XXXXXXXXXX"],
  "emails": ["name@example.com"],
  "summary": "at most 200 characters"
}"""

LEAD_SYSTEM_PROMPTS = (
    "You turn inbound customer messages into CRM lead cards. Reply with ONLY a JSON object "
    "of this shape, no prose:\n" + LEAD_SKELETON,
    "Ты помощник отдела продаж. Прочитай сообщение клиента и заполни карточку лида. "
    "Ответь только JSON-объектом с полями client_intent (purchase, service, info или "
    "complaint), product_class, budget_rub (число в рублях), urgency_days (1-90), "
    "needs_call_back (true/false), phones (в формате +7...), emails, summary (до 200 "
    "символов).",
)

LEAD_MESSAGES = (
    "Здравствуйте! Хотим заказать рекламный ролик для нового кафе, бюджет около 500 тыс. "
    "Сделать нужно за две недели. Перезвоните, пожалуйста: 8 (916) 123-45-67, Ирина.",
    "Hi, we need a 30-second product video for our online store launch. Budget is about "
    "$5,000, deadline in 10 days. Email me at mark.denton@shopflow.io",
    "Добрый день. Ваш монтажёр сорвал сроки уже второй раз, ролик до сих пор не готов. "
    "Требую объяснений. Телефон +7 495 765-43-21.",
    "Подскажите, сколько стоит съёмка корпоративного фильма минут на 5? Просто узнаю цены.",
    "Нужна анимация логотипа и заставка для YouTube-канала. Бюджет 1,5 млн на весь год "
    "контента. Пишите на anna.k@mail.ru или звоните 89261112233.",
    "Hello, do you also do drone shooting for real estate? Just asking for now.",
    "Срочно! Завтра конференция, нужен оператор на весь день. Денег до 80 000. "
    "Позвоните мне: +7-903-555-12-12",
    "We'd like to order a series of 12 explainer videos for our SaaS onboarding. Budget "
    "around 2 million rubles, no rush, within three months. Call back: +44 20 7946 0958",
    "Купили у вас пакет съёмки, а в итоге прислали не те исходники. Верните деньги или "
    "переделайте. Почта: complaints@romashka.ru",
    "Интересует съёмка свадьбы в августе, бюджет полмиллиона. Можно созвониться вечером? "
    "Мой номер 8-999-000-11-22, почта olga.svad@yandex.ru",
    "Can you send me your price list for podcast production? info@greenleaf.com",
    "Нужен ремонт нашего видео: переозвучка и новые субтитры к ролику, который вы делали "
    "в прошлом году. Сроки — месяц.",
    "Добрый вечер, хочу заказать клип для группы. Бюджет 300-400 тысяч, готовы начать "
    "через неделю. Телефоны: +7 (912) 345-67-89 и +7 (912) 345-67-80.",
    "Your support never answers the phone. I have been waiting for the edited version for "
    "3 weeks. This is unacceptable. — Paul, paul@northwind.com, +1 415 555 0134",
    "Сколько времени обычно занимает производство рекламы для ТВ? И есть ли у вас "
    "примеры работ для банков?",
    "Нужно обслуживание: ежемесячный монтаж 8 роликов для Reels, около 120 тыс. в месяц. "
    "Перезвонить не нужно, пишите в телеграм @smm_vika или на vika@smmlab.ru",
    "We are a furniture brand and want a TV commercial for the New Year campaign. Budget "
    "15M RUB, shoot must be done in 45 days. Please call +7 812 600-70-80 tomorrow.",
    "Здравствуйте, хочу видео-поздравление для мамы на юбилей, бюджет тысяч двадцать, "
    "через 5 дней. 8 915 777 66 55",
    "Просто хотели уточнить: вы работаете с юрлицами по договору и с НДС?",
    "Ролик, который вы сдали, сделан в неправильном формате — 16:9 вместо 9:16. "
    "Исправьте за 3 дня. Менеджер Сергей, +79057778899.",
)

# --- production-service stage: the client's side of the conversation so far --------------

SERVICE_SKELETON = (
    '{"message": "<your next message to the client>", "contentType": "", "goal": "", '
    '"format": "", "deliverables": [], "creativeSession": false, "serviceStatus": false}'
)

SERVICE_SYSTEM_PROMPTS = (
    "You are the production-service stage of a video production briefing. Find out what "
    "content the client needs, its goal, its format and the deliverables, and whether they "
    "want a creative session. Set serviceStatus to true only when every field is filled. "
    "Answer ONLY with JSON exactly like:\n" + SERVICE_SKELETON,
    "Ты — этап брифинга «Продакшн-сервис». Узнай у клиента тип контента, цель, формат, "
    "список материалов на выходе и нужна ли креативная сессия. Ответ — только JSON: "
    + SERVICE_SKELETON,
)

SERVICE_CONVERSATIONS = (
    ("Нам нужен имиджевый ролик о компании, чтобы показывать на выставках.",),
    (
        "We want a product video for our new headphones.",
        "Goal is to drive pre-orders on the website. Horizontal 16:9, about 60 seconds.",
    ),
    (
        "Хотим серию коротких видео для TikTok и Reels, вертикальные.",
        "Цель — узнаваемость бренда. Нужно 10 роликов по 15 секунд и обложки к ним.",
        "Креативную сессию хотим, идей пока нет.",
    ),
    ("Корпоративное обучающее видео для новых сотрудников, формат — скринкасты с озвучкой.",),
    (
        "Music video for our band's single.",
        "We have our own concept, no creative session needed. Deliver a 4K master and a "
        "vertical teaser.",
    ),
    (
        "Нужна 3D-анимация продукта для презентации инвесторам.",
        "Длительность до двух минут, 16:9, на выходе ролик и 5 статичных рендеров.",
    ),
    ("Can you film our conference? Two days, we need a recap video and all the talks.",),
    (
        "Рекламный ролик для ТВ, 30 секунд и версия 15 секунд.",
        "Цель — продажи в новогодний сезон. Креатив обсудим с вами на сессии.",
    ),
    ("Подкаст: 12 выпусков по 40 минут, видеоверсия для YouTube и аудио для площадок.",),
    (
        "An explainer animation for our fintech app.",
        "Goal: reduce support tickets. 90 seconds, 2D, English and Russian versions.",
        "Creative session yes please.",
    ),
    ("Сделайте нам фотосессию и видео для каталога одежды, 40 образов.",),
    (
        "Хотим документальный фильм к 25-летию завода.",
        "Формат — 20 минут, интервью и архив. Нужны также три тизера для соцсетей.",
    ),
)

# --- budget & timeline stage --------------------------------------------------------------

BUDGET_SKELETON = (
    '{"message": "<your next message to the client>", "budget": null, "currency": null, '
    '"deadline": null, "flexible": false}'
)

BUDGET_SYSTEM_PROMPTS = (
    "You are the budget and timeline stage of a video production briefing. Find out the "
    "budget (a whole number), its currency, the deadline and whether the budget is flexible. "
    "Answer ONLY with JSON:\n" + BUDGET_SKELETON,
    "Ты — этап брифинга «Бюджет и сроки». Уточни бюджет (целое число), валюту, дедлайн и "
    "можно ли двигать бюджет. Отвечай только JSON-объектом: " + BUDGET_SKELETON,
)

BUDGET_CONVERSATIONS = (
    ("Бюджет около 500 тысяч рублей, сдать нужно до 1 декабря.",),
    ("We can spend up to $20,000. Deadline is the end of March, budget is firm.",),
    (
        "Полтора миллиона, но можем немного добавить, если нужно.",
        "Сроки — к запуску продукта, это 15 сентября.",
    ),
    ("Пока не знаем бюджет. Хотели бы услышать ваши варианты.",),
    ("About 3k euros, and we need it in two weeks.",),
    ("До 2 млн руб., дедлайн жёсткий — 20 мая, бюджет тоже не двигается.",),
    (
        "Budget 750000 RUB.",
        "No fixed deadline, sometime in Q3 is fine. We're flexible on money if the idea is good.",
    ),
    ("Тысяч триста, к Новому году.",),
    ("Наш максимум 1 200 000 ₽, ролик нужен через месяц.",),
    ("We have 50k dollars for the whole campaign, launch on June 1st, can stretch a bit.",),
    ("Бюджет обсуждаемый, ориентир 800-900 тысяч. Срок — конец квартала.",),
    ("Денег немного, тысяч 50. Когда сможете — тогда и хорошо.",),
)

# --- one worked example per schema, for the few-shot prompt style -------------------------
# A 135M model asked cold mostly answers in prose; one example exchange makes it attempt
# JSON far more often, which is the noisy-but-close output the pipeline must repair.

EXAMPLES: dict[str, tuple[str, str]] = {
    "lead": (
        "Hi, I want to buy a promo video for my bakery, budget 200 000 rub, within a week. "
        "Call me at 8 916 000 11 22.",
        '{"client_intent": "purchase", "product_class": "promo video", "budget_rub": 200000, '
        '"urgency_days": 7, "needs_call_back": true, "phones": ["+79160001122"], '
        '"emails": [], "summary": "Promo video for a bakery, 200k RUB, within a week, '
        'wants a call back."}',
    ),
    "service": (
        "Client: Нужен ролик про наш фитнес-клуб для рекламы в соцсетях, вертикальный.",
        '{"message": "Отлично! Какая главная цель ролика и сколько версий нужно на выходе?", '
        '"contentType": "рекламный ролик", "goal": "", "format": "вертикальное видео 9:16", '
        '"deliverables": [], "creativeSession": false, "serviceStatus": false}',
    ),
    "budget": (
        "Client: We have about 400 thousand rubles and need it by October 10.",
        '{"message": "Thanks! Is the budget fixed, or could it move a little?", '
        '"budget": 400000, "currency": "RUB", "deadline": "October 10", "flexible": false}',
    ),
}

# Prompt styles and how often each is drawn: English instruction with the JSON skeleton,
# the same plus one worked example, and a Russian instruction.
STYLES = ("skeleton", "fewshot", "fewshot", "russian")


@dataclass(frozen=True, slots=True)
class Prompt:
    schema: str
    messages: tuple[Message, ...]


def _system_prompt(schema: str, style: str) -> str:
    english, russian = {
        "lead": LEAD_SYSTEM_PROMPTS,
        "service": SERVICE_SYSTEM_PROMPTS,
        "budget": BUDGET_SYSTEM_PROMPTS,
    }[schema]
    return russian if style == "russian" else english


def _user_turn(schema: str, round_: int) -> str:
    if schema == "lead":
        return LEAD_MESSAGES[round_ % len(LEAD_MESSAGES)]
    conversations = SERVICE_CONVERSATIONS if schema == "service" else BUDGET_CONVERSATIONS
    # The stage agent sees the stage's transcript; a 135M model follows one user turn far
    # better than a dialogue, so the client's turns are joined into one message.
    return "\n".join(f"Client: {turn}" for turn in conversations[round_ % len(conversations)])


def prompt_for(index: int, rng: random.Random) -> Prompt:
    """The prompt of answer `index`: schemas take turns, scenarios rotate evenly, the style
    is drawn from `rng` (seeded per answer) so it does not lock step with the scenario."""
    schema = SCHEMA_ORDER[index % len(SCHEMA_ORDER)]
    style = rng.choice(STYLES)
    messages = [Message("system", _system_prompt(schema, style))]
    if style == "fewshot":
        example_question, example_answer = EXAMPLES[schema]
        messages += [Message("user", example_question), Message("assistant", example_answer)]
    messages.append(Message("user", _user_turn(schema, index // len(SCHEMA_ORDER))))
    return Prompt(schema, tuple(messages))


def generate(*, n: int, first_seed: int, max_tokens: int, n_threads: int | None) -> Iterator[dict]:
    for index in range(n):
        seed = first_seed + index
        rng = random.Random(seed)
        prompt = prompt_for(index, rng)
        temperature = rng.choice(TEMPERATURES)
        # Providers share the loaded model (cached per file), so one per seed costs nothing.
        provider = LocalLlamaProvider(seed=seed, n_threads=n_threads)
        completion = provider.chat(
            list(prompt.messages), temperature=temperature, max_tokens=max_tokens
        )
        yield {
            "schema": prompt.schema,
            "category": "smollm2",
            "prompt": [message.as_dict() for message in prompt.messages],
            "raw": completion.text,
            "seed": seed,
            "temperature": temperature,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="number of answers")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--max-tokens", type=int, default=200)
    # One thread by default: llama.cpp sums in a thread-dependent order, and the committed
    # corpus must be reproducible on any machine (it also leaves the other cores free).
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp CPU threads")
    args = parser.parse_args(argv)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    # Written line by line and flushed, so an interrupted run still leaves usable data.
    with args.out.open("w", encoding="utf-8") as out:
        for done, line in enumerate(
            generate(
                n=args.n,
                first_seed=args.first_seed,
                max_tokens=args.max_tokens,
                n_threads=args.threads,
            ),
            start=1,
        ):
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            out.flush()
            if done % 10 == 0 or done == args.n:
                elapsed = time.monotonic() - started
                print(f"{done}/{args.n} answers, {elapsed:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
