"""The OpenAPI schema's error responses: every operation documents the one error shape for
the failures it can give, so a client (and the schema fuzzing) knows them all."""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "fields"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "fields": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        }
    },
}
ERRORS = {
    "400": "The request is not valid; `fields` says where",
    "401": "No token, or a token that is not valid",
    "403": "The token (or user) lacks the scope",
    "404": "Not found, or not this caller's",
    "405": "Method not allowed",
    "406": "Not acceptable",
    "413": "The body is over the upload limit",
    "415": "Unsupported media type",
    "429": "Over the rate limit; see Retry-After",
}


def add_error_responses(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    reference = {"$ref": "#/components/schemas/Error"}
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            responses = operation.setdefault("responses", {})
            # An error an operation documents itself (422 on the messages endpoint) has the
            # same shape as every other.
            for code, response in responses.items():
                if code.startswith("4") and "content" not in response:
                    response["content"] = {"application/json": {"schema": reference}}
            for code, description in ERRORS.items():
                responses.setdefault(
                    code,
                    {
                        "description": description,
                        "content": {"application/json": {"schema": reference}},
                    },
                )
    return result
