"""`manage.py ensure_admin`: make sure a first superuser exists so a new install can log in."""

import os
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the superuser 'admin' (password from ADMIN_PASSWORD or random) if none exists."

    def handle(self, *args, **options):
        users = get_user_model()
        if users.objects.filter(is_superuser=True).exists():
            return
        password = os.environ.get("ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        users.objects.create_superuser("admin", email="", password=password)
        self.stdout.write(f"Created superuser 'admin' with password: {password}")
