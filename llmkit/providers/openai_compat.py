"""OpenAI-compatible chat completions (OpenAI, vLLM, Ollama, LM Studio, llama.cpp server)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from llmkit.providers.http import (
    DEFAULT_TIMEOUT_S,
    Deadline,
    HttpTransport,
    as_int,
    build_verify,
    is_event_stream,
)
from llmkit.streaming import (
    AFTER_ANSWER_MAX_CHARS,
    USAGE_WAIT_S,
    JsonObjectTracker,
    iter_sse_data,
)
from llmkit.tools import ToolCall, ToolSpec, ToolStep, openai_tools
from llmkit.types import Completion, Message, ProviderError, Usage

_SCHEMA_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_-]")

# How a schema travels: OpenAI's strict `json_schema` (OpenAI, vLLM, llama.cpp's C++ server,
# LM Studio); `json_object` with a `schema` beside it (llama-cpp-python's server, which
# refuses `json_schema`); or `off`, leaving the schema to the prompt.
SchemaFormat = Literal["json_schema", "json_object", "off"]


def schema_name(schema: Mapping[str, Any]) -> str:
    """The `json_schema.name` OpenAI requires: [a-zA-Z0-9_-], at most 64 characters."""
    title = str(schema.get("title") or "answer")
    return _SCHEMA_NAME_CHARS.sub("_", title)[:64] or "answer"


def usage_from_openai(usage: Mapping[str, Any] | None) -> Usage:
    if not usage:
        return Usage()
    details = usage.get("prompt_tokens_details") or {}
    return Usage(
        prompt_tokens=as_int(usage.get("prompt_tokens")),
        cached_tokens=as_int(details.get("cached_tokens") if isinstance(details, Mapping) else 0),
        completion_tokens=as_int(usage.get("completion_tokens")),
    )


class ChatCompletionsStream:
    """Collects a `chat.completion.chunk` SSE stream, stopping once the JSON object closed.

    Shared by the OpenAI-compatible and GigaChat providers, whose streams differ only in how
    usage is reported: OpenAI in a chunk of its own with no choices after the last one
    (asked for with `stream_options.include_usage`), GigaChat in the chunk that carries the
    finish reason.
    """

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.tracker = JsonObjectTracker()
        self.model: str | None = None
        self.finish_reason: str | None = None
        self.usage_payload: Mapping[str, Any] | None = None
        # True once the counts of the whole answer came (some servers count every chunk).
        self.usage_final = False
        self.early_closed = False
        self._past_answer = 0  # characters the model sent after the closing brace

    def _chunk(self, payload: str, decode: Any) -> Mapping[str, Any]:
        chunk = decode(payload)
        if not isinstance(chunk, Mapping):
            raise ProviderError(
                "bad_response",
                f"stream event is not an object: {payload[:200]!r}",
                provider=self.provider,
            )
        if "error" in chunk:
            # Servers report failures that happen after the 200 inside the stream.
            raise ProviderError(
                "server",
                f"error inside the stream: {chunk['error']!r}"[:2000],
                provider=self.provider,
            )
        self.model = chunk.get("model") or self.model
        if chunk.get("usage"):
            self.usage_payload = chunk["usage"]
            choices = chunk.get("choices") or []
            self.usage_final = not choices or any(
                isinstance(choice, Mapping) and choice.get("finish_reason") for choice in choices
            )
        return chunk

    @staticmethod
    def _contents(chunk: Mapping[str, Any]) -> Iterator[tuple[str | None, Mapping[str, Any]]]:
        """(text, choice) of the first choice's delta in this chunk."""
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            content = delta.get("content") if isinstance(delta, Mapping) else None
            yield (content if isinstance(content, str) else None), choice

    def consume(self, payloads: Iterator[str], decode: Any) -> None:
        """Read events until the answer's JSON object closed or the stream ended; the
        events after the close are left in `payloads` for `read_usage`."""
        for payload in payloads:
            chunk = self._chunk(payload, decode)
            for content, choice in self._contents(chunk):
                if content is not None and (cut := self.tracker.feed(content)) is not None:
                    # The answer is complete: what the model says after it is not read.
                    self.early_closed = True
                    self._past_answer = len(content) - cut
                    return
                if choice.get("finish_reason"):
                    self.finish_reason = choice["finish_reason"]

    @property
    def awaits_usage(self) -> bool:
        """The answer closed before the stream ended and its counts are still to come."""
        return self.early_closed and not self.usage_final

    def read_usage(self, payloads: Iterator[str], decode: Any) -> None:
        """Read on past the answer for the usage the server sends last, until it came, the
        stream ended, it failed (the caller's hang-up ends it this way too) or the model
        kept talking. The answer is complete whatever happens here: nothing is raised."""
        try:
            for payload in payloads:
                chunk = self._chunk(payload, decode)
                if self.usage_final:
                    return
                for content, _choice in self._contents(chunk):
                    self._past_answer += len(content or "")
                if self._past_answer > AFTER_ANSWER_MAX_CHARS:
                    return
        except ProviderError:
            return

    def check_complete(self) -> None:
        if not self.early_closed and self.finish_reason is None:
            raise ProviderError(
                "bad_response",
                f"stream ended before the answer was complete: {self.tracker.text[-200:]!r}",
                provider=self.provider,
            )


def first_message(data: Any, provider: str) -> Any:
    """`choices[0].message` of a chat completion answer; a ProviderError when it has none."""
    try:
        return data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ProviderError(
            "bad_response", f"no choices[0].message in {str(data)[:200]!r}", provider=provider
        ) from exc


