"""Clients of the Governance Gateway API.

Behaviour from the spec: idempotent failures (5xx, network errors) are
retried once after 100 ms; a governance ``block`` is a result, not an error;
any status >= 400 raises :class:`GatewayError` with status, message and
request id. Timeouts: 30 s for verify and chat, 5 s for events.
"""
from __future__ import annotations

import asyncio
import atexit
import json
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional

import httpx

ALLOW, REWRITE, REGENERATE, BLOCK = "allow", "rewrite", "regenerate", "block"
CHAT_TIMEOUT, EVENTS_TIMEOUT, RETRY_DELAY = 30.0, 5.0, 0.1
MAX_BATCH = 500


class GatewayError(Exception):
    """A failed call: HTTP status >= 400, or a network failure (status 0)."""

    def __init__(self, status: int, message: str, request_id: str = "", body: Any = None):
        super().__init__(f"HTTP {status}: {message}" if status else message)
        self.status, self.message, self.request_id, self.body = status, message, request_id, body


def _error(resp: httpx.Response) -> GatewayError:
    msg, rid, body = resp.reason_phrase or "error", resp.headers.get("X-Service-Request-Id", ""), None
    try:
        body = resp.json()
        err = body.get("error")
        if isinstance(err, str):
            msg = err
        elif isinstance(err, dict) and err.get("message"):
            msg = err["message"]
        rid = body.get("request_id") or rid
    except (ValueError, AttributeError):
        pass
    return GatewayError(resp.status_code, msg, rid, body)


def _dims(use_case=None, team_id=None, integration_id=None, end_user_id=None, session_id=None) -> Dict[str, str]:
    h = {"X-Use-Case": use_case, "X-Team-Id": team_id, "X-Integration-Id": integration_id,
         "X-End-User-Id": end_user_id, "X-Session-Id": session_id}
    return {k: v for k, v in h.items() if v}


@dataclass
class StreamEvent:
    """A text ``delta``, or the ``final`` governance decision that ends a
    stream. When ``final["answer_changed"]`` is true, replace the text you
    rendered with ``final["answer"]``."""
    delta: str = ""
    final: Optional[Dict[str, Any]] = None


def _parse_sse_line(line: str) -> Optional[StreamEvent]:
    if not line.startswith("data:"):
        return None
    data = line[5:].strip()
    if data == "[DONE]":
        return StreamEvent(final={"done": True})
    try:
        ev = json.loads(data)
    except ValueError:
        return None
    if ev.get("error"):
        raise GatewayError(502, ev["error"].get("message", "stream failed"), ev.get("request_id", ""))
    if ev.get("governance"):
        return StreamEvent(final=ev["governance"])
    ch = ev.get("choices") or []
    if ch and (ch[0].get("delta") or {}).get("content"):
        return StreamEvent(delta=ch[0]["delta"]["content"])
    return None


