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
}


def text(name: str, language: str) -> str:
    texts = _TEXTS[name]
    return texts.get(language) or texts["en"]
