"""Settings, read from the environment through the strict helpers in core.env."""

from __future__ import annotations

import math
from datetime import timedelta
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from csp.constants import NONE, SELF

from core.env import (
    EnvError,
    currency_rates,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_str,
    env_text,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", default=False)
# A development key only when DEBUG is on; production must set its own.
SECRET_KEY = env_str("SECRET_KEY", "dev-insecure-key-do-not-use-in-production" if DEBUG else None)
# Earlier keys still accepted for signatures while a new SECRET_KEY takes over (sessions,
# password-reset links): docs/operations.md, "Rotating secrets".
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS", [])
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# HTTPS hardening: on by default whenever DEBUG is off (`manage.py check --deploy` clean);
# a deployment behind a TLS-terminating proxy sets SECURE_PROXY_SSL_HEADER_ENABLED=true.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
if env_bool("SECURE_PROXY_SSL_HEADER_ENABLED", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Content-Security-Policy on every response (django-csp): script, style, fonts and requests
# from this site only, so no inline script or style attribute, no CDN; images may also be
# data: URIs (the admin's and the API docs' icons). The pages' behaviours live in static/js,
# htmx's indicator style in app.css. Django's own debug pages (DEBUG on) go without it.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    "csp",
    "django_htmx",
    "template_partials",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "api",
    "briefing",
    "crm",
    "dlq",
    "webhooks",
    "studio",
    "ops",
]

MIDDLEWARE = [
    # /healthz and /readyz, answered before anything else (ops.middleware).
    "ops.middleware.ProbeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files with DEBUG off: compressed, hashed names, cached for ever (whitenoise).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    # A request id on every log line and response (X-Request-ID), and the access line.
    "config.logs.RequestIdMiddleware",
    "config.middleware.RequestTextMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The back office speaks the producer's language: the switcher's cookie, else the
    # browser's; the API keeps English (config.middleware.BackOfficeLocaleMiddleware).
    "config.middleware.BackOfficeLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last: turns a login refused by the lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "briefing.producer.context_processors.inbox",
            ],
        },
    },
]

