"""One error shape for every API failure: {"error": {"code", "message", "fields"}}."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig, TooManyFieldsSent
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from core.errors import ApplicationError, ErrorCode


def _fields(detail: Any, prefix: str = "") -> dict[str, str]:
    """DRF's nested error detail flattened to "path": "message"."""
    if isinstance(detail, dict):
        out: dict[str, str] = {}
        for key, value in detail.items():
            name = "$" if key == "non_field_errors" else f"{prefix}{key}"
            out.update(_fields(value, f"{name}."))
        return out
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return {prefix.rstrip(".") or "$": " ".join(str(item) for item in detail)}
        out = {}
        for index, item in enumerate(detail):
            out.update(_fields(item, f"{prefix}{index}."))
        return out
    return {prefix.rstrip(".") or "$": str(detail)}


# A domain refusal's status by its code: the one place an ErrorCode becomes HTTP.
STATUS_BY_CODE: dict[ErrorCode, int] = {
    ErrorCode.INVALID: status.HTTP_400_BAD_REQUEST,
    ErrorCode.CONFLICT: status.HTTP_409_CONFLICT,
    ErrorCode.NOT_FOUND: status.HTTP_404_NOT_FOUND,
    ErrorCode.THROTTLED: status.HTTP_429_TOO_MANY_REQUESTS,
    ErrorCode.IDEMPOTENCY_KEY_REUSED: status.HTTP_422_UNPROCESSABLE_ENTITY,
}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ApplicationError):
        fields = exc.extra.get("fields") or {}
        if isinstance(fields, list):
            fields = {str(f.get("path") or "$"): str(f.get("message")) for f in fields}
        response = _error(str(exc.code), exc.message, fields, STATUS_BY_CODE[exc.code])
        if "retry_after_s" in exc.extra:
            response["Retry-After"] = str(exc.extra["retry_after_s"])
        return response
    if isinstance(exc, RequestDataTooBig | TooManyFieldsSent):
        return _error("too_large", f"The request is too large: {exc}", {}, 413)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        message, fields = "The request is not valid.", _fields(exc.detail)
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        message, fields = str(detail), {}
    code = exc.get_codes() if isinstance(exc, exceptions.APIException) else "error"
    if not isinstance(code, str):
        code = "invalid"
    response.data = {"error": {"code": code, "message": message, "fields": fields}}
    return response


def _error(code: str, message: str, fields: dict[str, str], status_code: int) -> Response:
    return Response(
        {"error": {"code": code, "message": message, "fields": fields}}, status=status_code
    )