class Client:
    """Synchronous client for one application key."""

    def __init__(self, base_url: str, api_key: str, http: Optional[httpx.Client] = None, retry_delay: float = RETRY_DELAY):
        self.base_url, self.api_key = base_url.rstrip("/"), api_key
        self._http = http or httpx.Client()
        self._retry_delay = retry_delay

    def close(self) -> None:
        self._http.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _post(self, path: str, body: Any, timeout: float, headers: Optional[Dict[str, str]] = None) -> httpx.Response:
        h = {"X-API-Key": self.api_key, **(headers or {})}
        last: Optional[Exception] = None
        for attempt in range(2):
            if attempt:
                time.sleep(self._retry_delay)
            try:
                resp = self._http.post(self.base_url + path, json=body, headers=h, timeout=timeout)
            except httpx.HTTPError as e:
                last = GatewayError(0, f"cannot reach the gateway: {e}")
                continue
            if resp.status_code >= 500:
                last = _error(resp)
                continue
            if resp.status_code >= 400:
                raise _error(resp)
            return resp
        assert last is not None
        raise last

    # Events -----------------------------------------------------------
    def send_events(self, events: List[Dict[str, Any]]) -> Dict[str, Any]:
        """Post 1 to 500 canonical events; a 207 returns its rejections."""
        if not 1 <= len(events) <= MAX_BATCH:
            raise ValueError(f"a batch holds 1 to {MAX_BATCH} events")
        return self._post("/v1/events", {"events": events}, EVENTS_TIMEOUT).json()

    def send_event(self, event: Dict[str, Any]) -> Dict[str, Any]:
        return self.send_events([event])

    def exporter(self, **kw) -> "Exporter":
        return Exporter(self, **kw)

    # Verify -----------------------------------------------------------
    def verify(self, answer: str, prompt: Optional[str] = None, tool_result: Optional[str] = None,
               model: Optional[str] = None, provider: Optional[str] = None, **dims) -> Dict[str, Any]:
        body = {k: v for k, v in {"answer": answer, "prompt": prompt, "tool_result": tool_result,
                                  "model": model, "provider": provider}.items() if v is not None}
        return self._post("/v1/verify", body, CHAT_TIMEOUT, _dims(**dims)).json()

    # Chat -------------------------------------------------------------
    def chat(self, prompt: Optional[str] = None, messages: Optional[List[Dict[str, Any]]] = None, **params) -> Dict[str, Any]:
        body = {"prompt": prompt, "messages": messages, **params}
        return self._post("/v1/chat", {k: v for k, v in body.items() if v is not None}, CHAT_TIMEOUT).json()

    def chat_stream(self, prompt: Optional[str] = None, messages: Optional[List[Dict[str, Any]]] = None, **params) -> Iterator[StreamEvent]:
        body = {k: v for k, v in {"prompt": prompt, "messages": messages, **params, "stream": True}.items() if v is not None}
        h = {"X-API-Key": self.api_key}
        for attempt in range(2):
            try:
                with self._http.stream("POST", self.base_url + "/v1/chat", json=body, headers=h, timeout=CHAT_TIMEOUT) as resp:
                    if resp.status_code >= 500 and attempt == 0:
                        resp.read()
                        time.sleep(self._retry_delay)
                        continue
                    if resp.status_code >= 400:
                        resp.read()
                        raise _error(resp)
                    for line in resp.iter_lines():
                        ev = _parse_sse_line(line)
                        if ev is None:
                            continue
                        if ev.final and ev.final.get("done"):
                            return
                        yield ev
                    raise GatewayError(502, "the stream ended without [DONE]")
            except httpx.HTTPError as e:
                if attempt == 0:
                    time.sleep(self._retry_delay)
                    continue
                raise GatewayError(0, f"cannot reach the gateway: {e}")

    def proxy_settings(self, mode: Optional[str] = None, **dims) -> Dict[str, Any]:
        return proxy_settings(self.base_url, self.api_key, mode, **dims)


def proxy_settings(base_url: str, api_key: str, mode: Optional[str] = None, **dims) -> Dict[str, Any]:
    """Arguments for the official OpenAI client to go through the proxy:
    ``openai.OpenAI(api_key=<upstream key>, **proxy_settings(url, key, "guard"))``."""
    headers = {"X-Service-Api-Key": api_key, **_dims(**dims)}
    if mode:
        headers["X-Service-Mode"] = mode
    return {"base_url": base_url.rstrip("/") + "/v1", "default_headers": headers}


