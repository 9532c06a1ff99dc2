"""The API's JSON parser: DRF's, within the limits every entry point keeps (core.input):
a body nested too deep or with a giant integer is a 400 in the API's error shape, not a
RecursionError answered with an HTML 500."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser

from core.input import InputError, json_parse


class BoundedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        body = stream.read() if stream is not None else b""
        try:
            text = body.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            raise ParseError(f"JSON parse error - the body is not {encoding}") from None
        try:
            return json_parse(
                text,
                max_depth=settings.INPUT_JSON_MAX_DEPTH,
                max_int_digits=settings.INPUT_JSON_MAX_INT_DIGITS,
            )
        except InputError as error:
            if error.path == "$":
                raise ParseError(f"JSON parse error - {error.message}") from None
            raise ValidationError({error.path: [error.message]}) from None
