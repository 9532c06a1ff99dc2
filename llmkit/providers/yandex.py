"""YandexGPT Foundation Models text generation (`/completion`), plain and streamed."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from llmkit.providers.http import (
    DEFAULT_TIMEOUT_S,
    Deadline,
    HttpTransport,
    as_int,
    build_verify,
    error_for_status,
)
from llmkit.streaming import AFTER_ANSWER_MAX_CHARS, USAGE_WAIT_S, JsonObjectTracker
from llmkit.tools import ToolCall, ToolSpec, ToolStep, yandex_tools
from llmkit.types import Completion, Message, ProviderError, Usage

DEFAULT_BASE_URL = "https://llm.api.cloud.yandex.net/foundationModels/v1"
# Statuses that end an alternative; PARTIAL is the only "more to come" one.
_FINAL_STATUSES = {
    "ALTERNATIVE_STATUS_FINAL",
    "ALTERNATIVE_STATUS_TRUNCATED_FINAL",
    "ALTERNATIVE_STATUS_TOOL_CALLS",
}
_REFUSED_STATUS = "ALTERNATIVE_STATUS_CONTENT_FILTER"


def usage_from_yandex(usage: Mapping[str, Any] | None) -> Usage:
    """Yandex sends token counts as strings ("12"); cached counts only on some models."""
    if not usage:
        return Usage()
    cached: Any = usage.get("cachedTokens")
    for details_key in ("inputTextTokensDetails", "completionTokensDetails"):
        details = usage.get(details_key)
        if cached is None and isinstance(details, Mapping):
            cached = details.get("cachedTokens")
    return Usage(
        prompt_tokens=as_int(usage.get("inputTextTokens")),
        cached_tokens=as_int(cached),
        completion_tokens=as_int(usage.get("completionTokens")),
    )


def iter_json_objects(chunks: Iterable[str]) -> Iterator[Any]:
    """Decode consecutive JSON values from text chunks (newline-delimited or not)."""
    decoder = json.JSONDecoder()
    buffer = ""
    for chunk in chunks:
        buffer += chunk
        while True:
            buffer = buffer.lstrip()
            if not buffer:
                break
            try:
                value, end = decoder.raw_decode(buffer)
            except ValueError:
                break  # incomplete: wait for more text
            buffer = buffer[end:]
            yield value
    if buffer.strip():
        raise ValueError(f"stream ended inside a JSON object: {buffer[:200]!r}")


class YandexGPTProvider:
    """YandexGPT by Api-Key or IAM token.

    With stream=True each streamed object carries the full text so far; the new suffix is
    fed to the JSON tracker and, once the first object has closed, the stream is read up to
    `usage_wait_s` more for the final result's token counts, then closed.
    """

    def __init__(
        self,
        folder_id: str,
        api_key: str | None = None,
        iam_token: str | None = None,
        model: str = "yandexgpt/latest",
        base_url: str = DEFAULT_BASE_URL,
        *,
        name: str = "yandex",
        verify: bool | str = True,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        usage_wait_s: float = USAGE_WAIT_S,
    ) -> None:
        if not folder_id:
            raise ValueError("YandexGPT needs a folder id")
        if not api_key and not iam_token:
            raise ValueError("YandexGPT needs an API key or an IAM token")
        self.folder_id = folder_id
        self.api_key = api_key
        self.iam_token = iam_token
        self.model = model
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.usage_wait_s = usage_wait_s  # after the answer, for the final result's counts
        self._http = HttpTransport(name, verify=build_verify(verify))

    def __repr__(self) -> str:
        return f"YandexGPTProvider(folder_id={self.folder_id!r}, model={self.model!r})"

    def close(self) -> None:
        self._http.close()

    @property
    def model_uri(self) -> str:
        if self.model.startswith(("gpt://", "ds://")):
            return self.model
        return f"gpt://{self.folder_id}/{self.model}"

    def _headers(self) -> dict[str, str]:
        # An API key wins over an IAM token: keys do not expire after 12 hours.
        auth = f"Api-Key {self.api_key}" if self.api_key else f"Bearer {self.iam_token}"
        return {"Authorization": auth, "x-folder-id": self.folder_id, "Accept": "application/json"}

    def _body(
        self,
        messages: Sequence[Message],
        *,
        temperature: float,
        max_tokens: int,
        schema: dict | None,
        stream: bool,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "modelUri": self.model_uri,
            "completionOptions": {
                "stream": stream,
                "temperature": temperature,
                "maxTokens": str(max_tokens),  # int64 travels as a string in Yandex's REST
            },
            "messages": [{"role": m.role, "text": m.content} for m in messages],
        }
        if schema is not None:
            body["jsonSchema"] = {"schema": schema}
        else:
            # Every caller in this project wants JSON; without a schema ask for any object.
            body["jsonObject"] = True
        return body

    def chat(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.3,
        max_tokens: int = 1024,
        schema: dict | None = None,
        stream: bool = False,
        timeout: float | None = None,
    ) -> Completion:
        deadline = Deadline(timeout, default_s=self.timeout_s)
        url = f"{self.base_url}/completion"
        body = self._body(
            messages, temperature=temperature, max_tokens=max_tokens, schema=schema, stream=stream
        )
        if not stream:
            data = self._http.post_json(
                url, deadline=deadline, json_body=body, headers=self._headers()
            )
            result = self._result(data)
            text, status = self._alternative(result)
            if status not in _FINAL_STATUSES:
                raise ProviderError(
                    "bad_response", f"answer not final: status {status}", provider=self.name
                )
            return Completion(
                text=text,
                provider=self.name,
                model=str(result.get("modelVersion") or self.model),
                usage=usage_from_yandex(result.get("usage")),
                latency_s=deadline.elapsed(),
            )

        tracker = JsonObjectTracker()
        text_so_far = ""
        status = ""
        usage: Mapping[str, Any] | None = None
        model_version: str | None = None
        early_closed = False
        with self._http.open_stream(
            url, deadline=deadline, json_body=body, headers=self._headers()
        ) as response:
            results = iter_json_objects(self._http.iter_text(response, deadline))
            try:
                for data in results:
                    result = self._result(data)
                    text, status = self._alternative(result)
                    usage = result.get("usage") or usage
                    model_version = result.get("modelVersion") or model_version
                    if text.startswith(text_so_far):
                        delta = text[len(text_so_far) :]
                    else:
                        # The model rewrote earlier text (not expected): track the new text.
                        tracker, delta = JsonObjectTracker(), text
                    text_so_far = text
                    if delta and tracker.feed(delta) is not None:
                        early_closed = True
                        break
                    if status in _FINAL_STATUSES:
                        break
            except ValueError as exc:
                raise ProviderError("bad_response", str(exc), provider=self.name) from exc
            if early_closed and status not in _FINAL_STATUSES:
                # Every result counts the tokens so far; the final one counts the whole
                # answer (and the cached prompt tokens), so wait a little for it.
                wait_s = min(self.usage_wait_s, deadline.remaining())
                with self._http.hang_up_after(response, wait_s):
                    usage = self._final_usage(results, usage, answer_chars=len(tracker.text))
        if not early_closed and status not in _FINAL_STATUSES:
            raise ProviderError(
                "bad_response",
                f"stream ended before the answer was complete (status {status or 'none'})",
                provider=self.name,
            )
        return Completion(
            text=tracker.text,
            provider=self.name,
            model=model_version or self.model,
            usage=usage_from_yandex(usage),
            latency_s=deadline.elapsed(),
            early_closed=early_closed,
        )

    def _final_usage(
        self, results: Iterator[Any], usage: Mapping[str, Any] | None, *, answer_chars: int
    ) -> Mapping[str, Any] | None:
        """Read on past the answer (its first `answer_chars` characters) for the final
        result's counts, until it came, the stream ended or failed (the caller's hang-up
        ends it this way too) or the model kept talking; else the latest counts seen. The
        answer is complete whatever happens here: nothing is raised."""
        try:
            for data in results:
                result = self._result(data)
                usage = result.get("usage") or usage
                text, status = self._alternative(result)
                if status in _FINAL_STATUSES or len(text) - answer_chars > AFTER_ANSWER_MAX_CHARS:
                    break
        except (ProviderError, ValueError):
            pass
        return usage

    def _result(self, data: Any) -> Mapping[str, Any]:
        if isinstance(data, Mapping) and isinstance(data.get("error"), Mapping):
            # Errors after the 200 arrive as {"error": {"httpCode": ..., "message": ...}}.
            error = data["error"]
            status = as_int(error.get("httpCode")) or 500
            raise error_for_status(self.name, status, json.dumps(error, ensure_ascii=False))
        result = data.get("result") if isinstance(data, Mapping) else None
        if not isinstance(result, Mapping):
            raise ProviderError(
                "bad_response", f"no `result` in {str(data)[:200]!r}", provider=self.name
            )
        return result

    def _alternative(self, result: Mapping[str, Any]) -> tuple[str, str]:
        try:
            alternative = result["alternatives"][0]
            text = alternative["message"]["text"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ProviderError(
                "bad_response",
                f"no alternatives[0].message.text in {str(result)[:200]!r}",
                provider=self.name,
            ) from exc
        status = str(alternative.get("status") or "ALTERNATIVE_STATUS_FINAL")
        if status == _REFUSED_STATUS:
            raise ProviderError(
                "bad_response",
                "the answer was withheld by Yandex's content filter",
                provider=self.name,
            )
        if not isinstance(text, str):
            raise ProviderError("bad_response", "message.text is not a string", provider=self.name)
        return text, status

    def chat_tools(
        self,
        messages: Sequence[Message],
        *,
        exchanges: Sequence[tuple[ToolCall, str]],
        tools: Sequence[ToolSpec],
        temperature: float = 0.0,
        max_tokens: int = 256,
        timeout: float | None = None,
    ) -> ToolStep:
        """One tool step in Foundation Models' format: `tools` of function tools; an earlier
        call is an assistant message with a `toolCallList`, its result a user message with a
        `toolResultList`. Tool calls come back under ALTERNATIVE_STATUS_TOOL_CALLS."""
        deadline = Deadline(timeout, default_s=self.timeout_s)
        body = self._body(
            messages, temperature=temperature, max_tokens=max_tokens, schema=None, stream=False
        )
        body.pop("jsonObject", None)  # a tool step answers with calls, not a JSON object
        for call, result in exchanges:
            arguments = call.arguments_object()
            body["messages"].append(
                {"role": "assistant", "toolCallList": {"toolCalls": [
                    {"functionCall": {"name": call.name, "arguments": arguments}}]}}
            )  # fmt: skip
            body["messages"].append(
                {"role": "user", "toolResultList": {"toolResults": [
                    {"functionResult": {"name": call.name, "content": result}}]}}
            )  # fmt: skip
        body["tools"] = yandex_tools(tools)
        data = self._http.post_json(
            f"{self.base_url}/completion", deadline=deadline, json_body=body,
            headers=self._headers(),
        )  # fmt: skip
        result = self._result(data)
        try:
            message = result["alternatives"][0]["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ProviderError(
                "bad_response", f"no alternatives[0].message in {str(result)[:200]!r}",
                provider=self.name,
            ) from exc  # fmt: skip
        calls = []
        for index, raw in enumerate((message.get("toolCallList") or {}).get("toolCalls") or []):
            function = raw.get("functionCall") or {}
            arguments = function.get("arguments") or {}
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            calls.append(ToolCall(f"call_{index}", str(function.get("name")), arguments))
        usage = usage_from_yandex(result.get("usage"))
        return ToolStep(str(message.get("text") or ""), tuple(calls), usage)
