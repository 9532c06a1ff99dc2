"""Replies written by code, never by a model: holding replies, the closing message."""

from __future__ import annotations

_TEXTS: dict[str, dict[str, str]] = {
    "holding": {
        "ru": "Спасибо! Мне нужно немного времени, чтобы всё уточнить, — скоро вернусь с ответом.",
        "uk": "Дякую! Мені потрібно трохи часу, щоб усе уточнити, — незабаром повернуся.",
        "en": "Thank you! I need a moment to check the details and will get back to you shortly.",
    },
    "completed": {
        "ru": "Спасибо, бриф собран! Продюсер изучит его и свяжется с вами.",
        "uk": "Дякую, бриф зібрано! Продюсер ознайомиться з ним і зв'яжеться з вами.",
        "en": "Thank you, the brief is complete! Your producer will review it and get in touch.",
    },
    "already_completed": {
        "ru": "Бриф уже собран — продюсер получил ваше сообщение и ответит вам.",
        "uk": "Бриф уже зібрано — продюсер отримав ваше повідомлення й відповість вам.",
        "en": "The brief is already complete; your producer has your message and will reply.",
    },
    # A client's "yes" or "thanks" after completion: nothing for the producer to answer.
    "completed_thanks": {
        "ru": "Спасибо! Бриф у продюсера — он свяжется с вами.",
        "uk": "Дякую! Бриф у продюсера — він зв'яжеться з вами.",
        "en": "Thank you! Your producer has the brief and will be in touch.",
    },
    # A request for a person or a complaint (level 1): the producer is flagged.
    "person_will_answer": {
        "ru": "Понял вас. Я передал ваше сообщение продюсеру — он ответит вам здесь лично.",
        "uk": "Зрозумів вас. Я передав ваше повідомлення продюсеру — "
        "він відповість вам тут особисто.",
        "en": "Understood. I've passed your message to your producer, "
        "who will answer you here in person.",
    },
    "chat_placeholder": {
        "ru": "Ваше сообщение…",
        "uk": "Ваше повідомлення…",
        "en": "Your message…",
    },
    "chat_send": {"ru": "Отправить", "uk": "Надіслати", "en": "Send"},
    "chat_typing": {"ru": "Печатает ответ…", "uk": "Друкує відповідь…", "en": "Typing a reply…"},
    # {minutes}: when the client may send again, rounded up.
    "chat_rate_limited": {
        "ru": "Слишком много сообщений подряд — это не отправлено. "
        "Отправьте его снова через {minutes} мин.",
        "uk": "Забагато повідомлень поспіль — це не надіслано. "
        "Надішліть його знову через {minutes} хв.",
        "en": "Too many messages in a row: this one was not sent. "
        "Please send it again in {minutes} min.",
    },
    "chat_form_used": {
        "ru": "Эта форма уже отправляла другое сообщение, поэтому это не отправлено. "
        "Нажмите «Отправить» ещё раз.",
        "uk": "Ця форма вже надсилала інше повідомлення, тому це не надіслано. "
        "Натисніть «Надіслати» ще раз.",
        "en": "This form already sent another message, so this one was not sent. "
        "Press Send once more.",
    },
    "chat_welcome": {
        "ru": "Здравствуйте! Расскажите о вашем проекте — мы зададим несколько вопросов.",
        "uk": "Вітаємо! Розкажіть про ваш проєкт — ми поставимо кілька запитань.",
        "en": "Hello! Tell us about your project and we will ask a few questions.",
    },
    # The client's page while a person holds the briefing or a message waits for one.
    "chat_producer_will_answer": {
        "ru": "Ваш продюсер ответит вам здесь лично.",
        "uk": "Ваш продюсер відповість вам тут особисто.",
        "en": "Your producer will answer you here in person.",
    },
    "chat_new_messages": {
        "ru": "Новые сообщения ↓",
        "uk": "Нові повідомлення ↓",
        "en": "New messages ↓",
    },
    "chat_empty": {
        "ru": "Сообщение пустое — напишите что-нибудь.",
        "uk": "Повідомлення порожнє — напишіть щось.",
        "en": "The message is empty: please write something.",
    },
    # {limit}: the most characters a message may have.
    "chat_too_long": {
        "ru": "Сообщение слишком длинное (не больше {limit} символов) — оно не отправлено. "
        "Разделите его на части.",
        "uk": "Повідомлення задовге (не більше {limit} символів) — його не надіслано. "
        "Розділіть його на частини.",
        "en": "The message is too long (at most {limit} characters), so it was not sent. "
        "Please split it.",
    },
    "chat_link_revoked": {
        "ru": "Эта ссылка больше не действует. Попросите продюсера прислать новую.",
        "uk": "Це посилання більше не діє. Попросіть продюсера надіслати нове.",
        "en": "This link no longer works. Please ask your producer for a new one.",
    },
    "chat_link_unknown": {
        "ru": "Такой страницы нет. Проверьте ссылку — возможно, в ней опечатка.",
        "uk": "Такої сторінки немає. Перевірте посилання — можливо, в ньому помилка.",
        "en": "There is no such page. Please check the link for a typo.",
    },
}


def text(name: str, language: str) -> str:
    texts = _TEXTS[name]
    return texts.get(language) or texts["en"]