# SQLite by default; DATABASE_URL (postgres://user@host:5432/name) switches to PostgreSQL.
VAR_DIR.mkdir(parents=True, exist_ok=True)
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The back office's languages: Russian first (a producer whose browser asks for none of these
# gets it), English kept, Ukrainian as the client side has it. Translations live in locale/
# with their compiled .mo committed, so a fresh machine needs no gettext.
LANGUAGE_CODE = env_str("LANGUAGE_CODE", "ru")
LANGUAGES = [("ru", "Русский"), ("en", "English"), ("uk", "Українська")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
TIME_ZONE = env_str("TIME_ZONE", "Europe/Moscow")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns about a missing one before collectstatic
# With DEBUG off, `collectstatic` (scripts/serve runs it) writes each file under a name with
# its content's hash and a gzip copy beside it; whitenoise serves them with a year's
# Cache-Control (immutable). DEBUG on serves the files as they are from static/.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

# --- Login throttling (django-axes and config/login_throttle.py) ---------------------------
# Three counts of wrong passwords, on both login pages (ours and the admin's) alike:
# - one user name from one address (a forgotten password, or guessing from one machine):
#   LOGIN_FAILURE_LIMIT within LOGIN_COOLOFF_MINUTES pause that pair for LOGIN_COOLOFF_MINUTES
#   from the last of them, the right password included;
# - one address, whatever the user names (password spraying): LOGIN_ADDRESS_FAILURE_LIMIT
#   within LOGIN_COOLOFF_MINUTES pause the address until fewer are left in that window. Set
#   it above what an office behind one NAT address mistypes in that time;
# - one user name, whatever the address (guessing from many machines): from
#   LOGIN_USERNAME_FAILURE_LIMIT within LOGIN_USERNAME_WINDOW_HOURS on, each wrong password
#   makes the next attempt wait 1, 2, 4, ... seconds, at most LOGIN_USERNAME_MAX_DELAY_MINUTES:
#   a delay rather than a lock, and none from an address where the name logged in within
#   LOGIN_KNOWN_ADDRESS_DAYS, so an attacker elsewhere cannot keep the real user out.
# Attempts refused during a pause do not count and do not prolong it: the lockout page (and
# its Retry-After header) says when to try again. A successful login clears that name's
# failures from that address, and only those. An administrator unlocks by deleting the rows
# (Admin -> Axes: Access attempts for a name and address, Access failures for the others).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "core.auth.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, positive=True)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15, positive=True))
# Wrong passwords from one address, across all user names, before it is paused.
LOGIN_ADDRESS_FAILURE_LIMIT = env_int("LOGIN_ADDRESS_FAILURE_LIMIT", 20, positive=True)
# Wrong passwords for one user name, across all addresses, before its attempts are delayed.
LOGIN_USERNAME_FAILURE_LIMIT = env_int("LOGIN_USERNAME_FAILURE_LIMIT", 10, positive=True)
# How far back those are counted.
LOGIN_USERNAME_WINDOW = timedelta(hours=env_int("LOGIN_USERNAME_WINDOW_HOURS", 24, positive=True))
# The longest wait between two attempts at one user name (the doubling's cap).
LOGIN_USERNAME_MAX_DELAY = timedelta(
    minutes=env_int("LOGIN_USERNAME_MAX_DELAY_MINUTES", 15, positive=True)
)
# An address the user name logged in from within this many days is spared that delay.
LOGIN_KNOWN_ADDRESS_AGE = timedelta(days=env_int("LOGIN_KNOWN_ADDRESS_DAYS", 30, positive=True))
# axes' own count is per name and address only: a list such as [["username", "ip_address"],
# "ip_address", "username"] would share one limit, make the name a lock anyone can set off,
# and let any successful login clear its whole address's count. The other two counts are
# read from the failure log by config.login_throttle.LoginThrottleHandler.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_HANDLER = "config.login_throttle.LoginThrottleHandler"
AXES_ENABLE_ACCESS_FAILURE_LOG = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
# Not its start-up banner on every manage.py command.
AXES_VERBOSE = False
AXES_LOCKOUT_TEMPLATE = "registration/lockout.html"
AXES_LOCKOUT_CALLABLE = "config.login_throttle.lockout_response"
# The address is REMOTE_ADDR; behind reverse proxies that append to X-Forwarded-For, set
# LOGIN_TRUSTED_PROXIES to their number (anything further left can be forged by a client).
LOGIN_TRUSTED_PROXIES = env_int("LOGIN_TRUSTED_PROXIES", 0)
AXES_CLIENT_IP_CALLABLE = "config.client_ip.client_ip"

# --- Celery ---------------------------------------------------------------------------
# CELERY_BROKER_URL (redis://127.0.0.1:6379/0) selects a broker server. Without one, the
# embedded default is kombu's filesystem transport: messages are files under var/celery/,
# and the worker that scripts/run starts beside the web server reads them. No server needed.
_celery_dir = VAR_DIR / "celery"
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
# Over Redis, kombu's transport with a guard that keeps a worker alive through an outage.
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
# Unacknowledged messages of a killed worker come back after this many seconds (Redis).
CELERY_BROKER_TRANSPORT_OPTIONS: dict = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT_S", 3600),
}
if CELERY_BROKER_URL == "filesystem://":
    CELERY_BROKER_TRANSPORT_OPTIONS |= {
        "data_folder_in": str(_celery_dir / "queue"),
        "data_folder_out": str(_celery_dir / "queue"),
        "processed_folder": str(_celery_dir / "processed"),
        "control_folder": str(_celery_dir / "control"),
        "store_processed": False,
    }
    for _folder in ("queue", "control"):
        (_celery_dir / _folder).mkdir(parents=True, exist_ok=True)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 240)
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Celery's Django fixup closes the database connection around every task unless it may reuse
# it: with DATABASE_CONN_MAX_AGE set, config.celery closes connections by their age instead.
CELERY_DB_REUSE_MAX = 1_000_000_000 if DATABASES["default"]["CONN_MAX_AGE"] != 0 else None
CELERY_BEAT_SCHEDULE = {
    "briefing-turns-sweep": {"task": "briefing.tasks.turns_sweep", "schedule": 60.0},
    "briefing-holding-follow-ups": {
        "task": "briefing.tasks.holding_follow_ups",
        "schedule": 60.0,
    },
    # The inbox: snoozes whose time came, and the e-mail about a client message nobody saw.
    "briefing-snoozes-wake": {"task": "briefing.tasks.snoozes_wake", "schedule": 60.0},
    "briefing-unseen-alerts": {"task": "briefing.tasks.unseen_alerts", "schedule": 60.0},
    "crm-inbound-sweep": {"task": "crm.tasks.inbound_sweep", "schedule": 60.0},
    "crm-imap-poll": {
        "task": "crm.tasks.imap_poll",
        "schedule": env_float("CRM_IMAP_POLL_S", 60.0),
    },
    "webhooks-sweep": {"task": "webhooks.tasks.webhooks_sweep", "schedule": 60.0},
    "dlq-call-rollups-fold": {"task": "dlq.tasks.call_rollups_fold", "schedule": 60.0},
    # The client snapshots (studio.memory) are rebuilt once a day: byte-stable in between.
    "studio-client-snapshots": {
        "task": "studio.tasks.client_snapshots_rebuild",
        "schedule": 24 * 3600.0,
    },
    "dlq-call-details-prune": {
        "task": "dlq.tasks.call_details_prune",
        "schedule": crontab(hour=3, minute=30),
    },
    # Monday morning, for the week that ended the day before.
    "dlq-weekly-digest": {
        "task": "dlq.tasks.weekly_digest",
        "schedule": crontab(hour=9, minute=0, day_of_week="mon"),
    },
}

