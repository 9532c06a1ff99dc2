"""Settings for the test suite: the real settings, with a throwaway key and fast hashing."""

import os
import tempfile

os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="briefing-test-var-"))

from config.settings import *  # noqa: F403

# The test client and the live server speak plain HTTP.
SECURE_SSL_REDIRECT = SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = False
SECURE_HSTS_SECONDS = 0
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Unit tests run tasks in-process; tests/test_celery_worker.py runs real workers.
CELERY_TASK_ALWAYS_EAGER = True
# The API's rate limit is tested on its own (tests/api); elsewhere, fuzzing included, it
# must not get in the way.
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"api": "100000/min"}}  # noqa: F405
# The client chat's rate limits likewise (tests/briefing/client/test_views_client.py and
# tests/api/test_messages.py set their own).
CLIENT_CHAT_RATE_PER_LINK = CLIENT_CHAT_RATE_PER_IP = ["100000/min"]
# The test client's login() authenticates without a request, which the lockout needs: it
# is off here and on in tests/test_login_throttling.py.
AXES_ENABLED = False
# The back office defaults to Russian for a real producer; the tests read English unless one
# asks for another language (Accept-Language, the language cookie or this setting).
LANGUAGE_CODE = "en"
# Pages render without a collectstatic run; tests/ops/test_production_stack.py serves the
# hashed, compressed files for real.
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