class Exporter:
    """Background event exporter: ``add`` never blocks; batches of up to 500
    are sent every ``flush_interval`` seconds and at exit; every rejected
    event (or failed batch) is passed to ``on_rejected``."""

    def __init__(self, client: Client, batch_size: int = MAX_BATCH, flush_interval: float = 1.0,
                 queue_size: int = 10000, on_rejected: Optional[Callable[[List[Dict[str, Any]], Optional[Exception]], None]] = None):
        self._c, self._batch, self._interval = client, min(max(batch_size, 1), MAX_BATCH), flush_interval
        self._q: "queue.Queue[Any]" = queue.Queue(maxsize=queue_size)
        self._on_rejected = on_rejected
        self.dropped = 0
        self._stop = object()
        self._flushed = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        atexit.register(self.close)

    def add(self, event: Dict[str, Any]) -> bool:
        try:
            self._q.put_nowait(event)
            return True
        except queue.Full:
            self.dropped += 1
            return False

    def close(self) -> None:
        if self._t.is_alive():
            self._q.put(self._stop)
            self._t.join()

    def _send(self, batch: List[Dict[str, Any]]) -> None:
        if not batch:
            return
        try:
            r = self._c.send_events(batch)
            if r.get("rejected") and self._on_rejected:
                self._on_rejected(r["rejected"], None)
        except GatewayError as e:
            if self._on_rejected:
                self._on_rejected((e.body or {}).get("rejected", []) if isinstance(e.body, dict) else [], e)

    def _run(self) -> None:
        batch: List[Dict[str, Any]] = []
        deadline = time.monotonic() + self._interval
        while True:
            try:
                item = self._q.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self._send(batch)
                batch = []
                deadline = time.monotonic() + self._interval
                continue
            if item is self._stop:
                self._send(batch)
                return
            batch.append(item)
            if len(batch) >= self._batch:
                self._send(batch)
                batch = []


class AsyncClient:
    """Asynchronous client (httpx.AsyncClient) with the same surface."""

    def __init__(self, base_url: str, api_key: str, http: Optional[httpx.AsyncClient] = None, retry_delay: float = RETRY_DELAY):
        self.base_url, self.api_key = base_url.rstrip("/"), api_key
        self._http = http or httpx.AsyncClient()
        self._retry_delay = retry_delay

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _post(self, path: str, body: Any, timeout: float, headers: Optional[Dict[str, str]] = None) -> httpx.Response:
        h = {"X-API-Key": self.api_key, **(headers or {})}
        last: Optional[Exception] = None
        for attempt in range(2):
            if attempt:
                await asyncio.sleep(self._retry_delay)
            try:
                resp = await self._http.post(self.base_url + path, json=body, headers=h, timeout=timeout)
            except httpx.HTTPError as e:
                last = GatewayError(0, f"cannot reach the gateway: {e}")
                continue
            if resp.status_code >= 500:
                last = _error(resp)
                continue
            if resp.status_code >= 400:
                raise _error(resp)
            return resp
        assert last is not None
        raise last

    async def send_events(self, events: List[Dict[str, Any]]) -> Dict[str, Any]:
        if not 1 <= len(events) <= MAX_BATCH:
            raise ValueError(f"a batch holds 1 to {MAX_BATCH} events")
        return (await self._post("/v1/events", {"events": events}, EVENTS_TIMEOUT)).json()

    async def verify(self, answer: str, prompt: Optional[str] = None, tool_result: Optional[str] = None, **dims) -> Dict[str, Any]:
        body = {k: v for k, v in {"answer": answer, "prompt": prompt, "tool_result": tool_result}.items() if v is not None}
        return (await self._post("/v1/verify", body, CHAT_TIMEOUT, _dims(**dims))).json()

    async def chat(self, prompt: Optional[str] = None, messages: Optional[List[Dict[str, Any]]] = None, **params) -> Dict[str, Any]:
        body = {"prompt": prompt, "messages": messages, **params}
        return (await self._post("/v1/chat", {k: v for k, v in body.items() if v is not None}, CHAT_TIMEOUT)).json()

    async def chat_stream(self, prompt: Optional[str] = None, messages: Optional[List[Dict[str, Any]]] = None, **params):
        body = {k: v for k, v in {"prompt": prompt, "messages": messages, **params, "stream": True}.items() if v is not None}
        async with self._http.stream("POST", self.base_url + "/v1/chat", json=body,
                                     headers={"X-API-Key": self.api_key}, timeout=CHAT_TIMEOUT) as resp:
            if resp.status_code >= 400:
                await resp.aread()
                raise _error(resp)
            async for line in resp.aiter_lines():
                ev = _parse_sse_line(line)
                if ev is None:
                    continue
                if ev.final and ev.final.get("done"):
                    return
                yield ev
            raise GatewayError(502, "the stream ended without [DONE]")