# --- Language models ------------------------------------------------------------------
# The ordered failover chain and each provider's own variables; see .env.example.
LLM_PROVIDERS = env_list("LLM_PROVIDERS", ["rules"])
# Seconds one structured call may take in all: every provider tried and the retry share it
# (a corporate proxy cuts connections at 100 s, so no request may outlive it).
LLM_CALL_BUDGET_S = env_float("LLM_CALL_BUDGET_S", 100.0)
# Answers are streamed and the connection closed at the answer's top-level `}`.
LLM_STREAM = env_bool("LLM_STREAM", default=True)
# A claim on work that calls a model (a turn, an inbound message) lasts its model budget plus
# this much (the guard, the pre-parse, the database writes); after that it counts as lost.
LLM_LEASE_MARGIN_S = env_float("LLM_LEASE_MARGIN_S", 30.0)
# Model pools, each its own failover chain, cheap first: "fast=yandex-lite,local,rules;
# strong=gigachat-max,rules". Level 1's complexity picks the pool, an escalation the last;
# empty: LLM_PROVIDERS serves every call. Routes, caps per level (simple/medium/complex):
LLM_POOLS = env_str("LLM_POOLS", "")
LLM_POOL_ROUTES = env_str("LLM_POOL_ROUTES", "")
LLM_TURN_CALL_CAPS = env_str("LLM_TURN_CALL_CAPS", "simple=4,medium=6,complex=8")
LLM_TURN_TOKEN_CAPS = env_str("LLM_TURN_TOKEN_CAPS", "simple=1200,medium=2400,complex=4000")
if LLM_POOLS:  # a typo fails at start-up, not on the first client turn
    from llmkit.pools import DEFAULT_CALL_CAPS, parse_levels, parse_pools, parse_routes

    parse_routes(LLM_POOL_ROUTES, list(parse_pools(LLM_POOLS)))
    parse_levels(LLM_TURN_CALL_CAPS, DEFAULT_CALL_CAPS, name="LLM_TURN_CALL_CAPS")
    parse_levels(LLM_TURN_TOKEN_CAPS, DEFAULT_CALL_CAPS, name="LLM_TURN_TOKEN_CAPS")  # syntax only
# With pools, level 1 asks the first pool's models too (the shipped classifier is the fallback).
LLM_LEVEL1_MODEL = env_bool("LLM_LEVEL1_MODEL", default=True)
# A prompt prefix shorter than this (estimated tokens) gets no cache session: 0, since no
# provider of ours charges for a cache write (see llmkit.session.DEFAULT_CACHE_MIN_TOKENS).
LLM_CACHE_MIN_TOKENS = env_int("LLM_CACHE_MIN_TOKENS", 0)
# A briefing whose model calls cost more than this (price table's currency) is flagged to its
# producer; 0 flags none.
BRIEFING_COST_BUDGET = env_float("BRIEFING_COST_BUDGET", 0.0)

