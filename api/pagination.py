"""Pagination: pages for lists (a page size that is not a whole number in range is a 400,
not silently the default); the long lists (briefings, briefs) and events page by a keyset
cursor instead (Keyset; BriefingEvents)."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

from django.db.models import Q
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import BasePagination, PageNumberPagination
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param


class Pages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        try:
            size = int(raw)
        except ValueError:
            raise ValidationError({self.page_size_query_param: "a whole number"}) from None
        if not 1 <= size <= self.max_page_size:
            raise ValidationError(
                {self.page_size_query_param: f"must be between 1 and {self.max_page_size}"}
            )
        return size

    def paginate_queryset(self, queryset, request, view=None):
        if request.query_params.get(self.page_query_param) == "":
            raise NotFound("Invalid page.")  # DRF would take an empty page as the first
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {
                    "type": "integer", "minimum": 1, "maximum": self.max_page_size
                }  # fmt: skip
            if parameter["name"] == self.page_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
        return parameters


class Keyset(BasePagination):
    """Pages of a list read by a keyset cursor: `?cursor=` (the `next` link's) continues
    after the last row seen, by the view's `keyset` ordering (a field then the primary key,
    both indexed together). No COUNT(*) and no OFFSET: every page costs the same, however
    long the list. A row added meanwhile is neither repeated nor skipped."""

    page_size = Pages.page_size
    page_size_query_param = Pages.page_size_query_param
    max_page_size = Pages.max_page_size
    cursor_query_param = "cursor"

    def get_page_size(self, request) -> int:
        return Pages.get_page_size(self, request)

    @staticmethod
    def _keyset(view) -> tuple[str, bool]:
        """The ordering field and whether it descends (`keyset = ("-created_at", "-id")`)."""
        first, _ = view.keyset
        return first.lstrip("-"), first.startswith("-")

    def _decode(self, raw: str) -> tuple[datetime, int]:
        try:
            value, pk = json.loads(base64.urlsafe_b64decode(raw.encode("ascii")))
            return datetime.fromisoformat(value), int(pk)
        except (ValueError, TypeError, UnicodeError, binascii.Error):
            # As DRF's own cursor pagination answers (and a page number past the end).
            raise NotFound("Invalid cursor.") from None

    @staticmethod
    def _encode(value: datetime, pk: int) -> str:
        return base64.urlsafe_b64encode(json.dumps([value.isoformat(), pk]).encode()).decode()

    def paginate_queryset(self, queryset, request, view=None):
        field, descending = self._keyset(view)
        size = self.get_page_size(request)
        queryset = queryset.filter(**{f"{field}__isnull": False}).order_by(*view.keyset)
        raw = request.query_params.get(self.cursor_query_param)
        if raw is not None:
            value, pk = self._decode(raw)
            before, beyond = ("lt", "lte") if descending else ("gt", "gte")
            # The bound on the field alone lets the index start at the cursor; the pair
            # then drops the rows of the same moment already shown.
            queryset = queryset.filter(**{f"{field}__{beyond}": value}).filter(
                Q(**{f"{field}__{before}": value}) | Q(**{field: value, f"pk__{before}": pk})
            )
        rows = list(queryset[: size + 1])
        self.request = request
        self.next_cursor = None
        if len(rows) > size:
            rows = rows[:size]
            self.next_cursor = self._encode(getattr(rows[-1], field), rows[-1].pk)
        return rows

    def get_next_link(self) -> str | None:
        if self.next_cursor is None:
            return None
        url = self.request.build_absolute_uri()
        return replace_query_param(url, self.cursor_query_param, self.next_cursor)

    def get_paginated_response(self, data) -> Response:
        return Response({"next": self.get_next_link(), "results": data})

    def get_paginated_response_schema(self, schema: dict) -> dict:
        return {
            "type": "object",
            "required": ["results"],
            "properties": {
                "next": {"type": "string", "nullable": True, "format": "uri"},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view) -> list[dict]:
        return [
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": "The `next` link's cursor: the page after it",
                "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]+=*$"},
            },
            {
                "name": self.page_size_query_param,
                "required": False,
                "in": "query",
                "description": "Rows per page",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_page_size},
            },
        ]
