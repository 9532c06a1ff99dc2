"""Django's makemessages, also collecting the texts marked `_lazy(...)` (the modules that need
both gettext and gettext_lazy import the lazy one under that name); without it xgettext
skipped them and the Russian back office showed them in English."""

from django.core.management.commands.makemessages import Command as MakeMessagesCommand


class Command(MakeMessagesCommand):
    xgettext_options = [*MakeMessagesCommand.xgettext_options, "--keyword=_lazy"]