def message_content(data: Any, provider: str) -> tuple[str, Mapping[str, Any]]:
    """The first choice's text and the usage block of a non-streamed chat completion."""
    message = first_message(data, provider)
    content = message.get("content") if isinstance(message, Mapping) else None
    if not isinstance(content, str):
        refusal = message.get("refusal") if isinstance(message, Mapping) else None
        raise ProviderError(
            "bad_response",
            f"no text content in the answer (refusal: {refusal!r})",
            provider=provider,
        )
    usage = data.get("usage") if isinstance(data, Mapping) else None
    return content, usage or {}


def completion_from_json(
    data: Any,
    *,
    provider: str,
    model: str,
    usage_of: Callable[[Mapping[str, Any] | None], Usage],
    deadline: Deadline,
) -> Completion:
    """A non-streamed chat completion answer as a Completion; `usage_of` reads the usage
    block the way the provider reports it (OpenAI-compatible servers, GigaChat)."""
    text, usage = message_content(data, provider)
    return Completion(
        text=text,
        provider=provider,
        model=str(data.get("model") or model),
        usage=usage_of(usage),
        latency_s=deadline.elapsed(),
    )


class OpenAICompatProvider:
    """POST {base_url}/chat/completions with optional strict JSON schema and SSE streaming.

    With stream=True the answer is read up to the close of its first top-level JSON object;
    the server reports usage only at the end of a stream, so the connection stays open up to
    `usage_wait_s` more for it. An early-closed Completion whose usage did not come in that
    time carries zero usage.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        model: str,
        name: str = "openai",
        verify: bool | str | Path = True,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        schema_format: SchemaFormat = "json_schema",
        usage_wait_s: float = USAGE_WAIT_S,
    ) -> None:
        if schema_format not in ("json_schema", "json_object", "off"):
            raise ValueError(f"unknown schema_format {schema_format!r}")
        self.schema_format = schema_format
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.name = name
        self.timeout_s = timeout_s
        self.usage_wait_s = usage_wait_s
        self._http = HttpTransport(name, verify=build_verify(verify))

    def __repr__(self) -> str:
        return f"OpenAICompatProvider({self.name!r}, url={self.base_url!r}, model={self.model!r})"

    def close(self) -> None:
        self._http.close()

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

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
            "model": self.model,
            "messages": [message.as_dict() for message in messages],
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        if schema is not None and self.schema_format == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name(schema), "schema": schema, "strict": True},
            }
        elif schema is not None and self.schema_format == "json_object":
            body["response_format"] = {"type": "json_object", "schema": schema}
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    def _completion_from_json(self, data: Any, deadline: Deadline) -> Completion:
        return completion_from_json(
            data,
            provider=self.name,
            model=self.model,
            usage_of=usage_from_openai,
            deadline=deadline,
        )

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
        url = f"{self.base_url}/chat/completions"
        body = self._body(
            messages, temperature=temperature, max_tokens=max_tokens, schema=schema, stream=stream
        )
        if not stream:
            data = self._http.post_json(
                url, deadline=deadline, json_body=body, headers=self._headers()
            )
            return self._completion_from_json(data, deadline)

        collected = ChatCompletionsStream(self.name)
        with self._http.open_stream(
            url, deadline=deadline, json_body=body, headers=self._headers()
        ) as response:
            if not is_event_stream(response):
                # Some servers ignore `stream` and answer in one JSON body; take it as is.
                data = self._http.decode_json(self._http.read_body(response, deadline))
                return self._completion_from_json(data, deadline)
            events = iter_sse_data(self._http.iter_lines(response, deadline))
            collected.consume(events, self._http.decode_json)
            if collected.awaits_usage:
                wait_s = min(self.usage_wait_s, deadline.remaining())
                with self._http.hang_up_after(response, wait_s):
                    collected.read_usage(events, self._http.decode_json)
        collected.check_complete()
        return Completion(
            text=collected.tracker.text,
            provider=self.name,
            model=collected.model or self.model,
            usage=usage_from_openai(collected.usage_payload),
            latency_s=deadline.elapsed(),
            early_closed=collected.early_closed,
        )

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
        """One tool step in the chat completions format: `tools` offered, the earlier calls
        and their results as assistant `tool_calls` and `tool` messages. Returns the calls
        the model asks for (none when it answers in text)."""
        deadline = Deadline(timeout, default_s=self.timeout_s)
        body = self._body(
            messages, temperature=temperature, max_tokens=max_tokens, schema=None, stream=False
        )
        for call, result in exchanges:
            body["messages"].append(
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": call.id, "type": "function",
                     "function": {"name": call.name, "arguments": call.arguments}}]}
            )  # fmt: skip
            body["messages"].append({"role": "tool", "tool_call_id": call.id, "content": result})
        body["tools"] = openai_tools(tools)
        body["tool_choice"] = "auto"
        data = self._http.post_json(
            f"{self.base_url}/chat/completions", deadline=deadline, json_body=body,
            headers=self._headers(),
        )  # fmt: skip
        return tool_step_from_openai(data, self.name)


def tool_step_from_openai(data: Any, provider: str) -> ToolStep:
    """The tool calls (or the text) of a chat completion answer."""
    message = first_message(data, provider)
    calls = []
    for index, raw in enumerate(message.get("tool_calls") or []):
        function = raw.get("function") or {}
        arguments = function.get("arguments")
        if not isinstance(arguments, str):  # some servers send an object
            import json

            arguments = json.dumps(arguments or {}, ensure_ascii=False)
        calls.append(
            ToolCall(str(raw.get("id") or f"call_{index}"), str(function.get("name")), arguments)
        )
    usage = usage_from_openai(data.get("usage"))
    return ToolStep(str(message.get("content") or ""), tuple(calls), usage)
