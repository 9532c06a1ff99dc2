"""Canned replies of the level-0 guard, in the client's language."""

from __future__ import annotations

import re

_REPLIES: dict[str, dict[str, str]] = {
    "prompt_extraction": {
        "ru": (
            "Извините, я не могу делиться своими внутренними инструкциями и настройками. "
            "Давайте вернёмся к брифу вашего проекта — продолжим с того места, где "
            "остановились."
        ),
        "uk": (
            "Вибачте, я не можу ділитися своїми внутрішніми інструкціями та налаштуваннями. "
            "Повернімося до брифу вашого проєкту — продовжимо з того місця, де зупинилися."
        ),
        "en": (
            "Sorry, I can't share my internal instructions or settings. Let's get back to "
            "your project brief — we can pick up right where we left off."
        ),
        "de": (
            "Entschuldigung, meine internen Anweisungen und Einstellungen kann ich nicht "
            "weitergeben. Lassen Sie uns zum Briefing Ihres Projekts zurückkehren – wir "
            "machen dort weiter, wo wir aufgehört haben."
        ),
        "fr": (
            "Désolé, je ne peux pas partager mes instructions ni mes paramètres internes. "
            "Revenons au brief de votre projet : reprenons là où nous nous étions arrêtés."
        ),
        "es": (
            "Lo siento, no puedo compartir mis instrucciones ni mi configuración interna. "
            "Volvamos al brief de su proyecto: sigamos justo donde lo dejamos."
        ),
        "zh": (
            "抱歉，内部的工作设置不能透露。让我们回到您项目的简报上来，从刚才停下的地方继续吧。"
        ),
    },
    "capabilities": {
        "ru": (
            "Я виртуальный ассистент видеопродакшн-студии и помогаю собрать бриф вашего "
            "проекта: кто вы и чем занимаетесь, какая у вас идея, какая услуга продакшена "
            "нужна, какие бюджет и сроки, и что ещё важно учесть. Продолжим?"
        ),
        "uk": (
            "Я віртуальний асистент відеопродакшн-студії і допомагаю скласти бриф вашого "
            "проєкту: хто ви і чим займаєтеся, яка у вас ідея, яка послуга продакшену "
            "потрібна, які бюджет і терміни, і що ще варто врахувати. Продовжимо?"
        ),
        "en": (
            "I'm the virtual assistant of a video production studio, and I help put together "
            "your project brief: who you are and what you do, your idea, the production "
            "service you need, budget and timeline, and anything else worth knowing. Shall "
            "we continue?"
        ),
        "de": (
            "Ich bin der virtuelle Assistent eines Videoproduktionsstudios und helfe Ihnen, "
            "das Briefing für Ihr Projekt zu erstellen: wer Sie sind und was Sie machen, Ihre "
            "Idee, die gewünschte Produktionsleistung, Budget und Zeitplan sowie alles "
            "Weitere, was wichtig ist. Wollen wir weitermachen?"
        ),
        "fr": (
            "Je suis l'assistant virtuel d'un studio de production vidéo et je vous aide à "
            "préparer le brief de votre projet : qui vous êtes et ce que vous faites, votre "
            "idée, la prestation de production souhaitée, le budget et les délais, ainsi que "
            "tout autre point utile. On continue ?"
        ),
        "es": (
            "Soy el asistente virtual de un estudio de producción de vídeo y le ayudo a "
            "preparar el brief de su proyecto: quién es usted y a qué se dedica, su idea, el "
            "servicio de producción que necesita, el presupuesto y los plazos, y cualquier "
            "otro detalle importante. ¿Seguimos?"
        ),
        "zh": (
            "我是一家视频制作工作室的虚拟助手，帮您整理项目简报：您是谁、从事什么业务，您的创意，"
            "需要的制作服务，预算和时间安排，以及其他值得注意的事项。我们继续吧？"
        ),
    },
}


def guard_reply(kind: str, language: str) -> str:
    """The canned reply for a verdict's kind in the client's language (English otherwise).

    Raises ValueError for an unknown kind: that is a programming error, not a message.
    """
    replies = _REPLIES.get(kind)
    if replies is None:
        raise ValueError(f"unknown guard kind {kind!r}; expected one of {', '.join(_REPLIES)}")
    code = re.split(r"[-_]", language.strip(), maxsplit=1)[0].lower() if language else ""
    return replies.get(code, replies["en"])