# Schemas retried in more than this share of a week's calls are called out in the digest.
DLQ_RETRY_SHARE_ALERT = env_float("DLQ_RETRY_SHARE_ALERT", 0.2)
# The prompts and raw answers of successful calls are cleared after this many days (the
# figures stay; a dead letter keeps its own copy for as long as it exists). 0 keeps them.
DLQ_CALL_DETAIL_RETENTION_DAYS = env_int("DLQ_CALL_DETAIL_RETENTION_DAYS", 30)
# Folded structured calls older than this many days are deleted (0 keeps them): the quality
# figures are read from the rollups; a briefing's cost on its page is read from its calls.
DLQ_CALL_RETENTION_DAYS = env_int("DLQ_CALL_RETENTION_DAYS", 0)

# --- Briefing engine ----------------------------------------------------------------
# How many turns of the current stage an agent sees (never the whole history).
BRIEFING_CONTEXT_TURNS = env_int("BRIEFING_CONTEXT_TURNS", 6)
# Tool steps a tool-calling model may take in one turn before its final answer; level 1's
# per-turn call cap lowers it (two requests stay for the final answer and its retry).
BRIEFING_TOOL_MAX_REQUESTS = env_int("BRIEFING_TOOL_MAX_REQUESTS", 3)
# The most tokens a stage agent may answer with (a stage answer is a small JSON object).
BRIEFING_MAX_TOKENS = env_int("BRIEFING_MAX_TOKENS", 400)
# Seconds one client turn may spend on model calls, across its stage calls (a turn that
# closes a stage also asks the next stage's first question): each call gets at most
# LLM_CALL_BUDGET_S and never more than the turn has left; with nothing left the rules
# agent answers at once.
BRIEFING_TURN_BUDGET_S = env_float("BRIEFING_TURN_BUDGET_S", LLM_CALL_BUDGET_S)
# A turn claimed by a worker that died is taken over by another after this many seconds;
# derived, never set: a lease shorter than the work would hand a live turn to a second worker.
BRIEFING_TURN_LEASE_S = math.ceil(BRIEFING_TURN_BUDGET_S + LLM_LEASE_MARGIN_S)
# A turn whose claim expired this many times (its worker died each time) is dead-lettered
# with a holding reply instead of being claimed again.
BRIEFING_TURN_MAX_LOST_CLAIMS = env_int("BRIEFING_TURN_MAX_LOST_CLAIMS", 2)
# A holding reply whose dead letter is not fixed or replayed within this many seconds asks the
# briefing's producer to follow up with the client themself (the inbox puts it first).
BRIEFING_HOLDING_FOLLOW_UP_S = env_int("BRIEFING_HOLDING_FOLLOW_UP_S", 900)
# A client message that waited this many seconds for a worker puts a banner on every
# producer's inbox: no worker is taking turns (a turn takes seconds when one is).
BRIEFING_STALL_ALERT_S = env_int("BRIEFING_STALL_ALERT_S", 120)
# A client message nobody on the staff has seen (the briefing's page not open since) for this
# many minutes is e-mailed to the briefing's producer, once per wait; 0 sends none.
BRIEFING_UNSEEN_ALERT_MIN = env_int("BRIEFING_UNSEEN_ALERT_MIN", 15)
# Client messages allowed per briefing link and per sender address on the chat page (the
# API's messages endpoint counts per briefing), each a list of <count>/<period>: a message
# past any of them is refused (429), nothing stored or queued. Counted in the cache (see
# CACHE_URL below: in-process unless set, so each web process then counts on its own).
CLIENT_CHAT_RATE_PER_LINK = env_list("CLIENT_CHAT_RATE_PER_LINK", ["10/min", "120/hour"])
CLIENT_CHAT_RATE_PER_IP = env_list("CLIENT_CHAT_RATE_PER_IP", ["30/min", "300/hour"])

