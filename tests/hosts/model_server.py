"""A scripted model on 127.0.0.1 that speaks the four wire formats the agent hosts use:
Anthropic Messages (SSE), OpenAI Chat Completions, OpenAI Responses and Gemini
generateContent. The model is not ours to test, so it is the one stand-in the suite allows.

The main conversation gets the next scripted tool call, chosen by the number of tool results
already in the conversation; once the script is done, a short text. Side requests (no
tools: titles, summaries, token counts) get a short text. Every request is recorded, and the
tool results each host sent back are read out per format. The server stops on `close()` and
by itself after `lifetime` seconds.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Step = tuple[str, Any]  # (tool name, arguments: a dict, or a string for a freeform tool)


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text_of(item.get("text", item.get("content", "")) if isinstance(item, dict) else item) for item in value)
    return json.dumps(value)


def tool_results(body: dict[str, Any]) -> list[str]:
    """The tool results in one request body, in order, whatever its format."""
    found: list[str] = []
    for message in body.get("messages", []):  # Anthropic, Chat Completions
        if message.get("role") == "tool":
            found.append(_text_of(message.get("content")))
        elif isinstance(message.get("content"), list):
            found += [_text_of(block.get("content")) for block in message["content"]
                      if isinstance(block, dict) and block.get("type") == "tool_result"]
    for item in body.get("input", []) if isinstance(body.get("input"), list) else []:  # Responses
        if isinstance(item, dict) and str(item.get("type", "")).endswith("call_output"):
            found.append(_text_of(item.get("output")))
    for content in body.get("contents", []):  # Gemini
        for part in content.get("parts", []):
            if "functionResponse" in part:
                found.append(json.dumps(part["functionResponse"].get("response")))
    return found


@dataclass
class ScriptedModel:
    steps: list[Step]
    lifetime: float = 300.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    # The first final answer waits until this holds (the host is between its last tool and its
    # Stop), at most `final_wait_limit` seconds; `final_waited` says whether it came to hold.
    final_wait: Callable[[], bool] | None = None
    final_wait_limit: float = 60.0
    final_waited: bool = False

    def __post_init__(self) -> None:
        model = self

        class Handler(_Handler):
            scripted = model

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.timer = threading.Timer(self.lifetime, self.close)
        self.timer.daemon = True
        self.timer.start()

    def wait_before_final(self) -> None:
        condition, self.final_wait = self.final_wait, None
        deadline = time.monotonic() + self.final_wait_limit
        while condition is not None and not condition() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.final_waited = condition is not None and condition()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.timer.cancel()
        self.server.shutdown()
        self.server.server_close()

    def next_step(self, body: dict[str, Any], tools: bool) -> Step | None:
        done = len(tool_results(body))
        return self.steps[done] if tools and done < len(self.steps) else None

    def sent_back(self) -> list[str]:
        """The tool results of the last main request: what the host told the model."""
        main = [body for body in self.requests if _offers_tools(body)]
        return tool_results(main[-1]) if main else []


def _offers_tools(body: dict[str, Any]) -> bool:
    return bool(body.get("tools"))


class _Handler(BaseHTTPRequestHandler):
    scripted: ScriptedModel
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        return

    def do_GET(self) -> None:
        self._json({"data": [{"id": "gpt-4.1", "object": "model"}, {"id": "gpt-5.5", "object": "model"}], "models": []})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        self.scripted.requests.append({"path": self.path, **body} if isinstance(body, dict) else {"path": self.path})
        if "count_tokens" in self.path or "countTokens" in self.path:
            return self._json({"input_tokens": 10, "totalTokens": 10})
        step = self.scripted.next_step(body, _offers_tools(body))
        if step is None and _offers_tools(body) and self.scripted.final_wait is not None:
            self.scripted.wait_before_final()
        if "/responses" in self.path:
            return self._responses(body, step)
        if ":generateContent" in self.path or ":streamGenerateContent" in self.path:
            return self._gemini(step)
        if "/chat/completions" in self.path:
            return self._chat(body, step)
        return self._anthropic(body, step)

    def _json(self, data: Any) -> None:
        raw = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _events(self, events: list[tuple[str | None, Any]]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            self.wfile.write(f"{head}data: {data if isinstance(data, str) else json.dumps(data)}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True

    def _anthropic(self, body: dict[str, Any], step: Step | None) -> None:
        n = len(tool_results(body))
        start = {"type": "message_start", "message": {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": body.get("model"),
                                                      "content": [], "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}}
        if step is None:
            block = [("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                     ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "done"}})]
        else:
            block = [("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "tool_use", "id": f"toolu_{n}", "name": step[0], "input": {}}}),
                     ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                               "delta": {"type": "input_json_delta", "partial_json": json.dumps(step[1])}})]
        stop = "tool_use" if step else "end_turn"
        self._events([("message_start", start), *block, ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                      ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 1}}),
                      ("message_stop", {"type": "message_stop"})])

    def _chat(self, body: dict[str, Any], step: Step | None) -> None:
        n = len(tool_results(body))
        if step is None:
            delta: dict[str, Any] = {"role": "assistant", "content": "done"}
        else:
            arguments = step[1] if isinstance(step[1], str) else json.dumps(step[1])
            delta = {"role": "assistant", "content": None, "tool_calls": [
                {"index": 0, "id": f"call_{n}", "type": "function", "function": {"name": step[0], "arguments": arguments}}]}
        finish = "tool_calls" if step else "stop"
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        base = {"id": f"chat_{n}", "created": int(time.time()), "model": body.get("model")}
        if not body.get("stream"):
            message = {k: v for k, v in delta.items() if k != "tool_calls"}
            if step is not None:
                message["tool_calls"] = [{k: v for k, v in delta["tool_calls"][0].items() if k != "index"}]
            return self._json({**base, "object": "chat.completion", "usage": usage,
                               "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
        chunk = {**base, "object": "chat.completion.chunk"}
        self._events([(None, {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
                      (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage}),
                      (None, "[DONE]")])

    def _responses(self, body: dict[str, Any], step: Step | None) -> None:
        n = len(tool_results(body))
        if step is None:
            item: dict[str, Any] = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                                    "content": [{"type": "output_text", "text": "done", "annotations": []}]}
        elif isinstance(step[1], str):
            item = {"type": "custom_tool_call", "id": f"ctc_{n}", "call_id": f"call_{n}", "name": step[0], "input": step[1], "status": "completed"}
        else:
            item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": step[0], "arguments": json.dumps(step[1]),
                    "status": "completed"}
        response = {"id": f"resp_{n}", "object": "response", "created_at": int(time.time()), "model": body.get("model"), "status": "completed",
                    "output": [item], "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                                                "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}
        self._events([("response.created", {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}}),
                      ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
                      ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
                      ("response.completed", {"type": "response.completed", "response": response})])

    def _gemini(self, step: Step | None) -> None:
        part = {"text": "done"} if step is None else {"functionCall": {"name": step[0], "args": step[1]}}
        answer = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                  "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}, "modelVersion": "gemini-2.5-pro"}
        if "alt=sse" in self.path:
            return self._events([(None, answer)])
        self._json(answer)
