"""Fixtures of the studio tests: the API tests reuse the API suite's token clients."""

from tests.api.conftest import api, make_token  # noqa: F401