# --- Cache ------------------------------------------------------------------------------
# In-process by default; CACHE_URL (redis://127.0.0.1:6379/1) shares it between processes,
# which the API's rate limits need when more than one web process serves it. A Redis that
# stops answering is not an error (config/cache.py): the limits fall back to an in-process
# count and sessions to the database until it answers again, with a warning in the log.
_cache_url = env_str("CACHE_URL", "")
CACHES = (
    {
        "default": {"BACKEND": "config.cache.ResilientRedisCache", "LOCATION": _cache_url},
        "sessions": {
            "BACKEND": "config.cache.ResilientRedisCache",
            "LOCATION": _cache_url,
            "OPTIONS": {"FALLBACK": "miss"},
        },
    }
    if _cache_url
    else {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
)
# Sessions are read from the shared cache first when there is one (a query fewer on every
# logged-in request); from an in-process cache another process could still accept a session
# that this one ended, so without CACHE_URL they are read from the database alone.
SESSION_ENGINE = f"django.contrib.sessions.backends.{'cached_db' if _cache_url else 'db'}"
SESSION_CACHE_ALIAS = "sessions" if _cache_url else "default"

# --- REST API --------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.auth.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.auth.HasScope"],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.PerCallerThrottle"],
    # Requests per token (or user, or address). Counted in Django's cache: set a shared
    # cache (CACHE_URL) when several web processes serve the API.
    "DEFAULT_THROTTLE_RATES": {"api": env_str("API_RATE_LIMIT", "600/min")},
    "DEFAULT_PAGINATION_CLASS": "api.pagination.Pages",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "api.errors.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # JSON bodies only: a form cannot say whether "true" is text or a boolean.
    "DEFAULT_PARSER_CLASSES": ["api.parsers.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Briefing platform API",
    "DESCRIPTION": "Briefings, finished briefs, leads and dead letters. Authenticate with "
    '`Authorization: Bearer <token>`; errors are {"error": {"code", "message", '
    '"fields"}}.',
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs page's assets come from the installed sidecar package: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # A calendar period's status (busy/tentative) is not a briefing's or a lead's status.
    "ENUM_NAME_OVERRIDES": {"CalendarPeriodStatusEnum": "studio.models.CalendarPeriod.Status"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.add_error_responses",
    ],
}

# --- E-mail ---------------------------------------------------------------------------
# The managers' weekly digest and producers' requests for help go out by e-mail: over SMTP
# when EMAIL_HOST is set, else printed on the console (the embedded default sends nothing).
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=True)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "briefings@localhost")
# The address the back office is reached at, for links in e-mails ("" writes paths only).
SITE_URL = env_str("SITE_URL", "").rstrip("/")

# --- CRM intake -----------------------------------------------------------------------
# The IMAP mailbox is read by CRM_IMAP_HOST, _PORT, _USER, _PASSWORD, _FOLDER, _SSL (see
# .env.example); none set means no mailbox is polled.
# A message longer than this is cut (with a note) before the model reads it; stored whole.
CRM_MODEL_INPUT_CHARS = env_int("CRM_MODEL_INPUT_CHARS", 8000)
# The most tokens the lead-card reading may answer with.
CRM_MAX_TOKENS = env_int("CRM_MAX_TOKENS", 400)
# The lead type (crm.LeadType's code) whose intents and products the cards are read with:
# "studio" (a production studio, the default) or "dealer" (the first seed's car dealer), or
# one an administrator added.
CRM_LEAD_TYPE = env_str("CRM_LEAD_TYPE", "studio")
# The studio's currency, and what one unit of another currency is worth in it
# ("USD=92.5,EUR=99,UAH=2.2"): the lead list filters and sorts budgets by amount in the
# studio's currency only for the currencies given here, never by a guessed rate.
CRM_STUDIO_CURRENCY = env_str("CRM_STUDIO_CURRENCY", "RUB").upper()
CRM_CURRENCY_RATES = currency_rates(env_str("CRM_CURRENCY_RATES", ""), name="CRM_CURRENCY_RATES")
# The shared secret a web form posts as its `token` (empty: the form endpoint is closed).
CRM_FORM_TOKEN = env_str("CRM_FORM_TOKEN", "")
# The HMAC-SHA256 key of the messenger webhook's X-Signature (empty: the webhook is closed).
CRM_MESSENGER_SECRET = env_str("CRM_MESSENGER_SECRET", "")
# Readings of one message that may fail (or be lost with their worker) before it becomes a
# dead letter instead of being tried again on every sweep.
CRM_MESSAGE_MAX_ATTEMPTS = env_int("CRM_MESSAGE_MAX_ATTEMPTS", 3)
# JSON bodies (the API, the messenger webhook) nested deeper than this, or with an integer
# of more digits, are refused with 400 (core.input.json_parse).
INPUT_JSON_MAX_DEPTH = env_int("INPUT_JSON_MAX_DEPTH", 32)
INPUT_JSON_MAX_INT_DIGITS = env_int("INPUT_JSON_MAX_INT_DIGITS", 50)
# A message claimed by a worker that died is taken over by another after this many seconds;
# derived from its one model call's budget, like the turn lease.
CRM_MESSAGE_LEASE_S = math.ceil(LLM_CALL_BUDGET_S + LLM_LEASE_MARGIN_S)

