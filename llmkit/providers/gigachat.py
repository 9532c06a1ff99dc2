"""GigaChat (Sber) chat completions: cached OAuth token, flat JSON schema, SSE streaming."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from llmkit.providers.http import (
    DEFAULT_TIMEOUT_S,
    Deadline,
    HttpTransport,
    as_int,
    build_verify,
    is_event_stream,
)
from llmkit.providers.openai_compat import (
    ChatCompletionsStream,
    completion_from_json,
    first_message,
)
from llmkit.session import current_cache_session
from llmkit.streaming import USAGE_WAIT_S, iter_sse_data
from llmkit.tools import ToolCall, ToolSpec, ToolStep, gigachat_functions
from llmkit.types import Completion, Message, ProviderError, Usage

SCOPES = ("GIGACHAT_API_PERS", "GIGACHAT_API_B2B", "GIGACHAT_API_CORP")
DEFAULT_BASE_URL = "https://gigachat.devices.sberbank.ru/api/v1"
DEFAULT_OAUTH_URL = "https://ngw.devices.sberbank.ru:9443/api/v2/oauth"
# A token is renewed this long before it expires, so it never dies in the middle of a call.
TOKEN_REFRESH_MARGIN_S = 60.0


def usage_from_gigachat(usage: Mapping[str, Any] | None) -> Usage:
    if not usage:
        return Usage()
    return Usage(
        prompt_tokens=as_int(usage.get("prompt_tokens")),
        cached_tokens=as_int(usage.get("precached_prompt_tokens")),
        completion_tokens=as_int(usage.get("completion_tokens")),
    )


class _Unauthorized(Exception):
    """The chat endpoint refused the token: refresh it once and try again."""

    def __init__(self, error: ProviderError) -> None:
        super().__init__(str(error))
        self.error = error


class GigaChatProvider:
    """GigaChat REST API. The access token (~30 min) is cached per instance, across threads.

    A 401 from the chat endpoint gets one token refresh and one retry; a second 401 is an
    "auth" error. `ca_bundle` adds a CA (commonly the Russian Ministry root) to the trust store.
    """

    def __init__(
        self,
        auth_key: str,
        scope: str = "GIGACHAT_API_PERS",
        model: str = "GigaChat",
        base_url: str = DEFAULT_BASE_URL,
        oauth_url: str = DEFAULT_OAUTH_URL,
        ca_bundle: str | Path | None = None,
        verify: bool = True,
        *,
        name: str = "gigachat",
        timeout_s: float = DEFAULT_TIMEOUT_S,
        clock: Callable[[], float] = time.time,
        usage_wait_s: float = USAGE_WAIT_S,
    ) -> None:
        if not auth_key:
            raise ValueError("GigaChat needs an authorization key")
        if scope not in SCOPES:
            raise ValueError(f"GigaChat scope must be one of {', '.join(SCOPES)}, not {scope!r}")
        self.auth_key = auth_key
        self.scope = scope
        self.model = model
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.oauth_url = oauth_url
        self.timeout_s = timeout_s
        self.usage_wait_s = usage_wait_s  # after the answer, for the usage chunk
        # Wall clock, not monotonic: `expires_at` from the OAuth answer is a Unix time.
        self._clock = clock
        self._http = HttpTransport(name, verify=build_verify(verify, ca_bundle))
        self._token_lock = threading.Lock()
        self._token: str | None = None
        self._token_expires_at = 0.0  # Unix seconds
        self.token_exchanges = 0  # how many OAuth round trips this instance made

    def __repr__(self) -> str:
        return (
            f"GigaChatProvider(scope={self.scope!r}, model={self.model!r}, url={self.base_url!r})"
        )

    def close(self) -> None:
        self._http.close()

    # --- OAuth -----------------------------------------------------------------------

    def _access_token(self, deadline: Deadline, *, stale: str | None = None) -> str:
        """A valid token, exchanging the key for a new one when missing, expiring or `stale`.

        The lock makes concurrent callers wait for one exchange instead of each doing their
        own; `stale` is the token that just got a 401, so only the first caller to see the
        401 replaces it and the others reuse the fresh one.
        """
        with self._token_lock:
            fresh_enough = self._clock() < self._token_expires_at - TOKEN_REFRESH_MARGIN_S
            if self._token is not None and fresh_enough and self._token != stale:
                return self._token
            answer = self._http.post_json(
                self.oauth_url,
                deadline=deadline,
                form={"scope": self.scope},
                headers={
                    "Authorization": f"Basic {self.auth_key}",
                    "RqUID": str(uuid.uuid4()),
                    "Content-Type": "application/x-www-form-urlencoded",
                    "Accept": "application/json",
                },
            )
            self.token_exchanges += 1
            token = answer.get("access_token") if isinstance(answer, Mapping) else None
            expires_at = answer.get("expires_at") if isinstance(answer, Mapping) else None
            if not isinstance(token, str) or not token or not isinstance(expires_at, int | float):
                raise ProviderError(
                    "bad_response",
                    f"OAuth answer lacks access_token/expires_at: {str(answer)[:200]!r}",
                    provider=self.name,
                )
            self._token = token
            # Sber sends milliseconds; tolerate seconds in case a proxy or stub rewrites it.
            self._token_expires_at = expires_at / 1000 if expires_at > 1e11 else float(expires_at)
            return token

    # --- chat ------------------------------------------------------------------------

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
            "stream": stream,
        }
        if schema is not None:
            # GigaChat's response_format is flat: no `json_schema` wrapper as in OpenAI's.
            body["response_format"] = {"type": "json_schema", "schema": schema, "strict": True}
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
        body = self._body(
            messages, temperature=temperature, max_tokens=max_tokens, schema=schema, stream=stream
        )
        token = self._access_token(deadline)
        try:
            return self._chat_once(body, token, deadline, stream=stream)
        except _Unauthorized:
            pass
        # The token was revoked or expired early: one refresh, one retry, then it is auth.
        token = self._access_token(deadline, stale=token)
        try:
            return self._chat_once(body, token, deadline, stream=stream)
        except _Unauthorized as second:
            raise ProviderError(
                "auth",
                f"chat refused a freshly exchanged token: {second.error.message}",
                provider=self.name,
                status=401,
            ) from None

    @staticmethod
    def _session_headers() -> dict[str, str]:
        """GigaChat caches a prompt's prefix only across requests of one session: every
        request of a conversation (tool steps included) carries its X-Session-ID, a UUID
        derived from it, so the same conversation always gets the same one."""
        headers = {"Accept": "application/json"}
        session = current_cache_session()
        if session:
            headers["X-Session-ID"] = str(uuid.uuid5(uuid.NAMESPACE_URL, session))
        return headers

    def _chat_once(
        self, body: dict[str, Any], token: str, deadline: Deadline, *, stream: bool
    ) -> Completion:
        headers = {"Authorization": f"Bearer {token}", **self._session_headers()}
        url = f"{self.base_url}/chat/completions"
        try:
            if not stream:
                data = self._http.post_json(url, deadline=deadline, json_body=body, headers=headers)
                return self._completion_from_json(data, deadline)
            collected = ChatCompletionsStream(self.name)
            with self._http.open_stream(
                url, deadline=deadline, json_body=body, headers=headers
            ) as response:
                if not is_event_stream(response):
                    data = self._http.decode_json(self._http.read_body(response, deadline))
                    return self._completion_from_json(data, deadline)
                events = iter_sse_data(self._http.iter_lines(response, deadline))
                collected.consume(events, self._http.decode_json)
                if collected.awaits_usage:
                    # GigaChat counts the tokens in the chunk that ends the stream.
                    wait_s = min(self.usage_wait_s, deadline.remaining())
                    with self._http.hang_up_after(response, wait_s):
                        collected.read_usage(events, self._http.decode_json)
        except ProviderError as error:
            if error.status == 401:
                raise _Unauthorized(error) from error
            raise
        collected.check_complete()
        return Completion(
            text=collected.tracker.text,
            provider=self.name,
            model=collected.model or self.model,
            usage=usage_from_gigachat(collected.usage_payload),
            latency_s=deadline.elapsed(),
            early_closed=collected.early_closed,
        )

    def _completion_from_json(self, data: Any, deadline: Deadline) -> Completion:
        return completion_from_json(
            data,
            provider=self.name,
            model=self.model,
            usage_of=usage_from_gigachat,
            deadline=deadline,
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
        """One tool step in GigaChat's format: `functions` with `function_call: "auto"`; an
        earlier call is an assistant message with `function_call` (arguments as an object),
        its result a `function` message whose content is a JSON string."""
        deadline = Deadline(timeout, default_s=self.timeout_s)
        body = self._body(
            messages, temperature=temperature, max_tokens=max_tokens, schema=None, stream=False
        )
        for call, result in exchanges:
            arguments = call.arguments_object()
            body["messages"].append(
                {"role": "assistant", "content": "",
                 "function_call": {"name": call.name, "arguments": arguments}}
            )  # fmt: skip
            body["messages"].append(
                {"role": "function", "name": call.name,
                 "content": json.dumps({"result": result}, ensure_ascii=False)}
            )  # fmt: skip
        body["functions"] = gigachat_functions(tools)
        body["function_call"] = "auto"
        url = f"{self.base_url}/chat/completions"
        token = self._access_token(deadline)
        for attempt in range(2):
            headers = {"Authorization": f"Bearer {token}", **self._session_headers()}
            try:
                data = self._http.post_json(url, deadline=deadline, json_body=body, headers=headers)
                break
            except ProviderError as error:
                if error.status != 401 or attempt:
                    raise
                token = self._access_token(deadline, stale=token)
        message = first_message(data, self.name)
        calls = []
        function_call = message.get("function_call")
        if isinstance(function_call, Mapping) and function_call.get("name"):
            arguments = function_call.get("arguments") or {}
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            call_id = str(message.get("functions_state_id") or "function_call")
            calls.append(ToolCall(call_id, str(function_call["name"]), arguments))
        usage = usage_from_gigachat(data.get("usage"))
        return ToolStep(str(message.get("content") or ""), tuple(calls), usage)
