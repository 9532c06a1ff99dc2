"""Fixtures for the API tests: tokens with chosen scopes, and clients that present them."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from api.models import SCOPES, ApiToken


@pytest.fixture
def make_token(db):
    def make(*scopes: str, name: str = "planner") -> tuple[ApiToken, str]:
        token = ApiToken(name=name, scopes=list(scopes))
        secret = token.issue()
        token.full_clean()
        token.save()
        return token, secret

    return make


@pytest.fixture
def api(make_token):
    """A client whose token has the given scopes (all of them by default)."""

    def client(*scopes: str, name: str = "planner") -> APIClient:
        _, secret = make_token(*(scopes or SCOPES), name=name)
        api_client = APIClient()
        api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        return api_client

    return client