# The leases are derived from the budgets above; the old settings must not linger unread.
for _derived in ("BRIEFING_TURN_LEASE_S", "CRM_MESSAGE_LEASE_S"):
    if env_text(_derived):
        raise EnvError(
            f"{_derived} is derived from the model budgets (LLM_CALL_BUDGET_S, "
            "BRIEFING_TURN_BUDGET_S, LLM_LEASE_MARGIN_S); set those instead"
        )
if min(LLM_CALL_BUDGET_S, BRIEFING_TURN_BUDGET_S) <= 0 or LLM_LEASE_MARGIN_S <= 0:
    raise EnvError(
        "LLM_CALL_BUDGET_S, BRIEFING_TURN_BUDGET_S and LLM_LEASE_MARGIN_S must be positive"
    )
if max(BRIEFING_TURN_LEASE_S, CRM_MESSAGE_LEASE_S) >= CELERY_TASK_SOFT_TIME_LIMIT:
    raise EnvError(
        f"CELERY_TASK_SOFT_TIME_LIMIT ({CELERY_TASK_SOFT_TIME_LIMIT} s) must exceed the turn "
        f"and message leases ({BRIEFING_TURN_LEASE_S} s, {CRM_MESSAGE_LEASE_S} s): a task "
        "stopped mid-turn loses its claim"
    )

# --- Webhooks -------------------------------------------------------------------------
# Seconds a receiver has to answer one delivery attempt.
WEBHOOK_TIMEOUT_S = env_float("WEBHOOK_TIMEOUT_S", 10.0)
# Attempts before a delivery is given up as failed (it can still be sent again by hand).
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 8)
# The wait after the n-th failure: BASE * 2**(n-1) seconds (plus jitter), at most MAX.
WEBHOOK_BACKOFF_BASE_S = env_int("WEBHOOK_BACKOFF_BASE_S", 30)
WEBHOOK_BACKOFF_MAX_S = env_int("WEBHOOK_BACKOFF_MAX_S", 3600)
# Hosts a webhook may be sent to although they resolve inside the network (loopback,
# private, link-local addresses), e.g. an internal planner; each named, never a range.
WEBHOOK_ALLOWED_INTERNAL_HOSTS = env_list("WEBHOOK_ALLOWED_INTERNAL_HOSTS", [])

# --- Operations (ops/, config/logs.py, docs/operations.md) -------------------------------
# One JSON line per event with the request id and the briefing/turn ids ("json", the default
# with DEBUG off), or plain lines ("text", the default with DEBUG on).
LOG_FORMAT = env_str("LOG_FORMAT", "text" if DEBUG else "json")
if LOG_FORMAT not in ("json", "text"):
    raise EnvError(f"LOG_FORMAT must be json or text, not {LOG_FORMAT!r}")
from config.logs import logging_config  # noqa: E402  (after LOG_FORMAT is known)

LOGGING = logging_config(log_format=LOG_FORMAT, level=env_str("LOG_LEVEL", "INFO"))
# /metrics answers only `Authorization: Bearer <METRICS_TOKEN>`; unset, it is closed.
METRICS_TOKEN = env_str("METRICS_TOKEN", "")
# Seconds between a worker's heartbeats; /readyz wants one no older than three of them.
OPS_WORKER_HEARTBEAT_S = env_int("OPS_WORKER_HEARTBEAT_S", 10, positive=True)
# Seconds /readyz waits for the broker to accept a connection.
OPS_PROBE_TIMEOUT_S = env_float("OPS_PROBE_TIMEOUT_S", 1.0)
# The beat records each of its ticks (ops.heartbeat) and wakes at least this often, so
# /readyz can tell a stopped beat within its shortest period (60 s).
CELERY_BEAT_SCHEDULER = "ops.heartbeat:RecordingScheduler"
CELERY_BEAT_MAX_LOOP_INTERVAL = 15
# Load balancers and Prometheus ask over plain HTTP inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz/?$", r"^readyz/?$", r"^metrics$"]
