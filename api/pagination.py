"""Pagination: pages for lists (a page size that is not a whole number in range is a 400,
not silently the default); events page by a keyset cursor instead (see BriefingEvents)."""

from __future__ import annotations

from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination


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
